package io.jrdma.internal.cm;

import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmState;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.Ece;
import io.jrdma.cm.IwCmEvent;
import io.jrdma.cm.IwConnParam;
import io.jrdma.cm.PortSpace;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.spi.IwCmProvider;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.QpType;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * rdma_cm over the iWARP CM ({@code cma.c}'s iWARP half: {@code cma_connect_iw},
 * {@code cma_accept_iw}, {@code iw_conn_req_handler}, {@code cma_iw_handler}). The TCP connection is
 * the rdma_cm address and port itself; private data carries no rdma_cm header.
 *
 * <p>What the peer sees when accept fails (SPEC rule 6): the connection is closed before the MPA reply,
 * so a Linux peer reports REJECTED with -ECONNRESET (or UNREACHABLE if nothing arrives at all).
 */
final class IwCmaBackend implements CmBackend {
    /** Linux's iWARP private-data limit: 256 bytes on the MPA frame including the 4-byte v2 block. */
    static final int MPA_PRIVATE_DATA = 256 - 4;
    /** The largest initiator depth or responder resources conn_param holds (8 bits). */
    private static final int MAX_DEPTH = 255;

    private final DeviceImpl device;
    private final IwCm iwcm;
    private final Map<CmIdImpl, IwCmIdImpl> listeners = new ConcurrentHashMap<>();

    IwCmaBackend(DeviceImpl device, IwCmProvider provider) {
        this.device = device;
        this.iwcm = IwCm.of(device);
    }

    @Override
    public boolean supports(PortSpace ps) {
        return ps == PortSpace.TCP;
    }

    @Override
    public int maxConnectPrivateData(CmIdImpl id) {
        return MPA_PRIVATE_DATA;
    }

    @Override
    public int maxAcceptPrivateData(CmIdImpl id) {
        return MPA_PRIVATE_DATA;
    }

    @Override
    public int maxRejectPrivateData(CmIdImpl id) {
        return MPA_PRIVATE_DATA;
    }

    @Override
    public Route resolveRoute(CmIdImpl id) {
        // cma_resolve_iw_route: nothing to resolve; the route is the TCP path.
        return new Route(Gid.of(id.localAddress().getAddress()), Gid.of(id.peerAddress().getAddress()),
                device.portAttributes().activeMtu(), 0, Math.max(0, id.options.tos()), 64, 0, 0);
    }

    @Override
    public void listen(CmIdImpl id, int backlog) {
        IwCmIdImpl iw = iwcm.createId((i, e) -> onListenEvent(id, e), id);
        iw.localAddress(id.localAddress());
        iw.afOnly(id.options.afOnly()); // cma_iw_listen: id->afonly = id_priv->afonly
        // rdma_cm counts and rejects requests beyond the backlog itself (SPEC: rejected and counted);
        // the iw_cm listener must not drop them first.
        iw.listen(Math.max(backlog, 1024));
        listeners.put(id, iw);
    }

    @Override
    public void stopListen(CmIdImpl id) {
        IwCmIdImpl iw = listeners.remove(id);
        if (iw != null) {
            iw.destroy();
        }
    }

    /**
     * iw_conn_req_handler: a new rdma_cm id for the request, counted against the listener's backlog. The
     * event's parameters are converted before the slot is taken, and the slot is given back (the id
     * destroyed) unless CONNECT_REQUEST went up: a request never holds a slot nobody can answer.
     */
    private boolean onListenEvent(CmIdImpl listener, IwCmEvent e) {
        if (e.type() != io.jrdma.cm.IwCmEventType.CONNECT_REQUEST) {
            return false;
        }
        IwCmIdImpl iwChild = (IwCmIdImpl) e.newId();
        // iw_conn_req_handler: initiator_depth = the peer's IRD, responder_resources = the peer's ORD.
        ConnParam param = new ConnParam(e.privateData(), depth(e.ord()), depth(e.ird()), false, 7, 7, false, 0);
        CmIdImpl child = listener.newRequestId(device, e.localAddress(), e.remoteAddress(), QpType.RC);
        if (child == null) {
            // Backlog full (or the listener is going away): iw_cm destroys the request, closing the connection.
            return true;
        }
        boolean delivered = false;
        try {
            child.setTransport(iwChild);
            iwChild.takeOver((i, ev) -> onConnEvent(child, ev), child);
            child.requestEvent(0, param, null, Ece.NONE);
            delivered = true;
        } finally {
            if (!delivered) {
                child.destroyNoWait(); // gives the slot back and destroys the iw_cm id with it
            }
        }
        return false;
    }

    /**
     * An IRD or ORD of an iw_cm event as conn_param holds it: the iw_cm values are MPA v2's 14 bits, conn_param's
     * are 8 ({@code struct rdma_conn_param}); the provider has capped them at its own maxima already (siw: 128).
     */
    private static int depth(int v) {
        return Math.max(0, Math.min(v, MAX_DEPTH));
    }

