package io.jrdma.internal.cm.ib;

/**
 * REJ reason codes (IBTA Vol 1 Table 109) with Linux's numbers ({@code enum ib_cm_rej_reason},
 * {@code include/rdma/ib_cm.h}) and the text Linux's {@code ibcm_reject_msg()} prints for them
 * ({@code drivers/infiniband/core/cm.c}). Code 34 is not defined. rdma_cm rejects with
 * {@link #CONSUMER_DEFINED} (28); ib_cm answers a REQ for a service nobody listens on with
 * {@link #INVALID_SERVICE_ID} (8) and gives up on an unanswered REQ with {@link #TIMEOUT} (4), both
 * verified against Linux 6.1 rxe.
 */
public enum RejReason {
    /** 1: "no QP". */
    NO_QP(1, "no QP"),
    /** 2: "no EEC". */
    NO_EEC(2, "no EEC"),
    /** 3: "no resources". */
    NO_RESOURCES(3, "no resources"),
    /** 4: "timeout". */
    TIMEOUT(4, "timeout"),
    /** 5: "unsupported". */
    UNSUPPORTED(5, "unsupported"),
    /** 6: "invalid comm ID". */
    INVALID_COMM_ID(6, "invalid comm ID"),
    /** 7: "invalid comm instance". */
    INVALID_COMM_INSTANCE(7, "invalid comm instance"),
    /** 8: "invalid service ID". */
    INVALID_SERVICE_ID(8, "invalid service ID"),
    /** 9: "invalid transport type". */
    INVALID_TRANSPORT_TYPE(9, "invalid transport type"),
    /** 10: "stale conn". */
    STALE_CONN(10, "stale conn"),
    /** 11: "RDC not exist". */
    RDC_NOT_EXIST(11, "RDC not exist"),
    /** 12: "invalid GID". */
    INVALID_GID(12, "invalid GID"),
    /** 13: "invalid LID". */
    INVALID_LID(13, "invalid LID"),
    /** 14: "invalid SL". */
    INVALID_SL(14, "invalid SL"),
    /** 15: "invalid traffic class". */
    INVALID_TRAFFIC_CLASS(15, "invalid traffic class"),
    /** 16: "invalid hop limit". */
    INVALID_HOP_LIMIT(16, "invalid hop limit"),
    /** 17: "invalid packet rate". */
    INVALID_PACKET_RATE(17, "invalid packet rate"),
    /** 18: "invalid alt GID". */
    INVALID_ALT_GID(18, "invalid alt GID"),
    /** 19: "invalid alt LID". */
    INVALID_ALT_LID(19, "invalid alt LID"),
    /** 20: "invalid alt SL". */
    INVALID_ALT_SL(20, "invalid alt SL"),
    /** 21: "invalid alt traffic class". */
    INVALID_ALT_TRAFFIC_CLASS(21, "invalid alt traffic class"),
    /** 22: "invalid alt hop limit". */
    INVALID_ALT_HOP_LIMIT(22, "invalid alt hop limit"),
    /** 23: "invalid alt packet rate". */
    INVALID_ALT_PACKET_RATE(23, "invalid alt packet rate"),
    /** 24: "port CM redirect". */
    PORT_CM_REDIRECT(24, "port CM redirect"),
    /** 25: "port redirect". */
    PORT_REDIRECT(25, "port redirect"),
    /** 26: "invalid MTU". */
    INVALID_MTU(26, "invalid MTU"),
    /** 27: "insufficient resp resources". */
    INSUFFICIENT_RESP_RESOURCES(27, "insufficient resp resources"),
    /** 28: "consumer defined". */
    CONSUMER_DEFINED(28, "consumer defined"),
    /** 29: "invalid RNR retry". */
    INVALID_RNR_RETRY(29, "invalid RNR retry"),
    /** 30: "duplicate local comm ID". */
    DUPLICATE_LOCAL_COMM_ID(30, "duplicate local comm ID"),
    /** 31: "invalid class version". */
    INVALID_CLASS_VERSION(31, "invalid class version"),
    /** 32: "invalid flow label". */
    INVALID_FLOW_LABEL(32, "invalid flow label"),
    /** 33: "invalid alt flow label". */
    INVALID_ALT_FLOW_LABEL(33, "invalid alt flow label"),
    /** 35: "vendor option is not supported". */
    VENDOR_OPTION_NOT_SUPPORTED(35, "vendor option is not supported");

    /** What {@link #message(int)} returns for a code that is not defined, as Linux prints it. */
    public static final String UNRECOGNIZED = "unrecognized reason";

    private static final RejReason[] BY_CODE = new RejReason[36];

    static {
        for (RejReason r : values()) {
            BY_CODE[r.code] = r;
        }
    }

    private final int code;
    private final String message;

    RejReason(int code, String message) {
        this.code = code;
        this.message = message;
    }

    /**
     * The 16-bit reason code on the wire.
     *
     * @return the code
     */
    public int code() {
        return code;
    }

    /**
     * The text {@code ibcm_reject_msg()} prints for this reason.
     *
     * @return e.g. {@code "consumer defined"}
     */
    public String message() {
        return message;
    }

    /**
     * The reason with a given code.
     *
     * @param code a reason code
     * @return the reason, or {@code null} when Linux defines none with this code
     */
    public static RejReason fromCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }

    /**
     * The text {@code ibcm_reject_msg()} prints for a code.
     *
     * @param code a reason code
     * @return the reason's text, or {@link #UNRECOGNIZED}
     */
    public static String message(int code) {
        RejReason r = fromCode(code);
        return r == null ? UNRECOGNIZED : r.message;
    }
}
