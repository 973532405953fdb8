package io.jrdma.internal.cm;

import io.jrdma.cm.CmId;
import io.jrdma.cm.CmState;
import io.jrdma.cm.IwCmId;
import io.jrdma.cm.PortSpace;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.verbs.QpType;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * What an rdma_cm id is — its number, its connection manager, the application's context, port space,
 * QP type, state, device and backend, addresses, route, what the connection {@link Negotiated
 * negotiated} and the backend's connection state — with the accessors the id's parts and the backends
 * read and set it by. {@code CmIdImpl} is the one kind of it, and it names none of it here (a state
 * change it reports through {@link #stateChanged}); what a whole-device provider's connection manager
 * answers instead (the device, the connection, the remote ECE) and the calls of rdma_cm are there.
 *
 * <p>The lock is the id's monitor, as everywhere in the id: a read-modify-write here takes it, a single
 * value read alone is volatile.
 */
abstract class CmIdState implements CmId {
    private static final AtomicInteger NEXT_HANDLE = new AtomicInteger(1);

    final CmHost core;
    /** The id's number in logs and traces ({@code [cm N]}). */
    final int handle = NEXT_HANDLE.getAndIncrement();
    private volatile Object context;
    private final PortSpace ps;
    private final QpType qpType;
    private volatile CmState state = CmState.IDLE;
    private volatile DeviceImpl device;
    private volatile CmBackend backend;
    volatile InetSocketAddress local;
    volatile InetSocketAddress remote;
    private volatile Route route;
    private volatile Negotiated negotiated = Negotiated.initial();
    /** The backend's connection state (the IB CM id or the iWARP CM id), or {@code null}. */
    volatile Object transport;

    CmIdState(CmHost core, Object context, PortSpace ps, QpType qpType) {
        this.core = core;
        this.context = context;
        this.ps = ps;
        this.qpType = qpType;
    }

    String tag() {
        return "[cm " + handle + "]";
    }

    /** The state went from {@code from} to {@code to} (a change, outside the id's monitor). */
    abstract void stateChanged(CmState from, CmState to);

    /** The connection manager instance the id belongs to (internal type; tests hook its observations). */
    public CmHost core() {
        return core;
    }

    @Override
    public Object context() {
        return context;
    }

    @Override
    public void context(Object c) {
        this.context = c;
    }

    @Override
    public PortSpace portSpace() {
        return ps;
    }

    @Override
    public QpType qpType() {
        return qpType;
    }

    @Override
    public CmState state() {
        return state;
    }

    /** Sets the state (backends; the id's own transitions). */
    public void state(CmState s) {
        CmState old;
        synchronized (this) {
            old = state;
            state = s;
        }
        if (old != s) {
            stateChanged(old, s);
        }
    }

    /** Moves from {@code from} to {@code to} if the id is in {@code from} ({@code cma_comp_exch}). */
    public boolean compareAndSetState(CmState from, CmState to) {
        synchronized (this) {
            if (state != from) {
                return false;
            }
            state = to;
        }
        if (from != to) {
            stateChanged(from, to);
        }
        return true;
    }

    /** The device (internal type). */
    public DeviceImpl deviceImpl() {
        return device;
    }

    /** Ties the id to a device (once). */
    public void attachDevice(DeviceImpl dev) {
        synchronized (this) {
            if (device == null) {
                backend = core.backend(dev);
                device = dev;
            }
        }
    }

    /** The backend of the id's device. */
    public CmBackend backend() {
        return backend;
    }

    /** The resolved route, or {@code null}. */
    public Route route() {
        return route;
    }

    /** Sets the route (backends, for ids made by a request: the path comes with the REQ). */
    public void route(Route r) {
        this.route = r;
    }

    /** What the connection negotiated so far. */
    public Negotiated negotiated() {
        return negotiated;
    }

    /** Replaces what the connection negotiated with {@code change} of it (backends, as the protocol runs). */
    public void negotiate(UnaryOperator<Negotiated> change) {
        synchronized (this) {
            negotiated = change.apply(negotiated);
        }
    }

    /** The backend's connection state if it is a {@code type}, else {@code null}. */
    public <T> T transport(Class<T> type) {
        Object t = transport;
        return type.isInstance(t) ? type.cast(t) : null;
    }

    /** Sets (or, with {@code null}, drops) the backend's connection state. */
    public void setTransport(Object t) {
        this.transport = t;
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public InetSocketAddress peerAddress() {
        return remote;
    }

    /** Sets the addresses (backends, for ids made by a request). */
    public void addresses(InetSocketAddress l, InetSocketAddress r) {
        this.local = l;
        this.remote = r;
    }

    @Override
    public int localPort() {
        InetSocketAddress l = local;
        return l == null ? 0 : l.getPort();
    }

    @Override
    public int peerPort() {
        InetSocketAddress r = remote;
        return r == null ? 0 : r.getPort();
    }

    @Override
    public IwCmId iwCmId() {
        return transport(IwCmId.class);
    }
}
