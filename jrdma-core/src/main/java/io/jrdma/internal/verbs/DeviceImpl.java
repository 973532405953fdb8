package io.jrdma.internal.verbs;

import io.jrdma.internal.capture.PacketTap;
import io.jrdma.spi.DeviceCounters;
import io.jrdma.spi.ProviderDevice;
import io.jrdma.spi.RdmaProvider;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Counters;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.DeviceAttributes;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.PacketCapture;
import io.jrdma.verbs.PortAttributes;
import io.jrdma.verbs.PortState;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.TransportType;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.Consumer;

/**
 * Core's {@link Device}: a provider device plus what core keeps per device — the memory key table,
 * the QP number table, resource counts against the device limits, and the open contexts.
 */
public final class DeviceImpl implements Device {
    /** Resources counted against the device limits. */
    public enum Resource {
        /** Queue pairs (max_qp). */
        QP,
        /** Completion queues (max_cq). */
        CQ,
        /** Protection domains (max_pd). */
        PD,
        /** Shared receive queues (max_srq). */
        SRQ
    }

    private static final VarHandle QPS = MethodHandles.arrayElementVarHandle(QpImpl[].class);

    private final RdmaProvider provider;
    private final ProviderDevice dev;
    private final MemoryTable memoryTable;
    private final AtomicIntegerArray counts = new AtomicIntegerArray(Resource.values().length);
    private final List<ContextImpl> contexts = new CopyOnWriteArrayList<>();
    private volatile QpImpl[] qps = new QpImpl[64];
    /** The next QPN index to try ({@link QpNumbers}; guarded by {@code this}). */
    private int nextQpIndex;
    private volatile VerbsEvents events = new VerbsEvents();
    private PacketTap capture;
    private volatile boolean linkDown;
    private static final QpImpl[] NO_QPS = new QpImpl[0];
    /** Multicast group → attached QPs (copy on write; read by engines without locks). */
    private final Map<Gid, QpImpl[]> mcast = new ConcurrentHashMap<>();
    /** QP attachments over every group (guarded by {@code this}). */
    private int mcastAttachments;
    private volatile boolean removed;
    private final List<Consumer<DeviceImpl>> removalListeners = new CopyOnWriteArrayList<>();

    DeviceImpl(RdmaProvider provider, ProviderDevice dev) {
        this.provider = provider;
        this.dev = dev;
        this.memoryTable = new MemoryTable(dev.attributes().maxMr());
    }

    /** The provider's device. */
    public ProviderDevice providerDevice() {
        return dev;
    }

    /** The memory keys of the device. */
    public MemoryTable memoryTable() {
        return memoryTable;
    }

    /** The device limits. */
    public DeviceAttributes attributes() {
        return dev.attributes();
    }

    /** Port 1's attributes; the state is DOWN while the host link is down ({@link #linkState}). */
    public PortAttributes portAttributes() {
        PortAttributes a = dev.portAttributes();
        if (!linkDown) {
            return a;
        }
        return new PortAttributes(PortState.DOWN, a.maxMtu(), a.activeMtu(), a.gidTableLength(), a.linkLayer(),
                a.lid(), a.maxMsgSize(), a.activeSpeed(), a.activeWidth());
    }

    /** Whether port 1's link is up (always, for a device that does not follow a host link). */
    public boolean linkUp() {
        return !linkDown;
    }

    /**
     * Records the state of the host link under port 1; a change is reported to every open context as
     * {@code PORT_ERR} or {@code PORT_ACTIVE} (Linux: {@code ib_dispatch_event} from the driver's netdev
     * notifier). Called by the link watcher, and by tests.
     *
     * @param up whether the link is up
     */
    public void linkState(boolean up) {
        boolean changed;
        synchronized (contexts) {
            changed = linkDown == up;
            linkDown = !up;
        }
        if (changed) {
            portEvent(up ? AsyncEventType.PORT_ACTIVE : AsyncEventType.PORT_ERR,
                    up ? "link up" : "link down: no interface carrying " + addresses() + " is up");
        }
    }

    /** The device's counters (the provider's, with core's QP registrations). */
    public DeviceCounters counters() {
        return dev.deviceCounters();
    }

    @Override
    public Counters queryCounters() {
        return counters().snapshot();
    }

    @Override
    public List<Counters> queryQpCounters() {
        return counters().liveQps();
    }

    @Override
    public List<Counters> queryDestroyedQpCounters(long sinceNanoTime) {
        return counters().destroyedSince(sinceNanoTime);
    }

