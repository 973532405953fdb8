package io.jrdma.spi;

import io.jrdma.cm.ConnParam;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.QueuePair;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * One id of a {@link ProviderCm}: the calls of {@link io.jrdma.cm.CmId} that a provider's connection
 * manager answers itself. Core has checked the arguments it can (null addresses, the id's state for the
 * API's own rules); the provider reports what its CM refuses as the exception the {@code CmId} contract
 * names ({@link IllegalArgumentException}, {@link IllegalStateException}, or
 * {@link io.jrdma.verbs.RdmaException} with the errno). Outcomes of asynchronous calls come as
 * {@link ProviderCmEvent}s to the id's {@link Listener}.
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
     * {@code rdma_reject}.
     *
     * @param privateData the private data, possibly empty
     */
    void reject(byte[] privateData);

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

    /** {@code rdma_destroy_id}: no event is delivered after it returns; a second call does nothing. */
    @Override
    void close();
}
