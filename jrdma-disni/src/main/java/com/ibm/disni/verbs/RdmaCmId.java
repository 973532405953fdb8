package com.ibm.disni.verbs;

import java.io.IOException;
import java.net.SocketAddress;

/**
 * A connection-manager id ({@code struct rdma_cm_id}): the RDMA counterpart of a socket. Its events go to the
 * channel it was created on.
 */
@SuppressWarnings("checkstyle:methodname")
public class RdmaCmId {
    private final RdmaCm cm;
    protected int ps;
    protected byte port_num;
    protected RdmaEventChannel cmChannel;
    protected IbvContext verbs;
    protected IbvQP qpObj;
    protected volatile boolean isOpen;

    /**
     * An id on {@code cmChannel}.
     *
     * @param cmChannel the channel of its events
     * @param verbs its device context, or {@code null} until bound to a device
     * @throws IOException if the connection manager cannot be opened
     */
    protected RdmaCmId(RdmaEventChannel cmChannel, IbvContext verbs) throws IOException {
        this.cm = RdmaCm.open();
        this.cmChannel = cmChannel;
        this.verbs = verbs;
        this.isOpen = true;
    }

    /**
     * The port space.
     *
     * @return {@link RdmaCm#RDMA_PS_TCP} or {@link RdmaCm#RDMA_PS_UDP}
     */
    public int getPs() {
        return ps;
    }

    /**
     * The device port the id is bound to.
     *
     * @return 1 once bound to a device, else 0
     */
    public byte getPort_num() {
        return port_num;
    }

    /**
     * The channel of the id's events.
     *
     * @return the channel
     */
    public RdmaEventChannel getCmChannel() {
        return cmChannel;
    }

    /**
     * The device context of the id ({@code id->verbs}).
     *
     * @return the context, or {@code null} while the id is not bound to a device
     * @throws IOException never; declared as DiSNI declares it
     */
    public IbvContext getVerbs() throws IOException {
        return verbs;
    }

    /**
     * The QP created on the id.
     *
     * @return the QP, or {@code null}
     */
    public IbvQP getQp() {
        return qpObj;
    }

    /**
     * Records the QP created on the id.
     *
     * @param qpObj the QP
     */
    protected void setQp(IbvQP qpObj) {
        this.qpObj = qpObj;
    }

    /**
     * Records the device port.
     *
     * @param port_num the port
     */
    protected void setPort_num(byte port_num) {
        this.port_num = port_num;
    }

    /**
     * Records the device context.
     *
     * @param verbs the context
     */
    protected void setVerbs(IbvContext verbs) {
        this.verbs = verbs;
    }

    /**
     * Whether the id is open.
     *
     * @return {@code false} once destroyed
     */
    public boolean isOpen() {
        return isOpen;
    }

    /** Marks the id closed (it does not destroy it: {@link #destroyId()} does). */
    public void close() {
        isOpen = false;
    }

    /**
     * {@code rdma_create_qp}.
     *
     * @param pd a protection domain of the id's device
     * @param attr the QP's attributes
     * @return the QP, in INIT
     * @throws IOException on failure
     */
    public IbvQP createQP(IbvPd pd, IbvQPInitAttr attr) throws IOException {
        return cm.createQP(this, pd, attr);
    }

    /**
     * {@code rdma_bind_addr}.
     *
     * @param addr the local address
     * @throws IOException on failure
     */
    public void bindAddr(SocketAddress addr) throws IOException {
        cm.bindAddr(this, addr);
    }

    /**
     * {@code rdma_listen}.
     *
     * @param backlog pending requests kept
     * @throws IOException on failure
     */
    public void listen(int backlog) throws IOException {
        cm.listen(this, backlog);
    }

    /**
     * {@code rdma_resolve_addr}: ADDR_RESOLVED or ADDR_ERROR follows.
     *
     * @param src the source address, or {@code null}
     * @param dst the destination
     * @param timeout milliseconds
     * @throws IOException on failure
     */
    public void resolveAddr(SocketAddress src, SocketAddress dst, int timeout) throws IOException {
        cm.resolveAddr(this, src, dst, timeout);
    }

    /**
     * {@code rdma_resolve_route}: ROUTE_RESOLVED or ROUTE_ERROR follows.
     *
     * @param timeout milliseconds
     * @throws IOException on failure
     */
    public void resolveRoute(int timeout) throws IOException {
        cm.resolveRoute(this, timeout);
    }

    /**
     * {@code rdma_connect}: ESTABLISHED, or REJECTED, UNREACHABLE or CONNECT_ERROR follows.
     *
     * @param connParam the parameters
     * @throws IOException on failure
     */
    public void connect(RdmaConnParam connParam) throws IOException {
        cm.connect(this, connParam);
    }

    /**
     * jrdma: {@code rdma_connect} whose answer is bounded: a peer that has not answered after {@code timeout}
     * milliseconds is reported as UNREACHABLE.
     *
     * @param connParam the parameters
     * @param timeout milliseconds, positive
     * @throws IOException on failure
     */
    public void connect(RdmaConnParam connParam, int timeout) throws IOException {
        ((JrdmaCm) cm).connect(this, connParam, timeout);
    }

    /**
     * {@code rdma_accept}.
     *
     * @param connParam the parameters
     * @throws IOException on failure
     */
    public void accept(RdmaConnParam connParam) throws IOException {
        cm.accept(this, connParam);
    }

    /**
     * jrdma: {@code rdma_reject}, with private data the requester's REJECTED event carries.
     *
     * @param privateData at most the transport's limit (56 bytes on iWARP and IB), or {@code null}
     * @throws IOException on failure
     */
    public void reject(byte[] privateData) throws IOException {
        ((JrdmaCm) cm).reject(this, privateData);
    }

    /**
     * {@code rdma_disconnect}.
     *
     * @return 0
     * @throws IOException on failure
     */
    public int disconnect() throws IOException {
        return cm.disconnect(this);
    }

    /**
     * {@code rdma_destroy_id}.
     *
     * @return 0
     * @throws IOException if the id was destroyed already
     */
    public int destroyId() throws IOException {
        return cm.destroyCmId(this);
    }

    /**
     * {@code rdma_destroy_qp}.
     *
     * @return 0
     * @throws IOException on failure
     */
    public int destroyQP() throws IOException {
        return cm.destroyQP(this);
    }

    /**
     * {@code rdma_get_local_addr}.
     *
     * @return the local address
     * @throws IOException if the id is destroyed
     */
    public SocketAddress getSource() throws IOException {
        return cm.getSrcAddr(this);
    }

    /**
     * {@code rdma_get_peer_addr}.
     *
     * @return the peer's address
     * @throws IOException if the id is destroyed
     */
    public SocketAddress getDestination() throws IOException {
        return cm.getDstAddr(this);
    }

    /**
     * {@code rdma_destroy_ep}.
     *
     * @return 0
     * @throws IOException on failure
     */
    public int destroyEp() throws IOException {
        return cm.destroyEp(this);
    }
}
