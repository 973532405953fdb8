package io.jrdma.verbs;

import java.net.InetAddress;
import java.util.List;

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
}
