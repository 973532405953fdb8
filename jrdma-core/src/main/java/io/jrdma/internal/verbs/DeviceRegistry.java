package io.jrdma.internal.verbs;

import io.jrdma.internal.obs.DeviceMBean;
import io.jrdma.spi.DeviceProvider;
import io.jrdma.spi.ProviderCm;
import io.jrdma.spi.ProviderDevice;
import io.jrdma.spi.RdmaProvider;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.DeviceConfig;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.OwnedDevice;
import io.jrdma.verbs.RdmaException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * Finds the providers once and keeps their devices in rdma_cm preference order (iWARP, RoCE,
 * loop; then by name), as {@code ibv_get_device_list} and {@code cma_acquire_dev_by_src_ip} see
 * them; devices opened with a configuration ({@link #open}) join and leave that list at run time. The
 * devices of whole-device providers ({@link DeviceProvider}) follow the software ones.
 */
public final class DeviceRegistry {
    private static volatile DeviceRegistry instance;

    /** The devices, in preference order; replaced whole when a device is opened or closed. */
    private volatile List<Device> devices;
    /** The providers found, one per name, in preference order. */
    private final List<RdmaProvider> providers;
    /** The whole-device providers that offer no device, each with its one-line reason. */
    private final Map<String, String> unavailable;
    /** The connection managers of the whole-device providers that have one, by provider name. */
    private final Map<String, ProviderCm> connectionManagers;

    private DeviceRegistry(List<Device> devices, List<RdmaProvider> providers, Map<String, String> unavailable,
            Map<String, ProviderCm> connectionManagers) {
        this.devices = List.copyOf(devices);
        this.providers = List.copyOf(providers);
        this.unavailable = Map.copyOf(unavailable);
        this.connectionManagers = Map.copyOf(connectionManagers);
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
        List<RdmaProvider> distinct = new ArrayList<>();
        for (RdmaProvider p : providers) {
            if (seen.contains(p.name())) {
                continue;
            }
            seen.add(p.name());
            distinct.add(p);
            for (ProviderDevice d : p.devices()) {
                DeviceImpl di = new DeviceImpl(p, d);
                all.add(di);
                impls.add(di);
            }
        }
        DeviceMBean.registerAll(impls);
        captureAtStartup(impls);
        List<DeviceProvider> found = new ArrayList<>();
        Map<String, String> unavailable = new LinkedHashMap<>();
        try {
            ServiceLoader.load(DeviceProvider.class, DeviceRegistry.class.getClassLoader()).forEach(found::add);
        } catch (java.util.ServiceConfigurationError e) {
            unavailable.put("?", "a device provider could not be loaded: " + e.getMessage());
        }
        Map<String, ProviderCm> cms = new LinkedHashMap<>();
        addDeviceProviders(found, seen, all, unavailable, cms);
        return new DeviceRegistry(all, distinct, unavailable, cms);
    }

    /**
     * A registry of {@code software} devices (as if from the software providers, in that order) and the
     * devices of {@code wholeDeviceProviders}; for tests of the lookup rules.
     */
    static DeviceRegistry of(List<Device> software, List<DeviceProvider> wholeDeviceProviders) {
        List<Device> all = new ArrayList<>(software);
        List<String> seen = new ArrayList<>();
        for (Device d : software) {
            if (!seen.contains(d.provider())) {
                seen.add(d.provider());
            }
        }
        Map<String, String> unavailable = new LinkedHashMap<>();
        Map<String, ProviderCm> cms = new LinkedHashMap<>();
        addDeviceProviders(new ArrayList<>(wholeDeviceProviders), seen, all, unavailable, cms);
        return new DeviceRegistry(all, List.of(), unavailable, cms);
    }

    /**
     * Adds the devices of every {@link DeviceProvider} (one per name, names the software providers
     * have taken skipped) to {@code all}, records why a provider offers none and the connection manager
     * of each that offers devices and one. A provider that throws is unavailable with the exception as its
     * reason: the software devices stay usable.
     */
    private static void addDeviceProviders(List<DeviceProvider> found, List<String> seen, List<Device> all,
            Map<String, String> unavailable, Map<String, ProviderCm> cms) {
        found.sort(Comparator.comparing(DeviceProvider::name));
        for (DeviceProvider p : found) {
            if (seen.contains(p.name())) {
                continue;
            }
            seen.add(p.name());
            try {
                List<Device> ds = p.devices();
                all.addAll(ds);
                p.unavailableReason().ifPresent(r -> unavailable.put(p.name(), r));
                if (ds.isEmpty() && !unavailable.containsKey(p.name())) {
                    unavailable.put(p.name(), "no devices");
                }
                if (!ds.isEmpty()) {
                    p.connectionManager().ifPresent(cm -> cms.put(p.name(), cm));
                }
            } catch (RuntimeException | LinkageError e) {
                unavailable.put(p.name(), e.toString());
            }
        }
    }

    /**
     * The whole-device providers that offer no device, provider name to a one-line reason (e.g.
     * {@code native -> no RDMA devices: ibv_get_device_list returned 0}).
     */
    public Map<String, String> unavailableProviders() {
        return unavailable;
    }

    /**
     * The connection manager of the whole-device provider named {@code provider} ({@link
     * DeviceProvider#connectionManager()}), or null when it has none or offers no device.
     */
    public ProviderCm connectionManager(String provider) {
        return connectionManagers.get(provider);
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

    /**
     * Opens a device from a typed configuration ({@link io.jrdma.verbs.Rdma#open}) and adds it to the
     * devices, after those of providers preferred to its own and those of its provider already there.
     */
    public synchronized OwnedDevice open(DeviceConfig config) {
        if (config == null) {
            throw new IllegalArgumentException("config must not be null");
        }
        for (Device d : devices) {
            if (d instanceof DeviceImpl && d.name().equals(config.name())) {
                throw new RdmaException(Errno.EEXIST, "a device named '" + config.name() + "' exists already (have "
                        + names() + ")");
            }
        }
        RdmaProvider provider = null;
        List<String> have = new ArrayList<>();
        for (RdmaProvider p : providers) {
            have.add(p.name());
            if (p.name().equals(config.provider())) {
                provider = p;
            }
        }
        if (provider == null) {
            throw new RdmaException(Errno.ENODEV, "no RDMA provider named '" + config.provider()
                    + "' on the class or module path (have " + have + ")");
        }
        ProviderDevice pd;
        try {
            pd = provider.open(config);
        } catch (UnsupportedOperationException e) {
            throw new RdmaException(Errno.EOPNOTSUPP, e.getMessage(), e);
        }
        if (!pd.name().equals(config.name())) {
            pd.close();
            throw new IllegalStateException(provider.name() + " opened '" + pd.name() + "' for '" + config.name()
                    + "'");
        }
        DeviceImpl d = new DeviceImpl(provider, pd);
        List<Device> next = new ArrayList<>(devices);
        int at = next.size();
        for (int i = 0; i < next.size(); i++) {
            if (!(next.get(i) instanceof DeviceImpl o) || o.providerPriority() > provider.priority()) {
                at = i;
                break;
            }
        }
        next.add(at, d);
        devices = List.copyOf(next);
        DeviceMBean.registerAll(List.of(d));
        return new OwnedDeviceImpl(d, config, this);
    }

    /** Removes a device opened with {@link #open}: its contexts close, its provider frees it. */
    void close(DeviceImpl d) {
        synchronized (this) {
            if (!devices.contains(d)) {
                return;
            }
            List<Device> next = new ArrayList<>(devices);
            next.remove(d);
            devices = List.copyOf(next);
        }
        d.unregister();
        d.closeContexts();
        DeviceMBean.unregister(d);
        d.providerDevice().close();
    }

    /** Every device in preference order. */
    public List<Device> devices() {
        return devices;
    }

    /**
     * The registered core device over {@code provider}'s device, for a provider that needs core's half of its own
     * device (rxe: a multicast socket's owner, the IB CM started on a MAD's arrival).
     *
     * @param provider a provider's device
     * @return core's device over it, or {@code null} if it is not registered
     */
    public DeviceImpl coreDevice(ProviderDevice provider) {
        for (Device d : devices()) {
            if (d instanceof DeviceImpl di && di.providerDevice() == provider) {
                return di;
            }
        }
        return null;
    }

    /**
     * The device called {@code name}: {@code PROVIDER:NAME} is the device {@code NAME} of that provider
     * ({@code native:siw0}); a plain name is the first device of that name, so a software device is
     * preferred to a kernel device of the same name.
     */
    public Device device(String name) {
        if (name == null) {
            throw new IllegalArgumentException("device name must not be null");
        }
        int colon = name.indexOf(':');
        String provider = colon < 0 ? null : name.substring(0, colon);
        String plain = colon < 0 ? name : name.substring(colon + 1);
        for (Device d : devices) {
            if (d.name().equals(plain) && (provider == null || d.provider().equals(provider))) {
                return d;
            }
        }
        if (provider != null && unavailable.containsKey(provider)) {
            throw new RdmaException(Errno.ENODEV, "no RDMA device named '" + name + "': provider " + provider
                    + " is unavailable (" + unavailable.get(provider) + ")");
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
            n.add(d instanceof DeviceImpl ? d.name() : d.provider() + ":" + d.name());
        }
        return n;
    }
}
