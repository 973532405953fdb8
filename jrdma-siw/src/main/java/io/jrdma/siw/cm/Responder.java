package io.jrdma.siw.cm;

import io.jrdma.internal.engine.Timer;
import io.jrdma.siw.net.SiwEngine;
import io.jrdma.siw.wire.MpaFrame;
import io.jrdma.siw.wire.MpaReply;
import io.jrdma.siw.wire.MpaRequest;
import io.jrdma.siw.wire.MpaResult;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * The passive side of one MPA exchange (siw_proc_mpareq): read and check the request on the
 * listener's engine, then report it to iw_cm. Engine thread only.
 */
final class Responder implements SiwEngine.Schedulable {
    private static final System.Logger LOG = System.getLogger("io.jrdma.siw");

    private final SiwCm cm;
    private final CmContext context;
    private final SiwListener listener;
    private final SocketChannel ch;
    private final MpaExchange.Reader reader = new MpaExchange.Reader(true);
    private final Timer deadline = new Timer(this::expired);
    private SelectionKey key;
    private boolean done;

    Responder(SiwCm cm, SiwListener listener, SocketChannel ch) {
        this.cm = cm;
        this.context = cm.context();
        this.listener = listener;
        this.ch = ch;
    }

    void start() {
        listener.handshaking.add(this);
        try {
            ch.configureBlocking(false);
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            key = ch.register(listener.engine.selector(), SelectionKey.OP_READ, this);
        } catch (IOException e) {
            finish();
            SiwCm.closeQuietly(ch, false);
            return;
        }
        listener.engine.timers.schedule(deadline, cm.config().responderTimeout().toNanos());
        onReadable(); // the request often came with the connection
    }

    @Override
    public int onReadable() {
        if (done) {
            return 0;
        }
        MpaFrame f;
        try {
            f = reader.read(ch);
        } catch (MpaExchange.MpaException e) {
            finish();
            refuse(e.invalid);
            return 1;
        } catch (IOException e) {
            // A close or reset before the request was complete, or bytes behind it (siw_recv_mpa_rr:
            // "peer sent extra data"): no reply, the socket is released.
            finish();
            LOG.log(System.Logger.Level.DEBUG, "[" + context.deviceName() + "] MPA request not taken: " + e);
            SiwCm.release(listener.engine, key, ch, false);
            return 1;
        }
        if (f == null) {
            return 1;
        }
        finish();
        report((MpaRequest) f);
        return 1;
    }

    /**
     * siw_proc_mpareq on a request it cannot take: a reject reply for markers and for an H bit without
     * room for the v2 block (label {@code reject_conn}), nothing for a bad key, revision or PD_Length;
     * then the socket is released (FIN, or RST with unread bytes, as siw).
     */
    private void refuse(MpaResult.Invalid invalid) {
        byte[] reply = switch (invalid.problem()) {
            case MARKERS_NOT_SUPPORTED -> invalid.frame().filter(MpaRequest.class::isInstance)
                    .map(m -> MpaReply.refusing((MpaRequest) m).toBytes()).orElse(null);
            case MISSING_V2_BLOCK -> MpaReply.refusingHeader(reader.header());
            default -> null;
        };
        LOG.log(System.Logger.Level.DEBUG, "[" + context.deviceName() + "] MPA request refused"
                + (reply != null ? " with a reject" : "") + ": " + invalid.problem() + ": " + invalid.detail());
        if (reply != null) {
            try {
                MpaExchange.writeFully(ch, ByteBuffer.wrap(reply));
                context.counters().mpaFrameSent();
                context.counters().mpaRejectSent();
            } catch (IOException e) {
                // the peer is gone anyway
            }
        }
        SiwCm.release(listener.engine, key, ch, false);
    }

    /**
     * Hands the request to iw_cm (siw_cm_upcall, CONNECT_REQUEST) with its depths capped. The socket
     * is this responder's until the upcall has returned; if it throws, the socket is released here,
     * so a request never stays open without an owner.
     */
    private void report(MpaRequest req) {
        InetSocketAddress local;
        InetSocketAddress remote;
        try {
            local = (InetSocketAddress) ch.getLocalAddress();
            remote = (InetSocketAddress) ch.getRemoteAddress();
        } catch (IOException e) {
            SiwCm.release(listener.engine, key, ch, true);
            return;
        }
        SiwConnection conn = new SiwConnection(cm, ch, local, remote, listener.upcalls);
        MpaExchange.Request r = MpaExchange.Request.of(req);
        conn.request = r;
        conn.handshakeKey = key;
        conn.handshakeEngine = listener.engine;
        // From here on the request belongs to iw_cm (iwcm.c gives it its own id): closing the listener
        // must not close it; the rdma_cm layer answers requests nobody retrieved.
        try {
            listener.upcalls.connectRequest(conn, r.peerIrd(), r.peerOrd(), req.privateData());
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "[" + context.deviceName() + "] connection request from " + remote
                    + " not taken: " + e, e);
            SiwCm.release(listener.engine, key, ch, true);
        }
    }

    /** The peer stayed silent: siw releases the socket (a FIN, not a reset). */
    private void expired() {
        if (!done) {
            finish();
            SiwCm.release(listener.engine, key, ch, false);
        }
    }

    /** The listener closes. */
    void abort() {
        if (!done) {
            finish();
            SiwCm.release(listener.engine, key, ch, true);
        }
    }

    /** The exchange is over: no deadline, and no readiness until the QP takes the socket. */
    private void finish() {
        done = true;
        listener.engine.timers.cancel(deadline);
        listener.handshaking.remove(this);
        if (key != null && key.isValid()) {
            key.interestOps(0);
        }
    }

    @Override
    public int onDoorbell() {
        return 0;
    }

    @Override
    public int onWritable() {
        return 0;
    }
}
