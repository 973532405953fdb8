package io.jrdma.internal.verbs;

import java.lang.foreign.MemorySegment;

/**
 * Walks a scatter/gather list as one byte stream: validates every entry up front (key, PD, access,
 * bounds, as {@code siw_check_sgl} / rxe's {@code copy_data}), then copies to and from memory
 * segments across entry boundaries. One cursor per engine and direction, reused for every WQE, so
 * nothing is allocated per message.
 */
public final class SgCursor {
    private MrImpl[] mrs;
    private long[] addr;
    private int[] length;
    private int count;
    private long total;
    private int sge;
    private long sgeOffset;
    private long position;
    private MemorySegment inline;

    /** A cursor for lists of up to {@code maxSge} entries (it grows if needed). */
    public SgCursor(int maxSge) {
        mrs = new MrImpl[Math.max(1, maxSge)];
    }

    /**
     * Points the cursor at a list and validates it for {@code access} (0 for a local read) on behalf
     * of {@code pd}. Returns an {@link AccessResult} code; on anything but OK the cursor is empty.
     */
    public int reset(MemoryTable table, PdImpl pd, long[] addrs, int[] lengths, int[] lkeys, int numSge,
            int access) {
        if (mrs.length < numSge) {
            mrs = new MrImpl[numSge];
        }
        inline = null;
        addr = addrs;
        length = lengths;
        count = 0;
        total = 0;
        sge = 0;
        sgeOffset = 0;
        position = 0;
        for (int i = 0; i < numSge; i++) {
            long len = lengths[i] & 0xFFFFFFFFL;
            if (len == 0) {
                mrs[i] = null;
                continue;
            }
            MrImpl mr = table.lookup(lkeys[i]);
            if (mr == null) {
                return AccessResult.INVALID_KEY;
            }
            int r = mr.check(pd, addrs[i], len, access);
            if (r != AccessResult.OK) {
                return r;
            }
            mrs[i] = mr;
            total += len;
        }
        count = numSge;
        return AccessResult.OK;
    }

    /** Validates and points at a send WQE's gather list (or its inline bytes). */
    public int resetForSend(MemoryTable table, PdImpl pd, SendWqe w) {
        if (w.inline) {
            inline = w.inlineData;
            count = 0;
            total = w.length;
            position = 0;
            return AccessResult.OK;
        }
        return reset(table, pd, w.sgeAddr, w.sgeLength, w.sgeLkey, w.numSge, 0);
    }

    /** Validates and points at a receive WQE's scatter list for writing. */
    public int resetForRecv(MemoryTable table, PdImpl pd, RecvWqe w, int access) {
        return reset(table, pd, w.sgeAddr, w.sgeLength, w.sgeLkey, w.numSge, access);
    }

    /** Total bytes of the list. */
    public long total() {
        return total;
    }

    /** Bytes consumed so far. */
    public long position() {
        return position;
    }

    /** Bytes left. */
    public long remaining() {
        return total - position;
    }

    /** Skips {@code n} bytes. */
    public void skip(long n) {
        advance(n);
    }

    private void advance(long n) {
        position += n;
        if (inline != null) {
            return;
        }
        while (n > 0 && sge < count) {
            long left = (length[sge] & 0xFFFFFFFFL) - sgeOffset;
            if (n < left) {
                sgeOffset += n;
                return;
            }
            n -= left;
            sge++;
            sgeOffset = 0;
        }
        normalize();
    }

    private void normalize() {
        while (sge < count && (length[sge] & 0xFFFFFFFFL) == sgeOffset) {
            sge++;
            sgeOffset = 0;
        }
    }

    /** Copies {@code n} bytes from this cursor into {@code dst} at {@code dstOff}. */
    public void copyTo(MemorySegment dst, long dstOff, long n) {
        if (inline != null) {
            MemorySegment.copy(inline, position, dst, dstOff, n);
            position += n;
            return;
        }
        normalize();
        while (n > 0) {
            long left = (length[sge] & 0xFFFFFFFFL) - sgeOffset;
            long c = Math.min(left, n);
            MrImpl mr = mrs[sge];
            MemorySegment.copy(mr.segment(), mr.offsetOf(addr[sge]) + sgeOffset, dst, dstOff, c);
            dstOff += c;
            n -= c;
            advance(c);
        }
    }

    /** Copies {@code n} bytes from {@code src} at {@code srcOff} into this cursor. */
    public void copyFrom(MemorySegment src, long srcOff, long n) {
        normalize();
        while (n > 0) {
            long left = (length[sge] & 0xFFFFFFFFL) - sgeOffset;
            long c = Math.min(left, n);
            MrImpl mr = mrs[sge];
            MemorySegment.copy(src, srcOff, mr.segment(), mr.offsetOf(addr[sge]) + sgeOffset, c);
            srcOff += c;
            n -= c;
            advance(c);
        }
    }

    /** Copies {@code n} bytes from this cursor into another cursor. */
    public void copyTo(SgCursor dst, long n) {
        if (inline != null) {
            dst.copyFrom(inline, position, n);
            position += n;
            return;
        }
        normalize();
        while (n > 0) {
            long left = (length[sge] & 0xFFFFFFFFL) - sgeOffset;
            long c = Math.min(left, n);
            MrImpl mr = mrs[sge];
            dst.copyFrom(mr.segment(), mr.offsetOf(addr[sge]) + sgeOffset, c);
            n -= c;
            advance(c);
        }
    }

    /**
     * The region and offset of the next contiguous chunk, for zero-copy I/O: the returned length is
     * at most {@code max}; {@link #chunkSegment()} and {@link #chunkOffset()} give where. Does not
     * advance; call {@link #skip(long)} after using the chunk.
     */
    public long nextChunk(long max) {
        if (inline != null) {
            return Math.min(max, total - position);
        }
        normalize();
        if (sge >= count) {
            return 0;
        }
        return Math.min(max, (length[sge] & 0xFFFFFFFFL) - sgeOffset);
    }

    /** The segment of the chunk found by {@link #nextChunk(long)}. */
    public MemorySegment chunkSegment() {
        return inline != null ? inline : mrs[sge].segment();
    }

    /** The segment offset of the chunk found by {@link #nextChunk(long)}. */
    public long chunkOffset() {
        return inline != null ? position : mrs[sge].offsetOf(addr[sge]) + sgeOffset;
    }

    /** The region of the chunk found by {@link #nextChunk(long)}, or {@code null} for inline data. */
    public MrImpl chunkRegion() {
        return inline != null ? null : mrs[sge];
    }
}
