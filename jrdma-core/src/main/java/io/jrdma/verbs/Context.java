package io.jrdma.verbs;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * An open device ({@code struct ibv_context}): the factory of protection domains, completion
 * queues and channels, and the source of asynchronous events. Thread-safe; closing it closes
 * everything still open on it, children first.
 */
public interface Context extends AutoCloseable {
    /** The device this context is open on. Linux: {@code ibv_context.device}. */
    Device device();

    /** {@code ibv_query_device}. */
    DeviceAttributes queryDevice();

    /** {@code ibv_query_port}; ports are numbered from 1. */
    PortAttributes queryPort(int port);

    /** {@code ibv_query_gid}. */
    Gid queryGid(int port, int index);

    /**
     * The device's counters now: what Linux shows in {@code /sys/class/infiniband/DEV/ports/1/hw_counters}
     * and with {@code rdma statistic show link DEV/1} (rxe's names; {@link Counter}). They count for the
     * device as a whole (every context, every QP, destroyed ones included) since the JVM opened it.
     *
     * @return a snapshot of every counter the device keeps
     */
    Counters queryCounters();

    /**
     * Starts writing everything the device sends and receives — every QP's packets, and the CM's
     * datagrams on transports that have them — to {@code file} as a pcap file that tshark and Wireshark
     * decode (see {@link PacketCapture}); like {@code tcpdump -i rxe0}. One device capture runs at a
     * time; {@code -Djrdma.capture.dir=DIR} starts one per device at startup ({@code DIR/siw0.pcap}).
     *
     * @param file the pcap file (created or truncated)
     * @return the running capture
     * @throws IllegalStateException if a device capture already runs
     * @throws java.io.UncheckedIOException if the file cannot be written
     */
    PacketCapture startCapture(java.nio.file.Path file);

    /** {@code ibv_alloc_pd}. */
    ProtectionDomain allocPd();

    /** {@code ibv_create_comp_channel}. */
    CompletionChannel createCompletionChannel();

    /**
     * {@code ibv_create_cq}: a completion queue of at least {@code cqe} entries.
     *
     * @param cqe entries; 1 to {@link DeviceAttributes#maxCqe()}
     * @param channel the channel notifications go to, or {@code null}
     * @param compVector completion vector (accepted and ignored: there is one)
     */
    CompletionQueue createCq(int cqe, CompletionChannel channel, int compVector);

    /** A completion queue without a channel. Linux: {@code ibv_create_cq(ctx, cqe, NULL, NULL, 0)}. */
    default CompletionQueue createCq(int cqe) {
        return createCq(cqe, null, 0);
    }

    /**
     * Delivers asynchronous events to {@code handler} on a jrdma thread, one at a time, instead of
     * queueing them for {@link #getAsyncEvent}. Pass {@code null} to go back to queueing. Linux: replaces the
     * application's {@code ibv_get_async_event}/{@code ibv_ack_async_event} loop.
     */
    void setAsyncEventHandler(Consumer<AsyncEvent> handler);

    /**
     * {@code ibv_get_async_event}: waits up to {@code timeout} for the next queued asynchronous
     * event; {@code null} on timeout. ({@code ibv_ack_async_event} is implicit.)
     */
    AsyncEvent getAsyncEvent(Duration timeout) throws InterruptedException;

    /** {@code ibv_close_device}: closes every resource still open on the context. */
    @Override
    void close();
}
