package io.jrdma.internal.cm;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventHandler;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.CmState;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.Ece;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RejectReason;
import io.jrdma.cm.UdParam;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;

/**
 * An rdma_cm id: the generic half of Linux {@code cma.c} over a {@link CmBackend} that speaks the wire
 * protocol. What the id is (its port space, QP type, state, device, addresses, route, what the connection
 * {@link Negotiated negotiated}, the backend's connection state) it holds as a {@link CmIdState}; this
 * class sends each call to its part. Each concern of rdma_cm is a part of its own, as cma.c's sections
 * are: options ({@link CmOptions}), addressing ({@link CmAddressing}), listening and requests ({@link CmListen}),
 * connecting and disconnecting ({@link CmConnect}), accepting and rejecting ({@link CmAccept}), the QP
 * ({@link CmQp}), event delivery ({@link CmDelivery}), multicast ({@link CmMulticast}) and the id's end,
 * destroy and device removal ({@link CmTeardown}). An id a whole-device provider's connection manager
 * serves sends its calls to {@link CmForeign} instead.
 *
 * <p>One lock guards the id's state: the id's monitor (see the package documentation). Events are
 * delivered on the connection manager's {@link SerialExecutor} under the id's handler lock; after
 * {@link #destroy()} returns none is delivered.
 */
public final class CmIdImpl extends CmIdState {
    /** {@code RDMA_UDP_QKEY}: the Q_Key rdma_cm gives UD QPs of the UDP and IB port spaces. */
    public static final int RDMA_UDP_QKEY = 0x01234567;
    /** How many ephemeral ports connect tries when the host holds the ones picked. */
    static final int MAX_EPHEMERAL_ATTEMPTS = 8;

    /** How the id reports events. */
    enum Mode {
        /** Kernel style: a handler. */
        KERNEL,
        /** librdmacm style: an event channel. */
        CHANNEL,
        /** librdmacm synchronous mode: a private channel the blocking calls wait on. */
        SYNC
    }

    final Mode mode;
    volatile ChannelImpl channel;
    /** The listener this id was created for (CONNECT_REQUEST ids), or {@code null}. */
    final CmIdImpl listener;

    final CmOptions options = new CmOptions(this);
    final CmAddressing addressing = new CmAddressing(this);
    final CmListen requests = new CmListen(this);
    final CmConnect connecting = new CmConnect(this);
    final CmAccept accepting = new CmAccept(this);
    private final CmQp qp = new CmQp(this);
    final CmDelivery delivery;
    final CmMulticast multicast = new CmMulticast(this);
    /** The id when a whole-device provider's connection manager serves it. */
    final CmForeign foreign = new CmForeign(this);
    private final CmTeardown teardown = new CmTeardown(this);

    CmIdImpl(CmHost core, CmEventHandler handler, Mode mode, ChannelImpl channel, Object context, PortSpace ps,
            QpType qpType, CmIdImpl listener) {
        super(core, context, ps, qpType);
        if (ps == null || qpType == null) {
            throw new IllegalArgumentException("port space and QP type are required");
        }
        if (ps == PortSpace.TCP && qpType != QpType.RC && qpType != QpType.UC) {
            throw new IllegalArgumentException("the TCP port space carries RC (or UC) QPs, not " + qpType);
        }
        if (ps == PortSpace.UDP && qpType != QpType.UD) {
            throw new IllegalArgumentException("the UDP port space carries UD QPs, not " + qpType);
        }
        this.delivery = new CmDelivery(this, handler);
        this.mode = mode;
        this.channel = channel;
        this.listener = listener;
    }

    void checkAlive() {
        if (teardown.destroyed()) {
            throw new IllegalStateException(tag() + " id is destroyed");
        }
    }

    // ------------------------------------------------------------------------------------------ what the id is

    @Override
    void stateChanged(CmState from, CmState to) {
        core.events().idStateChanged(this, from, to);
    }

    /** Whether the id is destroyed. */
    public boolean isDestroyed() {
        return teardown.destroyed();
    }

    @Override
    public Device device() {
        return foreign.active() ? foreign.device() : deviceImpl();
    }

    @Override
    public Context verbs() {
        Device d = device();
        return d == null ? null : core.context(d);
    }

    /**
     * The backend's connection state (the IB CM id or the iWARP CM id), or {@code null}; for an id a provider's
     * connection manager serves, the provider's id while it holds a connection.
     */
    public Object transport() {
        Object t = transport;
        return t == null && foreign.active() ? foreign.connection() : t;
    }

    @Override
    public Ece remoteEce() {
        if (foreign.active()) {
            return foreign.remoteEce();
        }
        return negotiated().remoteEce();
    }

    // ------------------------------------------------------------------------------------------ options