    /**
     * Starts a capture of the whole device ({@link io.jrdma.verbs.Context#startCapture}).
     *
     * @param file the pcap file
     * @return the running capture
     * @throws IllegalStateException if one runs already
     */
    public synchronized PacketCapture startCapture(Path file) {
        if (file == null) {
            throw new IllegalArgumentException("file must not be null");
        }
        if (capture != null && !capture.isClosed()) {
            throw new IllegalStateException(name() + " is already captured to " + capture.file());
        }
        PacketTap[] self = new PacketTap[1];
        PacketTap t = PacketTap.open(file, () -> stopCapture(self[0]));
        self[0] = t;
        capture = t;
        dev.captureChanged(t);
        return t;
    }

    private synchronized void stopCapture(PacketTap t) {
        if (capture == t) {
            capture = null;
            dev.captureChanged(null);
        }
    }

    /** The control-plane event sink. */
    public VerbsEvents events() {
        return events;
    }

    /** Replaces the control-plane event sink (observability). */
    public void events(VerbsEvents e) {
        this.events = e;
    }

    @Override
    public String name() {
        return dev.name();
    }

    @Override
    public String provider() {
        return provider.name();
    }

    @Override
    public TransportType transport() {
        return dev.transport();
    }

    @Override
    public long nodeGuid() {
        return dev.nodeGuid();
    }

    @Override
    public List<InetAddress> addresses() {
        return dev.addresses();
    }

    @Override
    public boolean servesAddress(InetAddress address) {
        return !removed && dev.servesAddress(address);
    }

    @Override
    public Context open() {
        if (removed) {
            throw new RdmaException(Errno.ENODEV, dev.name() + " has been removed");
        }
        ContextImpl c = new ContextImpl(this);
        contexts.add(c);
        if (dev.followsNetworkLink()) {
            LinkWatcher.watch(this);
        }
        return c;
    }

    void contextClosed(ContextImpl c) {
        contexts.remove(c);
        if (contexts.isEmpty()) {
            LinkWatcher.unwatch(this);
        }
    }

    /** Delivers a port or device event to every open context. */
    public void portEvent(AsyncEventType type, String detail) {
        for (ContextImpl c : contexts) {
            c.asyncEvent(type, null, null, null, detail);
        }
    }

    // ------------------------------------------------------------------------------------------ multicast

    /**
     * The QPs of this device attached to {@code mgid} (an empty array if none). Any thread; allocation-free
     * (the engines read it per multicast datagram). Linux: the QP list of rxe's {@code rxe_mcg}.
     *
     * @param mgid the group's GID
     * @return the attached QPs; never modified after it is returned
     */
    public QpImpl[] mcastMembers(Gid mgid) {
        QpImpl[] m = mcast.get(mgid);
        return m == null ? NO_QPS : m;
    }

    /** Attaches {@code qp} to {@code mgid} within the device limits (rxe_attach_mcast); a repeat is a no-op. */
    synchronized void attachMcast(QpImpl qp, Gid mgid) {
        DeviceAttributes a = dev.attributes();
        if (a.maxMcastGrp() == 0) {
            throw new RdmaException(Errno.EOPNOTSUPP, dev.name() + " has no multicast");
        }
        QpImpl[] cur = mcast.get(mgid);
        if (cur != null) {
            for (QpImpl q : cur) {
                if (q == qp) {
                    return;
                }
            }
            if (cur.length >= a.maxMcastQpAttach()) {
                throw new RdmaException(Errno.ENOMEM, dev.name() + ": multicast group " + mgid + " has the most QPs ("
                        + a.maxMcastQpAttach() + ")");
            }
        } else if (mcast.size() >= a.maxMcastGrp()) {
            throw new RdmaException(Errno.ENOMEM, dev.name() + ": the most multicast groups (" + a.maxMcastGrp()
                    + ") are in use");
        }
        if (mcastAttachments >= a.maxTotalMcastQpAttach()) {
            throw new RdmaException(Errno.ENOMEM, dev.name() + ": the most multicast attachments ("
                    + a.maxTotalMcastQpAttach() + ") are in use");
        }
        if (cur == null) {
            dev.multicastGroupAdded(mgid);
        }
        QpImpl[] next = cur == null ? new QpImpl[1] : Arrays.copyOf(cur, cur.length + 1);
        next[next.length - 1] = qp;
        mcast.put(mgid, next);
        mcastAttachments++;
    }

    /** Detaches {@code qp} from {@code mgid} (rxe_detach_mcast); false if it was not attached. */
    synchronized boolean detachMcast(QpImpl qp, Gid mgid) {
        QpImpl[] cur = mcast.get(mgid);
        if (cur == null) {
            return false;
        }
        int at = -1;
        for (int i = 0; i < cur.length; i++) {
            if (cur[i] == qp) {
                at = i;
            }
        }
        if (at < 0) {
            return false;
        }
        mcastAttachments--;
        if (cur.length == 1) {
            mcast.remove(mgid);
            dev.multicastGroupRemoved(mgid);
            return true;
        }
        QpImpl[] next = new QpImpl[cur.length - 1];
        System.arraycopy(cur, 0, next, 0, at);
        System.arraycopy(cur, at + 1, next, at, cur.length - at - 1);
        mcast.put(mgid, next);
        return true;
    }

