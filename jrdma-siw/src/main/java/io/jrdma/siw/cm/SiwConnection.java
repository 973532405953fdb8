package io.jrdma.siw.cm;

import io.jrdma.cm.IwConnParam;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.siw.net.SiwEngine;
import io.jrdma.siw.qp.SiwQp;
import io.jrdma.spi.IwCmProvider;
import io.jrdma.verbs.QueuePair;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One iWARP connection endpoint (siw's {@code siw_cep}): the TCP channel during the MPA exchange,
 * then the QP it was handed to. Upcalls to the iw_cm go through it, at most one CLOSE each.
 */
final class SiwConnection implements IwCmProvider.Connection, SiwQp.Link {
    private final SiwCm cm;
    final SocketChannel channel;
    private final InetSocketAddress local;
    private final InetSocketAddress remote;
    private volatile IwCmProvider.Upcalls upcalls;
    private volatile SiwQp qp;
    /** The listener a passive connection came through, or {@code null}. */
    volatile SiwListener listener;
    /** The MPA request a pending (passive) connection received. */
    volatile MpaExchange.Request request;
    /** A passive connection's key on the selector of the engine that read its request, and that engine. */
    volatile SelectionKey handshakeKey;
    volatile SiwEngine handshakeEngine;
    /** The active MPA exchange while it runs. */
    volatile SiwCm.Handshake handshake;
    private final AtomicBoolean closeReported = new AtomicBoolean();
    private final AtomicBoolean answered = new AtomicBoolean();
    /** Guards the held upcalls below (control path only: a peer's close, never a frame). */
    private final Object hold = new Object();
    /** The QP is live but the connect reply or ESTABLISHED is not yet delivered: link upcalls wait. */
    private boolean holding;
    private boolean peerClosedHeld;
    private boolean closeHeld;
    private int closeHeldStatus;

    SiwConnection(SiwCm cm, SocketChannel channel, InetSocketAddress local, InetSocketAddress remote,
            IwCmProvider.Upcalls upcalls) {
        this.cm = cm;
        this.channel = channel;
        this.local = local;
        this.remote = remote;
        this.upcalls = upcalls;
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public void setUpcalls(IwCmProvider.Upcalls u) {
        this.upcalls = u;
    }

    IwCmProvider.Upcalls upcalls() {
        return upcalls;
    }

    void attached(SiwQp q) {
        this.qp = q;
    }

    /**
     * Holds what the data path reports (the peer's close, the end of the connection) until
     * {@link #release}: the QP runs from the moment it is attached, and a peer that closes at once
     * must not have its DISCONNECTED delivered before this side's CONNECT_REPLY or ESTABLISHED (siw's
     * per-endpoint work queue keeps that order in Linux).
     */
    void holdUpcalls() {
        synchronized (hold) {
            holding = true;
        }
    }

    /**
     * The connect reply or ESTABLISHED went up: what was held follows it, in order; after a failed
     * connect ({@code delivered} false) it is dropped, since the id saw no connection.
     */
    void release(boolean delivered) {
        while (true) {
            boolean peer;
            boolean close;
            int status;
            synchronized (hold) {
                peer = peerClosedHeld;
                close = closeHeld;
                status = closeHeldStatus;
                peerClosedHeld = false;
                closeHeld = false;
                if (!delivered || (!peer && !close)) {
                    holding = false;
                    return;
                }
            }
            // Delivered without the lock (a handler may wait on the engine); whatever the data path reports
            // meanwhile is still held, and taken on the next round, so the order stays.
            if (peer) {
                upcalls.disconnect(this);
            }
            if (close && closeReported.compareAndSet(false, true)) {
                upcalls.close(this, status);
            }
        }
    }

    /** An answered request no longer belongs to its listener: closing the listener must not close it. */
    private void leaveListener() {
        SiwListener l = listener;
        if (l != null) {
            listener = null;
            l.pending.remove(this);
        }
    }

    SiwQp qp() {
        return qp;
    }

    @Override
    public void accept(QueuePair q, IwConnParam param) {
        if (!answered.compareAndSet(false, true)) {
            throw new IllegalStateException("the connection request was already answered");
        }
        leaveListener();
        cm.accept(this, QpImpl.of(q), param);
    }

    @Override
    public void reject(byte[] privateData) {
        if (!answered.compareAndSet(false, true)) {
            throw new IllegalStateException("the connection request was already answered");
        }
        leaveListener();
        cm.reject(this, privateData);
    }

    @Override
    public void disconnect(boolean abrupt) {
        SiwQp q = qp;
        if (q != null) {
            q.engine().runOrQueue(() -> q.disconnect(abrupt));
        } else {
            closeChannel(abrupt);
        }
    }

    @Override
    public void close() {
        SiwQp q = qp;
        if (q != null) {
            q.engine().runOrQueue(() -> q.disconnect(true));
        } else {
            closeChannel(true);
        }
    }

    /** Closes the socket before the QP has it; an MPA exchange in progress fails as on a reset. */
    private void closeChannel(boolean abrupt) {
        SiwCm.closeQuietly(channel, abrupt);
        SiwCm.Handshake h = handshake;
        if (h != null) {
            h.abort();
        }
    }

    // SiwQp.Link: what the data path tells the CM.

    @Override
    public void rtrReceived() {
        upcalls.established(this);
    }

    @Override
    public void peerClosed() {
        synchronized (hold) {
            if (holding) {
                peerClosedHeld = true;
                return;
            }
        }
        upcalls.disconnect(this);
    }

    @Override
    public void closed(int status) {
        synchronized (hold) {
            if (holding) {
                if (!closeHeld) {
                    closeHeld = true;
                    closeHeldStatus = status;
                }
                return;
            }
        }
        if (closeReported.compareAndSet(false, true)) {
            upcalls.close(this, status);
        }
    }
}