    @Override
    public void setTos(int t) {
        synchronized (this) {
            options.setTos(t);
            foreign.option("TOS", p -> p.setTos(t));
        }
    }

    @Override
    public void setReuseAddr(boolean reuse) {
        synchronized (this) {
            options.setReuseAddr(reuse);
            foreign.option("REUSEADDR", p -> p.setReuseAddr(reuse));
        }
    }

    @Override
    public void setAfOnly(boolean only) {
        synchronized (this) {
            options.setAfOnly(only);
            foreign.option("AFONLY", p -> p.setAfOnly(only));
        }
    }

    @Override
    public void setAckTimeout(int t) {
        synchronized (this) {
            options.setAckTimeout(t);
            foreign.option("ACK timeout", p -> p.setAckTimeout(t));
        }
    }

    @Override
    public void setMinRnrTimer(int code) {
        synchronized (this) {
            options.setMinRnrTimer(code);
            foreign.option("minimum RNR timer", p -> p.setMinRnrTimer(code));
        }
    }

    // ------------------------------------------------------------------------------------------ addressing

    @Override
    public void bind(InetSocketAddress address) {
        if (address != null && !address.isUnresolved()) {
            foreign.claim(address.getAddress());
        }
        if (foreign.active()) {
            foreign.bind(address);
            return;
        }
        addressing.bind(address);
    }

    @Override
    public void resolveAddr(InetSocketAddress src, InetSocketAddress dst, Duration timeout) {
        if (dst != null && !dst.isUnresolved() && timeout != null && !timeout.isNegative() && !timeout.isZero()
                && (src == null || !src.isUnresolved())) {
            foreign.claim(src != null ? src.getAddress() : core.sourceFor(dst.getAddress()));
        }
        if (foreign.active()) {
            foreign.resolveAddr(src, dst, timeout);
            return;
        }
        addressing.resolveAddr(src, dst, timeout);
    }

    @Override
    public void resolveRoute(Duration timeout) {
        if (foreign.active()) {
            foreign.resolveRoute(timeout);
            return;
        }
        addressing.resolveRoute(timeout);
    }

    // ------------------------------------------------------------------------------------------ listen

    @Override
    public void listen(int n) {
        if (state() == CmState.IDLE) {
            foreign.claim(null);
            if (foreign.active()) {
                foreign.bind(new InetSocketAddress(io.jrdma.internal.net.Ip.wildcard(false), 0));
            }
        }
        if (foreign.active()) {
            foreign.listen(n);
            return;
        }
        requests.listen(n);
    }

    /** The backlog of a listener. */
    public int backlog() {
        return requests.backlog();
    }

    /** Requests rejected because the backlog was full (listeners). */
    public int backlogRejects() {
        return requests.backlogRejects();
    }

    /**
     * Called by a backend when a connection request arrives for this listener: counts it against the
     * backlog and returns a new id for the connection, or {@code null} if the backlog is full (the
     * backend then rejects the request; counted on the listener and in the device's
     * {@code cm_backlog_rejects}). From here on the request holds a place in the backlog until it is
     * accepted, rejected or its id destroyed; a backend whose setup of the new id fails destroys it, which
     * rejects the request and gives the place back.
     *
     * @throws IllegalArgumentException for a QP type this listener's port space cannot carry (nothing is
     *     counted: a backend checks the type first, as {@code cma_check_req_qp_type} does)
     */
    public CmIdImpl newRequestId(DeviceImpl dev, InetSocketAddress localAddr, InetSocketAddress remoteAddr,
            QpType type) {
        return requests.newRequest(dev, localAddr, remoteAddr, type);
    }

    @Override
    public CmId getRequest(Duration timeout) throws InterruptedException {
        return requests.getRequest(timeout);
    }

    /** A synchronous listener's PD and QP attributes: getRequest gives each request a QP with them. */
    public void endpointQp(ProtectionDomain pd, QpInitAttr attr) {
        requests.endpointQp(pd, attr);
    }

    // ------------------------------------------------------------------------------------------ connect

    @Override
    public void connect(ConnParam param) {
        connecting.connect(param, Ece.NONE, null, false);
    }

