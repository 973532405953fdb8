package com.ibm.disni;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.SVCRegMr;

/**
 * A listener, like a server socket: {@link #bind} then {@link #accept()}.
 *
 * @param <C> the endpoint type of the group
 */
public class RdmaServerEndpoint<C extends RdmaEndpoint> {
    private static final int CONN_STATE_INITIALIZED = 0;
    private static final int CONN_STATE_READY_FOR_ACCEPT = 1;
    private static final int CONN_STATE_CLOSED = 2;

    protected int endpointId;
    protected IbvPd pd;
    protected RdmaCmId idPriv;
    protected int access;

    private final ArrayDeque<C> requested = new ArrayDeque<>();
    private final RdmaEndpointGroup<C> group;
    private boolean isClosed;
    private int connState;

    /**
     * A server endpoint of {@code endpointGroup} over {@code idPriv}.
     *
     * @param endpointGroup the group
     * @param idPriv the connection-manager id
     */
    public RdmaServerEndpoint(RdmaEndpointGroup<C> endpointGroup, RdmaCmId idPriv) {
        this.endpointId = endpointGroup.getNextId();
        this.group = endpointGroup;
        this.idPriv = idPriv;
        this.connState = CONN_STATE_INITIALIZED;
        this.access = IbvMr.IBV_ACCESS_LOCAL_WRITE | IbvMr.IBV_ACCESS_REMOTE_WRITE | IbvMr.IBV_ACCESS_REMOTE_READ;
    }

    /**
     * Binds to {@code src} and listens.
     *
     * @param src an address of an RDMA device
     * @param backlog pending requests kept
     * @return this endpoint
     * @throws Exception if binding, listening or allocating the PD fails
     */
    public synchronized RdmaServerEndpoint<C> bind(SocketAddress src, int backlog) throws Exception {
        if (connState != CONN_STATE_INITIALIZED) {
            throw new IOException("endpoint has to be disconnected for bind");
        }
        connState = CONN_STATE_READY_FOR_ACCEPT;
        idPriv.bindAddr(src);
        idPriv.listen(backlog);
        this.pd = group.createProtectionDomainRaw(this);
        return this;
    }

    /**
     * Takes the next connection request, allocates its endpoint's QP and accepts it; waits for a request.
     *
     * @return the connected endpoint
     * @throws IOException if the endpoint is not bound or is closed, or accepting fails
     */
    public C accept() throws IOException {
        C endpoint;
        try {
            synchronized (this) {
                if (connState != CONN_STATE_READY_FOR_ACCEPT) {
                    throw new IOException("bind needs to be called before accept (1), current state =" + connState);
                }
                while (requested.isEmpty() && !isClosed) {
                    wait();
                }
                if (isClosed) {
                    throw new IOException("the server endpoint is closed");
                }
                endpoint = requested.poll();
            }
            endpoint.accept();
            return endpoint;
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException(e);
        }
    }

    /**
     * Takes a connection-manager event of the listener (the group calls it).
     *
     * @param cmEvent the event
     * @throws IOException if making the endpoint of a request fails
     */
    public synchronized void dispatchCmEvent(RdmaCmEvent cmEvent) throws IOException {
        int type = cmEvent.getEvent();
        if (type == RdmaCmEvent.EventType.RDMA_CM_EVENT_CONNECT_REQUEST.ordinal()) {
            C ep = group.createEndpoint(cmEvent.getConnIdPriv());
            ep.dispatchCmEvent(cmEvent);
            requested.add(ep);
            notifyAll();
        } else if (type == RdmaCmEvent.EventType.RDMA_CM_EVENT_DISCONNECTED.ordinal()
                || type == RdmaCmEvent.EventType.RDMA_CM_EVENT_DEVICE_REMOVAL.ordinal()) {
            connState = CONN_STATE_CLOSED;
            notifyAll();
        }
    }

    /**
     * Stops listening and frees the id; a thread waiting in {@link #accept()} gets an {@link IOException}.
     *
     * @throws IOException if freeing fails
     * @throws InterruptedException never; declared as DiSNI declares it
     */
    public void close() throws IOException, InterruptedException {
        synchronized (this) {
            if (isClosed) {
                return;
            }
            isClosed = true;
            notifyAll();
        }
        if (idPriv.isOpen()) {
            idPriv.destroyId();
        }
        group.unregisterServerEp(this);
    }

    /**
     * Whether the endpoint is bound.
     *
     * @return {@code true} after {@link #bind}
     */
    public synchronized boolean isBound() {
        return connState == CONN_STATE_READY_FOR_ACCEPT;
    }

    /**
     * Whether the listener went down.
     *
     * @return {@code true} after a DISCONNECTED or DEVICE_REMOVAL event of the listener
     */
    public synchronized boolean isClosed() {
        return connState == CONN_STATE_CLOSED;
    }

    /**
     * The bound address.
     *
     * @return the address
     * @throws Exception if the id is destroyed
     */
    public SocketAddress getSrcAddr() throws Exception {
        return idPriv.getSource();
    }

    /**
     * The connection-manager id.
     *
     * @return the id
     */
    public RdmaCmId getIdPriv() {
        return idPriv;
    }

    /**
     * The endpoint's number.
     *
     * @return the id
     */
    public int getEndpointId() {
        return endpointId;
    }

    /**
     * The protection domain of the bound device.
     *
     * @return the PD, or {@code null} before {@link #bind}
     */
    public IbvPd getPd() {
        return pd;
    }

    /**
     * Registers {@code buffer} with the listener's PD (which its accepted endpoints share).
     *
     * @param buffer the memory (direct)
     * @return the prepared registration
     * @throws IOException on failure
     */
    public SVCRegMr registerMemory(ByteBuffer buffer) throws IOException {
        return pd.regMr(buffer, access);
    }

    /**
     * Deregisters {@code mr}.
     *
     * @param mr the region
     * @throws IOException on failure
     */
    public void deregisterMemory(IbvMr mr) throws IOException {
        mr.deregMr().execute().free();
    }
}
