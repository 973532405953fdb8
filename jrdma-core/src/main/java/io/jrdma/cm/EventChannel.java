package io.jrdma.cm;

import io.jrdma.verbs.QpType;
import java.time.Duration;

/**
 * A librdmacm event channel ({@code struct rdma_event_channel}): events of its ids queue here until
 * retrieved and acknowledged. Destroying an id waits until its retrieved events are acknowledged.
 * Thread-safe: several threads may wait on it, each event goes to one.
 */
public interface EventChannel extends AutoCloseable {
    /** {@code rdma_create_id} on this channel. */
    CmId createId(Object context, PortSpace portSpace, QpType qpType);

    /** {@code rdma_create_id} with the port space's default QP type. */
    default CmId createId(Object context, PortSpace portSpace) {
        return createId(context, portSpace, portSpace.defaultQpType());
    }

    /**
     * {@code rdma_get_cm_event}: waits for the next event. Linux: {@code rdma_get_cm_event} on a blocking channel, with
     * a timeout.
     */
    CmEvent getEvent() throws InterruptedException;

    /**
     * Waits up to {@code timeout}; {@code null} on timeout. Linux: {@code rdma_get_cm_event} on a blocking channel,
     * with a timeout.
     */
    CmEvent getEvent(Duration timeout) throws InterruptedException;

    /**
     * Non-blocking: the next event or {@code null} (a non-blocking channel fd's EAGAIN). Linux:
     * {@code rdma_get_cm_event} on a channel made non-blocking ({@code O_NONBLOCK}).
     */
    CmEvent pollEvent();

    /** {@code rdma_ack_cm_event}. */
    void ackEvent(CmEvent event);

    /**
     * {@code rdma_migrate_id}: moves {@code id} and its unretrieved events to this channel. Blocks while
     * events of the id retrieved from its current channel are unacknowledged (as librdmacm does).
     */
    void migrateId(CmId id);

    /** {@code rdma_destroy_event_channel}: fails with EBUSY while ids still use the channel. */
    @Override
    void close();
}
