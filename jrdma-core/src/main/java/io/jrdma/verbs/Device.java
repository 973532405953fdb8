package io.jrdma.verbs;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;

/**
 * An RDMA device ({@code struct ibv_device}) found through a provider: {@code loop0}, {@code siw0},
 * {@code rxe0}. List them with {@link Rdma#devices()}. Thread-safe.
 */
public interface Device {
    /** The device name, as {@code ibv_get_device_name} (e.g. {@code siw0}). */
    String name();

    /** The provider that made it ({@code loop}, {@code siw}, {@code rxe}). */
    String provider();

    /** The transport the device speaks. Linux: {@code ibv_device.transport_type}. */
    TransportType transport();

    /** The node GUID. Linux: {@code ibv_get_device_guid}. */
    long nodeGuid();

    /** The IP addresses the device serves; rdma_cm picks the device that owns the source address. */
    List<InetAddress> addresses();

    /**
     * Whether the device serves {@code address} (the rule {@code cma_acquire_dev_by_src_ip} applies). Linux: the test
     * {@code cma_acquire_dev_by_src_ip} makes.
     */
    boolean servesAddress(InetAddress address);

    /** Opens a context on the device ({@code ibv_open_device}). */
    Context open();

    /**
     * The device's counters now, the same snapshot {@link Context#queryCounters()} returns, read without
     * opening a context. Linux: {@code /sys/class/infiniband/DEV/ports/1/hw_counters}, or
     * {@code rdma statistic show link DEV/1}, which need no open device either. A device that keeps no
     * counters (the default of a {@link io.jrdma.spi.DeviceProvider}'s device that does not say otherwise)
     * returns a snapshot with no values.
     *
     * @return a snapshot of every counter the device keeps, for the device as a whole (every context and QP
     *     of this JVM, destroyed ones included)
     */
    default Counters queryCounters() {
        return new Counters(name(), Counters.DEVICE, System.nanoTime(), Map.of());
    }

    /**
     * The counters of every live queue pair on the device, whichever context of this JVM created it, by QP
     * number: each what that QP's {@link QueuePair#queryCounters()} returns. Linux: {@code rdma statistic qp
     * show link DEV/1}, for the QPs bound to a counter. Empty for a device that keeps no per-QP counters.
     *
     * @return one snapshot per live QP
     */
    default List<Counters> queryQpCounters() {
        return List.of();
    }

    /**
     * The final counters of the queue pairs destroyed at or after {@code sinceNanoTime}, oldest first,
     * each stamped with its QP's destruction; the device remembers the last 256. With
     * {@link #queryQpCounters()} at the start and end of a run, this accounts for every QP the run
     * created, the short-lived ones too (what {@code --stats} of the {@code jrdma} tools prints). A jrdma
     * addition: Linux's counters of a QP go with it. Empty for a device that keeps no per-QP counters.
     *
     * @param sinceNanoTime a {@link System#nanoTime()} value, e.g. {@link Counters#nanoTime()} of an
     *     earlier snapshot
     * @return the destroyed QPs' final snapshots
     */
    default List<Counters> queryDestroyedQpCounters(long sinceNanoTime) {
        return List.of();
    }
}
