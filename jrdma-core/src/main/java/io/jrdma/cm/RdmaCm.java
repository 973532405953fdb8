package io.jrdma.cm;

import io.jrdma.internal.cm.CmCore;
import io.jrdma.internal.cm.CmIdImpl;
import io.jrdma.internal.cm.IwCm;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.TransportType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A connection manager: the factory of CM ids and event channels (Linux's rdma_cm as one process
 * sees it). All events of one instance are delivered, one at a time, on its own executor thread.
 * Thread-safe. Closing it closes what was built on it ({@link #addDependent}), then destroys its ids
 * and closes its contexts.
 *
 * <pre>{@code
 * try (RdmaCm cm = RdmaCm.open(); EventChannel ch = cm.createEventChannel()) {
 *     CmId id = ch.createId(null, PortSpace.TCP);
 *     id.resolveAddr(null, new InetSocketAddress("127.0.0.1", 7471), Duration.ofSeconds(2));
 *     CmEvent e = ch.getEvent();   // ADDR_RESOLVED
 *     ch.ackEvent(e);
 *     ...
 * }
 * }</pre>
 */
public final class RdmaCm implements AutoCloseable {
    /** The address-resolution timeout librdmacm's examples use. */
    public static final Duration DEFAULT_RESOLVE_TIMEOUT = Duration.ofSeconds(2);

    private final CmCore core;
    /** What {@link #close()} closes before the ids, most recently added first (guarded by itself). */
    private final java.util.ArrayDeque<AutoCloseable> dependents = new java.util.ArrayDeque<>();
    private volatile boolean closed;

    private RdmaCm(List<String> devices) {
        this.core = new CmCore(this, devices);
    }

    /**
     * The connection manager {@code id} belongs to ({@link CmId#cm}): the owner of the id's core, which is
     * the manager that opened it; null for an id that is not core's.
     */
    static RdmaCm of(CmId id) {
        return id instanceof CmIdImpl impl ? impl.core().owner(RdmaCm.class) : null;
    }

    /** A connection manager over every device. Linux: librdmacm's process-wide state ({@code ucma_init}). */
    public static RdmaCm open() {
        return new RdmaCm(List.of());
    }

    /**
     * A connection manager restricted to the named devices (e.g. {@code "loop0"}). Linux: librdmacm's process-wide
     * state ({@code ucma_init}) restricted to these devices.
     */
    public static RdmaCm open(String... deviceNames) {
        return new RdmaCm(Arrays.asList(deviceNames));
    }

    /** The devices this manager uses, in preference order. Linux: {@code rdma_get_devices}. */
    public List<Device> devices() {
        return new ArrayList<>(core.allDevices());
    }

    /** {@code rdma_create_id} (kernel style): events go to {@code handler}. */
    public CmId createId(CmEventHandler handler, Object context, PortSpace ps, QpType qpType) {
        return core.createId(handler, context, ps, qpType);
    }

    /** {@code rdma_create_id} with the port space's default QP type. */
    public CmId createId(CmEventHandler handler, Object context, PortSpace ps) {
        return core.createId(handler, context, ps, ps.defaultQpType());
    }

    /** {@code rdma_create_event_channel}. */
    public EventChannel createEventChannel() {
        return core.createChannel();
    }

    /**
     * {@code rdma_create_ep}: a synchronous id (no channel) for {@code info}: an active one comes back
     * with its address and route resolved, a passive one bound. With {@code pd} and {@code qpAttr}
     * the active id's QP is created at once, and a passive id creates one for every request
     * {@link CmId#getRequest} returns. On such ids connect, accept and getRequest block until done.
     */
    public CmId createEp(RdmaAddrInfo info, ProtectionDomain pd, QpInitAttr qpAttr) {
        CmIdImpl id = core.createSyncId(null, info.portSpace(), info.qpType());
        try {
            if (info.passive()) {
                id.bind(info.source());
                if (pd != null && qpAttr != null) {
                    // librdmacm's ucma_passive_ep: the listener keeps them; getRequest creates each
                    // request's QP with them.
                    id.endpointQp(pd, qpAttr);
                }
            } else {
                id.resolveAddr(info.source(), info.destination(), DEFAULT_RESOLVE_TIMEOUT);
                id.resolveRoute(DEFAULT_RESOLVE_TIMEOUT);
                if (pd != null && qpAttr != null) {
                    id.createQp(pd, qpAttr);
                }
            }
            return id;
        } catch (RuntimeException e) {
            id.destroy();
            throw e;
        }
    }

    /**
     * Creates an iWARP CM id on an iWARP device ({@code iw_create_cm_id}), for users of the iw_cm
     * layer itself.
     */
    public IwCmId createIwId(Device device, IwCmHandler handler, Object context) {
        if (device == null || device.transport() != TransportType.IWARP) {
            throw new IllegalArgumentException("an iWARP CM id needs an iWARP device, not " + device);
        }
        if (handler == null) {
            throw new IllegalArgumentException("an iWARP CM id needs an event handler");
        }
        return IwCm.of((DeviceImpl) device).createId(handler, context);
    }

    /** The number of live ids (leak checks). Linux has no call for it; {@code rdma_destroy_id} ends each. */
    public int idCount() {
        return core.idCount();
    }

    /**
     * Ties {@code dependent} to this manager: {@link #close()} closes it before it destroys any id, most
     * recently added first. For what is built on the manager's ids and contexts (the endpoints and
     * listeners of {@code io.jrdma.endpoint}), so that closing the manager leaves none of it behind. A
     * dependent that is closed on its own removes itself with {@link #removeDependent}. Thread-safe.
     *
     * @param dependent closed when this manager closes
     * @throws IllegalStateException if the manager is closed
     */
    public void addDependent(AutoCloseable dependent) {
        java.util.Objects.requireNonNull(dependent, "dependent");
        synchronized (dependents) {
            if (closed) {
                throw new IllegalStateException("the connection manager is closed");
            }
            dependents.push(dependent);
        }
    }

    /**
     * Unties a dependent added with {@link #addDependent}; nothing happens if it is not tied. Thread-safe.
     *
     * @param dependent the dependent
     */
    public void removeDependent(AutoCloseable dependent) {
        synchronized (dependents) {
            dependents.removeFirstOccurrence(dependent);
        }
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Closes the dependents ({@link #addDependent}), then destroys every id, stops the executor and closes
     * the verbs contexts it opened, with everything still open on them. Idempotent. Linux: the end of
     * librdmacm use in a process.
     */
    @Override
    public void close() {
        synchronized (dependents) {
            closed = true;
        }
        while (true) {
            AutoCloseable d;
            synchronized (dependents) {
                d = dependents.poll();
            }
            if (d == null) {
                break;
            }
            try {
                d.close();
            } catch (Exception e) {
                System.getLogger("io.jrdma.cm").log(System.Logger.Level.WARNING, "closing " + d
                        + " with its connection manager failed: " + e);
            }
        }
        core.close();
    }
}