    @Override
    public void connect(ConnParam param, Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("connect timeout must be positive: " + timeout);
        }
        connecting.connect(param, Ece.NONE, timeout, false);
    }

    @Override
    public void connect(ConnParam param, Ece ece) {
        connecting.connect(param, ece == null ? Ece.NONE : ece, null, false);
    }

    @Override
    public void connectLocked(ConnParam param) {
        connecting.connect(param, Ece.NONE, null, true);
    }

    /** Called by a backend when the active side got a reply and waits for accept(null). */
    public void awaitEstablish() {
        connecting.awaitEstablish();
    }

    @Override
    public void disconnect() {
        connecting.disconnect();
    }

    @Override
    public void notify(AsyncEventType event) {
        if (foreign.active()) {
            return; // the provider's CM sees its QPs' events itself (rdma_notify is a no-op on iWARP)
        }
        connecting.notify(event);
    }

    // ------------------------------------------------------------------------------------------ accept

    @Override
    public void accept(ConnParam param) {
        accept(param, Ece.NONE);
    }

    @Override
    public void accept(ConnParam param, Ece ece) {
        accepting.accept(param, ece);
    }

    @Override
    public void establish() {
        accept(null, Ece.NONE);
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
        accepting.reject(privateData, reason);
    }

    // ------------------------------------------------------------------------------------------ QP

    @Override
    public QueuePair qp() {
        return foreign.active() ? foreign.qp() : qp.get();
    }

    /** The QP (internal type), or {@code null}. */
    public QpImpl qpImpl() {
        return qp.get();
    }

    @Override
    public QueuePair createQp(ProtectionDomain pd, QpInitAttr attr) {
        if (foreign.active()) {
            return foreign.createQp(pd, attr);
        }
        return qp.create(pd, attr);
    }

    @Override
    public void destroyQp() {
        if (foreign.active()) {
            foreign.destroyQp();
            return;
        }
        qp.destroy();
    }

    @Override
    public QpAttr initQpAttr(QpState s) {
        if (foreign.active()) {
            return foreign.initQpAttr(s);
        }
        return qp.initQpAttr(s);
    }

    /** Moves the id's QP to RTR ({@code cma_modify_qp_rtr}); see {@link CmQp#toRtr}. */
    public void modifyQpRtr() {
        qp.toRtr();
    }

    /** Moves the id's QP to RTS ({@code cma_modify_qp_rts}), through RTR. */
    public void modifyQpRts() {
        qp.toRts();
    }

    /** Moves the id's QP to ERROR ({@code cma_modify_qp_err}); every outstanding WR is flushed. */
    public void modifyQpErr() {
        if (foreign.active()) {
            foreign.toErr();
            return;
        }
        qp.toErr();
    }

    // ------------------------------------------------------------------------------------------ events

    /** Reports an event to the id's user (the backend's and the id's own events). */
    public void event(CmEventType type, int status, ConnParam param, UdParam ud, Ece ece) {
        delivery.post(new CmEvent(type, this, null, status, param, ud, ece == null ? Ece.NONE : ece));
    }

    /**
     * Reports a connection request on this new id (listener set). {@code param} is in the local view
     * rdma_cm reports: its initiator depth is the most the remote accepts (its IRD), its responder
     * resources what the remote may issue (its ORD).
     */
    public void requestEvent(int status, ConnParam param, UdParam ud, Ece ece) {
        int ird = param != null ? param.initiatorDepth() : 0;
        int ord = param != null ? param.responderResources() : 0;
        negotiate(n -> n.withPeerIrd(ird).withDepths(ord, ird));
        delivery.post(new CmEvent(CmEventType.CONNECT_REQUEST, this, listener, status, param, ud,
                ece == null ? Ece.NONE : ece));
    }

    void event(CmEvent e) {
        delivery.post(e);
    }

    /** Marks a channel CONNECT_REQUEST as retrieved (the channel API may now accept or reject). */
    void retrieved(CmEvent e) {
        requests.retrieved(e);
    }

    @Override
    public void lockHandler() {
        delivery.lock();
    }

    @Override
    public void unlockHandler() {
        delivery.unlock();
    }

    /** Whether the calling thread holds the handler lock. */
    public boolean inHandler() {
        return delivery.held();
    }

    // ------------------------------------------------------------------------------------------ multicast

    @Override
    public void joinMulticast(InetAddress group, Object mcContext) {
        if (foreign.active()) {
            foreign.joinMulticast(group, mcContext);
            return;
        }
        multicast.join(group, mcContext);
    }

    @Override
    public void leaveMulticast(InetAddress group) {
        if (foreign.active()) {
            foreign.leaveMulticast(group);
            return;
        }
        multicast.leave(group);
    }

    /** The groups the id has joined (tests, tools). */
    public List<InetAddress> multicastGroups() {
        return foreign.active() ? foreign.multicastGroups() : multicast.groups();
    }

    // ------------------------------------------------------------------------------------------ the end

    /** The device {@code d} is being removed; see {@link CmTeardown#deviceRemoved}. */
    void deviceRemoved(DeviceImpl d) {
        teardown.deviceRemoved(d);
    }

    /** Destroys without waiting for acknowledgements (the connection manager is closing). */
    void destroyNoWait() {
        teardown.destroy(false);
    }

    @Override
    public void destroy() {
        teardown.destroy(true);
    }

    @Override
    public String toString() {
        return "CmId[" + handle + " " + portSpace() + " " + state() + (local != null ? " " + local : "")
                + (remote != null ? " -> " + remote : "") + "]";
    }
}
