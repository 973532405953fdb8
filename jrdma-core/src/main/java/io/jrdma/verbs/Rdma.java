package io.jrdma.verbs;

import io.jrdma.internal.verbs.DeviceRegistry;
import java.net.InetAddress;
import java.util.List;

/**
 * The entry point: the devices every provider on the class or module path offers
 * ({@code ibv_get_device_list}), and the devices a program opens with a configuration
 * ({@link #open}). Thread-safe.
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
     * {@code PROVIDER:NAME} names the device of one provider ({@code native:siw0} is the kernel's siw0 through
     * rdma-core, {@code siw:siw0} jrdma's own); a plain {@code NAME} is the software device of that name if there
     * is one, else the kernel's.
     *
     * @throws RdmaException with ENODEV if there is none
     */
    public static Device device(String name) {
        return DeviceRegistry.instance().device(name);
    }

    /**
     * Opens a device with a typed configuration ({@code rdma link add}): the provider named by
     * {@link DeviceConfig#provider()} creates it, and it joins the JVM's devices until closed. Devices
     * opened so are independent of each other and of the system properties' devices: each has its own
     * settings, and its own engine threads where its provider runs some.
     *
     * <pre>{@code
     * try (OwnedDevice siw1 = Rdma.open(SiwDeviceConfig.named("siw1").withAddresses(lo2)
     *         .withTransport(SiwConfig.defaults().withCrcRequired(true)));
     *      RdmaCm cm = RdmaCm.open("siw1")) {
     *     ...
     * }
     * }</pre>
     *
     * @param config the device's configuration
     * @return the open device; close it to remove it
     * @throws RdmaException EEXIST if a device of that name exists, ENODEV if no provider of that name
     *     is present, EOPNOTSUPP if the provider opens no device from a configuration, or the provider's
     *     error (e.g. EADDRINUSE for a socket it cannot bind)
     */
    public static OwnedDevice open(DeviceConfig config) {
        return DeviceRegistry.instance().open(config);
    }

    /**
     * The providers of whole devices ({@link io.jrdma.spi.DeviceProvider}, e.g. {@code native}) that offer no
     * device here, each with the one-line reason (no libibverbs, no devices, no permission...).
     *
     * @return provider name to reason; empty when every such provider has devices
     */
    public static java.util.Map<String, String> unavailableProviders() {
        return DeviceRegistry.instance().unavailableProviders();
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
