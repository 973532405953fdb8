package io.jrdma.spi;

import io.jrdma.verbs.QpState;

/**
 * A provider's half of a queue pair: the transport engine behind core's generic QP (rdma-core's
 * {@code verbs_context_ops} post/modify hooks, siw's {@code siw_qp}, rxe's {@code rxe_qp}).
 *
 * <p>Core validates every call first. The provider owns the QP's data path on one engine thread:
 * it reads posted WQEs from core's send and receive queues, moves bytes, completes WQEs through
 * core, and flushes (completes with WR_FLUSH_ERR) when the QP is in ERR. Core calls these methods
 * from application threads; implementations hand the work to their engine and do not block, except
 * {@link #destroy()}.
 */
public interface ProviderQp {
    /**
     * The QP moved from {@code from} to {@code to} (attributes already stored in the QP). On ERR the
     * provider flushes every outstanding WQE from its engine thread; on RESET it flushes and resets
     * its transport state. Linux: {@code ib_device_ops.modify_qp} (siw_verbs.c {@code siw_verbs_modify_qp}).
     *
     * @param mask the attributes that were set
     */
    void modified(QpState from, QpState to, int mask);

    /** New send WQEs were posted (the doorbell). Linux: the doorbell of {@code post_send}. */
    void sendPosted();

    /** New receive WQEs were posted (lets a transport waiting on RNR retry early). Linux: {@code post_recv}. */
    void recvPosted();

    /**
     * The QP is being destroyed: it is already in ERR; the provider flushes every outstanding WQE,
     * releases its transport resources and returns when no engine will touch the QP again. Linux:
     * {@code ib_device_ops.destroy_qp}.
     */
    void destroy();
}
