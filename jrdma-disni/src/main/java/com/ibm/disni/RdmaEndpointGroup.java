package com.ibm.disni;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;

/**
 * Endpoints that share a connection-manager channel and thread ({@link RdmaCmProcessor}); a subclass decides how
 * their QPs and CQs are made. Create the group, {@link #init} it with a factory, then create endpoints.
 *
 * <p>Locking: the maps are read under the group's lock, but events are handed to endpoints outside it, and
 * {@link #close()} closes the endpoints outside it, so that the CM thread can always deliver the events an
 * endpoint waits for.
 *
 * @param <C> the endpoint type
 */
public abstract class RdmaEndpointGroup<C extends RdmaEndpoint> {
    private static final System.Logger LOG = System.getLogger("com.ibm.disni");
    private static final AtomicInteger ID_COUNTER = new AtomicInteger();

    protected RdmaEndpointProvider endpointProvider;
    protected RdmaCmProcessor cmProcessor;
    protected HashMap<RdmaCmId, RdmaServerEndpoint<C>> serverEndpointMap;
    protected HashMap<RdmaCmId, C> clientEndpointMap;
    protected AtomicBoolean closed;
    protected RdmaEndpointFactory<C> factory;
    protected RdmaConnParam connParam;

    /**
     * Makes the CQ (provider) of {@code endpoint}'s QP.
     *
     * @param endpoint the endpoint
     * @return the CQ provider
     * @throws IOException on failure
     */
    public abstract RdmaCqProvider createCqProvider(C endpoint) throws IOException;

    /**
     * Makes {@code endpoint}'s QP.
     *
     * @param endpoint the endpoint (with its PD and CQ)
     * @return the QP
     * @throws IOException on failure
     */
    public abstract IbvQP createQpProvider(C endpoint) throws IOException;

    /**
     * Allocates {@code endpoint}'s resources (usually {@link RdmaEndpoint#allocateResources()}).
     *
     * @param endpoint the endpoint
     * @throws Exception on failure
     */
    public abstract void allocateResources(C endpoint) throws Exception;

    /**
     * A group whose CM thread waits {@code timeout} ms for an event at a time.
     *
     * @param timeout milliseconds
     * @throws IOException if no event channel can be made
     */
    public RdmaEndpointGroup(int timeout) throws IOException {
        this.endpointProvider = RdmaEndpointProvider.getEndpointProvider();
        this.serverEndpointMap = new HashMap<>();
        this.clientEndpointMap = new HashMap<>();
        this.cmProcessor = new RdmaCmProcessor(this, timeout);
        this.closed = new AtomicBoolean(true);
        this.connParam = new RdmaConnParam();
    }

    /**
     * Starts the group: endpoints are made by {@code factory}.
     *
     * @param factory the endpoint factory
     */
    public void init(RdmaEndpointFactory<C> factory) {
        this.closed.set(false);
        this.factory = factory;
        cmProcessor.start();
    }

    /**
     * The protection domain of {@code endpoint}'s device (one per device, shared).
     *
     * @param endpoint the endpoint
     * @return the PD
     * @throws IOException on failure
     */
    public synchronized IbvPd createProtectionDomain(C endpoint) throws IOException {
        return endpointProvider.createProtectionDomain(endpoint);
    }

    /**
     * The protection domain of the server endpoint's device.
     *
     * @param endpoint the server endpoint
     * @return the PD
     * @throws IOException on failure
     */
    public synchronized IbvPd createProtectionDomain(RdmaServerEndpoint<C> endpoint) throws IOException {
        return endpointProvider.createProtectionDomain(endpoint);
    }

    /**
     * A new server endpoint (RDMA_PS_TCP).
     *
     * @return the endpoint, to bind
     * @throws IOException on failure
     */
    public final synchronized RdmaServerEndpoint<C> createServerEndpoint() throws IOException {
        RdmaCmId idPriv = cmProcessor.createId(RdmaCm.RDMA_PS_TCP);
        RdmaServerEndpoint<C> ep = new RdmaServerEndpoint<>(this, idPriv);
        serverEndpointMap.put(idPriv, ep);
        return ep;
    }

    /**
     * A new client endpoint (RDMA_PS_TCP), made by the factory.
     *
     * @return the endpoint, to connect
     * @throws IOException on failure
     */
    public final synchronized C createEndpoint() throws IOException {
        RdmaCmId idPriv = cmProcessor.createId(RdmaCm.RDMA_PS_TCP);
        C ep = factory.createEndpoint(idPriv, false);
        clientEndpointMap.put(idPriv, ep);
        return ep;
    }

