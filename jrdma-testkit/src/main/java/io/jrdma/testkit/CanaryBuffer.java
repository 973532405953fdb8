package io.jrdma.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A registered region with guard bytes on both sides: the allocation is {@link #GUARD} canary bytes,
 * the body, and {@link #GUARD} canary bytes; only the body is registered. A test snapshots the body,
 * runs an operation, and then proves that the guards are intact and that no byte of the body outside
 * the targeted range changed ({@link #assertOnlyChanged}).
 */
public final class CanaryBuffer implements AutoCloseable {
    /** Canary bytes on each side of the body. */
    public static final int GUARD = 64;
    /** The canary value. */
    public static final byte CANARY = (byte) 0xC5;

    private final Arena arena;
    private final MemorySegment all;
    private final MemorySegment body;
    private final MemoryRegion mr;

    private CanaryBuffer(Arena arena, MemorySegment all, MemorySegment body, MemoryRegion mr) {
        this.arena = arena;
        this.all = all;
        this.body = body;
        this.mr = mr;
    }

    /**
     * Allocates {@code size} body bytes of {@code kind} memory between two guards, fills the body with
     * pattern {@code seed}, and registers the body in {@code pd} with {@code access}.
     */
    public static CanaryBuffer register(ProtectionDomain pd, MemoryKind kind, int size, int access, long seed) {
        Arena arena = kind == MemoryKind.NATIVE ? Arena.ofShared() : null;
        int total = size + 2 * GUARD;
        MemorySegment all;
        MemorySegment body;
        MemoryRegion mr;
        try {
            switch (kind) {
                case NATIVE -> {
                    all = arena.allocate(total, 8);
                    body = all.asSlice(GUARD, size);
                }
                case HEAP -> {
                    all = MemorySegment.ofArray(new byte[total]);
                    body = all.asSlice(GUARD, size);
                }
                case DIRECT_BUFFER -> {
                    ByteBuffer bb = ByteBuffer.allocateDirect(total);
                    all = MemorySegment.ofBuffer(bb);
                    body = all.asSlice(GUARD, size);
                }
                default -> throw new IllegalArgumentException(String.valueOf(kind));
            }
            all.fill(CANARY);
            DataPattern.fill(body, 0, size, seed);
            if (kind == MemoryKind.DIRECT_BUFFER) {
                ByteBuffer view = all.asByteBuffer().position(GUARD).limit(GUARD + size);
                mr = pd.registerMemory(view, access);
            } else {
                mr = pd.registerMemory(body, access);
            }
        } catch (RuntimeException e) {
            if (arena != null) {
                arena.close();
            }
            throw e;
        }
        return new CanaryBuffer(arena, all, body, mr);
    }

    /** A native buffer of {@code size} bytes holding pattern {@code seed}. */
    public static CanaryBuffer register(ProtectionDomain pd, int size, int access, long seed) {
        return register(pd, MemoryKind.NATIVE, size, access, seed);
    }

    /** The registered body. */
    public MemorySegment body() {
        return body;
    }

    /** The region over the body. */
    public MemoryRegion mr() {
        return mr;
    }

    /** The body size. */
    public int size() {
        return (int) body.byteSize();
    }

    /** The virtual address of body byte {@code off} (for SGEs and remote addresses). */
    public long addr(long off) {
        return mr.address() + off;
    }

    /** A copy of the body. */
    public byte[] snapshot() {
        return body.toArray(ValueLayout.JAVA_BYTE);
    }

    /** Fills the body with pattern {@code seed}. */
    public void fill(long seed) {
        DataPattern.fill(body, 0, body.byteSize(), seed);
    }

    /** Asserts that both guards still hold only canary bytes. */
    public void assertGuardsIntact() {
        long size = body.byteSize();
        for (long i = 0; i < GUARD; i++) {
            byte lo = all.get(ValueLayout.JAVA_BYTE, i);
            byte hi = all.get(ValueLayout.JAVA_BYTE, GUARD + size + i);
            if (lo != CANARY) {
                throw new AssertionError("guard byte " + (i - GUARD) + " before the region was overwritten with 0x"
                        + Integer.toHexString(lo & 0xFF));
            }
            if (hi != CANARY) {
                throw new AssertionError("guard byte " + i + " after the region was overwritten with 0x"
                        + Integer.toHexString(hi & 0xFF));
            }
        }
    }

    /**
     * Asserts the guards are intact and that every body byte outside {@code [off, off+len)} equals
     * {@code before}.
     */
    public void assertOnlyChanged(byte[] before, long off, long len) {
        assertGuardsIntact();
        byte[] now = snapshot();
        for (int i = 0; i < now.length; i++) {
            if ((i < off || i >= off + len) && now[i] != before[i]) {
                throw new AssertionError("byte " + i + " of the region changed outside the target range [" + off
                        + ", " + (off + len) + "): 0x" + Integer.toHexString(before[i] & 0xFF) + " -> 0x"
                        + Integer.toHexString(now[i] & 0xFF));
            }
        }
    }

    /** Asserts the guards and the whole body are unchanged since {@code before}. */
    public void assertUnchanged(byte[] before) {
        assertGuardsIntact();
        assertThat(Arrays.mismatch(snapshot(), before)).as("first changed byte of the region").isEqualTo(-1);
    }

    /** Deregisters the region (if still registered) and frees the memory. */
    @Override
    public void close() {
        mr.close();
        if (arena != null) {
            arena.close();
        }
    }
}
