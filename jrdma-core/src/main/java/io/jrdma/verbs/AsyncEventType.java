package io.jrdma.verbs;

/** Asynchronous event types ({@code enum ibv_event_type}). */
public enum AsyncEventType {
    /** A CQ overran: completions were lost; the CQ is in error. */
    CQ_ERR,
    /** A QP went to the error state for a reason other than an access or request error. */
    QP_FATAL,
    /** The responder saw an invalid request (a protocol error the peer caused). */
    QP_REQ_ERR,
    /** The responder saw a remote access violation. */
    QP_ACCESS_ERR,
    /** The first packet arrived on a QP in RTR (communication established). */
    COMM_EST,
    /** The send queue drained (SQD). */
    SQ_DRAINED,
    /** Path migration succeeded. */
    PATH_MIG,
    /** Path migration failed. */
    PATH_MIG_ERR,
    /** The device failed or was removed; every resource of the context is unusable. */
    DEVICE_FATAL,
    /** The port became active. */
    PORT_ACTIVE,
    /** The port went down. */
    PORT_ERR,
    /** The LID changed. */
    LID_CHANGE,
    /** The P_Key table changed. */
    PKEY_CHANGE,
    /** The subnet manager changed. */
    SM_CHANGE,
    /** An SRQ failed. */
    SRQ_ERR,
    /** The number of receives on an SRQ dropped below its armed limit. */
    SRQ_LIMIT_REACHED,
    /** The last WQE of a QP attached to an SRQ was reached. */
    QP_LAST_WQE_REACHED,
    /** Client reregistration requested. */
    CLIENT_REREGISTER,
    /** A GID table entry changed. */
    GID_CHANGE
}
