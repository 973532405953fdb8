package io.jrdma.verbs;

import java.time.Duration;

/**
 * A completion event channel ({@code struct ibv_comp_channel}): armed CQs signal it, and a thread
 * waits on it instead of busy-polling. Thread-safe.
 */
public interface CompletionChannel extends AutoCloseable {
    /**
     * {@code ibv_get_cq_event}: waits for the next CQ event and returns the CQ. Linux: {@code ibv_get_cq_event} (with a
     * timeout; {@code ibv_ack_cq_events} is implicit).
     */
    CompletionQueue getEvent() throws InterruptedException;

    /**
     * Waits up to {@code timeout}; {@code null} on timeout. Linux: {@code ibv_get_cq_event} (with a timeout;
     * {@code ibv_ack_cq_events} is implicit).
     */
    CompletionQueue getEvent(Duration timeout) throws InterruptedException;

    /** {@code ibv_ack_cq_events}: acknowledges {@code n} events of {@code cq}. */
    void ackEvents(CompletionQueue cq, int n);

    /** {@code ibv_destroy_comp_channel}: fails with EBUSY while a CQ uses it. */
    @Override
    void close();
}
