package io.jrdma.internal.roce;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight over the Datagram Extended Transport Header (IBTA Vol 1 §9.3.2; Linux {@code rxe_hdr.h
 * struct rxe_deth}), 8 bytes after the BTH of every UD packet:
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                         Queue Key                             |  0
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |   Reserved    |            Source QP (24 bits)                |  4
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 * CM MADs use Q_Key {@link #GSI_QKEY} and source QP 1.
 */
public final class Deth {
    /** Header length. */
    public static final int LENGTH = 8;
    /** Offset of the Q_Key. */
    public static final int QKEY_OFFSET = 0;
    /** Offset of the 32-bit word holding the source QP. */
    public static final int SRC_QP_OFFSET = 4;
    /** Word: the 24-bit source QPN. */
    public static final int MASK_SRC_QP = 0x00ff_ffff;
    /** The well-known Q_Key of QP1 ({@code IB_QP1_QKEY}, rxe's {@code GSI_QKEY}). */
    public static final int GSI_QKEY = 0x8001_0000;

    private MemorySegment segment;
    private long offset;

    /** An unwrapped flyweight; {@link #wrap} it before use. */
    public Deth() {
    }

    /**
     * Points this flyweight at a header.
     *
     * @param segment the buffer
     * @param offset offset of the DETH
     * @return this
     */
    public Deth wrap(MemorySegment segment, long offset) {
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    /**
     * Queue key.
     *
     * @return the Q_Key
     */
    public int qkey() {
        return BigEndian.u32(segment, offset + QKEY_OFFSET);
    }

    /**
     * Sets the queue key.
     *
     * @param qkey the Q_Key
     * @return this
     */
    public Deth qkey(int qkey) {
        BigEndian.putU32(segment, offset + QKEY_OFFSET, qkey);
        return this;
    }

    /**
     * Source QP number.
     *
     * @return 24-bit QPN
     */
    public int srcQpn() {
        return BigEndian.u32(segment, offset + SRC_QP_OFFSET) & MASK_SRC_QP;
    }

    /**
     * Sets the source QP number; the reserved byte becomes 0.
     *
     * @param qpn 24-bit QPN
     * @return this
     */
    public Deth srcQpn(int qpn) {
        BigEndian.putU32(segment, offset + SRC_QP_OFFSET, qpn & MASK_SRC_QP);
        return this;
    }
}
