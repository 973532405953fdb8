package io.jrdma.loop;

import io.jrdma.internal.engine.AgentRunner;
import io.jrdma.internal.engine.IdleStrategy;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.Rdma;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The in-process fabric: the loop devices of this JVM and the one engine that runs every loop QP.
 * One engine thread means the QPs of both ends of a connection are processed by the same thread, so
 * the data path needs no locks, and atomics are atomic with respect to each other (HCA-level).
 */
public final class LoopFabric {
    private static final LoopFabric INSTANCE = new LoopFabric();

    private final Map<String, LoopDevice> devices = new ConcurrentHashMap<>();
    private final ThreadLocal<LoopEngine> boundEngine = new ThreadLocal<>();
    private volatile LoopEngine engine;
    private AgentRunner runner;

    private LoopFabric() {
    }

    /** The fabric of this JVM. */
    public static LoopFabric instance() {
        return INSTANCE;
    }

    LoopDevice device(String name, int index) {
        return devices.computeIfAbsent(name, n -> new LoopDevice(n, index));
    }

    /** A new device opened with a configuration; {@link #closed} forgets it. */
    LoopDevice open(String name, int index) {
        LoopDevice d = new LoopDevice(name, index);
        if (devices.putIfAbsent(name, d) != null) {
            throw new IllegalStateException("the loop fabric has a device named " + name);
        }
        return d;
    }

    /** Forgets a device that was closed. */
    void closed(LoopDevice d) {
        devices.remove(d.name(), d);
    }

    /**
     * Until the returned handle is closed, QPs created on the calling thread run on {@code e}
     * instead of the fabric's engine: tests drive such an engine with an {@code AgentInvoker} and a
     * {@code ManualClock}. QPs of one connection must share an engine.
     */
    AutoCloseable bindEngine(LoopEngine e) {
        boundEngine.set(e);
        return boundEngine::remove;
    }

    /** The engine of QPs created now: the one bound to this thread, else the fabric's, started on first use. */
    LoopEngine engine() {
        LoopEngine bound = boundEngine.get();
        if (bound != null) {
            return bound;
        }
        LoopEngine e = engine;
        if (e == null) {
            synchronized (this) {
                e = engine;
                if (e == null) {
                    e = new LoopEngine();
                    String idle = System.getProperty("jrdma.loop.idle", "backoff");
                    runner = new AgentRunner(e, "spin".equals(idle) ? IdleStrategy.busySpin()
                            : IdleStrategy.defaultStrategy());
                    e.runner(runner);
                    engine = e;
                }
            }
        }
        return e;
    }

    /**
     * The i-th device of {@code all} if it is a loop device that is not removed, else {@code null}: the
     * devices a multicast datagram reaches (the loop fabric is one subnet). Allocation-free.
     */
    static DeviceImpl loopDeviceAt(List<Device> all, int i) {
        if (all.get(i) instanceof DeviceImpl di && di.providerDevice() instanceof LoopDevice && !di.isRemoved()) {
            return di;
        }
        return null;
    }

    /**
     * The core device a GID belongs to, seen from the sending device {@code from}: loop devices answer for
     * every loopback GID, so the sender itself is chosen when it owns the GID (its connections stay on it,
     * as a connection manager restricted to it expects), else the first loop device in the registry's
     * order. Returns {@code null} if no loop device does.
     */
    DeviceImpl deviceForGid(Gid gid, Object from) {
        // Called for every message: an indexed loop over the registry's list allocates no iterator.
        List<Device> all = Rdma.devices();
        DeviceImpl first = null;
        for (int i = 0; i < all.size(); i++) {
            if (all.get(i) instanceof DeviceImpl di && di.providerDevice() instanceof LoopDevice ld
                    && ld.ownsGid(gid) && !di.isRemoved()) {
                if (ld == from) {
                    return di;
                }
                if (first == null) {
                    first = di;
                }
            }
        }
        return first;
    }
}
