package io.jrdma.siw.wire;

/**
 * The RDMAP opcode table (RFC 5040 §4.3, Table 2): for each message the DDP buffer model, the untagged
 * queue number, the length of its headers and the control word jrdma sends for its last segment.
 *
 * <p>One table drives both directions, as siw's {@code iwarp_pktinfo[]} does ({@code siw/siw_qp.c}):
 * the transmitter copies {@link #mpaLengthTemplate()} and {@link #ctrlTemplate()} and the receiver
 * looks up {@link #headerLength()} to know how many header bytes follow the first four. Header
 * lengths count the 2-byte MPA ULPDU_Length field, as siw's {@code hdr_len} does.
 *
 * <pre>
 *  opcode                       DDP      QN  header  ctrl (last segment)
 *  0 RDMA Write                 tagged    -    16    0xC140
 *  1 RDMA Read Request          untagged  1    48    0x4141
 *  2 RDMA Read Response         tagged    -    16    0xC142
 *  3 Send                       untagged  0    20    0x4143
 *  4 Send with Invalidate       untagged  0    20    0x4144
 *  5 Send with SE               untagged  0    20    0x4145
 *  6 Send with SE and Invalidate untagged 0    20    0x4146
 *  7 Terminate                  untagged  2    24    0x4147   (+ copied headers)
 * </pre>
 * Opcodes 8 to 15 are not defined; siw answers them with TERMINATE RDMAP / remote operation /
 * unexpected opcode (golden {@code term-opcode}).
 */
public enum RdmapOpcode {
    /** RDMA Write (RFC 5040 §4.3): tagged, placed at the Data Sink STag and TO. */
    RDMA_WRITE(0, true, RdmapOpcode.NO_QUEUE, FpduHeader.TAGGED_LENGTH),
    /** RDMA Read Request (RFC 5040 §4.4): untagged on queue 1, no payload. */
    RDMA_READ_REQUEST(1, false, RdmapOpcode.QN_READ_REQUEST, ReadRequestHeader.LENGTH),
    /** RDMA Read Response (RFC 5040 §4.3): tagged, placed at the requester's Data Sink STag and TO. */
    RDMA_READ_RESPONSE(2, true, RdmapOpcode.NO_QUEUE, FpduHeader.TAGGED_LENGTH),
    /** Send (RFC 5040 §4.3): untagged on queue 0. */
    SEND(3, false, RdmapOpcode.QN_SEND, FpduHeader.UNTAGGED_LENGTH),
    /** Send with Invalidate: like {@link #SEND}, with the STag to invalidate in the RsvdULP field. */
    SEND_INVALIDATE(4, false, RdmapOpcode.QN_SEND, FpduHeader.UNTAGGED_LENGTH),
    /** Send with Solicited Event. */
    SEND_SE(5, false, RdmapOpcode.QN_SEND, FpduHeader.UNTAGGED_LENGTH),
    /** Send with Solicited Event and Invalidate. */
    SEND_SE_INVALIDATE(6, false, RdmapOpcode.QN_SEND, FpduHeader.UNTAGGED_LENGTH),
    /** Terminate (RFC 5040 §4.8): untagged on queue 2, fixed part only; the copied headers follow. */
    TERMINATE(7, false, RdmapOpcode.QN_TERMINATE, TerminateHeader.LENGTH);

    /** {@link #queueNumber()} of tagged messages, which use no queue. */
    public static final int NO_QUEUE = -1;
    /** Untagged queue 0: Send messages (RFC 5040 §5.1). */
    public static final int QN_SEND = 0;
    /** Untagged queue 1: RDMA Read Requests. */
    public static final int QN_READ_REQUEST = 1;
    /** Untagged queue 2: Terminate. */
    public static final int QN_TERMINATE = 2;

    private static final RdmapOpcode[] BY_VALUE = values();

    private final int value;
    private final boolean tagged;
    private final int queueNumber;
    private final int headerLength;
    private final int ctrlTemplate;

    RdmapOpcode(int value, boolean tagged, int queueNumber, int headerLength) {
        this.value = value;
        this.tagged = tagged;
        this.queueNumber = queueNumber;
        this.headerLength = headerLength;
        this.ctrlTemplate = (tagged ? FpduHeader.FLAG_TAGGED : 0) | FpduHeader.FLAG_LAST
                | FpduHeader.DDP_VERSION << FpduHeader.SHIFT_DDP_VERSION
                | FpduHeader.RDMAP_VERSION << FpduHeader.SHIFT_RDMAP_VERSION | value;
    }

    /**
     * The opcode with this 4-bit value, without throwing.
     *
     * @param value the opcode field of the DDP/RDMAP control word
     * @return the opcode, or {@code null} for 8 to 15 and any value outside 0 to 15
     */
    public static RdmapOpcode of(int value) {
        return value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
    }

    /**
     * Header length (including the 2-byte MPA length) of an opcode value, for the receive path.
     *
     * @param value the opcode field of the DDP/RDMAP control word
     * @return the header length in bytes, or -1 when the opcode is not defined
     */
    public static int headerLength(int value) {
        return value >= 0 && value < BY_VALUE.length ? BY_VALUE[value].headerLength : -1;
    }

    /** {@return the 4-bit opcode value on the wire} */
    public int value() {
        return value;
    }

    /** {@return true for the tagged buffer model (RDMA Write, RDMA Read Response)} */
    public boolean tagged() {
        return tagged;
    }

    /** {@return the untagged queue number (0, 1 or 2), or {@link #NO_QUEUE} for tagged messages} */
    public int queueNumber() {
        return queueNumber;
    }

    /** {@return bytes from the MPA length field to the end of the DDP/RDMAP header} */
    public int headerLength() {
        return headerLength;
    }

    /** {@return the ULPDU_Length of a segment of this message without payload ({@code headerLength - 2})} */
    public int mpaLengthTemplate() {
        return headerLength - FpduHeader.MPA_LENGTH_FIELD_LENGTH;
    }

    /** {@return the DDP/RDMAP control word of the last segment: T as needed, L set, DDP and RDMAP version 1} */
    public int ctrlTemplate() {
        return ctrlTemplate;
    }

    /** {@return true for the four Send variants, which consume a receive buffer on queue 0} */
    public boolean isSend() {
        return queueNumber == QN_SEND;
    }

    /** {@return true when the RsvdULP field carries the STag to invalidate (opcodes 4 and 6)} */
    public boolean carriesInvalidateStag() {
        return this == SEND_INVALIDATE || this == SEND_SE_INVALIDATE;
    }
}
