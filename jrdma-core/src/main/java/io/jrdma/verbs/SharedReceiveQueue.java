package io.jrdma.verbs;

/** A shared receive queue ({@code struct ibv_srq}). */
public interface SharedReceiveQueue extends AutoCloseable {
    /**
     * {@code ibv_post_srq_recv}: posts a chain of receives. Returns how many were posted; fewer than
     * the chain's length means the queue was full at that request (nothing is thrown for that).
     */
    int postRecv(RecvWr wr);

    /** {@code ibv_modify_srq(IBV_SRQ_LIMIT)}: arms the limit event at {@code limit} (0 disarms). */
    void armLimit(int limit);

    /** {@code ibv_query_srq}. */
    SrqAttr query();

    /**
     * The number of receives currently posted and not consumed. Linux has no verb for it ({@code ibv_query_srq} reports
     * the limits, not the fill).
     */
    int posted();

    /** {@code ibv_destroy_srq}: fails with EBUSY while a QP uses it. */
    @Override
    void close();
}
