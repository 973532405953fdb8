package com.ibm.disni;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.List;

import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import com.ibm.disni.verbs.SVCPostRecv;
import com.ibm.disni.verbs.SVCPostSend;
import com.ibm.disni.verbs.SVCRegMr;
import io.jrdma.disni.RdmaConnectException;

/**
 * A connection: a socket for {@link #connect} and {@link #close()}, an RDMA id for {@link #postSend},
 * {@link #postRecv} and {@link #registerMemory}. Its QP, PD and CQ come from its group when it connects or is
 * accepted; an application subclass prepares its buffers and posts its first receives in {@link #init()}.
 *
 * <p>{@link #connect} ends on every outcome: a resolution error, a reject, an unreachable peer or no answer
 * within its timeout all throw ({@link RdmaConnectException}, an {@link IOException}), and the endpoint can then
 * be closed.
 */
public class RdmaEndpoint {
    private static final System.Logger LOG = System.getLogger("com.ibm.disni");

    private static final int CONN_STATE_INITIALIZED = 0;
    private static final int CONN_STATE_ADDR_RESOLVED = 1;
    private static final int CONN_STATE_ROUTE_RESOLVED = 2;
    private static final int CONN_STATE_RESOURCES_ALLOCATED = 3;
    private static final int CONN_STATE_CONNECTED = 4;
    private static final int CONN_STATE_CLOSED = 5;

    /** The wait for an answer when no timeout is given (connect with a timeout of 0, or accept). */
    private static final long DEFAULT_WAIT_MS = 60_000;
    /** The wait beyond a phase's timeout for the event jrdma reports at its end (a loaded machine may be late). */
    private static final long EVENT_GRACE_MS = 2_000;
    /** How long close waits for DISCONNECTED after disconnecting, as DiSNI does. */
    private static final long DISCONNECT_WAIT_MS = 1_000;

    protected int endpointId;
    protected RdmaEndpointGroup<? extends RdmaEndpoint> group;
    protected RdmaCmId idPriv;
    protected IbvQP qp;
    protected IbvPd pd;
    protected RdmaCqProvider cqProcessor;
    protected int access;

    private int connState;
    private boolean isClosed;
    private boolean isInitialized;
    private final boolean serverSide;
    private int failureEvent = RdmaConnectException.NO_EVENT;
    private int failureStatus;
    private byte[] failurePrivateData;

    /**
     * An endpoint of {@code group} over {@code idPriv}.
     *
     * @param group the group
     * @param idPriv the connection-manager id
     * @param serverSide whether a server endpoint accepted it
     * @throws IOException never; declared as DiSNI declares it
     */
    protected RdmaEndpoint(RdmaEndpointGroup<? extends RdmaEndpoint> group, RdmaCmId idPriv, boolean serverSide)
            throws IOException {
        this.endpointId = group.getNextId();
        this.group = group;
        this.idPriv = idPriv;
        this.access = IbvMr.IBV_ACCESS_LOCAL_WRITE | IbvMr.IBV_ACCESS_REMOTE_WRITE | IbvMr.IBV_ACCESS_REMOTE_READ;
        this.serverSide = serverSide;
        this.connState = CONN_STATE_INITIALIZED;
    }

    /**
     * Connects to a server endpoint: resolves the address and the route, allocates the QP (running
     * {@link #init()}), and connects. Address and route resolution each wait at most {@code timeout} ms for their
     * answer (0 or less: 60 s); the connection exchange gets {@code timeout} as its bound in the connection
     * manager (a silent peer is UNREACHABLE after it), whose answer ends it, with 60 s as a backstop.
     *
     * @param dst the server's address
     * @param timeout milliseconds per phase
     * @throws RdmaConnectException if a phase fails or has no answer in time
     * @throws IOException if the endpoint was connected before, or a call fails
     * @throws Exception if {@link #init()} throws it
     */
    public void connect(SocketAddress dst, int timeout) throws Exception {
        synchronized (this) {
            if (connState != CONN_STATE_INITIALIZED || isClosed) {
                throw new IOException("endpoint already connected");
            }
        }
        long wait = timeout > 0 ? timeout + EVENT_GRACE_MS : DEFAULT_WAIT_MS;
        try {
            idPriv.resolveAddr(null, dst, timeout);
        } catch (IOException e) {
            throw failed("resolving the address of " + dst, e);
        }
        await(CONN_STATE_ADDR_RESOLVED, wait, "resolving the address of " + dst);
        try {
            idPriv.resolveRoute(timeout);
        } catch (IOException e) {
            throw failed("resolving the route to " + dst, e);
        }
        await(CONN_STATE_ROUTE_RESOLVED, wait, "resolving the route to " + dst);
        group.allocateResourcesRaw(this);
        await(CONN_STATE_RESOURCES_ALLOCATED, wait, "allocating the QP");
        try {
            if (timeout > 0) {
                idPriv.connect(getConnParam(), timeout);
            } else {
                idPriv.connect(getConnParam());
            }
        } catch (IOException e) {
            throw failed("connecting to " + dst, e);
        }
        // The connection manager bounds the exchange itself (jrdma's with the timeout handed to it, the kernel's
        // with its own timers) and its answer ends the wait; the wait's own bound is only a backstop, so that a
        // passive side slower than the timeout to accept (a JVM loading its classes) is not abandoned.
        await(CONN_STATE_CONNECTED, Math.max(wait, DEFAULT_WAIT_MS), "connecting to " + dst);
    }

