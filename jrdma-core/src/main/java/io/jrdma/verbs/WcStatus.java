package io.jrdma.verbs;

/**
 * Work-completion status ({@code enum ibv_wc_status}); {@link #message()} is
 * {@code ibv_wc_status_str}'s text.
 */
public enum WcStatus {
    /** Success. */
    SUCCESS(0, "success"),
    /** Local length error: a message longer than the receive buffer, or a gather list over the limit. */
    LOC_LEN_ERR(1, "local length error"),
    /** Local QP operation error. */
    LOC_QP_OP_ERR(2, "local QP operation error"),
    /** Local EE context operation error. */
    LOC_EEC_OP_ERR(3, "local EE context operation error"),
    /** Local protection error: a bad lkey, PD or bounds in a gather/scatter entry. */
    LOC_PROT_ERR(4, "local protection error"),
    /** The WR was flushed: the QP is in the error state. */
    WR_FLUSH_ERR(5, "Work Request Flushed Error"),
    /** Memory window bind error. */
    MW_BIND_ERR(6, "memory management operation error"),
    /** Bad response error. */
    BAD_RESP_ERR(7, "bad response error"),
    /** Local access error. */
    LOC_ACCESS_ERR(8, "local access error"),
    /** Remote invalid request error: e.g. a message too long for the remote receive. */
    REM_INV_REQ_ERR(9, "remote invalid request error"),
    /** Remote access error: a bad rkey, bounds or access rights at the responder. */
    REM_ACCESS_ERR(10, "remote access error"),
    /** Remote operation error. */
    REM_OP_ERR(11, "remote operation error"),
    /** Transport retry counter exceeded. */
    RETRY_EXC_ERR(12, "transport retry counter exceeded"),
    /** RNR retry counter exceeded. */
    RNR_RETRY_EXC_ERR(13, "RNR retry counter exceeded"),
    /** Local RDD violation error. */
    LOC_RDD_VIOL_ERR(14, "local RDD violation error"),
    /** Remote invalid RD request. */
    REM_INV_RD_REQ_ERR(15, "remote invalid RD request"),
    /** Aborted error. */
    REM_ABORT_ERR(16, "aborted error"),
    /** Invalid EE context number. */
    INV_EECN_ERR(17, "invalid EE context number"),
    /** Invalid EE context state. */
    INV_EEC_STATE_ERR(18, "invalid EE context state"),
    /** Fatal error. */
    FATAL_ERR(19, "fatal error"),
    /** Response timeout error. */
    RESP_TIMEOUT_ERR(20, "response timeout error"),
    /** General error. */
    GENERAL_ERR(21, "general error");

    private static final WcStatus[] BY_VALUE = values();

    private final int value;
    private final String message;

    WcStatus(int value, String message) {
        this.value = value;
        this.message = message;
    }

    /** The libibverbs value. */
    public int value() {
        return value;
    }

    /** {@code ibv_wc_status_str(status)}. */
    public String message() {
        return message;
    }

    /** The status with this libibverbs value. */
    public static WcStatus ofValue(int value) {
        if (value < 0 || value >= BY_VALUE.length) {
            throw new IllegalArgumentException("no work-completion status " + value);
        }
        return BY_VALUE[value];
    }
}
