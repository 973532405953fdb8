package io.jrdma.internal.verbs;

import io.jrdma.internal.obs.DeviceMBean;
import io.jrdma.spi.ProviderDevice;
import io.jrdma.spi.RdmaProvider;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.RdmaException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Finds the providers once and keeps their devices in rdma_cm preference order (iWARP, RoCE,
 * loop; then by name), as {@code ibv_get_device_list} and {@code cma_acquire_dev_by_src_ip} see
 * them.
 */
public final class DeviceRegistry {
    private static volatile DeviceRegistry instance;

    private final List<Device> devices;

    private DeviceRegistry(List<Device> devices) {
        this.devices = List.copyOf(devices);
    }

    /** The registry of this JVM, loading the providers on first use. */
    public static DeviceRegistry instance() {
        DeviceRegistry r = instance;
        if (r == null) {
            synchronized (DeviceRegistry.class) {
                r = instance;
                if (r == null) {
                    r = load();
                    instance = r;
                }
            }
        }
        return r;
    }

    private static DeviceRegistry load() {
        List<RdmaProvider> providers = new ArrayList<>();
        ServiceLoader.load(RdmaProvider.class, DeviceRegistry.class.getClassLoader()).forEach(providers::add);
        providers.sort(Comparator.comparingInt(RdmaProvider::priority).thenComparing(RdmaProvider::name));
        List<Device> all = new ArrayList<>();
        List<DeviceImpl> impls = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        for (RdmaProvider p : providers) {
            if (seen.contains(p.name())) {
                continue;
            }
            seen.add(p.name());
            for (ProviderDevice d : p.devices()) {
                DeviceImpl di = new DeviceImpl(p, d);
                all.add(di);
                impls.add(di);
            }
        }
        DeviceMBean.registerAll(impls);
        captureAtStartup(impls);
        return new DeviceRegistry(all);
    }

    /** The system property naming a directory where every device is captured from startup. */
    public static final String CAPTURE_DIR = "jrdma.capture.dir";

    /**
     * {@value #CAPTURE_DIR}: a capture per device, {@code DIR/DEVICE.pcap}, written until the JVM exits
     * (a shutdown hook completes the files).
     */
    static List<io.jrdma.verbs.PacketCapture> captureAtStartup(List<DeviceImpl> devices) {
        String dir = System.getProperty(CAPTURE_DIR);
        if (dir == null || dir.isBlank()) {
            return List.of();
        }
        List<io.jrdma.verbs.PacketCapture> started = new ArrayList<>();
        for (DeviceImpl d : devices) {
            try {
                java.nio.file.Path f = java.nio.file.Path.of(dir).resolve(d.name() + ".pcap");
                java.nio.file.Files.createDirectories(f.getParent());
                started.add(d.startCapture(f));
            } catch (java.io.IOException | RuntimeException e) {
                System.getLogger("io.jrdma.verbs").log(System.Logger.Level.WARNING, "[" + d.name()
                        + "] capture to " + dir + " not started: " + e);
            }
        }
        if (!started.isEmpty()) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> started.forEach(
                    io.jrdma.verbs.PacketCapture::close), "jrdma-capture-close"));
        }
        return started;
    }

    /** Every device in preference order. */
    public List<Device> devices() {
        return devices;
    }

    /** The device called {@code name}. */
    public Device device(String name) {
        for (Device d : devices) {
            if (d.name().equals(name)) {
                return d;
            }
        }
        throw new RdmaException(Errno.ENODEV, "no RDMA device named '" + name + "' (have " + names() + ")");
    }

    /** The first device serving {@code address}. */
    public Device deviceFor(InetAddress address) {
        for (Device d : devices) {
            if (d.servesAddress(address)) {
                return d;
            }
        }
        throw new RdmaException(Errno.EADDRNOTAVAIL,
                "no RDMA device serves " + address.getHostAddress() + " (have " + names() + ")");
    }

    private List<String> names() {
        List<String> n = new ArrayList<>();
        for (Device d : devices) {
            n.add(d.name());
        }
        return n;
    }
}
