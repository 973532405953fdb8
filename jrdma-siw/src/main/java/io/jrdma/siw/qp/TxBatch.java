package io.jrdma.siw.qp;

import io.jrdma.siw.wire.FpduHeader;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * One socket write in the making: up to {@link #MAX_FPDUS} FPDUs (header, payload, pad, CRC)
 * laid out in stream order in direct memory of the batch's own, and written with one
 * {@code write} call (Linux siw builds an iovec of the same FPDUs in {@code siw_tx_hdt}).
 *
 * <p>The payload is copied in, also when it is large. Measured on loopback TCP (64 KiB FPDUs, a
 * 2-core machine): writing header, region payload and trailer as three writes puts a tiny TCP
 * segment beside every payload segment and streamed at 0.8-1.2 GB/s; a gathering write of the
 * region views allocates 40 B per region buffer in the JDK (each buffer that belongs to a memory
 * session is acquired and released) and streamed at 1.4-1.8 GB/s; corking with TCP_NODELAY
 * allocates 24 B per {@code setOption} and streamed at 1.7-2.0 GB/s; copying into one buffer and
 * writing it at once streamed at 2.2-2.9 GB/s and allocates nothing.
 *
 * <p>A QP holds a batch only while it has one to write: it takes one from its engine's
 * {@link EngineBuffers} when it starts building and gives it back once the last byte went to the
 * socket. An idle QP holds none, so the memory below is paid per engine (and per QP whose socket
 * is full), not per connection. Engine thread only.
 */
final class TxBatch {
    /** Most FPDUs per write. */
    static final int MAX_FPDUS = 32;
    /** Payload bytes after which no further FPDU is added to a write. */
    static final int MAX_BYTES = 512 * 1024;
    /** Header, pad and CRC of one FPDU, at most (a READ request header is the largest, 28 bytes). */
    static final int OVERHEAD = 64;
    /** Room: the payload limit, one more FPDU of the largest size that may cross it, and the overheads. */
    static final int CAPACITY = MAX_BYTES + FpduHeader.MAX_MPA_LENGTH + 8 + MAX_FPDUS * OVERHEAD;

    /** The FPDUs in stream order. */
    final ByteBuffer buffer;
    /** The same memory as a segment. */
    final MemorySegment segment;
    /** Send WQEs (SQ indexes) whose last FPDU is in the batch. */
    final long[] done = new long[MAX_FPDUS];
    /** Where in the batch each of {@link #done} ends. */
    final int[] doneEnd = new int[MAX_FPDUS];
    /** Where in the batch the last response FPDU of each IRQ entry finished in it ends. */
    final int[] irqEnd = new int[MAX_FPDUS];

    /** Allocates the batch's direct memory ({@link #CAPACITY} bytes). */
    TxBatch() {
        buffer = ByteBuffer.allocateDirect(CAPACITY);
        segment = MemorySegment.ofBuffer(buffer);
    }
}
