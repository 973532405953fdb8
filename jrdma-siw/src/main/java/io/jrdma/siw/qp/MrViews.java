package io.jrdma.siw.qp;

import io.jrdma.internal.verbs.MrImpl;
import java.nio.ByteBuffer;

/**
 * A QP's socket views of registered memory: one {@link ByteBuffer} per region and slot, duplicated
 * from the region's buffer the first time and reused after that, so reading from or writing to the
 * socket straight into registered memory allocates nothing in steady state.
 */
final class MrViews {
    private final MrImpl[] regions;
    private final ByteBuffer[] views;

    MrViews(int slots) {
        regions = new MrImpl[slots];
        views = new ByteBuffer[slots];
    }

    /**
     * A view of {@code mr} positioned at segment offset {@code off} with {@code len} bytes remaining,
     * cached in {@code slot}.
     */
    ByteBuffer view(int slot, MrImpl mr, long off, int len) {
        ByteBuffer v;
        if (regions[slot] == mr) {
            v = views[slot];
        } else {
            ByteBuffer base = mr.buffer();
            v = base != null ? base.duplicate()
                    : mr.segment().asSlice(off, len).asByteBuffer(); // regions over 2 GiB: a slice each time
            regions[slot] = base != null ? mr : null;
            views[slot] = v;
            if (base == null) {
                return v;
            }
        }
        v.limit((int) off + len).position((int) off);
        return v;
    }

    /** Forgets every cached view (the QP is closing). */
    void clear() {
        java.util.Arrays.fill(regions, null);
        java.util.Arrays.fill(views, null);
    }
}
