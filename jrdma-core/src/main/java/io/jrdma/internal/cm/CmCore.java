package io.jrdma.internal.cm;

import io.jrdma.cm.CmEventHandler;
import io.jrdma.cm.PortSpace;
import io.jrdma.internal.net.Ip;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.internal.verbs.DeviceRegistry;
import io.jrdma.spi.ProviderCm;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.Rdma;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One connection manager instance: the devices it may use, its event executor, the verbs contexts
 * it opened for its ids, and its live ids. Its ids and channels see it as a {@link CmHost}; the object
 * that opened it (the public connection manager) is only held, as its {@linkplain #owner owner}.
 */
public final class CmCore implements CmHost, AutoCloseable {
    private static final java.util.concurrent.atomic.AtomicInteger NEXT = new java.util.concurrent.atomic
            .AtomicInteger();

    /** What opened this manager (the public {@code RdmaCm}), handed back by {@link #owner}; or null. */
    private final Object owner;
    /** The software devices, core's own. */
    private final List<DeviceImpl> devices;
    /** Every device, with those of whole-device providers. */
    private final List<Device> all;
    private final Function<String, ProviderCm> providerCms;
    private final String preferred;
    private final SerialExecutor executor;
    private final Map<Device, Context> contexts = new ConcurrentHashMap<>();
    private final Set<CmIdImpl> ids = ConcurrentHashMap.newKeySet();
    private final Set<ChannelImpl> channels = ConcurrentHashMap.newKeySet();
    private volatile CmEvents events = new CmEvents();
    private volatile boolean closed;

    /**
     * The system property naming a whole-device provider (e.g. {@code native}) whose connection manager
     * serves an address its devices serve even when a software device serves it too.
     */
    public static final String PREFER_PROVIDER = "jrdma.cm.provider";

    /** A connection manager over {@code deviceNames} (all devices when empty), opened by {@code owner}. */
    public CmCore(Object owner, List<String> deviceNames) {
        this(owner, chosen(deviceNames), DeviceRegistry.instance()::connectionManager,
                System.getProperty(PREFER_PROVIDER));
    }

    /**
     * A connection manager over {@code devices} (in preference order): the software ones ({@link DeviceImpl})
     * are core's, the others belong to whole-device providers whose connection managers {@code cms} gives
     * by provider name (null for none); {@code preferred} names the provider whose connection manager wins
     * an address a software device serves too, or is null.
     */
    CmCore(Object owner, List<Device> devices, Function<String, ProviderCm> cms, String preferred) {
        this.owner = owner;
        List<DeviceImpl> soft = new ArrayList<>();
        for (Device d : devices) {
            if (d instanceof DeviceImpl di) {
                soft.add(di);
            }
        }
        this.all = List.copyOf(devices);
        this.devices = List.copyOf(soft);
        this.providerCms = cms;
        this.preferred = preferred == null || preferred.isBlank() ? null : preferred.trim();
        this.executor = new SerialExecutor("jrdma-cm-" + NEXT.incrementAndGet());
        for (DeviceImpl d : this.devices) {
            d.addRemovalListener(removalListener);
        }
    }

    /**
     * The devices of {@code names} in {@link Rdma#devices()} order, each name looked up as
     * {@link Rdma#device} does ({@code native:siw0}, or a plain name, a software device first); every device
     * when {@code names} is empty.
     */
    private static List<Device> chosen(List<String> names) {
        if (names.isEmpty()) {
            return Rdma.devices();
        }
        Set<Device> named = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (String n : names) {
            named.add(Rdma.device(n)); // a clear ENODEV for a name that does not exist
        }
        List<Device> list = new ArrayList<>();
        for (Device d : Rdma.devices()) {
            if (named.contains(d)) {
                list.add(d);
            }
        }
        return list;
    }

    /** {@code cma_remove_one}: every id of this manager on the removed device hears of it. */
    private final Consumer<DeviceImpl> removalListener = this::deviceRemoved;

    private void deviceRemoved(DeviceImpl d) {
        for (CmIdImpl id : new ArrayList<>(ids)) {
            id.deviceRemoved(d);
        }
    }

    @Override
    public <T> T owner(Class<T> type) {
        return type.isInstance(owner) ? type.cast(owner) : null;
    }

    /** The software devices this connection manager may use, in preference order. */
    @Override
    public List<DeviceImpl> devices() {
        return devices;
    }

    /** Every device this connection manager may use, the software ones first. */
    @Override
    public List<Device> allDevices() {
        return all;
    }

    /** The event executor. */
    @Override
    public SerialExecutor executor() {
        return executor;
    }

    /** The observation hooks. */
    @Override
    public CmEvents events() {
        return events;
    }

    /** Replaces the observation hooks. */
    @Override
    public void events(CmEvents e) {
        this.events = e;
    }

    /** The backend of a device. */
    @Override
    public CmBackend backend(DeviceImpl d) {
        return CmBackends.of(d);
    }

    /** The verbs context this connection manager keeps open on {@code d}. */
    @Override
    public Context context(Device d) {
        return contexts.computeIfAbsent(d, Device::open);
    }

    /**
     * Which connection manager serves an id whose address is {@code ip}: null for core's own (a software
     * device), or a whole-device provider's. A specific address goes to the provider named by
     * {@value #PREFER_PROVIDER} when one of its devices of this manager serves it; else to core when a
     * software device of this manager serves it; else to the first provider (in device order) with a device
     * of this manager that serves it. A wildcard goes to the preferred provider if it has devices here, to
     * core when this manager has software devices, else to the provider of its first device that has a
     * connection manager. Null when none applies (core then reports that no device serves the address).
     */
    @Override
    public Foreign foreignFor(InetAddress ip) {
        List<Foreign> candidates = new ArrayList<>(); // one per provider, the preferred one first
        for (Device d : all) {
            if (d instanceof DeviceImpl || candidates.stream().anyMatch(f -> f.device().provider().equals(
                    d.provider()))) {
                continue;
            }
            ProviderCm cm = providerCms.apply(d.provider());
            if (cm != null) {
                candidates.add(d.provider().equals(preferred) ? 0 : candidates.size(), new Foreign(cm, d));
            }
        }
        boolean wildcard = ip == null || ip.isAnyLocalAddress();
        for (Foreign f : candidates) {
            boolean isPreferred = f.device().provider().equals(preferred);
            if (!isPreferred && (wildcard ? !devices.isEmpty() : deviceFor(ip) != null)) {
                return null; // a software device serves it
            }
            if (wildcard) {
                return f;
            }
            Device served = f.cm().deviceFor(ip);
            if (served != null && all.contains(served)) {
                return new Foreign(f.cm(), served);
            }
        }
        return null;
    }

    /** The first of this manager's devices that serves {@code ip}, or {@code null}. */
    @Override
    public DeviceImpl deviceFor(InetAddress ip) {
        for (DeviceImpl d : devices) {
            if (d.servesAddress(ip)) {
                return d;
            }
        }
        return null;
    }

    /**
     * The source address for {@code dst}: for a loopback destination the destination itself when one of
     * this manager's devices serves it (the host owns the whole loopback net, and a device tied to
     * 127.0.0.2 reaches 127.0.0.2 only from there), else the loopback address of its family; the address
     * the kernel's routing would pick (a connected UDP socket's local address; no packet is
     * sent) otherwise. A link-local destination is reached on the interface its scope names; one without
     * a scope only when this host owns it (the kernel cannot pick a link for it otherwise). With no route
     * the destination itself is returned: a device serves it only when this host owns it.
     */
    @Override
    public InetAddress sourceFor(InetAddress dst) {
        if (dst.isLoopbackAddress()) {
            return deviceFor(dst) != null ? dst : Ip.loopback(Ip.isIpv6(dst));
        }
        if (Ip.isLinkLocal(dst) && !Ip.hasScope(dst)) {
            return ownScoped(dst);
        }
        try (DatagramSocket s = new DatagramSocket()) {
            s.connect(new InetSocketAddress(dst, 9));
            InetAddress a = s.getLocalAddress();
            if (a != null && !a.isAnyLocalAddress()) {
                return a;
            }
        } catch (SocketException | java.io.UncheckedIOException e) {
            // fall through: no route
        }
        return dst;
    }

    /** {@code dst} with the scope of the interface of this host that owns it, or {@code dst}. */
    private static InetAddress ownScoped(InetAddress dst) {
        try {
            java.util.Enumeration<java.net.NetworkInterface> all = java.net.NetworkInterface.getNetworkInterfaces();
            while (all != null && all.hasMoreElements()) {
                for (java.util.Enumeration<InetAddress> as = all.nextElement().getInetAddresses();
                        as.hasMoreElements(); ) {
                    InetAddress a = as.nextElement();
                    if (a.equals(dst)) {
                        return a;
                    }
                }
            }
        } catch (SocketException e) {
            // no interfaces to look at
        }
        return dst;
    }

    /** Creates a kernel-style id. */
    public CmIdImpl createId(CmEventHandler handler, Object context, PortSpace ps, QpType type) {
        checkOpen();
        if (handler == null) {
            throw new IllegalArgumentException("a kernel-style id needs an event handler");
        }
        CmIdImpl id = new CmIdImpl(this, handler, CmIdImpl.Mode.KERNEL, null, context, ps, type, null);
        register(id);
        return id;
    }

    /** Creates a channel. */
    public ChannelImpl createChannel() {
        checkOpen();
        ChannelImpl c = new ChannelImpl(this);
        channels.add(c);
        return c;
    }

    @Override
    public CmIdImpl createChannelId(ChannelImpl ch, Object context, PortSpace ps, QpType type, boolean sync) {
        checkOpen();
        CmIdImpl id = new CmIdImpl(this, null, sync ? CmIdImpl.Mode.SYNC : CmIdImpl.Mode.CHANNEL, ch, context, ps,
                type, null);
        register(id);
        ch.attach(id);
        return id;
    }

    /** Creates a synchronous id with a private channel. */
    public CmIdImpl createSyncId(Object context, PortSpace ps, QpType type) {
        ChannelImpl ch = new ChannelImpl(this);
        return createChannelId(ch, context, ps, type, true);
    }

    @Override
    public void channelClosed(ChannelImpl c) {
        channels.remove(c);
    }

    @Override
    public void register(CmIdImpl id) {
        ids.add(id);
    }

    @Override
    public void unregister(CmIdImpl id) {
        ids.remove(id);
    }

    /** The live ids (leak checks). */
    public int idCount() {
        return ids.size();
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("connection manager is closed");
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (DeviceImpl d : devices) {
            d.removeRemovalListener(removalListener);
        }
        for (CmIdImpl id : new ArrayList<>(ids)) {
            try {
                id.destroyNoWait();
            } catch (RuntimeException e) {
                // keep closing the rest
            }
        }
        executor.close();
        for (Context c : contexts.values()) {
            try {
                c.close();
            } catch (RuntimeException e) {
                // the application may still hold resources on it
            }
        }
        contexts.clear();
    }
}
