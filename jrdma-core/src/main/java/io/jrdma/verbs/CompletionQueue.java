package io.jrdma.verbs;

/**
 * A completion queue ({@code struct ibv_cq}). Poll it into caller-owned {@link WorkCompletion}s;
 * nothing is allocated per completion.
 *
 * <p>Thread-safe: several threads may poll at once, each completion goes to one of them; the
 * transports' engines complete into it from their own threads.
 */
public interface CompletionQueue extends AutoCloseable {
    /** {@code ibv_poll_cq} into the whole array; returns how many were filled (0 if none). */
    default int poll(WorkCompletion[] wc) {
        return poll(wc, 0, wc.length);
    }

    /** {@code ibv_poll_cq}: fills at most {@code max} entries from {@code wc[offset]}; returns the count. */
    int poll(WorkCompletion[] wc, int offset, int max);

    /**
     * {@code ibv_req_notify_cq}: arms the CQ to signal its channel once, for the next completion
     * ({@code solicitedOnly=false}) or the next solicited or error completion.
     *
     * @throws IllegalStateException if the CQ has no channel
     */
    void requestNotify(boolean solicitedOnly);

    /**
     * {@code ibv_resize_cq}: at least {@code cqe} entries, keeping the completions it holds.
     *
     * @throws IllegalArgumentException if {@code cqe} is outside 1..{@link DeviceAttributes#maxCqe()}
     * @throws RdmaException with EINVAL if {@code cqe} is below the number of waiting completions
     */
    void resize(int cqe);

    /** The number of entries ({@code cq->cqe}). Linux: {@code ibv_cq.cqe}. */
    int capacity();

    /** The channel, or {@code null}. Linux: {@code ibv_cq.channel}. */
    CompletionChannel channel();

    /** Whether the CQ overran and is in error. Linux: an {@code IBV_EVENT_CQ_ERR} was reported for this CQ. */
    boolean isInError();

    /** {@code ibv_destroy_cq}: fails with EBUSY while a QP or SRQ uses it. */
    @Override
    void close();
}
