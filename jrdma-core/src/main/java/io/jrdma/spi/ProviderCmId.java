package io.jrdma.spi;

import io.jrdma.cm.ConnParam;
import io.jrdma.cm.Ece;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QueuePair;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * One id of a {@link ProviderCm}: the calls of {@link io.jrdma.cm.CmId} that a provider's connection
 * manager answers itself. Core has checked the arguments it can (null addresses, the id's state for the
 * API's own rules); the provider reports what its CM refuses as the exception the {@code CmId} contract
 * names ({@link IllegalArgumentException}, {@link IllegalStateException}, or
 * {@link io.jrdma.verbs.RdmaException} with the errno). Outcomes of asynchronous calls come as
 * {@link ProviderCmEvent}s to the id's {@link Listener}.
 *
 * <p>The options of {@code rdma_set_option} and ECE are default methods that refuse with
 * {@link UnsupportedOperationException}: a provider implements those its CM has. Core gives the options set on
 * an idle id to the provider's id as soon as it makes it (before bind, resolveAddr or listen), and the later
 * ones as they are set; core has checked their ranges and the id's state first.
 */
public interface ProviderCmId extends AutoCloseable {
    /** Receives the events of one id, on the provider's thread, one at a time and in order. */
    @FunctionalInterface
    interface Listener {
        /**
         * One event. For {@link io.jrdma.cm.CmEventType#CONNECT_REQUEST} the event carries the request's new
         * id, which delivers nothing until it is given its listener with {@link #listener}; core does that
         * before this method returns.
         *
         * @param event the event
         */
        void onEvent(ProviderCmEvent event);
    }

    /**
     * Sets where the events of a request's id go ({@link ProviderCmEvent#newId()}); events that came
     * before are delivered to it first, in order. Ids made by {@link ProviderCm#createId} have theirs.
     *
     * @param listener the listener
     */
    void listener(Listener listener);

    /**
     * {@code rdma_bind_addr}.
     *
     * @param address the address, port 0 for an ephemeral one
     */
    void bind(InetSocketAddress address);

    /**
     * {@code rdma_listen}.
     *
     * @param backlog pending requests the CM keeps
     */
    void listen(int backlog);

    /**
     * {@code rdma_resolve_addr}: ADDR_RESOLVED or ADDR_ERROR follows.
     *
     * @param src the source address, or null to pick by route
     * @param dst the destination
     * @param timeout bound on the resolution
     */
    void resolveAddr(InetSocketAddress src, InetSocketAddress dst, Duration timeout);

    /**
     * {@code rdma_resolve_route}: ROUTE_RESOLVED or ROUTE_ERROR follows.
     *
     * @param timeout the bound
     */
    void resolveRoute(Duration timeout);

    /**
     * The second half of {@code rdma_create_qp}: {@link io.jrdma.cm.CmId#createQp} has made {@code qp} on the
     * id's device and calls this before returning it, so that receives can be posted before the connection
     * (librdmacm moves the QP to INIT here). An exception fails the call; core then destroys the QP. The
     * default does nothing: a provider that moves the QP at connect or accept needs no more.
     *
     * @param qp the new QP, in RESET
     */
    default void qpCreated(QueuePair qp) {
    }

    /**
     * {@code rdma_connect} with {@code qp}, a QP of the provider on the id's device: the provider drives the
     * transitions the connection needs. Without a QP on the id, {@code param.qpNum()} names the QP (as
     * librdmacm's {@code conn_param.qp_num}); a provider that must hold the QP refuses null with
     * {@link IllegalArgumentException}.
     *
     * @param qp the id's QP (made through {@link io.jrdma.cm.CmId#createQp}), or null
     * @param param the connection parameters
     */
    void connect(QueuePair qp, ConnParam param);

    /**
     * {@code rdma_accept} of the request this id came with, with {@code qp} (or null, as for connect).
     *
     * @param qp the id's QP, or null
     * @param param the connection parameters
     */
    void accept(QueuePair qp, ConnParam param);

    /**
     * {@code rdma_establish}: the active side of a connection whose id has no QP completes it after
     * CONNECT_RESPONSE, once the user moved its QP to RTS (with {@link #initQpAttr}'s attributes).
     *
     * @throws UnsupportedOperationException if the provider's CM has no such call (the default)
     */
    default void establish() {
        throw refused("rdma_establish");
    }

    /**
     * {@code rdma_init_qp_attr}: the attributes the provider's CM gives a QP of this id for {@code state} (INIT,
     * RTR or RTS; core has checked the state and that the id has a device), from what the connection negotiated.
     *
     * @param state the QP state
     * @return the attributes, with the mask of those set
     * @throws UnsupportedOperationException if the provider's CM has no such call (the default)
     */
    default QpAttr initQpAttr(QpState state) {
        throw refused("rdma_init_qp_attr");
    }

    /**
     * {@code rdma_reject}.
     *
     * @param privateData the private data, possibly empty
     */
    void reject(byte[] privateData);

    /**
     * The most private data an iWARP connect, accept or reject of this id carries, where the provider's CM takes
     * less than MPA's 252 bytes (256 on the frame less the 4-byte MPA v2 IRD/ORD block); core refuses more at the
     * call, as it does beyond its own limits.
     *
     * @return the limit in bytes, or -1 (the default) for MPA's
     */
    default int mpaPrivateDataLimit() {
        return -1;
    }

    /** {@code rdma_disconnect}. */
    void disconnect();

    /**
     * The device the id is bound to ({@code id->verbs->device}), or null before it is.
     *
     * @return the device
     */
    Device device();

    /**
     * {@code rdma_get_local_addr}, or null before the id has one.
     *
     * @return the address
     */
    InetSocketAddress localAddress();

    /**
     * {@code rdma_get_peer_addr}, or null before the id has one.
     *
     * @return the address
     */
    InetSocketAddress peerAddress();

    /**
     * {@code rdma_set_option(RDMA_OPTION_ID, RDMA_OPTION_ID_TOS)}: the type of service of the id's connections.
     *
     * @param tos the 8-bit TOS
     * @throws UnsupportedOperationException if the provider's CM has no such option (the default)
     */
    default void setTos(int tos) {
        throw refused("rdma_set_option(RDMA_OPTION_ID_TOS)");
    }

    /**
     * {@code rdma_set_option(RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR)}, on an unbound id.
     *
     * @param reuse whether the address may be reused
     * @throws UnsupportedOperationException if the provider's CM has no such option (the default)
     */
    default void setReuseAddr(boolean reuse) {
        throw refused("rdma_set_option(RDMA_OPTION_ID_REUSEADDR)");
    }

    /**
     * {@code rdma_set_option(RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY)}, on an unbound id.
     *
     * @param afOnly whether an IPv6 wildcard takes IPv6 only
     * @throws UnsupportedOperationException if the provider's CM has no such option (the default)
     */
    default void setAfOnly(boolean afOnly) {
        throw refused("rdma_set_option(RDMA_OPTION_ID_AFONLY)");
    }

    /**
     * {@code rdma_set_option(RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT)}: the local ACK timeout the id's RC
     * QP gets at RTS.
     *
     * @param timeout the 5-bit IBTA timeout exponent (4.096 us &times; 2^timeout)
     * @throws UnsupportedOperationException if the provider's CM has no such option (the default)
     */
    default void setAckTimeout(int timeout) {
        throw refused("rdma_set_option(RDMA_OPTION_ID_ACK_TIMEOUT)");
    }

    /**
     * The minimum RNR NAK timer the id's RC QP gets at RTR ({@code rdma_set_min_rnr_timer} of the kernel's
     * rdma_cm).
     *
     * @param code the 5-bit IBTA RNR timer code
     * @throws UnsupportedOperationException if the provider's CM has no such setting (the default)
     */
    default void setMinRnrTimer(int code) {
        throw refused("the minimum RNR timer");
    }

    /**
     * {@code rdma_set_local_ece}: the ECE the next {@link #connect} offers or {@link #accept} answers.
     *
     * @param ece the ECE, with a vendor id
     * @throws UnsupportedOperationException if the provider's CM has no ECE (the default)
     */
    default void setLocalEce(Ece ece) {
        throw refused("rdma_set_local_ece");
    }

    /**
     * {@code rdma_get_remote_ece}: the ECE the peer offered (in its request) or answered (in its reply).
     *
     * @return the ECE; the default, for a CM without ECE, is {@link Ece#NONE}
     */
    default Ece remoteEce() {
        return Ece.NONE;
    }

    /**
     * {@code rdma_reject_ece}: rejects the request saying its ECE is not supported.
     *
     * @param privateData the private data, possibly empty
     * @throws UnsupportedOperationException if the provider's CM has no ECE (the default)
     */
    default void rejectEce(byte[] privateData) {
        throw refused("rdma_reject_ece");
    }

    /**
     * {@code rdma_join_multicast} of a UD id: the provider's CM joins {@code group} and answers with
     * MULTICAST_JOIN (its {@link ProviderCmEvent#ud()} the group's address vector, QP number and Q_Key) or
     * MULTICAST_ERROR. Core attaches the id's QP to the group when the join is reported, as librdmacm does
     * for a QP of its own.
     *
     * @param group a multicast address
     * @throws UnsupportedOperationException if the provider's CM has no multicast (the default)
     */
    default void joinMulticast(InetAddress group) {
        throw refused("rdma_join_multicast");
    }

    /**
     * {@code rdma_leave_multicast}: leaves a group joined with {@link #joinMulticast} (core has detached the
     * id's QP first).
     *
     * @param group the group
     * @throws UnsupportedOperationException if the provider's CM has no multicast (the default)
     */
    default void leaveMulticast(InetAddress group) {
        throw refused("rdma_leave_multicast");
    }

    private UnsupportedOperationException refused(String call) {
        Device d;
        try {
            d = device();
        } catch (IllegalStateException closed) {
            d = null;
        }
        return new UnsupportedOperationException(call + " is not offered by "
                + (d == null ? toString() : d.provider() + "'s connection manager (" + this + ")"));
    }

    /** {@code rdma_destroy_id}: no event is delivered after it returns; a second call does nothing. */
    @Override
    void close();
}
