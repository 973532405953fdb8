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
    private final long iova;
    private final long length;
    private final int access;
    final int key;
    private volatile boolean valid = true;
    private volatile boolean closed;
    private final ByteBuffer buffer;

    MrImpl(PdImpl pd, MemorySegment segment, long iova, int access, int key) {
        this.pd = pd;
        this.segment = segment;
        this.iova = iova;
        this.length = segment.byteSize();
        this.access = access;
        this.key = key;
        this.buffer = length <= Integer.MAX_VALUE ? segment.asByteBuffer() : null;
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
        return valid;
    }

    /**
     * A {@link ByteBuffer} over the whole region for socket I/O (created once at registration), or
     * {@code null} for regions over 2 GiB. Only one thread may use its position and limit: an engine
     * that shares regions with others must duplicate it once and cache the duplicate.
     */
    public ByteBuffer buffer() {
        return buffer;
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
        if (!valid) {
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
