package io.jrdma.internal.cm;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmState;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.Ece;
import io.jrdma.spi.ProviderCmEvent;
import io.jrdma.spi.ProviderCmId;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.RdmaException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The part of an id served by a whole-device provider's connection manager ({@link io.jrdma.spi.ProviderCm}).
 * When bind, resolveAddr or listen on an idle id finds that the id's address belongs to such a provider
 * ({@link CmHost#foreignFor}), the id's connection calls go to the provider's {@link ProviderCmId}, and the
 * provider's events come back here and are delivered as the id's own: to its handler or event channel, under
 * its handler lock, counted until acknowledged, movable with {@code rdma_migrate_id}. The id's state follows
 * the calls and events; ports, backlog, route and the QP's transitions are the provider's CM's. The API's own
 * rules for connect, accept, reject and disconnect ({@link CmConnect}, {@link CmAccept}: the handler context,
 * the states, the private data limits, the conn_param an accept needs, IRD and ORD, a failed accept's reject)
 * are checked there for these ids too, before the call comes here.
 *
 * <p>The id's {@code rdma_set_option} values ({@link CmOptions}) go to the provider's id when it is made and as
 * they are set later; ECE goes to it before connect and accept, and comes back from it in the events of a
 * connection. What the provider's CM does not offer is refused at the call, naming the provider.
 */
final class CmForeign implements ProviderCmId.Listener {
    private static final System.Logger LOG = System.getLogger("io.jrdma.cm");
    /** librdmacm's backlog for {@code rdma_listen(id, 0)}. */
    private static final int DEFAULT_BACKLOG = 1024;

    private final CmIdImpl id;
    private volatile ProviderCmId pid;
    private volatile Device device;
    private volatile QueuePair qp;
    /** The provider's name, known before the id has a device. */
    private volatile String provider;
    /** The id holds (or held) a connection of a connected port space: connect was called or a request came. */
    private volatile boolean connection;
    /**
     * A connect with the caller's bound: {@link #BOUND_NONE}, {@link #BOUND_PENDING} until the first outcome,
     * then {@link #BOUND_NONE} when the provider's answer came first or {@link #BOUND_EXPIRED} when the bound did
     * (the provider's id destroyed, its later events dropped), so exactly one outcome reaches the user.
     */
    private final java.util.concurrent.atomic.AtomicInteger bound = new java.util.concurrent.atomic.AtomicInteger();
    private static final int BOUND_NONE = 0;
    private static final int BOUND_PENDING = 1;
    private static final int BOUND_EXPIRED = 2;
    /** The groups joined or being joined through the provider (guarded by the id's lock). */
    private final Map<InetAddress, Join> joins = new LinkedHashMap<>(0);

    /** One {@code rdma_join_multicast}: its context for the events, and the QP attached once joined. */
    private static final class Join {
        final Object context;
        volatile QueuePair attached;
        volatile io.jrdma.verbs.Gid mgid;
        volatile int mlid;

        Join(Object context) {
            this.context = context;
        }
    }

    CmForeign(CmIdImpl id) {
        this.id = id;
    }

    /** Whether the id is the provider's. */
    boolean active() {
        return pid != null;
    }

    /**
     * Hands an idle id to the whole-device provider whose connection manager serves {@code ip}, if one does
     * ({@link CmHost#foreignFor}); core's own otherwise. The calls that give an id its address (bind,
     * resolveAddr, listen) ask this first.
     *
     * @throws UnsupportedOperationException if the provider's CM refuses one of the id's rdma_set_option values
     *     (the id then stays core's, idle)
     */
    void claim(InetAddress ip) {
        CmHost core = id.core;
        if (active() || id.state() != CmState.IDLE || core.allDevices().size() == core.devices().size()) {
            return;
        }
        CmHost.Foreign f = core.foreignFor(ip);
        if (f == null) {
            return;
        }
        synchronized (id) {
            id.checkAlive();
            if (!active() && id.state() == CmState.IDLE) {
                start(f);
            }
        }
    }

    /**
     * Hands the idle id to {@code f}'s connection manager (under the id's lock) with the options set on it; when
     * the provider refuses one, its id is destroyed and the id stays core's.
     */
    void start(CmHost.Foreign f) {
        String name = f.device().provider();
        ProviderCmId p = f.cm().createId(id.portSpace(), id.qpType(), this);
        CmOptions o = id.options;
        try {
            if (o.tos() >= 0) {
                apply(name, "TOS", () -> p.setTos(o.tos()));
            }
            if (o.reuseAddr()) {
                apply(name, "REUSEADDR", () -> p.setReuseAddr(true));
            }
            if (o.afOnlySet()) {
                apply(name, "AFONLY", () -> p.setAfOnly(o.afOnly()));
            }
            if (o.ackTimeout() >= 0) {
                apply(name, "ACK timeout", () -> p.setAckTimeout(o.ackTimeout()));
            }
            if (o.minRnrTimer() >= 0) {
                apply(name, "minimum RNR timer", () -> p.setMinRnrTimer(o.minRnrTimer()));
            }
        } catch (RuntimeException e) {
            try {
                p.close();
            } catch (RuntimeException c) {
                e.addSuppressed(c);
            }
            throw e;
        }
        provider = name;
        pid = p;
    }

    /**
     * Runs {@code call} of the provider's id; its UnsupportedOperationException is rethrown naming the id, the
     * provider and what was set.
     */
    private void apply(String name, String what, Runnable call) {
        try {
            call.run();
        } catch (UnsupportedOperationException e) {
            throw new UnsupportedOperationException(id.tag() + " " + name + "'s connection manager takes no "
                    + what + ": " + e.getMessage(), e);
        }
    }

    /**
     * An option set on the id, once core has checked and kept it (under the id's lock): to the provider's id,
     * when there is one.
     */
    void option(String what, Consumer<ProviderCmId> call) {
        ProviderCmId p = pid;
        if (p != null) {
            apply(providerName(), what, () -> call.accept(p));
        }
    }

    /** The id of a connection request, made by {@code name}'s CM; its events come once {@link #listening()}. */
    void startRequest(ProviderCmId requestId, String name) {
        provider = name;
        pid = requestId;
        connection = id.qpType() != QpType.UD;
        refresh();
    }

    /**
     * The provider's id while it holds a connection of a connected port space ({@link CmIdImpl#transport()}), or
     * null: a UD id keeps none after SIDR.
     */
    Object connection() {
        return connection ? pid : null;
    }

    /** The ECE the peer offered or answered ({@code rdma_get_remote_ece}), {@link Ece#NONE} when none. */
    Ece remoteEce() {
        ProviderCmId p = pid;
        try {
            Ece e = p == null ? null : p.remoteEce();
            return e == null ? Ece.NONE : e;
        } catch (IllegalStateException closed) {
            return Ece.NONE;
        }
    }

    /** Takes the events of a request's id, after its CONNECT_REQUEST is posted. */
    void listening() {
        pid.listener(this);
    }

    Device device() {
        return device;
    }

    QueuePair qp() {
        return qp;
    }

    /** Takes the device and addresses the provider's id has now. */
    private void refresh() {
        ProviderCmId p = pid;
        if (p == null || id.isDestroyed()) {
            return;
        }
        try {
            Device d = p.device();
            if (d != null) {
                device = d;
            }
            InetSocketAddress l = p.localAddress();
            InetSocketAddress r = p.peerAddress();
            if (l != null) {
                id.local = l;
            }
            if (r != null && r.getPort() != 0) {
                id.remote = r;
            }
        } catch (IllegalStateException closed) {
            // destroyed meanwhile: nothing to take
        }
    }

    private void requireState(String call, CmState... allowed) {
        CmState s = id.state();
        for (CmState a : allowed) {
            if (s == a) {
                return;
            }
        }
        throw new IllegalStateException(id.tag() + " " + call + " in state " + s + " (EINVAL)");
    }

    void bind(InetSocketAddress address) {
        synchronized (id) {
            id.checkAlive();
            requireState("bind", CmState.IDLE);
            pid.bind(address);
            refresh();
            id.state(CmState.ADDR_BOUND);
        }
    }

    void resolveAddr(InetSocketAddress src, InetSocketAddress dst, Duration timeout) {
        CmState was;
        synchronized (id) {
            id.checkAlive();
            requireState("resolveAddr", CmState.IDLE, CmState.ADDR_BOUND);
            was = id.state();
            if (was == CmState.IDLE) {
                // rdma_resolve_addr binds an unbound id first (cma_bind_addr): IDLE -> ADDR_BOUND -> ADDR_QUERY
                id.state(CmState.ADDR_BOUND);
            }
            id.state(CmState.ADDR_QUERY);
        }
        try {
            pid.resolveAddr(src, dst, timeout);
        } catch (RuntimeException e) {
            id.compareAndSetState(CmState.ADDR_QUERY, was);
            throw e;
        }
        awaitIfSync(CmEventType.ADDR_RESOLVED);
    }

    /** A synchronous id's call returns once its event came ({@code rdma_create_ep}'s ids have no channel). */
    private void awaitIfSync(CmEventType expected) {
        if (id.mode == CmIdImpl.Mode.SYNC) {
            id.delivery.awaitSync(expected);
        }
    }

    /**
     * The most private data {@code call} ("connect", "accept" or "reject") takes on the id's transport, as the
     * kernel would refuse more with EINVAL: on iWARP the MPA limit (or the provider's, when its CM carries less),
     * on IB and RoCE the REQ/REP/REJ's (SIDR's for UD) less rdma_cm's header.
     */
    int privateDataLimit(String call) {
        Device d = device;
        if (d != null && d.transport() == io.jrdma.verbs.TransportType.IWARP) {
            ProviderCmId p = pid;
            int own = p == null ? -1 : p.mpaPrivateDataLimit();
            return own >= 0 ? Math.min(own, IwCmaBackend.MPA_PRIVATE_DATA) : IwCmaBackend.MPA_PRIVATE_DATA;
        }
        return switch (call) {
            case "connect" -> IbCmaBackend.connectLimit(id.qpType());
            case "accept" -> IbCmaBackend.acceptLimit(id.qpType());
            default -> IbCmaBackend.rejectLimit(id.qpType());
        };
    }

    void resolveRoute(Duration timeout) {
        synchronized (id) {
            id.checkAlive();
            requireState("resolveRoute", CmState.ADDR_RESOLVED);
            id.state(CmState.ROUTE_QUERY);
        }
        try {
            pid.resolveRoute(timeout);
        } catch (RuntimeException e) {
            id.compareAndSetState(CmState.ROUTE_QUERY, CmState.ADDR_RESOLVED);
            throw e;
        }
        awaitIfSync(CmEventType.ROUTE_RESOLVED);
    }

    void listen(int backlog) {
        if (backlog < 0) {
            throw new IllegalArgumentException("backlog must not be negative: " + backlog);
        }
        synchronized (id) {
            id.checkAlive();
            requireState("listen", CmState.ADDR_BOUND);
            int n = backlog == 0 ? DEFAULT_BACKLOG : backlog;
            pid.listen(n);
            id.requests.providerListen(n);
            refresh();
            id.state(CmState.LISTEN);
        }
    }

    /**
     * {@code rdma_connect} through the provider's CM, once {@link CmConnect} has checked the call and moved the
     * id to CONNECT.
     */
    void connect(ConnParam param, Ece ece, Duration timeout) {
        localEce(ece);
        if (id.qpType() != QpType.UD) {
            connection = true;
        }
        if (timeout == null) {
            pid.connect(qp, param);
            return;
        }
        bound.set(BOUND_PENDING);
        try {
            pid.connect(qp, param);
        } catch (RuntimeException e) {
            bound.set(BOUND_NONE);
            throw e;
        }
        ConnectBound.after(timeout, this::giveUp);
    }

    /**
     * The caller's bound on a connect expired before any answer: as the API promises, the id gets UNREACHABLE
     * with -ETIMEDOUT. The provider's id is destroyed, which ends the exchange on the wire as its CM ends one
     * whose id goes away (the IB CM sends a REJ with reason timeout from REQ_SENT; iWARP closes the TCP
     * connection), so the passive side is not left waiting; no later event of it reaches the user.
     */
    private void giveUp() {
        if (id.isDestroyed() || !bound.compareAndSet(BOUND_PENDING, BOUND_EXPIRED)) {
            return;
        }
        ProviderCmId p = pid;
        try {
            p.close();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, id.tag() + " destroying the provider's id after the timeout: " + e);
        }
        id.compareAndSetState(CmState.CONNECT, CmState.DISCONNECT);
        id.event(new CmEvent(CmEventType.UNREACHABLE, id, null, Errno.ETIMEDOUT.status(), null, null, Ece.NONE));
    }

    /**
     * {@code rdma_accept} through the provider's CM, once {@link CmAccept} has checked the call ({@code param}
     * has the negotiated depths); what fails here fails the accept, which CmAccept answers with a reject. A QP
     * in ERROR (or SQD, SQE) cannot be brought up for the connection: that is EINVAL, as Linux's INIT step
     * fails there.
     */
    void accept(ConnParam param, Ece ece) {
        QueuePair q = qp;
        if (q != null) {
            QpState s = q.state();
            if (s != QpState.RESET && s != QpState.INIT && s != QpState.RTR && s != QpState.RTS) {
                throw new RdmaException(Errno.EINVAL, id.tag() + " the QP " + q.qpNum() + " is in " + s
                        + " and cannot be taken to RTR for the connection (EINVAL)");
            }
        }
        localEce(ece);
        pid.accept(q, param);
    }

    /** A reject of the request, saying its ECE is not supported when {@code ece} ({@code rdma_reject_ece}). */
    void reject(byte[] privateData, boolean ece) {
        if (ece) {
            apply(providerName(), "ECE (rdma_reject_ece)", () -> pid.rejectEce(privateData));
        } else {
            pid.reject(privateData);
        }
    }

    /**
     * {@code rdma_establish} of an active id without a QP, after its CONNECT_RESPONSE: the RTU goes out, and the id
     * gets ESTABLISHED (the provider's CM tells the active side nothing more: the call completes the connection).
     */
    void establish() {
        apply(providerName(), "rdma_establish", () -> pid.establish());
        refresh();
        id.event(new CmEvent(CmEventType.ESTABLISHED, id, null, 0, null, null, remoteEce()));
    }

    /**
     * {@code rdma_init_qp_attr}: the attributes the provider's CM gives for {@code s}.
     *
     * @throws IllegalStateException before the id is bound to a device
     * @throws IllegalArgumentException for a state other than INIT, RTR and RTS
     */
    QpAttr initQpAttr(QpState s) {
        id.checkAlive();
        if (device == null) {
            throw new IllegalStateException(id.tag() + " initQpAttr needs an id bound to a device");
        }
        if (s != QpState.INIT && s != QpState.RTR && s != QpState.RTS) {
            throw new IllegalArgumentException(id.tag() + " the CM gives attributes for INIT, RTR and RTS, not " + s);
        }
        QpAttr[] out = new QpAttr[1];
        apply(providerName(), "rdma_init_qp_attr", () -> out[0] = pid.initQpAttr(s));
        return out[0];
    }

    /**
     * {@code rdma_disconnect}: on IB and RoCE the QP goes to ERROR first, as librdmacm does for a QP of its own
     * (its posted work requests are flushed); on iWARP the kernel's iWARP CM closes the stream (the QP to
     * closing) and the QP goes to ERROR after it, so that the id's QP is in ERROR when disconnect returns on
     * every transport, as core's own ids' are.
     */
    void disconnect() {
        Device d = device;
        boolean iwarp = d != null && d.transport() == io.jrdma.verbs.TransportType.IWARP;
        if (!iwarp) {
            toErr();
        }
        pid.disconnect();
        if (iwarp) {
            toErr();
        }
    }

    QueuePair createQp(ProtectionDomain pd, QpInitAttr attr) {
        id.checkAlive();
        if (pd == null || attr == null) {
            throw new IllegalArgumentException("protection domain and QP attributes are required");
        }
        Device d = device;
        if (d == null) {
            throw new IllegalStateException(id.tag() + " createQp needs an id bound to a device (resolve the address"
                    + " or take it from a connection request)");
        }
        if (pd.context().device() != d) {
            throw new IllegalArgumentException(id.tag() + " the protection domain is on "
                    + pd.context().device().name() + ", the id on " + d.name());
        }
        if (attr.qpType() != id.qpType()) {
            throw new IllegalArgumentException(id.tag() + " the id carries " + id.qpType() + " QPs, not "
                    + attr.qpType());
        }
        synchronized (id) {
            if (qp != null) {
                throw new IllegalStateException(id.tag() + " the id already has a QP");
            }
            QueuePair q = pd.createQp(attr);
            try {
                pid.qpCreated(q);
            } catch (RuntimeException e) {
                try {
                    q.close();
                } catch (RuntimeException c) {
                    e.addSuppressed(c);
                }
                throw e;
            }
            qp = q;
            return q;
        }
    }

    void destroyQp() {
        QueuePair q;
        synchronized (id) {
            q = qp;
            qp = null;
        }
        if (q != null) {
            q.close();
        }
    }

    /**
     * {@code rdma_join_multicast} through the provider's CM: checked here as core checks its own ids, then
     * MULTICAST_JOIN (the id's QP attached first) or MULTICAST_ERROR when the provider answers.
     */
    void joinMulticast(InetAddress group, Object mcContext) {
        if (group == null || !group.isMulticastAddress()) {
            throw new IllegalArgumentException(id.tag() + " " + (group == null ? "null" : group.getHostAddress())
                    + " is not a multicast address (EINVAL)");
        }
        synchronized (id) {
            id.checkAlive();
            if (id.qpType() != QpType.UD) {
                throw new IllegalStateException(id.tag() + " multicast needs a UD id, not " + id.qpType()
                        + " (EINVAL)");
            }
            if (joins.containsKey(group)) {
                throw new RdmaException(Errno.EADDRINUSE, id.tag() + " already joined " + group.getHostAddress());
            }
            joins.put(group, new Join(mcContext));
        }
        try {
            apply(providerName(), "multicast", () -> pid.joinMulticast(group));
        } catch (RuntimeException e) {
            synchronized (id) {
                joins.remove(group);
            }
            throw e;
        }
        awaitIfSync(CmEventType.MULTICAST_JOIN);
    }

    /** {@code rdma_leave_multicast}: the QP detached, then the provider's CM leaves the group. */
    void leaveMulticast(InetAddress group) {
        Join j;
        synchronized (id) {
            id.checkAlive();
            j = group == null ? null : joins.remove(group);
        }
        if (j == null) {
            throw new RdmaException(Errno.EADDRNOTAVAIL, id.tag() + " has not joined "
                    + (group == null ? "null" : group.getHostAddress()));
        }
        detach(j);
        pid.leaveMulticast(group);
    }

    List<InetAddress> multicastGroups() {
        synchronized (id) {
            return new ArrayList<>(joins.keySet());
        }
    }

    private void detach(Join j) {
        QueuePair q = j.attached;
        j.attached = null;
        if (q != null) {
            try {
                q.detachMcast(j.mgid, j.mlid);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, id.tag() + " detach: " + e.getMessage());
            }
        }
    }

    /**
     * The provider's answer to a join: the id's QP attached to the group before the user hears of it (librdmacm's
     * {@code ucma_process_join}; a failed attach turns MULTICAST_JOIN into MULTICAST_ERROR), the join's context
     * in the event.
     */
    private void joined(ProviderCmEvent e) {
        Join j;
        synchronized (id) {
            j = joins.get(e.group());
            if (j != null && e.type() == CmEventType.MULTICAST_ERROR) {
                joins.remove(e.group());
            }
        }
        if (j == null) {
            return; // left meanwhile
        }
        CmEventType t = e.type();
        int status = e.status();
        QueuePair q = qp;
        if (t == CmEventType.MULTICAST_JOIN && q != null && e.ud() != null && e.ud().ahAttr() != null) {
            try {
                j.mgid = e.ud().ahAttr().dgid();
                j.mlid = e.ud().ahAttr().dlid();
                q.attachMcast(j.mgid, j.mlid);
                j.attached = q;
            } catch (RdmaException ex) {
                t = CmEventType.MULTICAST_ERROR;
                status = ex.errno().status();
            } catch (IllegalStateException | IllegalArgumentException ex) {
                t = CmEventType.MULTICAST_ERROR;
                status = Errno.EINVAL.status();
            }
        }
        id.event(new CmEvent(t, id, null, status, null, e.ud(), Ece.NONE, j.context));
    }

    /** The QP to ERROR, so that its posted WRs are flushed (a connection that ended). */
    void toErr() {
        QueuePair q = qp;
        if (q == null) {
            return;
        }
        try {
            QpState s = q.state();
            if (s != QpState.ERR && s != QpState.RESET) {
                q.modify(new QpAttr().qpState(QpState.ERR));
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, id.tag() + " QP to ERROR: " + e.getMessage());
        }
    }

    /** Destroys the provider's id (the id is being destroyed; its CM leaves the groups, its QP is detached). */
    void close() {
        ProviderCmId p = pid;
        if (p == null) {
            return;
        }
        List<Join> all;
        synchronized (id) {
            all = new ArrayList<>(joins.values());
            joins.clear();
        }
        for (Join j : all) {
            detach(j);
        }
        if (bound.get() == BOUND_EXPIRED) {
            return; // destroyed when the connect's bound expired
        }
        try {
            p.close();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, id.tag() + " destroying the provider's id: " + e);
        }
    }

    String providerName() {
        String n = provider;
        Device d = device;
        return n != null ? n : d == null ? "the provider" : d.provider();
    }

    /** The ECE a connect offers or an accept answers, to the provider's id ({@code rdma_set_local_ece}). */
    private void localEce(Ece ece) {
        if (ece != null && !ece.equals(Ece.NONE)) {
            apply(providerName(), "ECE (rdma_set_local_ece)", () -> pid.setLocalEce(ece));
        }
    }

    @Override
    public void onEvent(ProviderCmEvent e) {
        if (id.isDestroyed() || bound.get() == BOUND_EXPIRED) {
            if (e.newId() != null) {
                e.newId().close();
            }
            return;
        }
        CmEventType t = e.type();
        if ((t == CmEventType.ESTABLISHED || t == CmEventType.CONNECT_RESPONSE || t == CmEventType.REJECTED
                || t == CmEventType.UNREACHABLE || t == CmEventType.CONNECT_ERROR)
                && !bound.compareAndSet(BOUND_PENDING, BOUND_NONE) && bound.get() == BOUND_EXPIRED) {
            return; // the caller's bound expired first
        }
        switch (t) {
            case CONNECT_REQUEST -> {
                request(e);
                return;
            }
            case MULTICAST_JOIN, MULTICAST_ERROR -> {
                joined(e);
                return;
            }
            case ADDR_RESOLVED -> {
                refresh();
                id.compareAndSetState(CmState.ADDR_QUERY, CmState.ADDR_RESOLVED);
            }
            case ADDR_ERROR -> id.compareAndSetState(CmState.ADDR_QUERY, CmState.ADDR_BOUND);
            case ROUTE_RESOLVED -> {
                refresh();
                id.compareAndSetState(CmState.ROUTE_QUERY, CmState.ROUTE_RESOLVED);
            }
            case ROUTE_ERROR -> id.compareAndSetState(CmState.ROUTE_QUERY, CmState.ADDR_RESOLVED);
            case ESTABLISHED -> refresh();
            case CONNECT_RESPONSE -> id.awaitEstablish(); // an id without a QP: the user answers, accept(null)
            case DISCONNECTED, REJECTED, UNREACHABLE, CONNECT_ERROR ->
                    id.compareAndSetState(CmState.CONNECT, CmState.DISCONNECT);
            case DEVICE_REMOVAL -> id.state(CmState.DEVICE_REMOVAL);
            default -> {
                // the others change no state here
            }
        }
        boolean connection = t == CmEventType.ESTABLISHED || t == CmEventType.CONNECT_RESPONSE;
        id.event(new CmEvent(t, id, null, e.status(), e.param(), e.ud(), connection && e.ud() == null ? remoteEce()
                : Ece.NONE));
    }

    /** A connection request on this listener: a new id of the same kind, delivered as CONNECT_REQUEST. */
    private void request(ProviderCmEvent e) {
        ProviderCmId requestId = e.newId();
        if (!id.requests.admitProviderRequest()) {
            // Beyond the backlog: rejected (SIDR: a SIDR_REP that refuses), its id destroyed.
            try {
                requestId.reject(new byte[0]);
            } catch (RuntimeException ex) {
                LOG.log(System.Logger.Level.DEBUG, id.tag() + " reject beyond the backlog: " + ex);
            }
            requestId.close();
            return;
        }
        CmIdImpl child;
        try {
            child = new CmIdImpl(id.core, id.delivery.handler(), id.mode, null, id.context(), id.portSpace(),
                    id.qpType(), id);
            child.channel = id.mode == CmIdImpl.Mode.SYNC ? new ChannelImpl(id.core) : id.channel;
            child.foreign.startRequest(requestId, providerName());
            ConnParam p = e.param();
            int ird = p != null ? p.initiatorDepth() : 0;
            int ord = p != null ? p.responderResources() : 0;
            child.negotiate(n -> n.withPeerIrd(ird).withDepths(ord, ird));
            child.state(CmState.CONNECT);
            id.core.register(child);
            if (child.channel != null) {
                child.channel.attach(child);
            }
            child.requests.providerRequest();
        } catch (RuntimeException ex) {
            LOG.log(System.Logger.Level.WARNING, id.tag() + " connection request dropped: " + ex);
            id.requests.releaseProviderRequest();
            requestId.close();
            return;
        }
        child.event(new CmEvent(CmEventType.CONNECT_REQUEST, child, id, e.status(), e.param(), e.ud(),
                e.ud() == null ? child.foreign.remoteEce() : Ece.NONE));
        child.foreign.listening();
    }
}
