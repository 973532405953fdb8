package io.jrdma.internal.cm.ib;

/**
 * IB CM id states ({@code enum ib_cm_state}, include/rdma/ib_cm.h; IBTA Vol 1 §12.9 Figure 134).
 */
public enum IbCmState {
    /** No connection; → REQ_SENT (send REQ), SIDR_REQ_SENT, LISTEN. */
    IDLE,
    /** Listening for REQs / SIDR_REQs on a service ID. */
    LISTEN,
    /** REQ sent; → REP_RCVD, MRA_REQ_RCVD, IDLE (REJ or timeout). */
    REQ_SENT,
    /** REQ received; → REP_SENT, MRA_REQ_SENT, IDLE (REJ). */
    REQ_RCVD,
    /** MRA sent for a REQ; → REP_SENT, IDLE. */
    MRA_REQ_SENT,
    /** MRA received for our REQ; → REP_RCVD, IDLE. */
    MRA_REQ_RCVD,
    /** REP sent; → ESTABLISHED (RTU or traffic), MRA_REP_RCVD, IDLE. */
    REP_SENT,
    /** REP received; → ESTABLISHED (send RTU), MRA_REP_SENT, IDLE (REJ). */
    REP_RCVD,
    /** MRA sent for a REP; → ESTABLISHED, IDLE. */
    MRA_REP_SENT,
    /** MRA received for our REP; → ESTABLISHED, IDLE. */
    MRA_REP_RCVD,
    /** Connected; → DREQ_SENT, DREQ_RCVD. */
    ESTABLISHED,
    /** DREQ sent; → TIMEWAIT (DREP or timeout), DREQ_RCVD. */
    DREQ_SENT,
    /** DREQ received; → TIMEWAIT (send DREP). */
    DREQ_RCVD,
    /** Waiting out stray packets; → IDLE with TIMEWAIT_EXIT. */
    TIMEWAIT,
    /** SIDR_REQ sent; → IDLE (SIDR_REP or timeout). */
    SIDR_REQ_SENT,
    /** SIDR_REQ received; → IDLE (send SIDR_REP). */
    SIDR_REQ_RCVD
}
