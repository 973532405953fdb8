package io.jrdma.cm;

/**
 * IB CM reject reasons ({@code enum ib_cm_rej_reason}, IBTA Vol 1 Table 112) with Linux's numbers;
 * {@link #message()} is {@code ibcm_reject_msg}'s text. On IB/RoCE a REJECTED event's status is one
 * of these values.
 */
public enum RejectReason {
    /** No QP available. */
    NO_QP(1, "no QP"),
    /** No EE context available. */
    NO_EEC(2, "no EEC"),
    /** No resources. */
    NO_RESOURCES(3, "no resources"),
    /** The peer timed out waiting. */
    TIMEOUT(4, "timeout"),
    /** Request not supported. */
    UNSUPPORTED(5, "unsupported"),
    /** Invalid communication id. */
    INVALID_COMM_ID(6, "invalid comm ID"),
    /** Invalid communication instance. */
    INVALID_COMM_INSTANCE(7, "invalid comm instance"),
    /** Nobody listens on the service ID. */
    INVALID_SERVICE_ID(8, "invalid service ID"),
    /** Invalid transport type. */
    INVALID_TRANSPORT_TYPE(9, "invalid transport type"),
    /** A stale connection (the QP is still in use or in timewait). */
    STALE_CONN(10, "stale conn"),
    /** RDC does not exist. */
    RDC_NOT_EXIST(11, "RDC not exist"),
    /** Invalid GID. */
    INVALID_GID(12, "invalid GID"),
    /** Invalid LID. */
    INVALID_LID(13, "invalid LID"),
    /** Invalid SL. */
    INVALID_SL(14, "invalid SL"),
    /** Invalid traffic class. */
    INVALID_TRAFFIC_CLASS(15, "invalid traffic class"),
    /** Invalid hop limit. */
    INVALID_HOP_LIMIT(16, "invalid hop limit"),
    /** Invalid packet rate. */
    INVALID_PACKET_RATE(17, "invalid packet rate"),
    /** Invalid alternate GID. */
    INVALID_ALT_GID(18, "invalid alt GID"),
    /** Invalid alternate LID. */
    INVALID_ALT_LID(19, "invalid alt LID"),
    /** Invalid alternate SL. */
    INVALID_ALT_SL(20, "invalid alt SL"),
    /** Invalid alternate traffic class. */
    INVALID_ALT_TRAFFIC_CLASS(21, "invalid alt traffic class"),
    /** Invalid alternate hop limit. */
    INVALID_ALT_HOP_LIMIT(22, "invalid alt hop limit"),
    /** Invalid alternate packet rate. */
    INVALID_ALT_PACKET_RATE(23, "invalid alt packet rate"),
    /** Port CM redirect. */
    PORT_CM_REDIRECT(24, "port CM redirect"),
    /** Port redirect. */
    PORT_REDIRECT(25, "port redirect"),
    /** Invalid MTU. */
    INVALID_MTU(26, "invalid MTU"),
    /** Insufficient responder resources. */
    INSUFFICIENT_RESP_RESOURCES(27, "insufficient resp resources"),
    /** The remote application rejected the connection (rdma_reject): a consumer reject. */
    CONSUMER_DEFINED(28, "consumer defined"),
    /** Invalid RNR retry. */
    INVALID_RNR_RETRY(29, "invalid RNR retry"),
    /** Duplicate local comm id. */
    DUPLICATE_LOCAL_COMM_ID(30, "duplicate local comm ID"),
    /** Invalid class version. */
    INVALID_CLASS_VERSION(31, "invalid class version"),
    /** Invalid flow label. */
    INVALID_FLOW_LABEL(32, "invalid flow label"),
    /** Invalid alternate flow label. */
    INVALID_ALT_FLOW_LABEL(33, "invalid alt flow label"),
    /** The offered ECE vendor option is not supported (rdma_reject_ece). */
    VENDOR_OPTION_NOT_SUPPORTED(35, "vendor option is not supported");

    private final int value;
    private final String message;

    RejectReason(int value, String message) {
        this.value = value;
        this.message = message;
    }

    /** The IBTA/Linux number. */
    public int value() {
        return value;
    }

    /** {@code ibcm_reject_msg}. Linux: {@code ibcm_reject_msg}. */
    public String message() {
        return message;
    }

    /** The reason with this number, or {@code null}. Linux: a value of {@code enum ib_cm_rej_reason}. */
    public static RejectReason of(int value) {
        for (RejectReason r : values()) {
            if (r.value == value) {
                return r;
            }
        }
        return null;
    }
}
