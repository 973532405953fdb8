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
 *   <li><b>Region views</b>: {@link ByteBuffer} duplicates of a registered region's buffer that
 *       this engine positions right before a socket read straight into the region, a CRC over it,
 *       or a gathering write from it. The region keeps them ({@link MrImpl#view}), so nothing here
 *       holds a deregistered region's memory. Creating one allocates; finding it does not.</li>
 * </ul>
 * Engine thread only, except construction.
 */
final class EngineBuffers {
    /** Receive staging: enough for a batch of small FPDUs per system call. */
    static final int RX_BUFFER = 256 * 1024;

    private ByteBuffer rxBuf;
    private MemorySegment rxSeg;
    private TxBatch[] free = new TxBatch[4];
    private int freeCount;
    private int batches;

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
        io.jrdma.internal.engine.EngineMemory.kept(TxBatch.CAPACITY);
        return new TxBatch(this, batches++);
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
        ByteBuffer v = mr.view(this, 0);
        if (v == null) {
            // Regions over 2 GiB, or a region more engines use than it keeps views for: a slice each time.
            return mr.segment().asSlice(off, len).asByteBuffer();
        }
        v.limit((int) off + len).position((int) off);
        return v;
    }

    /**
     * View slot {@code k} of transmit batch {@code batch} in the region's views of this engine (slot
     * 0 is {@link #view}'s).
     */
    static int txSlot(int batch, int k) {
        return 1 + batch * TxBatch.MAX_FPDUS + k;
    }
}
