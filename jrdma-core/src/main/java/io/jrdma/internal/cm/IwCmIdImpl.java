package io.jrdma.internal.cm;

import io.jrdma.cm.IwCmEvent;
import io.jrdma.cm.IwCmEventType;
import io.jrdma.cm.IwCmHandler;
import io.jrdma.cm.IwCmId;
import io.jrdma.cm.IwConnParam;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.spi.IwCmProvider;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.RdmaException;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An iw_cm id ({@code struct iwcm_id_private}): the iwcm.c state machine between the user's
 * handler and the provider's connection. Events are delivered on the provider's thread under the
 * id's handler lock; after destroy returns, and after a failed accept, none is.
 */
public final class IwCmIdImpl implements IwCmId, IwCmProvider.Upcalls {
    private static final System.Logger LOG = System.getLogger("io.jrdma.cm");
    private static final AtomicInteger NEXT = new AtomicInteger(1);

    /** iwcm.h's states. */
    enum State {
        /** Created or closed. */
        IDLE,
        /** Listening. */
        LISTEN,
        /** A request arrived; accept or reject it. */
        CONN_RECV,
        /** A connect is under way. */
        CONN_SENT,
        /** Connected. */
        ESTABLISHED,
        /** Closing. */
        CLOSING,
        /** Destroyed. */
        DESTROYING
    }

    private final IwCm iwcm;
    private volatile IwCmHandler handler;
    private volatile Object context;
    private final int handle = NEXT.getAndIncrement();
    private volatile State state = State.IDLE;
    private volatile InetSocketAddress local;
    private volatile InetSocketAddress remote;
    private IwCmProvider.Listener listener;
    private boolean afOnly;
    volatile IwCmProvider.Connection connection;
    private final ReentrantLock handlerLock = new ReentrantLock();
    /** Whether this id's handler runs (guarded by the handler lock). */
    private boolean delivering;
    /** Events raised for this id by its own handler, delivered after it (guarded by the handler lock). */
    private final ArrayDeque<IwCmEvent> nested = new ArrayDeque<>();
    private volatile boolean destroyed;
    private volatile boolean suppressed;
    private int backlog;
    private final AtomicInteger pending = new AtomicInteger();
    private IwCmIdImpl parent;
    private volatile QpImpl qp;
    /** The peer's IRD/ORD as the request or reply carried them. */
    volatile int peerIrd;
    volatile int peerOrd;

    IwCmIdImpl(IwCm iwcm, IwCmHandler handler, Object context) {
        this.iwcm = iwcm;
        this.handler = handler;
        this.context = context;
    }

    private String tag() {
        return "[iwcm " + handle + "]";
    }

    /** Replaces the handler and context (rdma_cm takes over a request's id). */
    void takeOver(IwCmHandler h, Object ctx) {
        this.handler = h;
        this.context = ctx;
    }

