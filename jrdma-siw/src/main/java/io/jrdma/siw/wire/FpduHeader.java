package io.jrdma.siw.wire;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight over the head of an iWARP FPDU: the MPA ULPDU_Length (RFC 5044 §4), the DDP header
 * (RFC 5041 §4) and the RDMAP fields carried in it (RFC 5040 §4). Linux: {@code siw/iwarp.h}
 * {@code struct iwarp_ctrl}, {@code iwarp_ctrl_tagged}, {@code iwarp_ctrl_untagged}.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-------------------------------+-+-+-------+---+---+---+-------+
 * |  ULPDU_Length (MPA, 5044 §4)  |T|L| Rsvd  | DV| RV|Rsv| Opcode|   DV = DDP version 1,
 * +-------------------------------+-+-+-------+---+---+---+-------+   RV = RDMAP version 1
 * Tagged (T=1, RFC 5041 §4.2), 16 bytes:
 * |                       Data Sink STag                          |  4
 * |                  Data Sink Tagged Offset (64 bits)            |  8
 * Untagged (T=0, RFC 5041 §4.3), 20 bytes:
 * |     RsvdULP: reserved, or Invalidate STag (RFC 5040 §4.7)    |  4
 * |                       Queue Number (QN)                       |  8
 * |                Message Sequence Number (MSN)                  | 12
 * |                     Message Offset (MO)                       | 16
 * +---------------------------------------------------------------+
 * | RDMA Read Request / Terminate: more RDMAP header (see          |
 * | ReadRequestHeader, TerminateHeader)                           |
 * | ULP payload                                                   |
 * | pad to a multiple of 4 (counted from the ULPDU_Length field)  |
 * | CRC32c (RFC 5044 §4.1), always present; zero when CRC is off  |
 * +---------------------------------------------------------------+
 * </pre>
 * ULPDU_Length counts the DDP/RDMAP header and the payload, not itself, the pad or the CRC. Offsets
 * are from the first byte of ULPDU_Length. The flyweight neither allocates nor checks anything; use
 * {@link #check} before trusting a received header.
 */
public final class FpduHeader {
    /** Offset of the MPA ULPDU_Length (2 bytes). */
    public static final int MPA_LENGTH_OFFSET = 0;
    /** Offset of the DDP/RDMAP control word (2 bytes). */
    public static final int CTRL_OFFSET = 2;
    /** Tagged: offset of the Data Sink STag. */
    public static final int STAG_OFFSET = 4;
    /** Tagged: offset of the 64-bit Data Sink Tagged Offset. */
    public static final int TO_OFFSET = 8;
    /** Untagged: offset of RsvdULP, the Invalidate STag of Send with Invalidate (reserved, zero otherwise). */
    public static final int INVALIDATE_STAG_OFFSET = 4;
    /** Untagged: offset of the Queue Number. */
    public static final int QN_OFFSET = 8;
    /** Untagged: offset of the Message Sequence Number. */
    public static final int MSN_OFFSET = 12;
    /** Untagged: offset of the Message Offset. */
    public static final int MO_OFFSET = 16;
    /** Length of a tagged header, MPA length included (siw {@code sizeof(struct iwarp_ctrl_tagged)}). */
    public static final int TAGGED_LENGTH = 16;
    /** Length of an untagged header, MPA length included (siw {@code sizeof(struct iwarp_ctrl_untagged)}). */
    public static final int UNTAGGED_LENGTH = 20;
    /** Length of the ULPDU_Length field (siw {@code MPA_HDR_SIZE}). */
    public static final int MPA_LENGTH_FIELD_LENGTH = 2;
    /** Length of the CRC trailer (siw {@code MPA_CRC_SIZE}); on the wire even when CRC is off. */
    public static final int CRC_LENGTH = 4;
    /** Largest ULPDU_Length the 16-bit field can carry. */
    public static final int MAX_MPA_LENGTH = 0xFFFF;
    /** Smallest useful look-ahead: ULPDU_Length and the control word. */
    public static final int MIN_PEEK_LENGTH = 4;

    /** DDP T flag: tagged buffer model. */
    public static final int FLAG_TAGGED = 0x8000;
    /** DDP L flag: last segment of the message. */
    public static final int FLAG_LAST = 0x4000;
    /** DDP reserved bits of the control word. */
    public static final int MASK_DDP_RESERVED = 0x3C00;
    /** DDP version bits. */
    public static final int MASK_DDP_VERSION = 0x0300;
    /** Shift of the DDP version. */
    public static final int SHIFT_DDP_VERSION = 8;
    /** RDMAP version bits. */
    public static final int MASK_RDMAP_VERSION = 0x00C0;
    /** Shift of the RDMAP version. */
    public static final int SHIFT_RDMAP_VERSION = 6;
    /** RDMAP reserved bits of the control word. */
    public static final int MASK_RDMAP_RESERVED = 0x0030;
    /** RDMAP opcode bits. */
    public static final int MASK_OPCODE = 0x000F;
    /** The only DDP version (RFC 5041 §4.1). */
    public static final int DDP_VERSION = 1;
    /** The only RDMAP version (RFC 5040 §4.2). */
    public static final int RDMAP_VERSION = 1;
    /** siw rounds its TCP segment size down to a multiple of 8 ({@code siw_update_tcpseg}). */
    public static final int MASK_SEGMENT_ALIGN = ~7;
    /** Returned by {@link #peekFpduLength} when fewer than 2 bytes are available. */
    public static final int NEED_MORE = -1;

    private MemorySegment segment;
    private long offset;

    /** Creates an unwrapped flyweight; call {@code wrap} before any accessor. */
    public FpduHeader() {
    }

    /**
     * Points the flyweight at an FPDU.
     *
     * @param segment the buffer
     * @param offset offset of the ULPDU_Length field
     * @return this
     */
    public FpduHeader wrap(MemorySegment segment, long offset) {
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    /** {@return the wrapped buffer} */
    public MemorySegment segment() {
        return segment;
    }

    /** {@return the offset of the ULPDU_Length field in {@link #segment()}} */
    public long offset() {
        return offset;
    }

    // ---- arithmetic (siw_qp_tx.c siw_prepare_fpdu, siw_qp_rx.c siw_tcp_rx_data) ---------------

    /**
     * Pad bytes after the ULPDU so that ULPDU_Length field + ULPDU + pad is a multiple of 4.
     * Header lengths are multiples of 4, so this equals siw's {@code -payload & 3}.
     *
     * @param mpaLength the ULPDU_Length
     * @return 0 to 3
     */
    public static int padLength(int mpaLength) {
        return -(mpaLength + MPA_LENGTH_FIELD_LENGTH) & 3;
    }

    /**
     * Bytes of a whole FPDU on the wire: length field, ULPDU, pad and the 4-byte CRC trailer.
     *
     * @param mpaLength the ULPDU_Length
     * @return the FPDU length
     */
    public static int fpduLength(int mpaLength) {
        return MPA_LENGTH_FIELD_LENGTH + mpaLength + padLength(mpaLength) + CRC_LENGTH;
    }

    /**
     * ULPDU_Length of a segment.
     *
     * @param opcode the message type
     * @param payloadLength ULP payload bytes in this segment
     * @return header length - 2 + payload
     */
    public static int mpaLength(RdmapOpcode opcode, int payloadLength) {
        return opcode.mpaLengthTemplate() + payloadLength;
    }

    /**
     * Bytes on the wire of a segment carrying {@code payloadLength} bytes.
     *
     * @param opcode the message type
     * @param payloadLength ULP payload bytes in this segment
     * @return the FPDU length including pad and CRC
     */
    public static int fpduLength(RdmapOpcode opcode, int payloadLength) {
        return fpduLength(mpaLength(opcode, payloadLength));
    }

    /**
     * The TCP segment length siw fills with one FPDU: the MSS rounded down to a multiple of 8
     * ({@code siw_update_tcpseg}, with GSO off as in upstream siw).
     *
     * @param mss the socket's MSS
     * @return the segment length siw aims for
     */
    public static int tcpSegmentLength(int mss) {
        return mss & MASK_SEGMENT_ALIGN;
    }

    /**
     * Largest payload siw puts into one FPDU of this type for a socket with this MSS: header + payload
     * + CRC fill the rounded segment ({@code siw_prepare_fpdu}). Verified: MSS 1460 gives 1436-byte
     * RDMA Write and Read Response segments (1456-byte FPDUs).
     *
     * @param opcode the message type
     * @param mss the socket's MSS
     * @return payload bytes per non-last segment (a multiple of 4, so such segments need no pad), or 0
     */
    public static int maxPayload(RdmapOpcode opcode, int mss) {
        return Math.max(0, tcpSegmentLength(mss) - opcode.headerLength() - CRC_LENGTH);
    }

    /**
     * Length of the FPDU starting at {@code offset}, read from its ULPDU_Length, for framing a stream.
     *
     * @param segment the buffer
     * @param offset offset of the ULPDU_Length field
     * @param available bytes readable from {@code offset}
     * @return the whole FPDU length, or {@link #NEED_MORE} when fewer than 2 bytes are available
     */
    public static int peekFpduLength(MemorySegment segment, long offset, long available) {
        if (available < MPA_LENGTH_FIELD_LENGTH) {
            return NEED_MORE;
        }
        return fpduLength(mpaLength(segment, offset));
    }

    /**
     * Static peek at the ULPDU_Length.
     *
     * @param segment the buffer
     * @param offset offset of the FPDU
     * @return ULPDU_Length, 0 to 65535
     */
    public static int mpaLength(MemorySegment segment, long offset) {
        return Short.toUnsignedInt(segment.get(Wire.U16, offset + MPA_LENGTH_OFFSET));
    }

    /**
     * Static peek at the opcode.
     *
     * @param segment the buffer
     * @param offset offset of the FPDU
     * @return the 4-bit opcode
     */
    public static int opcode(MemorySegment segment, long offset) {
        return segment.get(Wire.U16, offset + CTRL_OFFSET) & MASK_OPCODE;
    }

    /**
     * Checks a received header the way siw's {@code siw_get_hdr} does, in the same order, once the whole
     * header is there. The result names the TERMINATE to answer with ({@link FpduCheck#termError()}).
     *
     * @param segment the buffer
     * @param offset offset of the FPDU
     * @param available bytes readable from {@code offset}
     * @return {@link FpduCheck#OK}, {@link FpduCheck#NEED_MORE} or the first problem found
     */
    public static FpduCheck check(MemorySegment segment, long offset, long available) {
        if (available < MIN_PEEK_LENGTH) {
            return FpduCheck.NEED_MORE;
        }
        int ctrl = Short.toUnsignedInt(segment.get(Wire.U16, offset + CTRL_OFFSET));
        if ((ctrl & MASK_DDP_VERSION) >>> SHIFT_DDP_VERSION != DDP_VERSION) {
            return (ctrl & FLAG_TAGGED) != 0 ? FpduCheck.DDP_VERSION_TAGGED : FpduCheck.DDP_VERSION_UNTAGGED;
        }
        if ((ctrl & MASK_RDMAP_VERSION) >>> SHIFT_RDMAP_VERSION != RDMAP_VERSION) {
            return FpduCheck.RDMAP_VERSION;
        }
        int headerLength = RdmapOpcode.headerLength(ctrl & MASK_OPCODE);
        if (headerLength < 0) {
            return FpduCheck.UNKNOWN_OPCODE;
        }
        if (available < headerLength) {
            return FpduCheck.NEED_MORE;
        }
        if (mpaLength(segment, offset) + MPA_LENGTH_FIELD_LENGTH < headerLength) {
            return FpduCheck.SHORT_MPA_LENGTH;
        }
        return FpduCheck.OK;
    }

    // ---- common fields ------------------------------------------------------------------------

    /** {@return ULPDU_Length, 0 to 65535} */
    public int mpaLength() {
        return Short.toUnsignedInt(segment.get(Wire.U16, offset + MPA_LENGTH_OFFSET));
    }

    /**
     * Sets ULPDU_Length, 0 to 65535.
     *
     * @param value ULPDU_Length, 0 to 65535
     * @return this
     */
    public FpduHeader mpaLength(int value) {
        segment.set(Wire.U16, offset + MPA_LENGTH_OFFSET, (short) value);
        return this;
    }

    /** {@return the 16-bit DDP/RDMAP control word} */
    public int ctrl() {
        return Short.toUnsignedInt(segment.get(Wire.U16, offset + CTRL_OFFSET));
    }

    /**
     * Sets the 16-bit DDP/RDMAP control word.
     *
     * @param value the 16-bit DDP/RDMAP control word
     * @return this
     */
    public FpduHeader ctrl(int value) {
        segment.set(Wire.U16, offset + CTRL_OFFSET, (short) value);
        return this;
    }

    /** {@return the RDMAP opcode, 0 to 15} */
    public int opcode() {
        return ctrl() & MASK_OPCODE;
    }

    /** {@return the T flag} */
    public boolean tagged() {
        return (ctrl() & FLAG_TAGGED) != 0;
    }

    /** {@return the L flag} */
    public boolean last() {
        return (ctrl() & FLAG_LAST) != 0;
    }

    /** {@return the DDP version field} */
    public int ddpVersion() {
        return (ctrl() & MASK_DDP_VERSION) >>> SHIFT_DDP_VERSION;
    }

    /** {@return the RDMAP version field} */
    public int rdmapVersion() {
        return (ctrl() & MASK_RDMAP_VERSION) >>> SHIFT_RDMAP_VERSION;
    }

    /** {@return header length of this opcode including the MPA length field, or -1 for an undefined opcode} */
    public int headerLength() {
        return RdmapOpcode.headerLength(opcode());
    }

    /** {@return ULP payload bytes of this segment; meaningful once {@link #check} said OK} */
    public int payloadLength() {
        return mpaLength() + MPA_LENGTH_FIELD_LENGTH - headerLength();
    }

    /** {@return offset in the segment of the first payload byte; meaningful once {@link #check} said OK} */
    public long payloadOffset() {
        return offset + headerLength();
    }

    /** {@return the pad length after the ULPDU} */
    public int padLength() {
        return padLength(mpaLength());
    }

    /** {@return the length of the whole FPDU including pad and CRC} */
    public int fpduLength() {
        return fpduLength(mpaLength());
    }

    /** {@return offset in the segment of the CRC trailer} */
    public long crcOffset() {
        int mpaLength = mpaLength();
        return offset + MPA_LENGTH_FIELD_LENGTH + mpaLength + padLength(mpaLength);
    }

    /**
     * Writes ULPDU_Length and the control word of a segment from the opcode table.
     *
     * @param opcode the message type
     * @param last whether this is the last segment (L flag)
     * @param payloadLength ULP payload bytes in this segment
     * @return this
     */
    public FpduHeader start(RdmapOpcode opcode, boolean last, int payloadLength) {
        mpaLength(opcode.mpaLengthTemplate() + payloadLength);
        return ctrl(last ? opcode.ctrlTemplate() : opcode.ctrlTemplate() & ~FLAG_LAST);
    }

    // ---- tagged ---------------------------------------------------------------------------------

    /** {@return Data Sink STag (tagged)} */
    public int stag() {
        return segment.get(Wire.U32, offset + STAG_OFFSET);
    }

    /**
     * Sets Data Sink STag (tagged).
     *
     * @param value Data Sink STag (tagged)
     * @return this
     */
    public FpduHeader stag(int value) {
        segment.set(Wire.U32, offset + STAG_OFFSET, value);
        return this;
    }

    /** {@return Data Sink Tagged Offset (tagged)} */
    public long taggedOffset() {
        return segment.get(Wire.U64, offset + TO_OFFSET);
    }

    /**
     * Sets Data Sink Tagged Offset (tagged).
     *
     * @param value Data Sink Tagged Offset (tagged)
     * @return this
     */
    public FpduHeader taggedOffset(long value) {
        segment.set(Wire.U64, offset + TO_OFFSET, value);
        return this;
    }

    // ---- untagged -------------------------------------------------------------------------------

    /** {@return RsvdULP: the STag to invalidate for Send with Invalidate (untagged)} */
    public int invalidateStag() {
        return segment.get(Wire.U32, offset + INVALIDATE_STAG_OFFSET);
    }

    /**
     * Sets RsvdULP: the STag to invalidate, or 0 (untagged).
     *
     * @param value RsvdULP: the STag to invalidate, or 0 (untagged)
     * @return this
     */
    public FpduHeader invalidateStag(int value) {
        segment.set(Wire.U32, offset + INVALIDATE_STAG_OFFSET, value);
        return this;
    }

    /** {@return Queue Number (untagged)} */
    public int queueNumber() {
        return segment.get(Wire.U32, offset + QN_OFFSET);
    }

    /**
     * Sets Queue Number (untagged).
     *
     * @param value Queue Number (untagged)
     * @return this
     */
    public FpduHeader queueNumber(int value) {
        segment.set(Wire.U32, offset + QN_OFFSET, value);
        return this;
    }

    /** {@return Message Sequence Number (untagged; per queue, the first message is 1)} */
    public int messageSequenceNumber() {
        return segment.get(Wire.U32, offset + MSN_OFFSET);
    }

    /**
     * Sets Message Sequence Number (untagged).
     *
     * @param value Message Sequence Number (untagged)
     * @return this
     */
    public FpduHeader messageSequenceNumber(int value) {
        segment.set(Wire.U32, offset + MSN_OFFSET, value);
        return this;
    }

    /** {@return Message Offset (untagged): byte offset of this segment's payload in the message} */
    public int messageOffset() {
        return segment.get(Wire.U32, offset + MO_OFFSET);
    }

    /**
     * Sets Message Offset (untagged).
     *
     * @param value Message Offset (untagged)
     * @return this
     */
    public FpduHeader messageOffset(int value) {
        segment.set(Wire.U32, offset + MO_OFFSET, value);
        return this;
    }
}