    // ------------------------------------------------------------------------------------------ removal

    /** Whether the device has been removed ({@link #unregister()}) and not brought back. */
    public boolean isRemoved() {
        return removed;
    }

    /**
     * Calls {@code listener} when the device is removed (the connection manager: {@code cma_remove_one}).
     *
     * @param listener called with this device, on the thread that removes it
     */
    public void addRemovalListener(Consumer<DeviceImpl> listener) {
        removalListeners.add(listener);
    }

    /** Stops calling {@code listener}. */
    public void removeRemovalListener(Consumer<DeviceImpl> listener) {
        removalListeners.remove(listener);
    }

    /**
     * Removes the device, as {@code ib_unregister_device} does when a driver goes away or
     * {@code rdma link delete} runs: the provider stops carrying its traffic, it no longer serves its
     * addresses nor opens contexts, every open context gets {@link AsyncEventType#DEVICE_FATAL}, and every
     * removal listener runs (the connection managers report DEVICE_REMOVAL to their ids on it). A test hook
     * as much as an API: {@link #reregister()} brings it back. Linux: {@code ib_unregister_device} →
     * {@code cma_remove_one} / {@code ib_uverbs_remove_one}.
     */
    public void unregister() {
        synchronized (this) {
            if (removed) {
                return;
            }
            removed = true;
        }
        dev.removed();
        portEvent(AsyncEventType.DEVICE_FATAL, "device removed");
        for (Consumer<DeviceImpl> l : removalListeners) {
            l.accept(this);
        }
    }

    /** Brings a removed device back (tests; {@code rdma link add} again). Linux: {@code ib_register_device}. */
    public void reregister() {
        synchronized (this) {
            if (!removed) {
                return;
            }
            removed = false;
        }
        dev.restored();
    }

    /** The preference of the device's provider ({@link RdmaProvider#priority()}). */
    public int providerPriority() {
        return provider.priority();
    }

    /** Closes every context still open on the device, with everything on it (the device is being closed). */
    void closeContexts() {
        for (ContextImpl c : contexts) {
            try {
                c.close();
            } catch (RuntimeException e) {
                System.getLogger("io.jrdma.verbs").log(System.Logger.Level.WARNING, "[" + name()
                        + "] closing a context of the closed device failed: " + e);
            }
        }
    }

    /** Counts one more resource of a kind, or fails with ENOMEM at the device limit. */
    void reserve(Resource r) {
        int max = switch (r) {
            case QP -> dev.attributes().maxQp();
            case CQ -> dev.attributes().maxCq();
            case PD -> dev.attributes().maxPd();
            case SRQ -> dev.attributes().maxSrq();
        };
        for (;;) {
            int n = counts.get(r.ordinal());
            if (n >= max) {
                throw new RdmaException(Errno.ENOMEM, dev.name() + ": device limit of " + max + " "
                        + r.name() + "s reached");
            }
            if (counts.compareAndSet(r.ordinal(), n, n + 1)) {
                return;
            }
        }
    }

    void release(Resource r) {
        counts.decrementAndGet(r.ordinal());
    }

    /** How many resources of a kind exist. */
    public int count(Resource r) {
        return counts.get(r.ordinal());
    }

    synchronized int allocateQpn() {
        QpImpl[] t = qps;
        for (int n = 0; n < QpNumbers.WINDOW; n++) {
            int i = nextQpIndex;
            nextQpIndex = i + 1 == QpNumbers.WINDOW ? 0 : i + 1;
            if (i >= t.length || t[i] == null) {
                return QpNumbers.qpn(i);
            }
        }
        throw new RdmaException(Errno.ENOMEM, "no free QP number");
    }

    synchronized void registerQp(QpImpl qp) {
        int idx = QpNumbers.index(qp.qpNum());
        QpImpl[] t = qps;
        if (idx >= t.length) {
            t = Arrays.copyOf(t, Math.min(QpNumbers.WINDOW, Math.max(idx + 1, t.length * 2)));
        }
        QPS.setRelease(t, idx, qp);
        qps = t;
    }

    synchronized void unregisterQp(QpImpl qp) {
        int idx = QpNumbers.index(qp.qpNum());
        QpImpl[] t = qps;
        if (idx >= 0 && idx < t.length && t[idx] == qp) {
            QPS.setRelease(t, idx, (QpImpl) null);
        }
    }

    /** The live QP with this number, or {@code null}. Any thread; allocation-free. */
    public QpImpl qp(int qpn) {
        int idx = QpNumbers.index(qpn);
        QpImpl[] t = qps;
        if (idx < 0 || idx >= t.length) {
            return null;
        }
        return (QpImpl) QPS.getAcquire(t, idx);
    }

    @Override
    public String toString() {
        return dev.name();
    }
}