    /** A call that failed at once (jrdma knew the answer without an event): its errno becomes the status. */
    private static RdmaConnectException failed(String what, IOException e) {
        int status = e.getCause() instanceof io.jrdma.verbs.RdmaException r ? r.errno().status() : 0;
        RdmaConnectException x = new RdmaConnectException(what + " failed: " + e.getMessage(),
                RdmaConnectException.NO_EVENT, status, null);
        x.initCause(e);
        return x;
    }

    private synchronized void await(int state, long waitMs, String what) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + waitMs * 1_000_000;
        while (connState < state && failureEvent == RdmaConnectException.NO_EVENT) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new RdmaConnectException(what + ": no answer within " + waitMs + " ms",
                        RdmaConnectException.NO_EVENT, 0, null);
            }
            wait(Math.max(1, left / 1_000_000));
        }
        if (failureEvent != RdmaConnectException.NO_EVENT) {
            throw new RdmaConnectException(what + " failed: " + RdmaCmEvent.EventType.values()[failureEvent]
                    + ", status " + failureStatus, failureEvent, failureStatus, failurePrivateData);
        }
        if (connState != state) {
            throw new RdmaConnectException(what + " failed: the connection closed", RdmaConnectException.NO_EVENT,
                    0, null);
        }
    }

    /**
     * Takes a connection-manager event of this endpoint (the group calls it); a subclass that overrides it calls
     * this one.
     *
     * @param cmEvent the event
     * @throws IOException never here
     */
    public synchronized void dispatchCmEvent(RdmaCmEvent cmEvent) throws IOException {
        int type = cmEvent.getEvent();
        RdmaCmEvent.EventType t = type >= 0 && type < RdmaCmEvent.EventType.values().length
                ? RdmaCmEvent.EventType.values()[type] : null;
        if (t == null) {
            return;
        }
        switch (t) {
            case RDMA_CM_EVENT_ADDR_RESOLVED -> connState = Math.max(connState, CONN_STATE_ADDR_RESOLVED);
            case RDMA_CM_EVENT_ROUTE_RESOLVED -> connState = Math.max(connState, CONN_STATE_ROUTE_RESOLVED);
            case RDMA_CM_EVENT_ESTABLISHED -> connState = CONN_STATE_CONNECTED;
            case RDMA_CM_EVENT_DISCONNECTED -> connState = CONN_STATE_CLOSED;
            case RDMA_CM_EVENT_ADDR_ERROR, RDMA_CM_EVENT_ROUTE_ERROR, RDMA_CM_EVENT_CONNECT_ERROR,
                    RDMA_CM_EVENT_UNREACHABLE, RDMA_CM_EVENT_REJECTED, RDMA_CM_EVENT_DEVICE_REMOVAL -> {
                if (failureEvent == RdmaConnectException.NO_EVENT && connState < CONN_STATE_CONNECTED) {
                    failureEvent = type;
                    failureStatus = cmEvent.getStatus();
                    failurePrivateData = cmEvent.getConn().getPrivateData();
                } else if (t == RdmaCmEvent.EventType.RDMA_CM_EVENT_DEVICE_REMOVAL) {
                    connState = CONN_STATE_CLOSED;
                }
            }
            default -> {
            }
        }
        notifyAll();
    }

    /**
     * Allocates the PD, CQ and QP from the group, then runs {@link #init()}; once per endpoint.
     *
     * @throws IOException on failure
     */
    public final synchronized void allocateResources() throws IOException {
        if (!isInitialized) {
            this.pd = group.createProtectionDomainRaw(this);
            this.cqProcessor = group.createCqProviderRaw(this);
            this.qp = group.createQpProviderRaw(this);
            isInitialized = true;
            init();
            connState = CONN_STATE_RESOURCES_ALLOCATED;
            notifyAll();
        }
    }

    void accept() throws Exception {
        group.allocateResourcesRaw(this);
        await(CONN_STATE_RESOURCES_ALLOCATED, DEFAULT_WAIT_MS, "allocating the QP");
        idPriv.accept(getConnParam());
        await(CONN_STATE_CONNECTED, DEFAULT_WAIT_MS, "accepting " + idPriv.getDestination());
    }

    /**
     * Closes the connection (waiting up to a second for DISCONNECTED) and frees the QP and the id. Safe in any
     * state, a failed connect included.
     *
     * @throws IOException if freeing fails
     * @throws InterruptedException if interrupted while waiting
     */
    public void close() throws IOException, InterruptedException {
        boolean connected;
        synchronized (this) {
            if (isClosed) {
                return;
            }
            isClosed = true;
            connected = connState == CONN_STATE_CONNECTED;
        }
        if (connected) {
            try {
                idPriv.disconnect();
            } catch (IOException e) {
                LOG.log(System.Logger.Level.DEBUG, "disconnect: " + e.getMessage());
            }
            synchronized (this) {
                long deadline = System.nanoTime() + DISCONNECT_WAIT_MS * 1_000_000;
                while (connState != CONN_STATE_CLOSED) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        break;
                    }
                    wait(Math.max(1, left / 1_000_000));
                }
            }
        }
        if (qp != null && qp.isOpen()) {
            idPriv.destroyQP();
        }
        if (cqProcessor != null && !(cqProcessor instanceof RdmaCqProcessor<?>)) {
            cqProcessor.close();
        }
        if (idPriv.isOpen()) {
            idPriv.destroyId();
        }
        group.unregisterClientEp(this);
    }

    /**
     * Whether the connection is up.
     *
     * @return {@code true} between ESTABLISHED and DISCONNECTED
     */
    public synchronized boolean isConnected() {
        return connState == CONN_STATE_CONNECTED;
    }

    /**
     * Whether the connection went down (DISCONNECTED).
     *
     * @return {@code true} once disconnected
     */
    public synchronized boolean isClosed() {
        return connState == CONN_STATE_CLOSED;
    }

    /**
     * The local address.
     *
     * @return the address
     * @throws IOException if the id is destroyed
     */
    public SocketAddress getSrcAddr() throws IOException {
        return idPriv.getSource();
    }

    /**
     * The peer's address.
     *
     * @return the address
     * @throws IOException if the id is destroyed
     */
    public SocketAddress getDstAddr() throws IOException {
        return idPriv.getDestination();
    }

    /**
     * The endpoint's CQ (a {@link RdmaCqProcessor} in an active group).
     *
     * @return the CQ provider, or {@code null} before the QP is allocated
     */
    public RdmaCqProvider getCqProvider() {
        return cqProcessor;
    }

    /**
     * Registers {@code buffer} (its whole capacity) with the endpoint's PD, for local write, remote read and write.
     *
     * @param buffer the memory (direct)
     * @return the prepared registration
     * @throws IOException on failure
     */
    public SVCRegMr registerMemory(ByteBuffer buffer) throws IOException {
        return pd.regMr(buffer, access);
    }

    /**
     * Prepares posting {@code recvList}.
     *
     * @param recvList the requests
     * @return the prepared call
     * @throws IOException on failure
     */
    public SVCPostRecv postRecv(List<IbvRecvWR> recvList) throws IOException {
        return qp.postRecv(recvList, null);
    }

    /**
     * Prepares posting {@code sendList}.
     *
     * @param sendList the requests
     * @return the prepared call
     * @throws IOException on failure
     */
    public SVCPostSend postSend(List<IbvSendWR> sendList) throws IOException {
        return qp.postSend(sendList, null);
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

    /**
     * The connection-manager id.
     *
     * @return the id
     */
    public RdmaCmId getIdPriv() {
        return idPriv;
    }

    /**
     * The queue pair.
     *
     * @return the QP, or {@code null} before it is allocated
     */
    public IbvQP getQp() {
        return qp;
    }

    /**
     * Whether a server endpoint accepted this endpoint.
     *
     * @return {@code true} on the server side
     */
    public boolean isServerSide() {
        return serverSide;
    }

    /**
     * The endpoint's number, unique among the process's endpoints.
     *
     * @return the id
     */
    public int getEndpointId() {
        return endpointId;
    }

    /**
     * The protection domain.
     *
     * @return the PD, or {@code null} before the QP is allocated
     */
    public IbvPd getPd() {
        return pd;
    }

    /**
     * Prepares the endpoint once its QP exists and before it connects (register memory, post receives here).
     *
     * @throws IOException on failure
     */
    protected synchronized void init() throws IOException {
    }

    /**
     * The state: 0 initialized, 1 address resolved, 2 route resolved, 3 QP allocated, 4 connected, 5 closed.
     *
     * @return the state
     */
    public int getConnState() {
        return connState;
    }

    /**
     * The parameters connect and accept use: the group's.
     *
     * @return the parameters
     */
    public RdmaConnParam getConnParam() {
        return group.getConnParam();
    }
}
