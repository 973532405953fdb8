package io.jrdma.rxe.qp;

import io.jrdma.internal.verbs.SendWqe;
import io.jrdma.verbs.WcStatus;

/**
 * The requester's and completer's view of a send WQE (rxe's {@code enum wqe_state} and the
 * {@code status}/{@code has_rd_atomic} fields of {@code struct rxe_send_wqe}), packed into
 * {@link SendWqe#txState}: bits 0-3 the state, bit 4 "holds an RDMA READ/atomic credit", bit 5
 * "has begun" (a packet of it was sent; a retry rewinds the state, not this), bits 8-15
 * the completion status's ordinal. {@link SendWqe#txFirstSeq}/{@link SendWqe#txLastSeq} are the first
 * and last PSN, {@link SendWqe#txOffset} the bytes sent (SEND, WRITE) or received (READ).
 */
final class WqeState {
    /** Not started, or rewound by a retry ({@code wqe_state_posted}). */
    static final int POSTED = 0;
    /** Some packets sent ({@code wqe_state_processing}). */
    static final int PROCESSING = 1;
    /** Every packet sent, waiting for the ACK ({@code wqe_state_pending}). */
    static final int PENDING = 2;
    /** Finished without an ACK: UD, UC, local operations ({@code wqe_state_done}). */
    static final int DONE = 3;
    /** Failed locally; the completer reports its status ({@code wqe_state_error}). */
    static final int ERROR = 4;

    private static final int MASK_STATE = 0xf;
    private static final int FLAG_RD_ATOMIC = 0x10;
    private static final int FLAG_STARTED = 0x20;
    private static final int SHIFT_STATUS = 8;
    private static final WcStatus[] STATUSES = WcStatus.values();

    private WqeState() {
    }

    static int state(SendWqe w) {
        return w.txState & MASK_STATE;
    }

    static void state(SendWqe w, int state) {
        w.txState = w.txState & ~MASK_STATE | state;
    }

    static boolean hasRdAtomic(SendWqe w) {
        return (w.txState & FLAG_RD_ATOMIC) != 0;
    }

    static void hasRdAtomic(SendWqe w, boolean has) {
        w.txState = has ? w.txState | FLAG_RD_ATOMIC : w.txState & ~FLAG_RD_ATOMIC;
    }

    /** Whether a packet of the WQE was ever sent (SQD lets such a WQE finish, IBTA 10.3.1). */
    static boolean started(SendWqe w) {
        return (w.txState & FLAG_STARTED) != 0;
    }

    static void started(SendWqe w, boolean started) {
        w.txState = started ? w.txState | FLAG_STARTED : w.txState & ~FLAG_STARTED;
    }

    static WcStatus status(SendWqe w) {
        return STATUSES[(w.txState >>> SHIFT_STATUS) & 0xff];
    }

    /** Marks the WQE failed with {@code status}. */
    static void fail(SendWqe w, WcStatus status) {
        w.txState = w.txState & (FLAG_RD_ATOMIC | FLAG_STARTED) | ERROR | status.ordinal() << SHIFT_STATUS;
    }

    /** Sets the status the completer reports (without changing the state). */
    static void status(SendWqe w, WcStatus status) {
        w.txState = w.txState & ~(0xff << SHIFT_STATUS) | status.ordinal() << SHIFT_STATUS;
    }
}
