package io.jrdma.internal.roce;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight over the Base Transport Header, the first 12 bytes of every RoCEv2 UDP payload
 * (IBTA Vol 1 §9.2, RoCEv2 Annex A17; Linux {@code rxe_hdr.h struct rxe_bth}, {@code BTH_*_MASK}):
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |    OpCode     |S|M|Pad|  TVer |         Partition Key         |  0
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |F|B|  Resv6a   |         Destination QP (24 bits)              |  4
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |A|   Resv7     |     Packet Sequence Number (24 bits)          |  8
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  S solicited event, M MigReq, Pad bytes after the payload (0-3), TVer transport version (0),
 *  F/B FECN/BECN (the whole byte 4 is IBTA's resv8a; the ICRC masks it), A AckReq.
 * </pre>
 * Never allocates or validates; {@link #wrap} and use. Setters return {@code this}.
 */
public final class Bth {
    /** Header length. */
    public static final int LENGTH = 12;
    /** Offset of the opcode byte. */
    public static final int OPCODE_OFFSET = 0;
    /** Offset of the flags byte (SE, M, Pad, TVer). */
    public static final int FLAGS_OFFSET = 1;
    /** Offset of the P_Key. */
    public static final int PKEY_OFFSET = 2;
    /** Offset of resv8a (FECN, BECN, resv6a), the byte the ICRC masks. */
    public static final int RESV8A_OFFSET = 4;
    /** Offset of the 32-bit word holding resv8a and the destination QP. */
    public static final int DEST_QP_OFFSET = 4;
    /** Offset of the 32-bit word holding AckReq, resv7 and the PSN. */
    public static final int ACK_PSN_OFFSET = 8;

    /** Flags byte: solicited event. */
    public static final int FLAG_SE = 0x80;
    /** Flags byte: MigReq. */
    public static final int FLAG_MIG = 0x40;
    /** Flags byte: pad count. */
    public static final int MASK_PAD = 0x30;
    /** Shift of the pad count in the flags byte. */
    public static final int SHIFT_PAD = 4;
    /** Flags byte: transport header version. */
    public static final int MASK_TVER = 0x0f;
    /** Destination-QP word: FECN. */
    public static final int FLAG_FECN = 0x8000_0000;
    /** Destination-QP word: BECN. */
    public static final int FLAG_BECN = 0x4000_0000;
    /** Destination-QP word and PSN word: the 24-bit QPN / PSN. */
    public static final int MASK_QPN = 0x00ff_ffff;
    /** PSN word: AckReq. */
    public static final int FLAG_ACK_REQ = 0x8000_0000;
    /** PSN word: the 24-bit PSN. */
    public static final int MASK_PSN = 0x00ff_ffff;
    /** The default (full-membership) P_Key; rxe's only one ({@code BTH_DEF_PKEY}). */
    public static final int DEFAULT_PKEY = 0xffff;

    private MemorySegment segment;
    private long offset;

    /** An unwrapped flyweight; {@link #wrap} it before use. */
    public Bth() {
    }

    /**
     * Points this flyweight at a header.
     *
     * @param segment the buffer
     * @param offset offset of the BTH in it
     * @return this
     */
    public Bth wrap(MemorySegment segment, long offset) {
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    /**
     * The wrapped buffer.
     *
     * @return the segment
     */
    public MemorySegment segment() {
        return segment;
    }

    /**
     * Where the header starts in the buffer.
     *
     * @return the offset
     */
    public long offset() {
        return offset;
    }

    /**
     * The opcode (IBTA Table 38; see {@link IbOpcode}).
     *
     * @return 0..255
     */
    public int opcode() {
        return BigEndian.u8(segment, offset + OPCODE_OFFSET);
    }

    /**
     * Sets the opcode.
     *
     * @param opcode 0..255
     * @return this
     */
    public Bth opcode(int opcode) {
        BigEndian.putU8(segment, offset + OPCODE_OFFSET, opcode);
        return this;
    }

    /**
     * The opcode of the BTH at {@code offset}, without wrapping.
     *
     * @param segment the buffer
     * @param offset offset of the BTH
     * @return 0..255
     */
    public static int opcode(MemorySegment segment, long offset) {
        return BigEndian.u8(segment, offset + OPCODE_OFFSET);
    }

    /**
     * The destination QPN of the BTH at {@code offset}, without wrapping.
     *
     * @param segment the buffer
     * @param offset offset of the BTH
     * @return 24-bit QPN
     */
    public static int destQpn(MemorySegment segment, long offset) {
        return BigEndian.u32(segment, offset + DEST_QP_OFFSET) & MASK_QPN;
    }

    private int flags() {
        return BigEndian.u8(segment, offset + FLAGS_OFFSET);
    }

    private Bth flags(int mask, int bits) {
        BigEndian.putU8(segment, offset + FLAGS_OFFSET, flags() & ~mask | bits & mask);
        return this;
    }

    /**
     * Solicited event.
     *
     * @return the SE bit
     */
    public boolean solicitedEvent() {
        return (flags() & FLAG_SE) != 0;
    }

    /**
     * Sets solicited event.
     *
     * @param se the SE bit
     * @return this
     */
    public Bth solicitedEvent(boolean se) {
        return flags(FLAG_SE, se ? FLAG_SE : 0);
    }

    /**
     * MigReq.
     *
     * @return the M bit
     */
    public boolean migReq() {
        return (flags() & FLAG_MIG) != 0;
    }

    /**
     * Sets MigReq.
     *
     * @param mig the M bit
     * @return this
     */
    public Bth migReq(boolean mig) {
        return flags(FLAG_MIG, mig ? FLAG_MIG : 0);
    }

    /**
     * Pad count: bytes between the payload and the ICRC that make the payload a multiple of 4.
     *
     * @return 0..3
     */
    public int padCount() {
        return (flags() & MASK_PAD) >>> SHIFT_PAD;
    }

    /**
     * Sets the pad count.
     *
     * @param pad 0..3 (higher bits are dropped)
     * @return this
     */
    public Bth padCount(int pad) {
        return flags(MASK_PAD, pad << SHIFT_PAD);
    }

    /**
     * Transport header version.
     *
     * @return 0..15; rxe sends 0
     */
    public int tver() {
        return flags() & MASK_TVER;
    }

    /**
     * Sets the transport header version.
     *
     * @param tver 0..15
     * @return this
     */
    public Bth tver(int tver) {
        return flags(MASK_TVER, tver);
    }

    /**
     * Partition key.
     *
     * @return 16-bit P_Key
     */
    public int pkey() {
        return BigEndian.u16(segment, offset + PKEY_OFFSET);
    }

    /**
     * Sets the partition key.
     *
     * @param pkey 16-bit P_Key
     * @return this
     */
    public Bth pkey(int pkey) {
        BigEndian.putU16(segment, offset + PKEY_OFFSET, pkey);
        return this;
    }

    /**
     * Byte 4 as a whole (IBTA resv8a: FECN, BECN and resv6a), which the ICRC does not cover.
     *
     * @return 0..255
     */
    public int resv8a() {
        return BigEndian.u8(segment, offset + RESV8A_OFFSET);
    }

    /**
     * Sets byte 4.
     *
     * @param resv8a 0..255
     * @return this
     */
    public Bth resv8a(int resv8a) {
        BigEndian.putU8(segment, offset + RESV8A_OFFSET, resv8a);
        return this;
    }

    /**
     * FECN (forward explicit congestion notification, RoCEv2).
     *
     * @return the F bit
     */
    public boolean fecn() {
        return (BigEndian.u32(segment, offset + DEST_QP_OFFSET) & FLAG_FECN) != 0;
    }

    /**
     * BECN (backward explicit congestion notification, RoCEv2).
     *
     * @return the B bit
     */
    public boolean becn() {
        return (BigEndian.u32(segment, offset + DEST_QP_OFFSET) & FLAG_BECN) != 0;
    }

    /**
     * Destination QP number.
     *
     * @return 24-bit QPN
     */
    public int destQpn() {
        return BigEndian.u32(segment, offset + DEST_QP_OFFSET) & MASK_QPN;
    }

    /**
     * Sets the destination QP number, keeping byte 4.
     *
     * @param qpn 24-bit QPN
     * @return this
     */
    public Bth destQpn(int qpn) {
        BigEndian.putU24(segment, offset + DEST_QP_OFFSET + 1, qpn);
        return this;
    }

    /**
     * AckReq: the responder shall acknowledge this packet.
     *
     * @return the A bit
     */
    public boolean ackReq() {
        return (BigEndian.u32(segment, offset + ACK_PSN_OFFSET) & FLAG_ACK_REQ) != 0;
    }

    /**
     * Sets AckReq, keeping the PSN and clearing resv7.
     *
     * @param ackReq the A bit
     * @return this
     */
    public Bth ackReq(boolean ackReq) {
        BigEndian.putU8(segment, offset + ACK_PSN_OFFSET, ackReq ? 0x80 : 0);
        return this;
    }

    /**
     * Packet sequence number.
     *
     * @return 24-bit PSN
     */
    public int psn() {
        return BigEndian.u32(segment, offset + ACK_PSN_OFFSET) & MASK_PSN;
    }

    /**
     * Sets the PSN, keeping AckReq.
     *
     * @param psn 24-bit PSN (higher bits are dropped)
     * @return this
     */
    public Bth psn(int psn) {
        BigEndian.putU24(segment, offset + ACK_PSN_OFFSET + 1, psn);
        return this;
    }

    /**
     * Writes a whole header the way rxe's {@code bth_init} does: TVer 0, resv8a 0, resv7 0.
     *
     * @param opcode opcode
     * @param se solicited event
     * @param mig MigReq
     * @param pad pad count 0..3
     * @param pkey P_Key
     * @param destQpn destination QPN
     * @param ackReq AckReq
     * @param psn PSN
     * @return this
     */
    public Bth init(int opcode, boolean se, boolean mig, int pad, int pkey, int destQpn, boolean ackReq, int psn) {
        BigEndian.putU8(segment, offset + OPCODE_OFFSET, opcode);
        BigEndian.putU8(segment, offset + FLAGS_OFFSET,
                (se ? FLAG_SE : 0) | (mig ? FLAG_MIG : 0) | (pad << SHIFT_PAD) & MASK_PAD);
        BigEndian.putU16(segment, offset + PKEY_OFFSET, pkey);
        BigEndian.putU32(segment, offset + DEST_QP_OFFSET, destQpn & MASK_QPN);
        BigEndian.putU32(segment, offset + ACK_PSN_OFFSET, (ackReq ? FLAG_ACK_REQ : 0) | psn & MASK_PSN);
        return this;
    }
}
