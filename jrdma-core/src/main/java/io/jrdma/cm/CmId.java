package io.jrdma.cm;

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

/**
 * An RDMA connection-manager id ({@code struct rdma_cm_id}): one endpoint. Ids are made by
 * {@link RdmaCm#createId} (kernel style, events to a handler), by {@link EventChannel#createId}
 * (librdmacm style) or {@link RdmaCm#createEp} (synchronous). Asynchronous calls report their outcome
 * as events; misuse throws at once (IllegalStateException for a wrong state,
 * IllegalArgumentException for a bad argument, {@link io.jrdma.verbs.RdmaException} with an errno
 * otherwise).
 *
 * <p>Thread-safe: its calls may come from any thread; events of one connection manager are delivered
 * one at a time on its executor thread, and the calls reserved for handlers say so
 * ({@link #connectLocked}, {@link #lockHandler}).
 */
public interface CmId {
    /** The connection manager the id belongs to. Linux: the librdmacm instance the id belongs to. */
    default RdmaCm cm() {
        return RdmaCm.of(this);
    }

    /** The user context given at creation (or set later). Linux: {@code rdma_cm_id.context}. */
    Object context();

    /** Sets the user context. Linux: {@code rdma_cm_id.context}. */
    void context(Object context);

    /** The port space. Linux: {@code rdma_cm_id.ps}. */
    PortSpace portSpace();

    /** The QP type. Linux: {@code rdma_cm_id.qp_type}. */
    QpType qpType();

    /** The state. Linux: the kernel's {@code rdma_id_private.state} ({@code enum rdma_cm_state}). */
    CmState state();

    /**
     * The device, once bound to one (by bind to a device address, resolveAddr, or a request). Linux:
     * {@code rdma_cm_id.verbs->device}.
     */
    Device device();

    /**
     * The verbs context of the device ({@code id->verbs}), opened by the connection manager. Linux:
     * {@code rdma_cm_id.verbs}.
     */
    Context verbs();

    /** The QP created through the id, or {@code null}. Linux: {@code rdma_cm_id.qp}. */
    QueuePair qp();

    /** {@code rdma_bind_addr}: port 0 picks an ephemeral port. */
    void bind(InetSocketAddress address);

    /**
     * {@code rdma_resolve_addr}: picks the source address and device for {@code dst}; ADDR_RESOLVED or
     * ADDR_ERROR follows.
     *
     * @param src source address, or {@code null} to pick by route
     * @param timeout bound on the resolution
     */
    void resolveAddr(InetSocketAddress src, InetSocketAddress dst, Duration timeout);

    /** {@code rdma_resolve_route}: ROUTE_RESOLVED or ROUTE_ERROR follows. */
    void resolveRoute(Duration timeout);

    /** {@code rdma_listen}: requests beyond {@code backlog} pending ones are rejected and counted. */
    void listen(int backlog);

    /**
     * {@code rdma_connect}: needs a resolved route. Outside a handler of this id; inside one use
     * {@link #connectLocked}.
     */
    void connect(ConnParam param);

    /** {@code rdma_connect} with a bound on the wait: a silent peer becomes UNREACHABLE after {@code timeout}. */
    void connect(ConnParam param, Duration timeout);

    /** {@code rdma_connect_ece}. */
    void connect(ConnParam param, Ece ece);

    /** {@code rdma_connect_locked}: connect from inside a handler running for this id. */
    void connectLocked(ConnParam param);

    /**
     * {@code rdma_accept}: on the passive side answers CONNECT_REQUEST ({@code param} required); on the
     * active side after CONNECT_RESPONSE, with {@code param == null}, sends the RTU.
     */
    void accept(ConnParam param);

    /** {@code rdma_accept_ece}. */
    void accept(ConnParam param, Ece ece);

    /** {@code rdma_establish}: the active side's accept(null). */
    void establish();

    /** {@code rdma_reject} with private data (a consumer reject). */
    void reject(byte[] privateData);

    /** {@code rdma_reject} with an IB reject reason (kernel); iWARP ignores the reason. */
    void reject(byte[] privateData, int reason);

    /** {@code rdma_reject_ece}: reject saying the offered ECE option is not supported. */
    void rejectEce(byte[] privateData);

    /** {@code rdma_disconnect}: the QP goes to ERROR and DISCONNECTED follows on both sides. */
    void disconnect();

