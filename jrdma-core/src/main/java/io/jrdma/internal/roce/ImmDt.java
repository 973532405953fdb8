package io.jrdma.internal.roce;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight over the Immediate Data Extended Transport Header (IBTA Vol 1 §9.3.7; Linux
 * {@code rxe_hdr.h struct rxe_immdt}), 4 bytes of opaque immediate data in the *_WITH_IMMEDIATE
 * opcodes (after the RETH of RDMA WRITE Only with Immediate, after the DETH in UD):
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                       Immediate Data                          |  0
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 * The data is opaque; verbs hand it over in network order ({@code ibv_wc.imm_data} is
 * {@code __be32}). {@link #immediate()} reads it as a big-endian int, so udaddy's
 * {@code htobe32(qp_num)} reads back as the QPN.
 */
public final class ImmDt {
    /** Header length. */
    public static final int LENGTH = 4;
    /** Offset of the immediate data. */
    public static final int IMMEDIATE_OFFSET = 0;

    private MemorySegment segment;
    private long offset;

    /** An unwrapped flyweight; {@link #wrap} it before use. */
    public ImmDt() {
    }

    /**
     * Points this flyweight at a header.
     *
     * @param segment the buffer
     * @param offset offset of the ImmDt
     * @return this
     */
    public ImmDt wrap(MemorySegment segment, long offset) {
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    /**
     * The immediate data, read big-endian.
     *
     * @return the four bytes as an int
     */
    public int immediate() {
        return BigEndian.u32(segment, offset + IMMEDIATE_OFFSET);
    }

    /**
     * Sets the immediate data, written big-endian.
     *
     * @param value the four bytes as an int
     * @return this
     */
    public ImmDt immediate(int value) {
        BigEndian.putU32(segment, offset + IMMEDIATE_OFFSET, value);
        return this;
    }
}
