package io.jrdma.siw.qp;

import io.jrdma.internal.verbs.MrImpl;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * What the QPs of one engine share, since only one of them runs at a time: the receive staging
 * buffer, the pool of transmit batches, and the socket views of registered regions. Linux siw
 * needs none of this (it parses socket buffers in place and sends from page vectors); a Java QP
 * that owned them would cost hundreds of KiB per connection.
 *
 * <ul>
 *   <li><b>Receive staging</b> ({@link #RX_BUFFER}): a QP reads a batch of FPDUs into it, parses and
 *       places them, and before it returns keeps the few bytes of an FPDU cut by the read (at most a
 *       header or a trailer) in a carry of its own.</li>
 *   <li><b>Transmit batches</b> ({@link TxBatch}): taken while building a socket write and given
 *       back when it went out; the pool grows to the number of QPs whose socket is full at once.</li>
 *   <li><b>Region views</b>: one {@link ByteBuffer} duplicate per registered region, in a small
 *       two-way cache, positioned right before each socket read straight into a region. Creating
 *       one allocates; finding it does not.</li>
 * </ul>
 * Engine thread only, except construction.
 */
final class EngineBuffers {
    /** Receive staging: enough for a batch of small FPDUs per system call. */
    static final int RX_BUFFER = 256 * 1024;
    /** Region views cached (a power of two); two ways per set. */
    static final int VIEWS = 128;

    private ByteBuffer rxBuf;
    private MemorySegment rxSeg;
    private TxBatch[] free = new TxBatch[4];
    private int freeCount;
    private int batches;
    private final MrImpl[] viewMr = new MrImpl[VIEWS];
    private final ByteBuffer[] views = new ByteBuffer[VIEWS];
    private int nextWay;

    /** The receive staging buffer (allocated on first use). */
    ByteBuffer rxBuffer() {
        if (rxBuf == null) {
            rxBuf = ByteBuffer.allocateDirect(RX_BUFFER);
            io.jrdma.internal.engine.EngineMemory.kept(RX_BUFFER);
            rxSeg = MemorySegment.ofBuffer(rxBuf);
        }
        return rxBuf;
    }

    /** The receive staging buffer as a segment; {@link #rxBuffer()} first. */
    MemorySegment rxSegment() {
        return rxSeg;
    }

    /** A transmit batch, from the pool or new. */
    TxBatch acquire() {
        if (freeCount > 0) {
            TxBatch b = free[--freeCount];
            free[freeCount] = null;
            return b;
        }
        batches++;
        io.jrdma.internal.engine.EngineMemory.kept(TxBatch.CAPACITY);
        return new TxBatch();
    }

    /** Gives {@code b} back; its vector must be cleared. */
    void release(TxBatch b) {
        if (freeCount == free.length) {
            free = java.util.Arrays.copyOf(free, free.length * 2);
        }
        free[freeCount++] = b;
    }

    /** Transmit batches created so far (tests, diagnostics). */
    int batches() {
        return batches;
    }

    /**
     * The engine's socket view of {@code mr}, positioned at segment offset {@code off} with
     * {@code len} bytes remaining. Valid until the next call; use it at once.
     */
    ByteBuffer view(MrImpl mr, long off, int len) {
        ByteBuffer base = mr.buffer();
        if (base == null) {
            return mr.segment().asSlice(off, len).asByteBuffer(); // regions over 2 GiB: a slice each time
        }
        int set = System.identityHashCode(mr) & (VIEWS - 2);
        ByteBuffer v;
        if (viewMr[set] == mr) {
            v = views[set];
        } else if (viewMr[set + 1] == mr) {
            v = views[set + 1];
        } else {
            int i = set + (nextWay ^= 1);
            v = base.duplicate();
            viewMr[i] = mr;
            views[i] = v;
        }
        v.limit((int) off + len).position((int) off);
        return v;
    }
}
