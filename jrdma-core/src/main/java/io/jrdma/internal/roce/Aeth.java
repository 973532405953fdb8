package io.jrdma.internal.roce;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight over the ACK Extended Transport Header (IBTA Vol 1 §9.3.5, Tables 41-43; Linux
 * {@code rxe_hdr.h struct rxe_aeth}, {@code enum aeth_syndrome}), 4 bytes after the BTH of
 * Acknowledge, Atomic Acknowledge and RDMA READ Response First/Last/Only:
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |0 Typ|  Value  |     Message Sequence Number (24 bits)         |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  Syndrome = bit 7 reserved (0), Type (bits 6-5), Value (bits 4-0):
 *    type 00 ACK      value = credit count (0x1F: invalid/unlimited; rxe always sends 0x1F)
 *    type 01 RNR NAK  value = RNR timer code (IBTA Table 45)
 *    type 10 reserved
 *    type 11 NAK      value = 0 PSN sequence error, 1 invalid request, 2 remote access error,
 *                             3 remote operational error, 4 invalid RD request
 * </pre>
 */
public final class Aeth {
    /** Header length. */
    public static final int LENGTH = 4;
    /** Offset of the syndrome byte. */
    public static final int SYNDROME_OFFSET = 0;
    /** Offset of the 32-bit word holding syndrome and MSN. */
    public static final int SYNDROME_MSN_OFFSET = 0;
    /** Word: the 24-bit MSN. */
    public static final int MASK_MSN = 0x00ff_ffff;
    /** Syndrome: the type bits. */
    public static final int MASK_TYPE = 0xe0;
    /** Syndrome: the value bits (credits, RNR timer or NAK code). */
    public static final int MASK_VALUE = 0x1f;
    /** Syndrome type ACK. */
    public static final int TYPE_ACK = 0x00;
    /** Syndrome type RNR NAK. */
    public static final int TYPE_RNR_NAK = 0x20;
    /** Syndrome type reserved. */
    public static final int TYPE_RESERVED = 0x40;
    /** Syndrome type NAK. */
    public static final int TYPE_NAK = 0x60;
    /** ACK credit count "invalid", meaning no end-to-end credits; rxe's {@code AETH_ACK_UNLIMITED}. */
    public static final int CREDITS_UNLIMITED = 0x1f;
    /** NAK code: PSN sequence error. */
    public static final int NAK_PSN_SEQUENCE_ERROR = 0;
    /** NAK code: invalid request. */
    public static final int NAK_INVALID_REQUEST = 1;
    /** NAK code: remote access error. */
    public static final int NAK_REMOTE_ACCESS_ERROR = 2;
    /** NAK code: remote operational error. */
    public static final int NAK_REMOTE_OPERATIONAL_ERROR = 3;
    /** NAK code: invalid RD request. */
    public static final int NAK_INVALID_RD_REQUEST = 4;

    private MemorySegment segment;
    private long offset;

    /** An unwrapped flyweight; {@link #wrap} it before use. */
    public Aeth() {
    }

    /**
     * Points this flyweight at a header.
     *
     * @param segment the buffer
     * @param offset offset of the AETH
     * @return this
     */
    public Aeth wrap(MemorySegment segment, long offset) {
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    /**
     * The syndrome byte.
     *
     * @return 0..255
     */
    public int syndrome() {
        return BigEndian.u8(segment, offset + SYNDROME_OFFSET);
    }

    /**
     * The syndrome type.
     *
     * @return {@link #TYPE_ACK}, {@link #TYPE_RNR_NAK}, {@link #TYPE_RESERVED} or {@link #TYPE_NAK}
     */
    public int type() {
        return syndrome() & MASK_TYPE;
    }

    /**
     * Whether this is a positive acknowledgement.
     *
     * @return syndrome type ACK
     */
    public boolean isAck() {
        return type() == TYPE_ACK;
    }

    /**
     * Whether this is an RNR NAK.
     *
     * @return syndrome type RNR NAK
     */
    public boolean isRnrNak() {
        return type() == TYPE_RNR_NAK;
    }

    /**
     * Whether this is a NAK.
     *
     * @return syndrome type NAK
     */
    public boolean isNak() {
        return type() == TYPE_NAK;
    }

    /**
     * The low five syndrome bits: credit count (ACK), timer code (RNR NAK) or NAK code (NAK).
     *
     * @return 0..31
     */
    public int value() {
        return syndrome() & MASK_VALUE;
    }

    /**
     * Message sequence number.
     *
     * @return 24-bit MSN
     */
    public int msn() {
        return BigEndian.u32(segment, offset + SYNDROME_MSN_OFFSET) & MASK_MSN;
    }

    /**
     * Writes syndrome and MSN.
     *
     * @param syndrome the syndrome byte
     * @param msn 24-bit MSN
     * @return this
     */
    public Aeth set(int syndrome, int msn) {
        BigEndian.putU32(segment, offset + SYNDROME_MSN_OFFSET, (syndrome & 0xff) << 24 | msn & MASK_MSN);
        return this;
    }

    /**
     * Writes an ACK.
     *
     * @param credits credit count ({@link #CREDITS_UNLIMITED} as rxe)
     * @param msn 24-bit MSN
     * @return this
     */
    public Aeth ack(int credits, int msn) {
        return set(TYPE_ACK | credits & MASK_VALUE, msn);
    }

    /**
     * Writes an RNR NAK.
     *
     * @param timer RNR timer code (IBTA Table 45)
     * @param msn 24-bit MSN
     * @return this
     */
    public Aeth rnrNak(int timer, int msn) {
        return set(TYPE_RNR_NAK | timer & MASK_VALUE, msn);
    }

    /**
     * Writes a NAK.
     *
     * @param code one of the {@code NAK_*} codes
     * @param msn 24-bit MSN
     * @return this
     */
    public Aeth nak(int code, int msn) {
        return set(TYPE_NAK | code & MASK_VALUE, msn);
    }
}
