package io.jrdma.verbs;

import java.util.Objects;

/**
 * What {@link ProtectionDomain#createQp} needs ({@code struct ibv_qp_init_attr}).
 *
 * @param qpType transport service
 * @param sendCq CQ for send completions
 * @param recvCq CQ for receive completions
 * @param srq shared receive queue, or {@code null}
 * @param cap capacities
 * @param sqSigAll whether every send WR generates a completion regardless of {@link SendFlags#SIGNALED}
 */
public record QpInitAttr(QpType qpType, CompletionQueue sendCq, CompletionQueue recvCq, SharedReceiveQueue srq,
        QpCap cap, boolean sqSigAll) {
    /** Validates the non-null fields. Linux: {@code struct ibv_qp_init_attr}. */
    public QpInitAttr {
        Objects.requireNonNull(qpType, "qpType");
        Objects.requireNonNull(sendCq, "sendCq");
        Objects.requireNonNull(recvCq, "recvCq");
        Objects.requireNonNull(cap, "cap");
    }

    /**
     * An RC QP using {@code cq} for both directions. Linux: {@code ibv_qp_init_attr} with {@code qp_type = IBV_QPT_RC},
     * one CQ for both queues.
     */
    public static QpInitAttr rc(CompletionQueue cq, QpCap cap) {
        return new QpInitAttr(QpType.RC, cq, cq, null, cap, false);
    }

    /**
     * A QP of the given type using {@code cq} for both directions. Linux: {@code ibv_qp_init_attr} with one CQ for both
     * queues.
     */
    public static QpInitAttr of(QpType type, CompletionQueue cq, QpCap cap) {
        return new QpInitAttr(type, cq, cq, null, cap, false);
    }

    /** A copy using an SRQ. Linux: {@code ibv_qp_init_attr.srq}. */
    public QpInitAttr withSrq(SharedReceiveQueue s) {
        return new QpInitAttr(qpType, sendCq, recvCq, s, cap, sqSigAll);
    }

    /** A copy with sqSigAll set. Linux: {@code ibv_qp_init_attr.sq_sig_all}. */
    public QpInitAttr withSqSigAll(boolean all) {
        return new QpInitAttr(qpType, sendCq, recvCq, srq, cap, all);
    }
}
