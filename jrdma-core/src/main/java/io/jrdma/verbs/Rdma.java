package io.jrdma.verbs;

import io.jrdma.internal.verbs.DeviceRegistry;
import java.net.InetAddress;
import java.util.List;

/**
 * The entry point: the devices every provider on the class or module path offers
 * ({@code ibv_get_device_list}).
 */
public final class Rdma {
    private Rdma() {
    }

    /**
     * Every device, in rdma_cm's preference order: iWARP first, then RoCE, then the in-process
     * loop provider (Linux picks the first registered device when several share an address).
     */
    public static List<Device> devices() {
        return DeviceRegistry.instance().devices();
    }

    /**
     * The device called {@code name}. Linux: the {@code ibv_device} whose {@code ibv_get_device_name} is {@code name}.
     *
     * @throws RdmaException with ENODEV if there is none
     */
    public static Device device(String name) {
        return DeviceRegistry.instance().device(name);
    }

    /**
     * The first device (in {@link #devices()} order) that serves {@code address}, as rdma_cm chooses.
     *
     * @throws RdmaException with EADDRNOTAVAIL if none does
     */
    public static Device deviceFor(InetAddress address) {
        return DeviceRegistry.instance().deviceFor(address);
    }
}
