package io.jrdma.verbs;

/**
 * Queue-pair states (IBTA Vol 1 §10.3.1, {@code enum ibv_qp_state}). Legal transitions, and the
 * attributes each needs, are checked by {@link QueuePair#modify}.
 */
public enum QpState {
    /** Reset: the QP has no work; goes to INIT (or stays). */
    RESET,
    /** Initialized: receives may be posted; goes to INIT, RTR, RESET, ERR. */
    INIT,
    /** Ready to receive; goes to RTS, RESET, ERR. */
    RTR,
    /** Ready to send; goes to RTS, SQD, RESET, ERR. */
    RTS,
    /** Send queue drained; goes to RTS, SQD, RESET, ERR. */
    SQD,
    /** Send queue error (UD/UC): goes to RTS, RESET, ERR. */
    SQE,
    /** Error: every outstanding and later WR completes with {@link WcStatus#WR_FLUSH_ERR}; goes to RESET. */
    ERR
}