    @Override
    public void connect(CmIdImpl id, ConnParam param, Ece ece, Duration timeout) {
        QpImpl qp = id.qpImpl();
        int qpn = qp != null ? qp.qpNum() : param.qpNum();
        IwCmIdImpl iw = iwcm.createId((i, e) -> onConnEvent(id, e), id);
        iw.localAddress(id.localAddress());
        iw.remoteAddress(id.peerAddress());
        id.setTransport(iw);
        try {
            Negotiated n = id.negotiated();
            iw.connect(new IwConnParam(param.privateData(), n.initiatorDepth(), n.responderResources(), qpn));
        } catch (RuntimeException e) {
            // Nothing went on the wire: drop the iw_cm id so a retry (or destroy) starts clean.
            id.setTransport(null);
            iw.destroy();
            throw e;
        }
        if (timeout != null) {
            ConnectBound.after(timeout, () -> {
                if (id.state() == CmState.CONNECT && !iw.isDestroyed() && iw.connection != null
                        && id.transport() == iw && !connected(iw)) {
                    iw.abortConnect();
                    id.event(CmEventType.UNREACHABLE, Errno.ETIMEDOUT.status(), null, null, Ece.NONE);
                }
            });
        }
    }

    private static boolean connected(IwCmIdImpl iw) {
        return iw.isEstablished();
    }

    private boolean onConnEvent(CmIdImpl id, IwCmEvent e) {
        switch (e.type()) {
            case CONNECT_REPLY -> {
                int st = e.status();
                if (st == 0) {
                    id.negotiate(n -> n.withPeerIrd(e.ird()).withDepths(n.responderResources(),
                            Math.min(n.initiatorDepth(), e.ird())));
                    try {
                        id.modifyQpRts();
                    } catch (RuntimeException ex) {
                        // The QP cannot carry the connection (the user moved it to ERROR): the reply is
                        // answered by closing the stream, and the id gets CONNECT_ERROR, not ESTABLISHED.
                        if (id.transport() instanceof IwCmIdImpl iw) {
                            iw.abortConnect();
                        }
                        id.event(CmEventType.CONNECT_ERROR, Errno.EINVAL.status(), null, null, Ece.NONE);
                        return false;
                    }
                    id.event(CmEventType.ESTABLISHED, 0, replyParam(e), null, Ece.NONE);
                } else if (st == Errno.ECONNRESET.status() || st == Errno.ECONNREFUSED.status()) {
                    id.event(CmEventType.REJECTED, st, replyParam(e), null, Ece.NONE);
                } else if (st == Errno.ETIMEDOUT.status()) {
                    id.event(CmEventType.UNREACHABLE, st, null, null, Ece.NONE);
                } else {
                    id.event(CmEventType.CONNECT_ERROR, st, null, null, Ece.NONE);
                }
            }
            case ESTABLISHED -> id.event(CmEventType.ESTABLISHED, 0, new ConnParam(null,
                    id.negotiated().responderResources(), id.negotiated().initiatorDepth(), false, 7, 7, false, 0),
                    null, Ece.NONE);
            case CLOSE -> {
                if (id.compareAndSetState(CmState.CONNECT, CmState.DISCONNECT) || id.state() == CmState.DISCONNECT) {
                    if (markDisconnected(id)) {
                        id.event(CmEventType.DISCONNECTED, 0, null, null, Ece.NONE);
                    }
                }
            }
            default -> {
                // DISCONNECT: cma_iw_handler ignores the peer's orderly close; CLOSE follows.
            }
        }
        return false;
    }

    private static ConnParam replyParam(IwCmEvent e) {
        return new ConnParam(e.privateData(), depth(e.ord()), depth(e.ird()), false, 7, 7, false, 0);
    }

    private final Map<CmIdImpl, Boolean> disconnected = new ConcurrentHashMap<>();

    private boolean markDisconnected(CmIdImpl id) {
        return disconnected.putIfAbsent(id, Boolean.TRUE) == null;
    }

    @Override
    public void accept(CmIdImpl id, ConnParam param, Ece ece) {
        IwCmIdImpl iw = id.transport(IwCmIdImpl.class);
        QpImpl qp = id.qpImpl();
        int qpn = qp != null ? qp.qpNum() : param.qpNum();
        Negotiated n = id.negotiated();
        iw.accept(new IwConnParam(param.privateData(), n.initiatorDepth(), n.responderResources(), qpn));
    }

    @Override
    public void establish(CmIdImpl id) {
        throw new IllegalStateException("iWARP has no RTU: accept(null) is an IB/RoCE call (EINVAL)");
    }

    @Override
    public void reject(CmIdImpl id, byte[] privateData, int reason) {
        if (id.transport() instanceof IwCmIdImpl iw) {
            try {
                iw.reject(privateData);
            } catch (IllegalStateException e) {
                // Not a pending request any more (a failed accept): close instead.
                iw.destroy();
            }
        }
    }

    @Override
    public void disconnect(CmIdImpl id) {
        if (id.transport() instanceof IwCmIdImpl iw) {
            try {
                iw.disconnect(false);
            } catch (IllegalStateException e) {
                // already closed
            }
        }
        id.compareAndSetState(CmState.CONNECT, CmState.DISCONNECT);
    }

    @Override
    public void notifyEstablished(CmIdImpl id) {
        // iWARP has no RTU to stand in for.
    }

    @Override
    public void destroy(CmIdImpl id) {
        stopListen(id);
        disconnected.remove(id);
        if (id.transport() instanceof IwCmIdImpl iw) {
            iw.destroy();
        }
    }
}