    /**
     * The endpoint of a connection request, made by the factory.
     *
     * @param idPriv the request's id
     * @return the endpoint
     * @throws IOException on failure
     */
    protected final synchronized C createEndpoint(RdmaCmId idPriv) throws IOException {
        C ep = factory.createEndpoint(idPriv, true);
        clientEndpointMap.put(idPriv, ep);
        return ep;
    }

    /**
     * Hands a connection-manager event to its endpoint (the CM thread calls it).
     *
     * @param cmEvent the event
     */
    public final void dispatchCmEvent(RdmaCmEvent cmEvent) {
        if (closed.get()) {
            return;
        }
        RdmaCmId listenId = cmEvent.getListenIdPriv();
        RdmaCmId connId = cmEvent.getConnIdPriv();
        RdmaServerEndpoint<C> server;
        C client;
        synchronized (this) {
            server = listenId != null ? serverEndpointMap.get(listenId) : null;
            if (server == null && connId != null) {
                server = serverEndpointMap.get(connId);
            }
            client = connId != null ? clientEndpointMap.get(connId) : null;
        }
        try {
            if (cmEvent.getEvent() == RdmaCmEvent.EventType.RDMA_CM_EVENT_CONNECT_REQUEST.ordinal()) {
                if (server != null) {
                    server.dispatchCmEvent(cmEvent);
                } else if (connId != null) {
                    connId.reject(null);
                }
                return;
            }
            if (client != null) {
                client.dispatchCmEvent(cmEvent);
            }
            if (server != null) {
                server.dispatchCmEvent(cmEvent);
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "dispatching " + cmEvent + ": " + e.getMessage(), e);
        }
    }

    /**
     * The parameters the group's endpoints connect and accept with; change them before connecting.
     *
     * @return the parameters
     */
    public RdmaConnParam getConnParam() {
        return connParam;
    }

    /**
     * Closes every endpoint and server endpoint of the group, then its CM thread and channel.
     *
     * @throws IOException if freeing fails
     * @throws InterruptedException if interrupted while waiting
     */
    public void close() throws IOException, InterruptedException {
        List<RdmaEndpoint> clients;
        List<RdmaServerEndpoint<C>> servers;
        synchronized (this) {
            if (closed.get()) {
                return;
            }
            clients = new ArrayList<>(clientEndpointMap.values());
            servers = new ArrayList<>(serverEndpointMap.values());
        }
        for (RdmaEndpoint ep : clients) {
            ep.close();
        }
        for (RdmaServerEndpoint<C> ep : servers) {
            ep.close();
        }
        closed.set(true);
        cmProcessor.close();
    }

    /**
     * Whether the group is closed (or not yet initialized).
     *
     * @return {@code true} before {@link #init} and after {@link #close()}
     */
    public boolean isClosed() {
        return closed.get();
    }

    /**
     * The next endpoint number (unique in the process).
     *
     * @return the number
     */
    public synchronized int getNextId() {
        return ID_COUNTER.getAndIncrement();
    }

    /** The attributes of an RC QP using {@code cq} both ways, as DiSNI's groups make them. */
    static IbvQPInitAttr rcQpAttr(IbvCQ cq, int maxWR, int maxSge) {
        IbvQPInitAttr attr = new IbvQPInitAttr();
        attr.cap().setMax_recv_sge(maxSge);
        attr.cap().setMax_recv_wr(maxWR);
        attr.cap().setMax_send_sge(maxSge);
        attr.cap().setMax_send_wr(maxWR);
        attr.setQp_type(IbvQP.IBV_QPT_RC);
        attr.setRecv_cq(cq);
        attr.setSend_cq(cq);
        return attr;
    }

    @SuppressWarnings("unchecked")
    private C cast(RdmaEndpoint endpoint) {
        return (C) endpoint;
    }

    IbvPd createProtectionDomainRaw(RdmaEndpoint endpoint) throws IOException {
        return createProtectionDomain(cast(endpoint));
    }

    IbvPd createProtectionDomainRaw(RdmaServerEndpoint<C> endpoint) throws IOException {
        return createProtectionDomain(endpoint);
    }

    synchronized RdmaCqProvider createCqProviderRaw(RdmaEndpoint endpoint) throws IOException {
        return createCqProvider(cast(endpoint));
    }

    synchronized IbvQP createQpProviderRaw(RdmaEndpoint endpoint) throws IOException {
        return createQpProvider(cast(endpoint));
    }

    void allocateResourcesRaw(RdmaEndpoint endpoint) throws Exception {
        allocateResources(cast(endpoint));
    }

    synchronized void unregisterClientEp(RdmaEndpoint endpoint) {
        clientEndpointMap.remove(endpoint.getIdPriv());
    }

    synchronized void unregisterServerEp(RdmaServerEndpoint<C> endpoint) {
        serverEndpointMap.remove(endpoint.getIdPriv());
    }
}
