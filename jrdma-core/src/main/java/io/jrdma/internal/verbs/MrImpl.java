package io.jrdma.internal.verbs;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * A registered memory region: the segment, its virtual address range and its key. The key is
 * {@code index << 8 | key8} (siw's STag, rxe's lkey/rkey). {@link #valid} is cleared before the
 * region leaves the table, so an engine that looked it up sees the invalidation at its next check.
 */
public final class MrImpl implements MemoryRegion {
    /** Heap segments have no native address; they get synthetic ones from this range upwards. */
    static final long HEAP_VA_BASE = 0x7e00_0000_0000_0000L;

    private final PdImpl pd;
    private final MemorySegment segment;
    private final MemorySegment.Scope scope;
    private final long iova;
    private final long length;
    private final int access;
    final int key;
    private volatile boolean valid = true;
    private volatile boolean closed;
    private final ByteBuffer buffer;
    private final boolean plainBuffer;
    /** Who uses {@link #views}: up to {@link #VIEW_OWNERS} engines, each claimed once (CAS). */
    private final Object[] viewOwners = new Object[VIEW_OWNERS];
    /** Per owner, its duplicates of {@link #buffer} by slot; touched only by the owner's threads. */
    private final ByteBuffer[][] views = new ByteBuffer[VIEW_OWNERS][];
    /** Engines that may keep views of one region. */
    static final int VIEW_OWNERS = 4;
    private static final java.lang.invoke.VarHandle OWNER =
            java.lang.invoke.MethodHandles.arrayElementVarHandle(Object[].class);

    MrImpl(PdImpl pd, MemorySegment segment, long iova, int access, int key) {
        this(pd, segment, iova, access, key, null);
    }

    /**
     * A region over {@code segment}; {@code registered}, when not null, is the direct buffer the
     * caller registered ({@code segment} is its view), kept for socket I/O.
     */
    MrImpl(PdImpl pd, MemorySegment segment, long iova, int access, int key, ByteBuffer registered) {
        this.pd = pd;
        this.segment = segment;
        this.scope = segment.scope();
        this.iova = iova;
        this.length = segment.byteSize();
        this.access = access;
        this.key = key;
        if (registered != null && registered.isDirect()) {
            this.buffer = registered.slice(); // index 0 = segment offset 0
            this.plainBuffer = true;
        } else {
            this.buffer = length <= Integer.MAX_VALUE ? segment.asByteBuffer() : null;
            this.plainBuffer = false;
        }
    }

    @Override
    public int lkey() {
        return key;
    }

    @Override
    public int rkey() {
        return key;
    }

    @Override
    public long address() {
        return iova;
    }

    @Override
    public long length() {
        return length;
    }

    @Override
    public int access() {
        return access;
    }

    @Override
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    /** The owning domain (internal type). */
    public PdImpl pdImpl() {
        return pd;
    }

    @Override
    public boolean isValid() {
        return valid && scope.isAlive();
    }

    /**
     * A {@link ByteBuffer} over the whole region for socket I/O (created once at registration), or
     * {@code null} for regions over 2 GiB. Only one thread may use its position and limit: an engine
     * that shares regions with others must duplicate it once and cache the duplicate.
     */
    public ByteBuffer buffer() {
        return buffer;
    }

    /**
     * Whether {@link #buffer()} is the caller's own direct buffer (registered as a
     * {@link ByteBuffer}) rather than a view of a {@link MemorySegment}. The JDK allocates per
     * gathering write for every buffer that is a segment's view (it acquires and releases the
     * segment's memory session: 40 B per buffer in JDK 25) and for none of these, so only these
     * regions are written to a socket straight from their memory (siw's zero-copy transmit).
     */
    public boolean plainBuffer() {
        return plainBuffer;
    }

    /**
     * A duplicate of {@link #buffer()} that only {@code owner} uses (an engine, whose threads run one
     * at a time), number {@code slot} of its own; {@code null} when the region has no buffer or
     * {@link #VIEW_OWNERS} other owners took the places. Created on first use of the slot and kept
     * by the region, not by the owner, so a deregistered region's memory is not held by an engine
     * that once wrote from it. Allocation-free after the first call per owner and slot.
     */
    public ByteBuffer view(Object owner, int slot) {
        if (buffer == null) {
            return null;
        }
        int i = 0;
        while (true) {
            if (i == VIEW_OWNERS) {
                return null;
            }
            Object o = viewOwners[i];
            if (o == owner) {
                break;
            }
            if (o == null && OWNER.compareAndSet(viewOwners, i, (Object) null, owner)) {
                break;
            }
            if (viewOwners[i] == owner) {
                break;
            }
            i++;
        }
        ByteBuffer[] v = views[i];
        if (v == null || slot >= v.length) {
            v = java.util.Arrays.copyOf(v == null ? new ByteBuffer[0] : v, Math.max(slot + 1, v == null ? 4
                    : 2 * v.length));
            views[i] = v;
        }
        ByteBuffer b = v[slot];
        if (b == null) {
            b = buffer.duplicate();
            v[slot] = b;
        }
        return b;
    }

    /** The offset into the segment of virtual address {@code va}. */
    public long offsetOf(long va) {
        return va - iova;
    }

    /**
     * Checks an access of {@code len} bytes at {@code va} needing {@code needed} {@link Access} bits
     * on behalf of {@code requesterPd}; returns an {@link AccessResult} code. Allocation-free.
     */
    public int check(PdImpl requesterPd, long va, long len, int needed) {
        if (!valid || !scope.isAlive()) {
            // A region whose arena was closed under it is treated as deregistered: the access fails
            // (LOC_PROT_ERR locally, a remote access error for a peer) and nothing touches the memory.
            return AccessResult.INVALID_KEY;
        }
        if (requesterPd != pd) {
            return AccessResult.PD_MISMATCH;
        }
        if ((access & needed) != needed) {
            return AccessResult.ACCESS_RIGHTS;
        }
        long off = va - iova;
        if (len < 0 || off < 0 || off > length || len > length - off) {
            return AccessResult.BOUNDS;
        }
        return AccessResult.OK;
    }

    /** Invalidates the keys (SEND_WITH_INV, LOCAL_INV, deregistration). Returns whether it was valid. */
    public boolean invalidate() {
        boolean was = valid;
        valid = false;
        return was;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        valid = false; // visible before the slot is freed (siw: "make STag invalid visible asap")
        pd.deregister(this);
    }

    @Override
    public String toString() {
        return "MemoryRegion[key=0x" + Integer.toHexString(key) + ", addr=0x" + Long.toHexString(iova) + ", length="
                + length + ", access=" + Access.toString(access) + (valid ? "" : ", invalid") + "]";
    }
}
