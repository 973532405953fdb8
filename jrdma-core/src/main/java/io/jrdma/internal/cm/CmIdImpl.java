package io.jrdma.internal.cm;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventHandler;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.CmState;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.Ece;
import io.jrdma.cm.IwCmId;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.cm.RejectReason;
import io.jrdma.cm.UdParam;
import io.jrdma.internal.net.Ip;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.internal.verbs.Unpredictable;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.AtomicCap;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.TransportType;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An rdma_cm id: the generic half of Linux {@code cma.c} — states, addresses, port binding, device
 * choice, private-data limits, the QP transitions the CM drives, and event delivery with the
 * handler-lock rules — over a {@link CmBackend} that speaks the wire protocol.
 *
 * <p>Events are delivered on the connection manager's {@link SerialExecutor} under the id's handler
 * lock; after {@link #destroy()} returns none is delivered.
 */
public final class CmIdImpl implements CmId {
    private static final System.Logger LOG = System.getLogger("io.jrdma.cm");
    /** {@code RDMA_UDP_QKEY}: the Q_Key rdma_cm gives UD QPs of the UDP and IB port spaces. */
    public static final int RDMA_UDP_QKEY = 0x01234567;
    /** How many ephemeral ports connect tries when the host holds the ones picked. */
    static final int MAX_EPHEMERAL_ATTEMPTS = 8;
    private static final AtomicInteger NEXT_HANDLE = new AtomicInteger(1);

    /** How the id reports events. */
    enum Mode {
        /** Kernel style: a handler. */
        KERNEL,
        /** librdmacm style: an event channel. */
        CHANNEL,
        /** librdmacm synchronous mode: a private channel the blocking calls wait on. */
        SYNC
    }

    final CmCore core;
    final int handle = NEXT_HANDLE.getAndIncrement();
    private final CmEventHandler handler;
    final Mode mode;
    volatile ChannelImpl channel;
    private volatile Object context;
    private final PortSpace ps;
    private final QpType qpType;
    private volatile CmState state = CmState.IDLE;
    private final ReentrantLock handlerLock = new ReentrantLock();

    private volatile DeviceImpl device;
    private volatile CmBackend backend;
    private volatile InetSocketAddress local;
    private volatile InetSocketAddress remote;
    private int boundPort;
    private boolean portBound;
    /** The port was picked by the CM (bind to port 0), so the CM may pick another one. */
    private boolean ephemeralPort;
    /** The address the id was bound to (possibly a wildcard), as the port table holds it. */
    private InetAddress boundIp;
    private boolean reuseAddr;
    private boolean afOnly;
    private boolean afOnlySet;
    private int tos = -1;
    private int ackTimeout = -1;
    private int minRnrTimer = -1;
    private volatile Route route;
    private volatile QpImpl qp;

    /** The listener this id was created for (CONNECT_REQUEST ids), or {@code null}. */
    final CmIdImpl listener;
    private int backlog;
    private final AtomicInteger pendingRequests = new AtomicInteger();
    private final AtomicInteger backlogRejects = new AtomicInteger();
    private final List<DeviceImpl> listenDevices = new ArrayList<>();
    private boolean requestOutstanding;
    private volatile boolean suppressEvents;
    private volatile boolean destroyed;
    private boolean awaitingEstablish;
    private volatile boolean requestRetrieved;
    private volatile boolean accepted;

    // Negotiated parameters (set by the backend as the protocol runs).
    /**
     * The starting PSN of our REQ or REP (24 bits): the PSN this side expects to receive, its QP's
     * rq_psn (Linux cm.c sets {@code rq_psn} from its own REQ/REP and {@code sq_psn} from the peer's;
     * verified against Linux 6.1 rxe, see jrdma-rxe's golden README).
     */
    public int localPsn = Unpredictable.psn();
    /** The starting PSN of the peer's REQ or REP: the PSN this side sends from, its QP's sq_psn. */
    public int remotePsn;
    /** The remote QP number. */
    public int remoteQpn;
    /** The remote Q_Key (UD). */
    public int remoteQkey;
    /** Our responder resources (IRD) after negotiation. */
    public int responderResources = 1;
    /** Our initiator depth (ORD) after negotiation. */
    public int initiatorDepth = 1;
    /** Transport retry count for the QP. */
    public int retryCount = 7;
    /** RNR retry count for the QP. */
    public int rnrRetryCount = 7;
    /** The local ACK timeout the CM computed (IB time exponent). */
    public int localAckTimeout = 19;
    /** The remote side's IRD, as the connection request or reply said. */
    public int peerIrd = 1;
    /** The remote side's ECE. */
    public volatile Ece remoteEce = Ece.NONE;
    /** Backend state (the IB CM id or the iWARP CM id). */
    public volatile Object transport;
    /** A synchronous listener's PD and QP attributes for the QPs of its requests (rdma_create_ep). */
    private volatile ProtectionDomain endpointPd;
    private volatile QpInitAttr endpointQpAttr;
    /** The multicast groups the id joined ({@code id_priv->mc_list}; guarded by {@code this}). */
    private final List<Membership> multicast = new ArrayList<>(0);
    /** A synchronous id's queue of requests for getRequest. */
    final java.util.concurrent.LinkedBlockingQueue<CmIdImpl> syncRequests =
            new java.util.concurrent.LinkedBlockingQueue<>();

    CmIdImpl(CmCore core, CmEventHandler handler, Mode mode, ChannelImpl channel, Object context, PortSpace ps,
            QpType qpType, CmIdImpl listener) {
        if (ps == null || qpType == null) {
            throw new IllegalArgumentException("port space and QP type are required");
        }
        if (ps == PortSpace.TCP && qpType != QpType.RC && qpType != QpType.UC) {
            throw new IllegalArgumentException("the TCP port space carries RC (or UC) QPs, not " + qpType);
        }
        if (ps == PortSpace.UDP && qpType != QpType.UD) {
            throw new IllegalArgumentException("the UDP port space carries UD QPs, not " + qpType);
        }
        this.core = core;
        this.handler = handler;
        this.mode = mode;
        this.channel = channel;
        this.context = context;
        this.ps = ps;
        this.qpType = qpType;
        this.listener = listener;
    }

    private String tag() {
        return "[cm " + handle + "]";
    }

    // ------------------------------------------------------------------------------------------ accessors

    /** The connection manager instance the id belongs to (internal type; tests hook its observations). */
    public CmCore core() {
        return core;
    }

    @Override
    public RdmaCm cm() {
        return core.facade();
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
        CmState old = state;
        state = s;
        if (old != s) {
            core.events().idStateChanged(this, old, s);
        }
    }

    /** Moves from {@code from} to {@code to} if the id is in {@code from} ({@code cma_comp_exch}). */
    public synchronized boolean compareAndSetState(CmState from, CmState to) {
        if (state != from) {
            return false;
        }
        state(to);
        return true;
    }

    @Override
    public Device device() {
        return device;
    }

    /** The device (internal type). */
    public DeviceImpl deviceImpl() {
        return device;
    }

    @Override
    public Context verbs() {
        DeviceImpl d = device;
        return d == null ? null : core.context(d);
    }

    @Override
    public QueuePair qp() {
        return qp;
    }

    /** The QP (internal type), or {@code null}. */
    public QpImpl qpImpl() {
        return qp;
    }

    /** The resolved route, or {@code null}. */
    public Route route() {
        return route;
    }

    /** Sets the route (backends, for ids made by a request: the path comes with the REQ). */
    public void route(Route r) {
        this.route = r;
    }

    /** The id's TOS, or -1 if unset. */
    public int tos() {
        return tos;
    }

    /** The ACK timeout set with setAckTimeout, or -1. */
    public int ackTimeoutOption() {
        return ackTimeout;
    }

    /** The minimum RNR timer set with setMinRnrTimer, or -1. */
    public int minRnrTimerOption() {
        return minRnrTimer;
    }

    /** Whether AFONLY is set. */
    public boolean afOnly() {
        return afOnly;
    }

    /** Whether REUSEADDR is set. */
    public boolean reuseAddr() {
        return reuseAddr;
    }

    /** Whether the id is destroyed. */
    public boolean isDestroyed() {
        return destroyed;
    }

    /** Requests rejected because the backlog was full (listeners). */
    public int backlogRejects() {
        return backlogRejects.get();
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
    public Ece remoteEce() {
        return remoteEce;
    }

    @Override
    public IwCmId iwCmId() {
        return transport instanceof IwCmId iw ? iw : null;
    }

    // ------------------------------------------------------------------------------------------ options

    private void checkAlive() {
        if (destroyed) {
            throw new IllegalStateException(tag() + " id is destroyed");
        }
    }

    @Override
    public synchronized void setTos(int t) {
        checkAlive();
        if (t < 0 || t > 255) {
            throw new IllegalArgumentException("TOS is 8 bits: " + t);
        }
        this.tos = t;
    }

    @Override
    public synchronized void setReuseAddr(boolean reuse) {
        checkAlive();
        if (state != CmState.IDLE) {
            throw new IllegalStateException(tag() + " REUSEADDR must be set before bind (state " + state + ")");
        }
        this.reuseAddr = reuse;
    }

    @Override
    public synchronized void setAfOnly(boolean only) {
        checkAlive();
        if (state != CmState.IDLE) {
            throw new IllegalStateException(tag() + " AFONLY must be set before bind (state " + state + ")");
        }
        this.afOnly = only;
        this.afOnlySet = true;
    }

    @Override
    public synchronized void setAckTimeout(int t) {
        checkAlive();
        if (qpType != QpType.RC) {
            throw new IllegalArgumentException(tag() + " the ACK timeout applies to RC ids only");
        }
        if (t < 0 || t > 31) {
            throw new IllegalArgumentException("ACK timeout is 5 bits: " + t);
        }
        this.ackTimeout = t;
    }

    @Override
    public synchronized void setMinRnrTimer(int code) {
        checkAlive();
        if (qpType != QpType.RC) {
            throw new IllegalArgumentException(tag() + " the minimum RNR timer applies to RC ids only");
        }
        if (code < 0 || code > 31) {
            throw new IllegalArgumentException("the RNR timer code is 5 bits: " + code);
        }
        this.minRnrTimer = code;
    }

    // ------------------------------------------------------------------------------------------ bind/resolve

    @Override
    public synchronized void bind(InetSocketAddress address) {
        checkAlive();
        if (address == null) {
            throw new IllegalArgumentException("address must not be null");
        }
        if (state != CmState.IDLE) {
            throw new IllegalStateException(tag() + " bind needs an idle id (state " + state + ", EINVAL)");
        }
        if (address.isUnresolved()) {
            throw new IllegalArgumentException(tag() + " bind address " + address + " is unresolved");
        }
        InetAddress ip = address.getAddress();
        checkBindable(ip);
        DeviceImpl dev = null;
        if (!ip.isAnyLocalAddress()) {
            // cma_acquire_dev_by_src_ip: a specific address ties the id to the device that owns it.
            dev = core.deviceFor(ip);
            if (dev == null) {
                throw new RdmaException(Errno.EADDRNOTAVAIL, tag() + " no RDMA device serves "
                        + ip.getHostAddress());
            }
            checkPortSpace(dev);
        }
        if (!afOnlySet) {
            // rdma_bind_addr's default: an IPv4 id is AFONLY, an IPv6 one follows net.ipv6.bindv6only
            // (0 on Linux by default, so an IPv6 wildcard also takes IPv4).
            afOnly = !(ip instanceof Inet6Address) || Ip.bindV6Only();
        }
        boundPort = PortTable.instance().bind(ps, this, ip, address.getPort(), reuseAddr, afOnly);
        portBound = true;
        ephemeralPort = address.getPort() == 0;
        boundIp = ip;
        local = new InetSocketAddress(ip, boundPort);
        if (dev != null) {
            attachDevice(dev);
        }
        state(CmState.ADDR_BOUND);
    }

    /**
     * What rdma_bind_addr refuses before it looks for a device: an IPv4-mapped address, which no
     * interface owns (Linux: EADDRNOTAVAIL from {@code rdma_translate_ip}; bind the IPv4 address), and
     * a link-local address without a scope ({@code cma_check_linklocal}: EINVAL).
     */
    private void checkBindable(InetAddress ip) {
        if (Ip.isIpv4Mapped(ip)) {
            throw new RdmaException(Errno.EADDRNOTAVAIL, tag() + " cannot bind the IPv4-mapped address "
                    + Ip.literal(ip) + ": no interface owns it (bind " + Ip.literal(Ip.unmapped(ip)) + ")");
        }
        if (Ip.isLinkLocal(ip) && !Ip.hasScope(ip)) {
            throw new IllegalArgumentException(tag() + " the link-local address " + Ip.literal(ip)
                    + " needs a scope, e.g. " + Ip.literal(ip) + "%eth0 (EINVAL)");
        }
    }

    /**
     * Moves an id whose port the CM picked to another free ephemeral port and returns the old one, which
     * stays bound to the id (so it is not picked again) until the caller releases it; -1 when the port
     * was the user's choice, the id is gone, or no other ephemeral port is free.
     */
    private synchronized int rebindEphemeral() {
        if (!ephemeralPort || !portBound || destroyed) {
            return -1;
        }
        int old = boundPort;
        try {
            boundPort = PortTable.instance().bind(ps, this, boundIp, 0, reuseAddr, afOnly);
        } catch (RdmaException none) {
            return -1;
        }
        local = new InetSocketAddress(local.getAddress(), boundPort);
        return old;
    }

    private void checkPortSpace(DeviceImpl dev) {
        if (!core.backend(dev).supports(ps)) {
            throw new RdmaException(Errno.EOPNOTSUPP, tag() + " " + dev.name() + " does not offer the " + ps
                    + " port space");
        }
    }

    /** Ties the id to a device (once). */
    public void attachDevice(DeviceImpl dev) {
        if (device == null) {
            device = dev;
            backend = core.backend(dev);
        }
    }

    /** The backend of the id's device. */
    public CmBackend backend() {
        return backend;
    }

    @Override
    public void resolveAddr(InetSocketAddress src, InetSocketAddress dst, Duration timeout) {
        if (dst == null || timeout == null) {
            throw new IllegalArgumentException("destination and timeout are required");
        }
        if (dst.isUnresolved()) {
            throw new IllegalArgumentException("destination " + dst + " is unresolved");
        }
        if (Ip.isIpv4Mapped(dst.getAddress())) {
            // rdma_resolve_ip: an IPv6 route lookup of ::ffff:0:0/96 finds nothing (Linux 6.1 measured:
            // rdma_resolve_addr fails at once with ENETUNREACH).
            throw new RdmaException(Errno.ENETUNREACH, tag() + " no IPv6 route to the IPv4-mapped address "
                    + Ip.literal(dst.getAddress()) + " (resolve " + Ip.literal(Ip.unmapped(dst.getAddress())) + ")");
        }
        if (src != null && !src.isUnresolved() && !Ip.sameFamily(src.getAddress(), dst.getAddress())) {
            throw new IllegalArgumentException(tag() + " source " + Ip.endpoint(src) + " and destination "
                    + Ip.endpoint(dst) + " are of different address families (EINVAL)");
        }
        DeviceImpl dev;
        synchronized (this) {
            checkAlive();
            if (state == CmState.IDLE) {
                // cma_bind_addr: without a source the id is bound to the wildcard address of the
                // destination's family; the source address is then picked by route and the device by
                // that address below, so an address no device serves is an ADDR_ERROR event (as
                // Linux's addr_handler reports it), not a failed call.
                bind(src != null ? src : new InetSocketAddress(wildcardFor(dst.getAddress()), 0));
            } else if (state != CmState.ADDR_BOUND) {
                throw new IllegalStateException(tag() + " resolveAddr needs an idle or bound id (state " + state
                        + ")");
            } else if (!Ip.sameFamily(local.getAddress(), dst.getAddress())) {
                // rdma_resolve_addr: the bound address and the destination must be of one family, even
                // for an IPv6 wildcard that listens for IPv4 too.
                throw new IllegalArgumentException(tag() + " the id is bound to " + Ip.endpoint(local)
                        + ", not an address of " + Ip.endpoint(dst) + "'s family (EINVAL)");
            }
            if (local.getAddress().isAnyLocalAddress()) {
                local = new InetSocketAddress(core.sourceFor(dst.getAddress()), boundPort);
            }
            remote = dst;
            state(CmState.ADDR_QUERY);
            dev = device != null ? device : core.deviceFor(local.getAddress());
        }
        if (dev == null || !core.backend(dev).supports(ps)) {
            String why = dev == null ? "no RDMA device serves " + local.getAddress().getHostAddress()
                    : dev.name() + " does not offer the " + ps + " port space";
            LOG.log(System.Logger.Level.DEBUG, tag() + " address resolution failed: " + why);
            state(CmState.ADDR_BOUND);
            event(CmEventType.ADDR_ERROR, Errno.ENODEV.status(), null, null, Ece.NONE);
            if (mode == Mode.SYNC) {
                awaitSync(CmEventType.ADDR_RESOLVED);
            }
            return;
        }
        attachDevice(dev);
        state(CmState.ADDR_RESOLVED);
        event(CmEventType.ADDR_RESOLVED, 0, null, null, Ece.NONE);
        if (mode == Mode.SYNC) {
            awaitSync(CmEventType.ADDR_RESOLVED);
        }
    }

    private static InetAddress wildcardFor(InetAddress a) {
        return Ip.wildcardOf(a);
    }

    @Override
    public void resolveRoute(Duration timeout) {
        if (timeout == null) {
            throw new IllegalArgumentException("timeout is required");
        }
        synchronized (this) {
            checkAlive();
            if (state != CmState.ADDR_RESOLVED) {
                throw new IllegalStateException(tag() + " resolveRoute needs a resolved address (state " + state
                        + ", EINVAL)");
            }
            state(CmState.ROUTE_QUERY);
        }
        try {
            route = backend.resolveRoute(this);
        } catch (RuntimeException e) {
            state(CmState.ADDR_RESOLVED);
            event(CmEventType.ROUTE_ERROR, Errno.EHOSTUNREACH.status(), null, null, Ece.NONE);
            return;
        }
        state(CmState.ROUTE_RESOLVED);
        event(CmEventType.ROUTE_RESOLVED, 0, null, null, Ece.NONE);
        if (mode == Mode.SYNC) {
            awaitSync(CmEventType.ROUTE_RESOLVED);
        }
    }

    // ------------------------------------------------------------------------------------------ listen

    @Override
    public void listen(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("backlog must not be negative: " + n);
        }
        synchronized (this) {
            checkAlive();
            if (state == CmState.IDLE) {
                // rdma_listen on an idle id binds the IPv4 wildcard (AF_INET, as Linux does).
                bind(new InetSocketAddress(Ip.wildcard(false), 0));
            }
            if (state != CmState.ADDR_BOUND) {
                throw new IllegalStateException(tag() + " listen needs a bound id (state " + state + ", EINVAL)");
            }
            PortTable.instance().listen(ps, this, boundPort);
            // Linux: a backlog of 0 means the default (iwcm and ucma use their own defaults).
            this.backlog = n == 0 ? 256 : n;
            List<DeviceImpl> targets = new ArrayList<>();
            if (device != null) {
                targets.add(device);
            } else {
                // cma_listen_on_all: a wildcard listener listens on every device that offers the port
                // space, whatever addresses the device has; AFONLY only filters the requests it takes
                // (cma_match_private_data, in the backend's listener match).
                for (DeviceImpl d : core.devices()) {
                    if (core.backend(d).supports(ps)) {
                        targets.add(d);
                    }
                }
                if (targets.isEmpty()) {
                    throw new RdmaException(Errno.ENODEV, tag() + " no RDMA device offers the " + ps
                            + " port space");
                }
            }
            state(CmState.LISTEN);
            // As in connect: on iWARP the listener is a real host TCP port, which the host may hold when
            // the CM picked it (a client socket's ephemeral port, a TIME_WAIT); the CM then picks another.
            int[] tried = new int[MAX_EPHEMERAL_ATTEMPTS];
            int nTried = 0;
            try {
                while (true) {
                    try {
                        for (DeviceImpl d : targets) {
                            core.backend(d).listen(this, backlog);
                            listenDevices.add(d);
                        }
                        break;
                    } catch (RuntimeException e) {
                        for (DeviceImpl d : listenDevices) {
                            core.backend(d).stopListen(this);
                        }
                        listenDevices.clear();
                        int next = e instanceof RdmaException re && re.errno() == Errno.EADDRINUSE
                                && nTried < tried.length - 1 ? rebindEphemeral() : -1;
                        if (next < 0) {
                            state(CmState.ADDR_BOUND);
                            throw e;
                        }
                        tried[nTried++] = next;
                        PortTable.instance().listen(ps, this, boundPort);
                    }
                }
            } finally {
                for (int i = 0; i < nTried; i++) {
                    PortTable.instance().release(ps, this, tried[i]);
                }
            }
        }
    }

    /** The backlog of a listener. */
    public int backlog() {
        return backlog;
    }

    /**
     * Called by a backend when a connection request arrives for this listener: counts it against the
     * backlog and returns a new id for the connection, or {@code null} if the backlog is full (the
     * backend then rejects the request). From here on the request holds a place in the backlog until it is
     * accepted, rejected or its id destroyed; a backend whose setup of the new id fails destroys it, which
     * rejects the request and gives the place back.
     *
     * @throws IllegalArgumentException for a QP type this listener's port space cannot carry (nothing is
     *     counted: a backend checks the type first, as {@code cma_check_req_qp_type} does)
     */
    public CmIdImpl newRequestId(DeviceImpl dev, InetSocketAddress localAddr, InetSocketAddress remoteAddr,
            QpType type) {
        if (destroyed || state != CmState.LISTEN) {
            return null;
        }
        // Made before it is counted: the constructor refuses a QP type the port space does not carry.
        CmIdImpl child = new CmIdImpl(core, handler, mode, null, context, ps, type, this);
        if (pendingRequests.incrementAndGet() > backlog) {
            pendingRequests.decrementAndGet();
            backlogRejects.incrementAndGet();
            dev.counters().shared().inc(io.jrdma.verbs.Counter.CM_BACKLOG_REJECTS);
            core.events().backlogOverflow(this);
            return null;
        }
        try {
            child.channel = mode == Mode.SYNC ? new ChannelImpl(core) : channel;
            child.attachDevice(dev);
            child.local = localAddr;
            child.remote = remoteAddr;
            child.tos = tos;
            child.state(CmState.CONNECT);
            core.register(child);
            if (child.channel != null) {
                child.channel.attach(child);
            }
        } catch (RuntimeException e) {
            core.unregister(child);
            pendingRequests.decrementAndGet();
            throw e;
        }
        child.requestOutstanding = true;
        return child;
    }

    private void requestAnswered() {
        if (requestOutstanding) {
            requestOutstanding = false;
            if (listener != null) {
                listener.pendingRequests.decrementAndGet();
            }
        }
    }

    @Override
    public CmId getRequest(Duration timeout) throws InterruptedException {
        if (mode != Mode.SYNC) {
            throw new IllegalStateException(tag() + " getRequest is for synchronous ids (created with createEp)");
        }
        if (state != CmState.LISTEN) {
            throw new IllegalStateException(tag() + " getRequest needs a listening id (state " + state + ")");
        }
        CmIdImpl req = timeout == null ? syncRequests.take()
                : syncRequests.poll(timeout.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
        if (req != null) {
            req.requestRetrieved = true;
            ProtectionDomain pd = endpointPd;
            if (pd != null && req.qp == null) {
                // librdmacm's rdma_get_request creates the QP the passive endpoint was made with.
                try {
                    req.createQp(pd, endpointQpAttr);
                } catch (RuntimeException e) {
                    req.destroy();
                    throw e;
                }
            }
        }
        return req;
    }

    /** A synchronous listener's PD and QP attributes: getRequest gives each request a QP with them. */
    public void endpointQp(ProtectionDomain pd, QpInitAttr attr) {
        if (mode != Mode.SYNC) {
            throw new IllegalStateException(tag() + " only synchronous endpoints create QPs for their requests");
        }
        this.endpointPd = pd;
        this.endpointQpAttr = attr;
    }

    // ------------------------------------------------------------------------------------------ connect

    private void checkPrivateData(ConnParam p, int max, String what) {
        if (p != null && p.privateDataLength() > max) {
            throw new IllegalArgumentException(tag() + " " + what + " private data of " + p.privateDataLength()
                    + " bytes exceeds the " + max + "-byte limit of " + (device == null ? "the transport"
                    : device.name()));
        }
    }

    @Override
    public void connect(ConnParam param) {
        connect(param, Ece.NONE, null, false);
    }

    @Override
    public void connect(ConnParam param, Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("connect timeout must be positive: " + timeout);
        }
        connect(param, Ece.NONE, timeout, false);
    }

    @Override
    public void connect(ConnParam param, Ece ece) {
        connect(param, ece == null ? Ece.NONE : ece, null, false);
    }

    @Override
    public void connectLocked(ConnParam param) {
        connect(param, Ece.NONE, null, true);
    }

    private void connect(ConnParam param, Ece ece, Duration timeout, boolean locked) {
        if (param == null) {
            throw new IllegalArgumentException("connect needs connection parameters");
        }
        if (mode == Mode.KERNEL) {
            boolean inHandler = handlerLock.isHeldByCurrentThread();
            if (locked && !inHandler) {
                throw new IllegalStateException(tag() + " connectLocked is for use inside a handler of this id");
            }
            if (!locked && inHandler) {
                throw new IllegalStateException(tag()
                        + " connect inside a handler of this id would deadlock in the kernel: use connectLocked");
            }
        }
        synchronized (this) {
            checkAlive();
            if (state != CmState.ROUTE_RESOLVED) {
                // Rule 1: connect needs a route (Linux returns EINVAL and sends nothing).
                throw new IllegalStateException(tag() + " connect needs a resolved route (state " + state
                        + ", EINVAL)");
            }
            checkPrivateData(param, backend.maxConnectPrivateData(this), "connect");
            if (ece.vendorId() != 0 && device.transport() == TransportType.IWARP) {
                throw new IllegalArgumentException(tag() + " iWARP has no ECE");
            }
            responderResources = param.responderResources();
            initiatorDepth = param.initiatorDepth();
            retryCount = param.retryCount();
            rnrRetryCount = param.rnrRetryCount();
            state(CmState.CONNECT);
        }
        // A transport whose CM port is a real host port (iWARP: the TCP source port, as siw binds it) can
        // find a port the CM picked still held by the host (a socket of an earlier connection in
        // TIME_WAIT or FIN_WAIT, or another program). The user never asked for that port, so the CM picks
        // another (keeping the ones tried, so each attempt tries a new one); a port the user bound fails.
        int[] tried = new int[MAX_EPHEMERAL_ATTEMPTS];
        int nTried = 0;
        try {
            if (qp != null && qpType != QpType.UD && device.transport() == TransportType.IWARP) {
                modifyQpRtr(); // cma_connect_iw; a QP that cannot get there fails the connect (EINVAL)
            }
            while (true) {
                try {
                    backend.connect(this, param, ece, timeout);
                    break;
                } catch (RdmaException e) {
                    if (e.errno() != Errno.EADDRINUSE || nTried == tried.length - 1 || !ephemeralPort) {
                        throw e;
                    }
                    int next = rebindEphemeral();
                    if (next < 0) {
                        throw e;
                    }
                    tried[nTried++] = next;
                }
            }
        } catch (RuntimeException e) {
            compareAndSetState(CmState.CONNECT, CmState.ROUTE_RESOLVED);
            throw e;
        } finally {
            for (int i = 0; i < nTried; i++) {
                PortTable.instance().release(ps, this, tried[i]);
            }
        }
        if (mode == Mode.SYNC) {
            CmEvent e = awaitSyncAny();
            if (e.type() == CmEventType.CONNECT_RESPONSE) {
                establish();
                awaitSync(CmEventType.ESTABLISHED);
            } else if (e.type() != CmEventType.ESTABLISHED) {
                throw new RdmaException(e.status() < 0 && Errno.of(e.status()) != null ? Errno.of(e.status())
                        : Errno.ECONNREFUSED, tag() + " connect failed: " + e);
            }
        }
    }

    // ------------------------------------------------------------------------------------------ accept

    /**
     * What accept and reject refuse before anything else, each with its own message: a destroyed id, a
     * listening id (it answers no request itself: the ids of its CONNECT_REQUEST events do) and an id
     * that never connected nor got a request (Linux: EINVAL from {@code rdma_accept}'s state check).
     */
    private void checkAcceptable(String call) {
        if (destroyed) {
            throw new IllegalStateException(tag() + " " + call + " on a destroyed id");
        }
        CmState s = state;
        if (s == CmState.LISTEN) {
            throw new IllegalStateException(tag() + " " + call + " on a listening id: " + call
                    + " the id that its CONNECT_REQUEST event carries (EINVAL)");
        }
        if (listener == null && (s == CmState.IDLE || s == CmState.ADDR_BOUND)) {
            throw new IllegalStateException(tag() + " " + call + " on an id that is neither connecting nor"
                    + " answering a connection request (state " + s + ", EINVAL)");
        }
    }

    private void checkHandlerContext(String call) {
        if (mode == Mode.KERNEL && !handlerLock.isHeldByCurrentThread()) {
            // Rule 7: kernel ULPs call accept/reject from the CONNECT_REQUEST (or CONNECT_RESPONSE)
            // handler, or under rdma_lock_handler.
            throw new IllegalStateException(tag() + " " + call
                    + " must be called from this id's event handler (or under lockHandler)");
        }
        if (mode != Mode.KERNEL && listener != null && !requestRetrieved) {
            throw new IllegalStateException(tag() + " " + call
                    + " before the CONNECT_REQUEST event was retrieved from the channel");
        }
    }

    @Override
    public void accept(ConnParam param) {
        accept(param, Ece.NONE);
    }

    @Override
    public void accept(ConnParam param, Ece ece) {
        Ece e = ece == null ? Ece.NONE : ece;
        boolean own = mode != Mode.KERNEL;
        if (own) {
            handlerLock.lock();
        }
        try {
            checkAcceptable("accept");
            checkHandlerContext("accept");
            if (listener == null) {
                activeAccept(param);
                return;
            }
            passiveAccept(param, e);
        } finally {
            if (own) {
                handlerLock.unlock();
            }
        }
        if (mode == Mode.SYNC && listener != null && qpType != QpType.UD) {
            awaitSync(CmEventType.ESTABLISHED);
        }
    }

    private void activeAccept(ConnParam param) {
        // Rule 5: on the active side accept(null) after CONNECT_RESPONSE sends the RTU.
        synchronized (this) {
            checkAlive();
            if (!awaitingEstablish || state != CmState.CONNECT) {
                throw new IllegalStateException(tag()
                        + " accept on the active side is only valid after CONNECT_RESPONSE (state " + state + ")");
            }
            if (param != null) {
                throw new IllegalArgumentException(tag()
                        + " accept after CONNECT_RESPONSE takes no connection parameters (pass null)");
            }
            awaitingEstablish = false;
        }
        backend.establish(this);
    }

    private void passiveAccept(ConnParam param, Ece ece) {
        synchronized (this) {
            checkAlive();
            if (state != CmState.CONNECT || !requestOutstanding) {
                throw new IllegalStateException(tag() + " accept answers a connection request (state " + state
                        + ", EINVAL)");
            }
        }
        if (param == null && qpType != QpType.UD) {
            // Rule 4: the passive side needs conn_param.
            acceptFailed();
            throw new IllegalArgumentException(tag() + " accept on the passive side needs connection parameters");
        }
        ConnParam p = param == null ? ConnParam.defaults() : param;
        try {
            checkPrivateData(p, backend.maxAcceptPrivateData(this), "accept");
            if (ece.vendorId() != 0 && device.transport() == TransportType.IWARP) {
                throw new IllegalArgumentException(tag() + " iWARP has no ECE");
            }
            // IRD/ORD: our initiator depth never exceeds what the remote accepts (its IRD).
            responderResources = p.responderResources();
            initiatorDepth = Math.min(p.initiatorDepth(), peerIrd);
            // The passive QP keeps the retry and RNR retry counts the request asked for (cm.c's
            // cm_req_handler; IBTA 12.7.38): accept's retry_count is ignored and its rnr_retry_count
            // goes in the REP, for the active side's QP (rdma_accept(3)).
            accepted = true;
            requestAnswered();
            if (qp != null && qpType != QpType.UD) {
                try {
                    modifyQpRtr();
                    if (device.transport() != TransportType.IWARP) {
                        modifyQpRts();
                    }
                } catch (IllegalArgumentException | IllegalStateException e) {
                    // The attributes come from the request (path MTU, the peer's QPN, PSN, depths): what the QP
                    // refuses is the peer's doing, and fails the accept as rdma_accept does, with EINVAL.
                    throw new RdmaException(Errno.EINVAL, tag() + " accept: the QP refuses the connection's"
                            + " attributes: " + e.getMessage(), e);
                }
            }
            backend.accept(this, p, ece);
        } catch (RuntimeException ex) {
            acceptFailed();
            throw ex;
        }
    }

    /**
     * Rule 6: a failed accept sends a reject, moves the QP to ERROR (flushing posted receives) and,
     * rule 8, delivers no further event to the id.
     */
    private void acceptFailed() {
        suppressEvents = true;
        accepted = false;
        modifyQpErr();
        try {
            backend.reject(this, null, RejectReason.CONSUMER_DEFINED.value());
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, tag() + " reject after a failed accept failed: " + e);
        }
        requestAnswered();
    }

    @Override
    public void establish() {
        accept(null);
    }

    @Override
    public void reject(byte[] privateData) {
        reject(privateData, RejectReason.CONSUMER_DEFINED.value());
    }

    @Override
    public void rejectEce(byte[] privateData) {
        reject(privateData, RejectReason.VENDOR_OPTION_NOT_SUPPORTED.value());
    }

    @Override
    public void reject(byte[] privateData, int reason) {
        boolean own = mode != Mode.KERNEL;
        if (own) {
            handlerLock.lock();
        }
        try {
            checkAcceptable("reject");
            checkHandlerContext("reject");
            synchronized (this) {
                checkAlive();
                if (state != CmState.CONNECT || (listener != null && !requestOutstanding)
                        || (listener == null && !awaitingEstablish)) {
                    throw new IllegalStateException(tag() + " reject answers a connection request (state " + state
                            + ", EINVAL)");
                }
                int max = backend.maxRejectPrivateData(this);
                if (privateData != null && privateData.length > max) {
                    throw new IllegalArgumentException(tag() + " reject private data of " + privateData.length
                            + " bytes exceeds the " + max + "-byte limit");
                }
                awaitingEstablish = false;
            }
            requestAnswered();
            backend.reject(this, privateData == null ? new byte[0] : privateData.clone(), reason);
            suppressEvents = listener != null;
        } finally {
            if (own) {
                handlerLock.unlock();
            }
        }
    }

    @Override
    public void disconnect() {
        synchronized (this) {
            checkAlive();
            if (state != CmState.CONNECT && state != CmState.DISCONNECT) {
                throw new IllegalStateException(tag() + " disconnect needs a connected id (state " + state
                        + ", EINVAL)");
            }
            if (transport == null) {
                // rdma_disconnect fails with EINVAL before touching the QP when the id holds no
                // IB/iWARP CM id: a UD id keeps no connection after SIDR, and a connect that was
                // given up has none left.
                throw new IllegalStateException(tag() + " disconnect: the id has no connection (" + qpType
                        + ", EINVAL)");
            }
        }
        modifyQpErr();
        backend.disconnect(this);
    }

    @Override
    public void notify(AsyncEventType event) {
        if (event != AsyncEventType.COMM_EST) {
            return; // rdma_notify only acts on COMM_EST
        }
        checkAlive();
        if (state != CmState.CONNECT) {
            throw new IllegalStateException(tag() + " notify needs a connecting id (state " + state + ")");
        }
        backend.notifyEstablished(this);
    }

    /** Called by a backend when the active side got a reply and waits for accept(null). */
    public void awaitEstablish() {
        synchronized (this) {
            awaitingEstablish = true;
        }
    }

    // ------------------------------------------------------------------------------------------ QP

    @Override
    public QueuePair createQp(ProtectionDomain pd, QpInitAttr attr) {
        checkAlive();
        if (pd == null || attr == null) {
            throw new IllegalArgumentException("protection domain and QP attributes are required");
        }
        DeviceImpl d = device;
        if (d == null) {
            throw new IllegalStateException(tag() + " createQp needs an id bound to a device (resolve the address"
                    + " or take it from a connection request)");
        }
        if (pd.context().device() != d) {
            throw new IllegalArgumentException(tag() + " the protection domain is on "
                    + pd.context().device().name() + ", the id on " + d.name());
        }
        if (qp != null) {
            throw new IllegalStateException(tag() + " the id already has a QP");
        }
        if (attr.qpType() != qpType) {
            throw new IllegalArgumentException(tag() + " the id carries " + qpType + " QPs, not " + attr.qpType());
        }
        QpImpl q = (QpImpl) pd.createQp(attr);
        try {
            q.modify(initQpAttr(QpState.INIT));
            if (qpType == QpType.UD) {
                q.modify(new QpAttr().qpState(QpState.RTR));
                q.modify(new QpAttr().qpState(QpState.RTS).sqPsn(localPsn));
            }
        } catch (RuntimeException e) {
            q.close();
            throw e;
        }
        this.qp = q;
        return q;
    }

    @Override
    public void destroyQp() {
        QpImpl q = qp;
        if (q != null) {
            qp = null;
            q.close();
        }
    }

    @Override
    public QpAttr initQpAttr(QpState s) {
        checkAlive();
        DeviceImpl d = device;
        if (d == null) {
            throw new IllegalStateException(tag() + " initQpAttr needs an id bound to a device");
        }
        QpAttr a = new QpAttr();
        boolean iwarp = d.transport() == TransportType.IWARP;
        switch (s) {
            case INIT -> {
                a.qpState(QpState.INIT).pkeyIndex(0).portNum(1);
                if (qpType == QpType.UD) {
                    a.qkey(ps == PortSpace.UDP || ps == PortSpace.IB ? RDMA_UDP_QKEY : 0);
                } else {
                    int access = Access.REMOTE_WRITE | Access.REMOTE_READ;
                    if (!iwarp && d.attributes().atomicCap() != AtomicCap.NONE) {
                        access |= Access.REMOTE_ATOMIC;
                    }
                    a.qpAccessFlags(access);
                }
            }
            case RTR -> {
                a.qpState(QpState.RTR);
                if (qpType != QpType.UD && !iwarp) {
                    Route r = route;
                    if (r == null) {
                        throw new IllegalStateException(tag() + " no route yet: RTR attributes come with the"
                                + " connection");
                    }
                    a.ahAttr(new AhAttr(r.dgid(), 0, r.flowLabel(), r.hopLimit(), r.trafficClass(), r.sl(), 1, 0))
                            .pathMtu(r.mtu()).destQpNum(remoteQpn).rqPsn(localPsn)
                            .maxDestRdAtomic(responderResources)
                            .minRnrTimer(minRnrTimer >= 0 ? minRnrTimer : 0);
                }
            }
            case RTS -> {
                a.qpState(QpState.RTS);
                if (qpType == QpType.UD) {
                    a.sqPsn(localPsn);
                } else if (!iwarp) {
                    a.timeout(ackTimeout >= 0 ? ackTimeout : localAckTimeout).retryCnt(retryCount)
                            .rnrRetry(rnrRetryCount).sqPsn(remotePsn).maxRdAtomic(initiatorDepth);
                }
            }
            default -> throw new IllegalArgumentException(tag() + " the CM gives attributes for INIT, RTR and RTS,"
                    + " not " + s);
        }
        return a;
    }

    /**
     * Moves the id's QP to RTR as rdma_cm does before connect/accept ({@code cma_modify_qp_rtr}): a QP in
     * RESET goes through INIT first, one in INIT to RTR, one the user already took to RTR or RTS stays. A
     * QP in ERROR (or SQD, SQE) cannot be brought up again: Linux's INIT step fails there, and so does
     * this, with EINVAL.
     *
     * @throws RdmaException EINVAL when the QP is in a state it cannot leave towards RTR
     */
    public void modifyQpRtr() {
        QpImpl q = qp;
        if (q == null) {
            return;
        }
        QpState s = q.state();
        switch (s) {
            case RESET -> {
                q.modify(initQpAttr(QpState.INIT));
                q.modify(initQpAttr(QpState.RTR));
            }
            case INIT -> q.modify(initQpAttr(QpState.RTR));
            case RTR, RTS -> {
                // the user did the transitions already
            }
            default -> throw new RdmaException(Errno.EINVAL, tag() + " the QP " + q.qpNum() + " is in " + s
                    + " and cannot be taken to RTR for the connection (EINVAL)");
        }
    }

    /** Moves the id's QP to RTS ({@code cma_modify_qp_rts}), through RTR as {@link #modifyQpRtr} does. */
    public void modifyQpRts() {
        QpImpl q = qp;
        if (q == null) {
            return;
        }
        modifyQpRtr();
        if (q.state() == QpState.RTR) {
            q.modify(initQpAttr(QpState.RTS));
        }
    }

    /** Moves the id's QP to ERROR ({@code cma_modify_qp_err}); every outstanding WR is flushed. */
    public void modifyQpErr() {
        QpImpl q = qp;
        if (q == null || q.isDestroyed()) {
            return;
        }
        QpState s = q.state();
        if (s != QpState.ERR && s != QpState.RESET) {
            try {
                q.modify(new QpAttr().qpState(QpState.ERR));
            } catch (IllegalStateException e) {
                LOG.log(System.Logger.Level.DEBUG, tag() + " QP to ERROR: " + e.getMessage());
            }
        }
    }

    // ------------------------------------------------------------------------------------------ events

    /** Reports an event to the id's user (the backend's and the id's own events). */
    public void event(CmEventType type, int status, ConnParam param, UdParam ud, Ece ece) {
        event(new CmEvent(type, this, null, status, param, ud, ece == null ? Ece.NONE : ece));
    }

    /**
     * Reports a connection request on this new id (listener set). {@code param} is in the local view
     * rdma_cm reports: its initiator depth is the most the remote accepts (its IRD), its responder
     * resources what the remote may issue (its ORD).
     */
    public void requestEvent(int status, ConnParam param, UdParam ud, Ece ece) {
        peerIrd = param != null ? param.initiatorDepth() : 0;
        responderResources = param != null ? param.responderResources() : 0;
        initiatorDepth = peerIrd;
        event(new CmEvent(CmEventType.CONNECT_REQUEST, this, listener, status, param, ud,
                ece == null ? Ece.NONE : ece));
    }

    void event(CmEvent e) {
        core.events().cmEvent(this, e);
        if (e.type() == CmEventType.DISCONNECTED || e.type() == CmEventType.REJECTED
                || e.type() == CmEventType.UNREACHABLE || e.type() == CmEventType.CONNECT_ERROR) {
            // The QP of a connection that ended goes to ERROR so that every posted WR is flushed.
            modifyQpErr();
        }
        core.executor().execute(() -> dispatch(e));
    }

    private void dispatch(CmEvent e) {
        boolean destroy;
        handlerLock.lock();
        try {
            if (destroyed || suppressEvents) {
                return;
            }
            if (e.type() == CmEventType.CONNECT_REQUEST && listener != null && listener.destroyed) {
                // The listener went away before the request was delivered: reject it.
                rejectQuietly();
                destroy = true;
            } else {
                destroy = deliver(e);
            }
        } finally {
            handlerLock.unlock();
        }
        if (destroy) {
            destroyInternal();
        }
    }

    private boolean deliver(CmEvent e) {
        try {
            if (mode == Mode.SYNC && e.type() == CmEventType.CONNECT_REQUEST && listener != null) {
                synchronized (listener) {
                    if (!listener.destroyed) {
                        listener.syncRequests.add(this);
                        return false;
                    }
                }
                return true; // the listener is gone: destroying the request rejects it
            }
            if (mode == Mode.SYNC) {
                ChannelImpl ch = channel;
                if (ch != null) {
                    ch.enqueue(e);
                }
                return false;
            }
            if (mode == Mode.CHANNEL) {
                ChannelImpl ch = channel;
                if (ch != null) {
                    ch.enqueue(e);
                }
                return false;
            }
            return handler.onEvent(this, e);
        } catch (RuntimeException ex) {
            LOG.log(System.Logger.Level.WARNING, tag() + " event handler threw on " + e.type().str(), ex);
            // cma.c destroys the id of a CONNECT_REQUEST whose handler returned an error: the request is
            // rejected and its backlog slot given back, never held by an id nobody answers.
            return e.type() == CmEventType.CONNECT_REQUEST && listener != null;
        }
    }

    void rejectQuietly() {
        try {
            if (requestOutstanding) {
                requestAnswered();
                backend.reject(this, null, RejectReason.CONSUMER_DEFINED.value());
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, tag() + " reject failed: " + e);
        }
    }

    /** Marks a channel CONNECT_REQUEST as retrieved (the channel API may now accept or reject). */
    void retrieved(CmEvent e) {
        if (e.type() == CmEventType.CONNECT_REQUEST) {
            requestRetrieved = true;
        }
    }

    private CmEvent awaitSyncAny() {
        ChannelImpl ch = channel;
        try {
            CmEvent e = ch.getEvent();
            ch.ackEvent(e);
            return e;
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new RdmaException(Errno.EINTR, tag() + " interrupted waiting for an event", ie);
        }
    }

    /** Waits on a synchronous id's private channel for {@code expected}; throws on any error event. */
    CmEvent awaitSync(CmEventType expected) {
        ChannelImpl ch = channel;
        try {
            CmEvent e = ch.getEvent();
            ch.ackEvent(e);
            if (e.type() != expected) {
                throw new RdmaException(e.status() < 0 && Errno.of(e.status()) != null ? Errno.of(e.status())
                        : Errno.ECONNREFUSED, tag() + " expected " + expected.str() + " but got " + e);
            }
            return e;
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new RdmaException(Errno.EINTR, tag() + " interrupted waiting for " + expected.str(), ie);
        }
    }

    @Override
    public void lockHandler() {
        handlerLock.lock();
    }

    @Override
    public void unlockHandler() {
        handlerLock.unlock();
    }

    /** Whether the calling thread holds the handler lock. */
    public boolean inHandler() {
        return handlerLock.isHeldByCurrentThread();
    }

    // ------------------------------------------------------------------------------------------ multicast

    /** One multicast membership ({@code struct cma_multicast}): the group and the QP attached for it. */
    private static final class Membership {
        final InetAddress group;
        final Gid mgid;
        final Object context;
        volatile QpImpl attached;

        Membership(InetAddress group, Gid mgid, Object context) {
            this.group = group;
            this.mgid = mgid;
            this.context = context;
        }
    }

    @Override
    public void joinMulticast(InetAddress group, Object mcContext) {
        if (group == null || !group.isMulticastAddress()) {
            throw new IllegalArgumentException(tag() + " " + (group == null ? "null" : group.getHostAddress())
                    + " is not a multicast address (EINVAL)");
        }
        Membership m;
        UdParam ud;
        synchronized (this) {
            checkAlive();
            if (qpType != QpType.UD) {
                throw new IllegalStateException(tag() + " multicast needs a UD id, not " + qpType + " (EINVAL)");
            }
            if ((state != CmState.ADDR_BOUND && state != CmState.ADDR_RESOLVED) || device == null) {
                // rdma_join_multicast: an id bound to a device, in ADDR_BOUND or ADDR_RESOLVED.
                throw new IllegalStateException(tag() + " joinMulticast needs an id bound to a device (state " + state
                        + (device == null ? ", no device" : "") + ", EINVAL)");
            }
            for (Membership o : multicast) {
                if (o.group.equals(group)) {
                    throw new RdmaException(Errno.EADDRINUSE, tag() + " already joined " + group.getHostAddress());
                }
            }
            // cma_iboe_set_mgid for RoCEv2 GIDs: an IPv4 group becomes ::ffff:a.b.c.d, IPv6 is its own GID.
            Gid mgid = Gid.of(group);
            ud = backend.joinMulticast(this, mgid, group);
            m = new Membership(group, mgid, mcContext);
            multicast.add(m);
        }
        // librdmacm's ucma_process_join: the id's QP is attached before the user sees the event, and a failed
        // attach turns MULTICAST_JOIN into MULTICAST_ERROR.
        int status = 0;
        QpImpl q = qp;
        if (q != null) {
            try {
                q.attachMcast(m.mgid, 0);
                m.attached = q;
            } catch (RdmaException e) {
                status = e.errno().status();
            } catch (IllegalStateException | IllegalArgumentException e) {
                status = Errno.EINVAL.status();
            }
        }
        event(new CmEvent(status == 0 ? CmEventType.MULTICAST_JOIN : CmEventType.MULTICAST_ERROR, this, null, status,
                null, ud, Ece.NONE, mcContext));
        if (mode == Mode.SYNC) {
            awaitSync(CmEventType.MULTICAST_JOIN);
        }
    }

    @Override
    public void leaveMulticast(InetAddress group) {
        Membership m = null;
        synchronized (this) {
            checkAlive();
            for (Membership o : multicast) {
                if (o.group.equals(group)) {
                    m = o;
                    break;
                }
            }
            if (m == null) {
                throw new RdmaException(Errno.EADDRNOTAVAIL, tag() + " has not joined "
                        + (group == null ? "null" : group.getHostAddress()));
            }
            multicast.remove(m);
        }
        detach(m);
    }

    /** The groups the id has joined (tests, tools). */
    public synchronized List<InetAddress> multicastGroups() {
        List<InetAddress> out = new ArrayList<>(multicast.size());
        for (Membership m : multicast) {
            out.add(m.group);
        }
        return out;
    }

    private void detach(Membership m) {
        QpImpl q = m.attached;
        m.attached = null;
        if (q != null && !q.isDestroyed()) {
            try {
                q.detachMcast(m.mgid, 0);
            } catch (RdmaException e) {
                // the user detached the QP already
                LOG.log(System.Logger.Level.DEBUG, tag() + " detach from " + m.group + ": " + e.getMessage());
            }
        }
    }

    // ------------------------------------------------------------------------------------------ removal

    /**
     * The device {@code d} is being removed ({@code cma_process_remove} → {@code cma_remove_id_dev}): an id
     * bound to it moves to DEVICE_REMOVAL, stops what it was doing (a listener stops listening, the QP goes
     * to ERROR) and gets DEVICE_REMOVAL; the user must destroy it. A wildcard listener only stops listening
     * on that device, silently (its per-device listen ids are internal in Linux).
     */
    void deviceRemoved(DeviceImpl d) {
        if (device != d) {
            synchronized (this) {
                if (destroyed || !listenDevices.remove(d)) {
                    return;
                }
            }
            core.backend(d).stopListen(this);
            return;
        }
        CmState was;
        synchronized (this) {
            if (destroyed || state == CmState.DESTROYING || state == CmState.DEVICE_REMOVAL) {
                return;
            }
            was = state;
            state(CmState.DEVICE_REMOVAL);
            if (was == CmState.LISTEN) {
                for (DeviceImpl ld : listenDevices) {
                    core.backend(ld).stopListen(this);
                }
                listenDevices.clear();
            }
        }
        modifyQpErr();
        event(CmEventType.DEVICE_REMOVAL, 0, null, null, Ece.NONE);
    }

    // ------------------------------------------------------------------------------------------ destroy

    /** Destroys without waiting for acknowledgements (the connection manager is closing). */
    void destroyNoWait() {
        destroyInternal();
    }

    @Override
    public void destroy() {
        ChannelImpl ch = channel;
        destroyInternal();
        if (ch != null && mode == Mode.CHANNEL) {
            ch.awaitAcks(this);
        }
    }

    private void destroyInternal() {
        handlerLock.lock();
        try {
            synchronized (this) {
                if (destroyed) {
                    return;
                }
                destroyed = true;
            }
        } finally {
            handlerLock.unlock();
        }
        CmState was = state;
        state(CmState.DESTROYING);
        // cma_leave_mc_groups: destroying the id leaves every group it joined.
        List<Membership> joined;
        synchronized (this) {
            joined = new ArrayList<>(multicast);
            multicast.clear();
        }
        for (Membership m : joined) {
            detach(m);
        }
        // A synchronous listener's requests that getRequest never returned are rejected, like the
        // unretrieved CONNECT_REQUEST events of a channel listener (ucma_cleanup_ctx_events).
        List<CmIdImpl> untaken = new ArrayList<>();
        syncRequests.drainTo(untaken);
        for (CmIdImpl r : untaken) {
            r.destroy();
        }
        if (was == CmState.LISTEN) {
            for (DeviceImpl d : listenDevices) {
                core.backend(d).stopListen(this);
            }
            listenDevices.clear();
        }
        if (requestOutstanding) {
            rejectQuietly();
        }
        CmBackend b = backend;
        if (b != null) {
            try {
                if (was == CmState.CONNECT && accepted) {
                    modifyQpErr();
                }
                b.destroy(this);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, tag() + " backend cleanup failed: " + e);
            }
        }
        if (portBound) {
            PortTable.instance().release(ps, this, boundPort);
            portBound = false;
        }
        core.unregister(this);
        ChannelImpl ch = channel;
        if (ch != null) {
            ch.detach(this);
        }
    }

    @Override
    public String toString() {
        return "CmId[" + handle + " " + ps + " " + state + (local != null ? " " + local : "")
                + (remote != null ? " -> " + remote : "") + "]";
    }
}
