package com.ibm.disni.verbs;

import java.io.IOException;
import java.net.SocketAddress;

/**
 * The RDMA connection manager (librdmacm's calls), implemented on {@code io.jrdma.cm}. Most applications use the
 * object forms on {@link RdmaEventChannel} and {@link RdmaCmId}, which call these.
 */
public abstract class RdmaCm {
    /** {@code RDMA_PS_IPOIB}: datagrams over IPoIB (not supported by jrdma's devices). */
    public static final short RDMA_PS_IPOIB = 0x0002;
    /** {@code RDMA_PS_TCP}: reliable connected (RC) queue pairs, the port space DiSNI's endpoints use. */
    public static final short RDMA_PS_TCP = 0x0106;
    /** {@code RDMA_PS_UDP}: unreliable datagrams (UD). */
    public static final short RDMA_PS_UDP = 0x0111;

    /** For the implementation. */
    public RdmaCm() {
    }

    /**
     * The process-wide connection manager.
     *
     * @return jrdma's connection manager
     * @throws IOException if jrdma cannot be opened
     */
    public static RdmaCm open() throws IOException {
        return RdmaProvider.provider().openCm();
    }

    /**
     * {@code rdma_create_event_channel}.
     *
     * @return a new channel
     * @throws IOException on failure
     */
    public abstract RdmaEventChannel createEventChannel() throws IOException;

    /**
     * {@code rdma_create_id}.
     *
     * @param cmChannel the channel the id's events go to
     * @param rdma_ps {@link #RDMA_PS_TCP} or {@link #RDMA_PS_UDP}
     * @return the id
     * @throws IOException for an unknown port space or a closed channel
     */
    public abstract RdmaCmId createId(RdmaEventChannel cmChannel, short rdma_ps) throws IOException;

    /**
     * {@code rdma_create_qp}: a QP on the id's device, moved to INIT; the connection manager moves it on.
     *
     * @param id the id, bound to a device
     * @param pd a protection domain of the id's device
     * @param attr the QP's attributes
     * @return the QP
     * @throws IOException on failure
     */
    public abstract IbvQP createQP(RdmaCmId id, IbvPd pd, IbvQPInitAttr attr) throws IOException;

    /**
     * {@code rdma_bind_addr}.
     *
     * @param id the id
     * @param addr the local address (port 0: an ephemeral one)
     * @throws IOException on failure (for instance the address is in use)
     */
    public abstract void bindAddr(RdmaCmId id, SocketAddress addr) throws IOException;

    /**
     * {@code rdma_listen}.
     *
     * @param id a bound id
     * @param backlog pending requests kept
     * @throws IOException on failure
     */
    public abstract void listen(RdmaCmId id, int backlog) throws IOException;

    /**
     * {@code rdma_resolve_addr}: ADDR_RESOLVED or ADDR_ERROR follows on the id's channel.
     *
     * @param id the id
     * @param src the source address, or {@code null} to pick one by route
     * @param dst the destination
     * @param timeout milliseconds
     * @throws IOException on failure
     */
    public abstract void resolveAddr(RdmaCmId id, SocketAddress src, SocketAddress dst, int timeout)
            throws IOException;

    /**
     * {@code rdma_resolve_route}: ROUTE_RESOLVED or ROUTE_ERROR follows.
     *
     * @param id an id with a resolved address
     * @param timeout milliseconds
     * @throws IOException on failure
     */
    public abstract void resolveRoute(RdmaCmId id, int timeout) throws IOException;

    /**
     * {@code rdma_get_cm_event}.
     *
     * @param cmChannel the channel
     * @param timeout milliseconds to wait, negative to wait without bound
     * @return the next event, or {@code null} if none came in time
     * @throws IOException if the channel is closed or the wait is interrupted
     */
    public abstract RdmaCmEvent getCmEvent(RdmaEventChannel cmChannel, int timeout) throws IOException;

    /**
     * {@code rdma_connect}.
     *
     * @param id an id with a resolved route
     * @param connParam the parameters
     * @throws IOException on failure
     */
    public abstract void connect(RdmaCmId id, RdmaConnParam connParam) throws IOException;

    /**
     * {@code rdma_accept}.
     *
     * @param id the id of a connection request
     * @param connParam the parameters
     * @throws IOException on failure
     */
    public abstract void accept(RdmaCmId id, RdmaConnParam connParam) throws IOException;

    /**
     * {@code rdma_ack_cm_event}.
     *
     * @param cmEvent an event this channel returned
     * @return 0, or -1 if the event is not one of jrdma's
     */
    public abstract int ackCmEvent(RdmaCmEvent cmEvent);

    /**
     * {@code rdma_disconnect}.
     *
     * @param id the id
     * @return 0
     * @throws IOException on failure
     */
    public abstract int disconnect(RdmaCmId id) throws IOException;

    /**
     * {@code rdma_destroy_event_channel}.
     *
     * @param cmChannel the channel
     * @return 0
     * @throws IOException while ids still use it
     */
    public abstract int destroyEventChannel(RdmaEventChannel cmChannel) throws IOException;

    /**
     * {@code rdma_destroy_id}: waits until the id's delivered events are acknowledged.
     *
     * @param id the id
     * @return 0
     * @throws IOException if it was destroyed already
     */
    public abstract int destroyCmId(RdmaCmId id) throws IOException;

    /**
     * {@code rdma_destroy_qp}.
     *
     * @param id the id
     * @return 0
     * @throws IOException on failure
     */
    public abstract int destroyQP(RdmaCmId id) throws IOException;

    /**
     * {@code rdma_get_local_addr}.
     *
     * @param id the id
     * @return the local address, or {@code null} if unbound
     * @throws IOException if the id is destroyed
     */
    public abstract SocketAddress getSrcAddr(RdmaCmId id) throws IOException;

    /**
     * {@code rdma_get_peer_addr}.
     *
     * @param id the id
     * @return the peer's address, or {@code null}
     * @throws IOException if the id is destroyed
     */
    public abstract SocketAddress getDstAddr(RdmaCmId id) throws IOException;

    /**
     * {@code rdma_destroy_ep}: destroys the id's QP and the id.
     *
     * @param id the id
     * @return 0
     * @throws IOException on failure
     */
    public abstract int destroyEp(RdmaCmId id) throws IOException;
}