    /** {@code rdma_create_qp}: creates a QP on the id's device and moves it to INIT. */
    QueuePair createQp(ProtectionDomain pd, QpInitAttr attr);

    /** {@code rdma_destroy_qp}. */
    void destroyQp();

    /** {@code rdma_init_qp_attr}: what the connection manager negotiated for a transition to {@code state}. */
    QpAttr initQpAttr(QpState state);

    /** {@code rdma_notify}: the QP saw COMM_EST before the RTU; treat the connection as established. */
    void notify(AsyncEventType event);

    /** {@code rdma_set_service_type} / RDMA_OPTION_ID_TOS. */
    void setTos(int tos);

    /** RDMA_OPTION_ID_REUSEADDR. */
    void setReuseAddr(boolean reuse);

    /** RDMA_OPTION_ID_AFONLY. */
    void setAfOnly(boolean afOnly);

    /** {@code rdma_set_ack_timeout} / RDMA_OPTION_ID_ACK_TIMEOUT: 4.096 µs × 2^t, 0 = infinite. */
    void setAckTimeout(int timeout);

    /** {@code rdma_set_min_rnr_timer}: the responder's RNR NAK delay (IBTA 5-bit code). */
    void setMinRnrTimer(int code);

    /** {@code rdma_get_local_addr}. */
    InetSocketAddress localAddress();

    /** {@code rdma_get_peer_addr}. */
    InetSocketAddress peerAddress();

    /** {@code rdma_get_src_port}. */
    int localPort();

    /** {@code rdma_get_dst_port}. */
    int peerPort();

    /** The ECE the remote side offered or answered ({@code rdma_get_remote_ece}). */
    Ece remoteEce();

    /**
     * The iWARP CM id of an iWARP connection ({@code id->cm_id.iw}), or {@code null}. Linux: the {@code iw_cm_id} under
     * an iWARP {@code rdma_cm_id} ({@code id_priv->cm_id.iw}).
     */
    IwCmId iwCmId();

    /**
     * {@code rdma_lock_handler}: holds the id's handler lock so that calls reserved for handlers
     * (accept, reject, connectLocked) can be made from another thread.
     */
    void lockHandler();

    /** {@code rdma_unlock_handler}. */
    void unlockHandler();

    /**
     * {@code rdma_join_multicast}: joins the UD id to the IP multicast group {@code group} (IPv4 or IPv6).
     * The id must be bound to a device (state ADDR_BOUND on a device address, or ADDR_RESOLVED).
     * MULTICAST_JOIN follows, carrying {@code context} and the UD parameters to send to the group with: an
     * address vector to the group's GID (IPv4 groups map to {@code ::ffff:a.b.c.d} on RoCEv2 and loop, as
     * {@code cma_iboe_set_mgid}), remote QPN {@code 0xFFFFFF} and the port space's Q_Key
     * ({@code RDMA_UDP_QKEY} for UDP). As librdmacm does when it retrieves that event, the id's QP (if it has
     * one then) is attached to the group first; when the attach fails the event is MULTICAST_ERROR with its
     * status instead. Joining a group the id has joined already fails with EADDRINUSE.
     *
     * @param group the multicast address
     * @param context the user's context of this membership, returned in the events
     * @throws IllegalArgumentException if {@code group} is not a multicast address
     * @throws IllegalStateException if the id is not a UD id bound to a device (Linux: EINVAL)
     * @throws io.jrdma.verbs.RdmaException ENOSYS on iWARP, EOPNOTSUPP for an IPv6 group on RoCEv2 (as Linux),
     *     EADDRINUSE for a group already joined
     */
    void joinMulticast(InetAddress group, Object context);

    /**
     * {@code rdma_leave_multicast}: leaves a group joined with {@link #joinMulticast}, detaching the id's QP
     * from it. Destroying the id leaves every group.
     *
     * @param group the multicast address given to joinMulticast
     * @throws io.jrdma.verbs.RdmaException EADDRNOTAVAIL if the id has not joined {@code group} (librdmacm)
     */
    void leaveMulticast(InetAddress group);

    /** {@code rdma_get_request} (synchronous ids): waits for the next connection request on a listener. */
    CmId getRequest(Duration timeout) throws InterruptedException;

    /**
     * {@code rdma_destroy_id}: waits for a running callback; no callback runs after it returns. For
     * channel ids it waits until the id's delivered events are acknowledged.
     */
    void destroy();
}
