package io.jrdma.siw.qp;

import io.jrdma.internal.verbs.MrImpl;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * One gathering write in the making: the FPDU headers, trailers and copied small payloads of up to
 * {@link #MAX_FPDUS} FPDUs, in direct memory of the batch's own, and the vector that strings them
 * together with the large payloads written straight from registered memory (Linux siw builds the
 * same iovec in {@code siw_tx_hdt}).
 *
 * <p>A QP holds a batch only while it has one to write: it takes one from its engine's
 * {@link EngineBuffers} when it starts building and gives it back once the last byte went to the
 * socket. An idle QP holds none, so the 130 KiB below are paid per engine (and per QP whose socket
 * is full), not per connection. Engine thread only.
 *
 * <p>A vector entry is either one of the batch's own buffers ({@code vec[i]}) or a region slice
 * ({@code vec[i] == null}: {@code regionMr[i]} at {@code regionOff[i]}, {@code regionLen[i]} bytes
 * left), written on its own through the engine's view of that region: the JDK allocates per
 * gathering write for every buffer that belongs to a memory session, never for a single-buffer
 * write or for buffers of its own.
 */
final class TxBatch {
    /** Most FPDUs per gathering write. */
    static final int MAX_FPDUS = 32;
    /** Bytes reserved per FPDU header (a READ request is the largest, 28 plus room). */
    static final int HEADER_SLOT = 48;
    /** Bytes reserved per FPDU trailer: pad (at most 3) and CRC (4). */
    static final int TRAILER_SLOT = 8;
    /** Vector entries per FPDU: header, up to 6 payload SGEs, trailer. */
    static final int VEC_PER_FPDU = 8;
    /** Vector entries. */
    static final int VEC = MAX_FPDUS * VEC_PER_FPDU;

    /** FPDU headers, one {@link #HEADER_SLOT} per FPDU. */
    final MemorySegment headerSeg;
    /** FPDU trailers, one {@link #TRAILER_SLOT} per FPDU. */
    final MemorySegment trailerSeg;
    /** The header slots as buffers for the vector. */
    final ByteBuffer[] headerViews = new ByteBuffer[MAX_FPDUS];
    /** The trailer slots as buffers for the vector. */
    final ByteBuffer[] trailerViews = new ByteBuffer[MAX_FPDUS];
    /** Copy areas of small payloads, one {@link SiwQp#COPY_THRESHOLD} per FPDU. */
    final ByteBuffer[] stagingViews = new ByteBuffer[MAX_FPDUS];
    /** The same copy areas as segments. */
    final MemorySegment[] stagingSegs = new MemorySegment[MAX_FPDUS];
    /** The vector: the batch's own buffers, or {@code null} for a region slice. */
    final ByteBuffer[] vec = new ByteBuffer[VEC];
    /** Region of a region entry. */
    final MrImpl[] regionMr = new MrImpl[VEC];
    /** Segment offset of what is left of a region entry. */
    final long[] regionOff = new long[VEC];
    /** Bytes left of a region entry. */
    final int[] regionLen = new int[VEC];
    /** Send WQEs (SQ indexes) whose last FPDU is in the batch. */
    final long[] done = new long[MAX_FPDUS];

    /** Allocates the batch's direct memory (about 130 KiB) and its views. */
    TxBatch() {
        int headers = MAX_FPDUS * HEADER_SLOT;
        int trailers = MAX_FPDUS * TRAILER_SLOT;
        int staging = MAX_FPDUS * SiwQp.COPY_THRESHOLD;
        ByteBuffer area = ByteBuffer.allocateDirect(headers + trailers + staging);
        ByteBuffer h = area.slice(0, headers);
        ByteBuffer t = area.slice(headers, trailers);
        headerSeg = MemorySegment.ofBuffer(h);
        trailerSeg = MemorySegment.ofBuffer(t);
        for (int i = 0; i < MAX_FPDUS; i++) {
            headerViews[i] = h.slice(i * HEADER_SLOT, HEADER_SLOT);
            trailerViews[i] = t.slice(i * TRAILER_SLOT, TRAILER_SLOT);
            stagingViews[i] = area.slice(headers + trailers + i * SiwQp.COPY_THRESHOLD, SiwQp.COPY_THRESHOLD);
            stagingSegs[i] = MemorySegment.ofBuffer(stagingViews[i]);
        }
    }

    /** Forgets the vector's entries from {@code from} to {@code to} (exclusive), so no region stays reachable. */
    void clear(int from, int to) {
        for (int i = from; i < to; i++) {
            vec[i] = null;
            regionMr[i] = null;
        }
    }
}