    @Override
    public Object context() {
        return context;
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public void localAddress(InetSocketAddress address) {
        this.local = address;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public void remoteAddress(InetSocketAddress address) {
        this.remote = address;
    }

    /** The QP attached by connect or accept. */
    QpImpl qp() {
        return qp;
    }

    /**
     * Whether a listener on an IPv6 address takes IPv6 connections only ({@code iw_cm_id.afonly}, which
     * rdma_cm copies from its id); set before {@link #listen}.
     */
    void afOnly(boolean only) {
        this.afOnly = only;
    }

    @Override
    public synchronized void listen(int n) {
        if (state != State.IDLE) {
            throw new IllegalStateException(tag() + " listen needs an idle id (state " + state + ", EINVAL)");
        }
        if (local == null) {
            throw new IllegalStateException(tag() + " set the local address before listen");
        }
        this.backlog = n <= 0 ? 256 : n;
        listener = iwcm.provider.listen(local, backlog, afOnly, this);
        local = listener.localAddress();
        state = State.LISTEN;
    }

    private QpImpl qpFor(int qpn) {
        QpImpl q = iwcm.device.qp(qpn);
        if (q == null) {
            throw new IllegalArgumentException(tag() + " no QP 0x" + Integer.toHexString(qpn) + " on "
                    + iwcm.device.name() + ": iWARP connections need a QP");
        }
        return q;
    }

    @Override
    public void connect(IwConnParam param) {
        synchronized (this) {
            if (state != State.IDLE) {
                throw new IllegalStateException(tag() + " connect needs an idle id (state " + state + ", EINVAL)");
            }
            if (remote == null) {
                throw new IllegalStateException(tag() + " set the remote address before connect");
            }
            qp = qpFor(param.qpn());
            state = State.CONN_SENT;
        }
        InetSocketAddress l = local == null ? new InetSocketAddress(0) : local;
        try {
            connection = iwcm.provider.connect(qp, l, remote, param, this);
        } catch (RuntimeException e) {
            state = State.IDLE;
            throw e;
        }
    }

    @Override
    public void accept(IwConnParam param) {
        IwCmProvider.Connection c;
        synchronized (this) {
            if (state != State.CONN_RECV) {
                throw new IllegalStateException(tag() + " accept answers a CONNECT_REQUEST (state " + state
                        + ", EINVAL)");
            }
            c = connection;
        }
        try {
            qp = qpFor(param.qpn());
            release();
            c.accept(qp, param);
        } catch (RuntimeException e) {
            // iw_cm.h: if accept returns an error, no event is ever delivered to this id.
            suppressed = true;
            state = State.IDLE;
            try {
                c.close();
            } catch (RuntimeException ignored) {
                // the provider already gave up the connection
            }
            throw e;
        }
    }

    @Override
    public void reject(byte[] privateData) {
        IwCmProvider.Connection c;
        synchronized (this) {
            if (state != State.CONN_RECV) {
                throw new IllegalStateException(tag() + " reject answers a CONNECT_REQUEST (state " + state
                        + ", EINVAL)");
            }
            c = connection;
            state = State.IDLE;
        }
        release();
        suppressed = true;
        c.reject(privateData == null ? new byte[0] : privateData.clone());
    }

    private void release() {
        IwCmIdImpl p = parent;
        if (p != null) {
            parent = null;
            p.pending.decrementAndGet();
        }
    }

    @Override
    public void disconnect(boolean abrupt) {
        IwCmProvider.Connection c;
        synchronized (this) {
            if (state != State.ESTABLISHED && state != State.CLOSING && state != State.CONN_SENT) {
                throw new IllegalStateException(tag() + " disconnect needs a connection (state " + state
                        + ", EINVAL)");
            }
            c = connection;
            state = State.CLOSING;
        }
        if (c != null) {
            c.disconnect(abrupt);
        }
    }

    @Override
    public QpAttr initQpAttr(QpState s) {
        // iw_cm_init_qp_attr: only INIT and RTR carry attributes, the access flags.
        return switch (s) {
            case INIT, RTR -> new QpAttr().qpState(s).qpAccessFlags(Access.REMOTE_WRITE | Access.REMOTE_READ)
                    .pkeyIndex(0).portNum(1);
            case RTS -> new QpAttr().qpState(s);
            default -> throw new IllegalArgumentException(tag() + " no iw_cm attributes for " + s);
        };
    }

    @Override
    public void destroy() {
        handlerLock.lock();
        try {
            if (destroyed) {
                return;
            }
            destroyed = true;
        } finally {
            handlerLock.unlock();
        }
        State was = state;
        state = State.DESTROYING;
        release();
        IwCmProvider.Listener l = listener;
        if (l != null) {
            listener = null;
            l.close();
        }
        IwCmProvider.Connection c = connection;
        if (c != null) {
            connection = null;
            try {
                if (was == State.ESTABLISHED || was == State.CLOSING || was == State.CONN_SENT) {
                    c.disconnect(true);
                }
                c.close();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, tag() + " close on destroy: " + e);
            }
        }
    }

    /** Whether the connection got through (established or closing). */
    boolean isEstablished() {
        return state == State.ESTABLISHED || state == State.CLOSING;
    }

    /** Whether the id is destroyed. */
    boolean isDestroyed() {
        return destroyed;
    }

    // ------------------------------------------------------------------------------------------ upcalls

    /**
     * Delivers {@code e} to {@code target}'s handler on the calling thread, the provider's (for siw an
     * engine thread). iwcm.c queues its events on a work queue; here the hop to a queue thread cost a
     * wake-up per event (four per connection) and the handler, rdma_cm's iWARP half, only updates the
     * id and queues the rdma_cm event on the CM's executor, where the user's handler runs. Order per
     * id is the order of the provider's upcalls, which it makes in order per connection (siw holds a
     * connection's upcalls until its ESTABLISHED is out); the handler lock keeps one at a time.
     */
    private void post(IwCmIdImpl target, IwCmEvent e) {
        target.dispatch(e);
    }

    /**
     * Runs the handler for {@code first} and for every event its handler raised on this id meanwhile
     * (accept called from the CONNECT_REQUEST handler raises ESTABLISHED inside accept): those wait in
     * {@link #nested} and follow in order once the handler has returned, still under the handler lock,
     * so an event another thread raises for this id comes after them, as on iwcm.c's work queue.
     */
    private void dispatch(IwCmEvent first) {
        boolean destroy = false;
        handlerLock.lock();
        try {
            if (delivering) {
                nested.add(first); // this thread, inside this id's handler
                return;
            }
            delivering = true;
            try {
                for (IwCmEvent e = first; e != null; e = nested.poll()) {
                    if (destroyed || suppressed || destroy) {
                        continue;
                    }
                    try {
                        destroy = handler.onEvent(this, e);
                    } catch (RuntimeException ex) {
                        LOG.log(System.Logger.Level.WARNING, tag() + " iw_cm handler threw on " + e.type(), ex);
                        // A request whose handler failed is destroyed, as iwcm.c destroys the id of a
                        // CONNECT_REQUEST whose handler returned an error: its backlog slot and its
                        // connection are released, never left pending without an owner.
                        destroy = e.type() == IwCmEventType.CONNECT_REQUEST;
                    }
                }
            } finally {
                delivering = false;
                nested.clear();
            }
        } finally {
            handlerLock.unlock();
        }
        if (destroy) {
            destroy();
        }
    }

    /**
     * A request arrived on this listener (iwcm.c {@code cm_conn_req_handler}): it takes a backlog slot
     * and gets an id of its own, which owns the slot from then on. Accept, reject and destroy of that id
     * give it back, and so does the id's destruction when its CONNECT_REQUEST handler throws or asks for
     * it; a request refused here (backlog full, listener going away) never takes one.
     */
    @Override
    public void connectRequest(IwCmProvider.Connection conn, int ird, int ord, byte[] privateData) {
        if (!takeSlot()) {
            conn.disconnect(true);
            conn.close();
            return;
        }
        IwCmIdImpl child = new IwCmIdImpl(iwcm, handler, context);
        child.parent = this;
        child.connection = conn;
        child.local = conn.localAddress();
        child.remote = conn.remoteAddress();
        child.state = State.CONN_RECV;
        child.peerIrd = ird;
        child.peerOrd = ord;
        conn.setUpcalls(child);
        // iwcm.c: the request is delivered to the new id, with the listener's handler.
        IwCmEvent e = new IwCmEvent(IwCmEventType.CONNECT_REQUEST, 0, child.local, child.remote, privateData, ird,
                ord, child);
        post(child, e);
    }

    /** Takes a backlog slot for a request; false if the listener is not listening or its backlog is full. */
    private boolean takeSlot() {
        if (destroyed || state != State.LISTEN) {
            return false;
        }
        if (pending.incrementAndGet() > backlog) {
            pending.decrementAndGet();
            return false;
        }
        return true;
    }

    @Override
    public void connectReply(IwCmProvider.Connection conn, int status, int ird, int ord, byte[] privateData) {
        IwCmIdImpl t = this;
        if (t.connection == null) {
            t.connection = conn;
        }
        t.peerIrd = ird;
        t.peerOrd = ord;
        t.state = status == 0 ? State.ESTABLISHED : State.IDLE;
        if (status != 0) {
            t.connection = null;
        }
        post(t, new IwCmEvent(IwCmEventType.CONNECT_REPLY, status, conn.localAddress(), conn.remoteAddress(),
                privateData, ird, ord, null));
    }

    @Override
    public void established(IwCmProvider.Connection conn) {
        IwCmIdImpl t = this;
        t.state = State.ESTABLISHED;
        post(t, new IwCmEvent(IwCmEventType.ESTABLISHED, 0, conn.localAddress(), conn.remoteAddress(), null,
                t.peerIrd, t.peerOrd, null));
    }

    @Override
    public void disconnect(IwCmProvider.Connection conn) {
        IwCmIdImpl t = this;
        if (t.state == State.ESTABLISHED) {
            t.state = State.CLOSING;
        }
        post(t, new IwCmEvent(IwCmEventType.DISCONNECT, 0, conn.localAddress(), conn.remoteAddress(), null, 0, 0,
                null));
    }

    @Override
    public void close(IwCmProvider.Connection conn, int status) {
        IwCmIdImpl t = this;
        t.state = State.IDLE;
        t.connection = null;
        post(t, new IwCmEvent(IwCmEventType.CLOSE, status, conn.localAddress(), conn.remoteAddress(), null, 0, 0,
                null));
    }

    /** Fails a connect that took longer than the caller allowed: the provider gives up the connection. */
    void abortConnect() {
        IwCmProvider.Connection c = connection;
        connection = null;
        state = State.IDLE;
        suppressed = true;
        if (c != null) {
            c.disconnect(true);
            c.close();
        }
    }

    @Override
    public String toString() {
        return "IwCmId[" + handle + " " + state + "]";
    }

    static RdmaException noQp(String what) {
        return new RdmaException(Errno.EINVAL, what);
    }
}
