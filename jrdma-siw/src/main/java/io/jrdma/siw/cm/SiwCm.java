package io.jrdma.siw.cm;

import io.jrdma.internal.obs.Trace;
import io.jrdma.cm.IwConnParam;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.siw.SiwConfig;
import io.jrdma.siw.SiwDevice;
import io.jrdma.siw.qp.SiwQp;
import io.jrdma.siw.wire.MpaFrame;
import io.jrdma.siw.wire.MpaProblem;
import io.jrdma.siw.wire.MpaReply;
import io.jrdma.siw.wire.MpaRequest;
import io.jrdma.siw.wire.MpaV2Ctrl;
import io.jrdma.siw.wire.TermError;
import io.jrdma.siw.wire.TermLayout;
import io.jrdma.siw.wire.Terminate;
import io.jrdma.spi.IwCmProvider;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.RdmaException;
import java.io.IOException;
import java.net.BindException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The iWARP connection manager of a siw device (Linux {@code siw_cm.c}): TCP listen and connect on the
 * rdma_cm address and port itself, the MPA request/reply exchange (RFC 5044, enhanced MPA v2 of RFC
 * 6581, MPA v1 fallback), IRD/ORD and CRC negotiation, peer-to-peer RTR, MPA rejects, and the hand-over
 * of the socket to the QP's engine. Handshakes are straight-line blocking code on virtual threads; a
 * deadline closes a channel whose peer stays silent (10 s initiator, 5 s responder, as siw).
 *
 * <p>Statuses reported to iw_cm: an MPA reject is -ECONNREFUSED (a consumer reject, SPEC rule 11; Linux
 * siw reports -ECONNRESET), a close or reset before the reply and any protocol failure -ECONNRESET, a
 * silent peer -ETIMEDOUT. A refused TCP connect fails the connect call itself with ECONNREFUSED, as
 * {@code rdma_connect} does on siw.
 */
public final class SiwCm implements IwCmProvider {
    private static final System.Logger LOG = System.getLogger("io.jrdma.siw");
    /** How long closing a listener waits for its accepting thread to release the socket. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(2);
    private static final ScheduledExecutorService DEADLINES = timerThread("jrdma-siw-mpa-deadlines");

    private final SiwDevice device;
    private final SiwConfig config;

    /** The CM of {@code device}. */
    public SiwCm(SiwDevice device, SiwConfig config) {
        this.device = device;
        this.config = config;
    }

    static void closeQuietly(SocketChannel ch, boolean abrupt) {
        try {
            if (abrupt && ch.isOpen()) {
                ch.setOption(StandardSocketOptions.SO_LINGER, 0);
            }
            ch.close();
        } catch (IOException e) {
            // already closed
        }
    }

    /** Closes {@code ch} when {@code d} expires; siw releases the socket then (a FIN, not a reset). */
    private static Deadline deadline(SocketChannel ch, Duration d) {
        Deadline t = new Deadline(ch);
        t.future = DEADLINES.schedule(t, d.toMillis(), TimeUnit.MILLISECONDS);
        return t;
    }

    /**
     * A handshake's deadline. It records that it expired before it closes the socket, so the thread whose
     * read the close ended can tell a timeout from a reset: the future's own "done" is set only after the
     * close has returned, by which time that thread may already have asked.
     */
    private static final class Deadline implements Runnable {
        private final SocketChannel ch;
        private volatile boolean expired;
        private ScheduledFuture<?> future;

        Deadline(SocketChannel ch) {
            this.ch = ch;
        }

        @Override
        public void run() {
            expired = true;
            closeQuietly(ch, false);
        }

        void cancel(boolean mayInterrupt) {
            future.cancel(mayInterrupt);
        }

        boolean expired() {
            return expired;
        }
    }

    // ------------------------------------------------------------------------------------------ listen

    @Override
    public Listener listen(InetSocketAddress local, int backlog, Upcalls upcalls) {
        ServerSocketChannel server = null;
        try {
            server = ServerSocketChannel.open();
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            server.bind(local, backlog);
        } catch (IOException e) {
            // The socket of a failed bind is closed here: the CM retries a port it picked on another one,
            // and each attempt would otherwise leave an unbound socket open.
            if (server != null) {
                try {
                    server.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
            if (e instanceof BindException) {
                throw new RdmaException(Errno.EADDRINUSE, device.name() + ": TCP port " + local.getPort()
                        + " is in use", e);
            }
            throw new RdmaException(Errno.EADDRNOTAVAIL, device.name() + ": cannot listen on " + local, e);
        }
        SiwListener l = new SiwListener(server);
        l.acceptor = Thread.ofVirtual().name("jrdma-siw-accept-" + local.getPort())
                .unstarted(() -> acceptLoop(l, upcalls));
        l.acceptor.start();
        return l;
    }

    /** A listening TCP socket and the connections still in their MPA exchange. */
    final class SiwListener implements Listener {
        final ServerSocketChannel server;
        final Set<SiwConnection> pending = ConcurrentHashMap.newKeySet();
        /** Accepted sockets whose MPA request is still being read. */
        final Set<SocketChannel> handshaking = ConcurrentHashMap.newKeySet();
        private final InetSocketAddress bound;
        /** The thread blocked in {@code accept}; it owns the last close of the socket. */
        volatile Thread acceptor;

        SiwListener(ServerSocketChannel server) {
            this.server = server;
            InetSocketAddress a;
            try {
                a = (InetSocketAddress) server.getLocalAddress();
            } catch (IOException e) {
                a = null;
            }
            this.bound = a;
        }

        @Override
        public InetSocketAddress localAddress() {
            return bound;
        }

        @Override
        public void close() {
            try {
                server.close();
            } catch (IOException e) {
                // closing anyway
            }
            // A virtual thread blocked in accept releases the socket only when it wakes: until then the
            // kernel still queues connections, which the late close resets (ECONNRESET, not ECONNREFUSED).
            // Like iw_destroy_listen, return once the port no longer listens.
            Thread t = acceptor;
            if (t != null && t != Thread.currentThread()) {
                try {
                    if (!t.join(CLOSE_WAIT)) {
                        LOG.log(System.Logger.Level.WARNING, "[" + device.name() + "] listener on " + bound
                                + " still closing after " + CLOSE_WAIT);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            for (SiwConnection c : pending) {
                closeQuietly(c.channel, true);
            }
            pending.clear();
            for (SocketChannel c : handshaking) {
                closeQuietly(c, true);
            }
            handshaking.clear();
        }
    }

    private void acceptLoop(SiwListener l, Upcalls upcalls) {
        while (l.server.isOpen()) {
            SocketChannel ch;
            try {
                ch = l.server.accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                LOG.log(System.Logger.Level.DEBUG, "[" + device.name() + "] accept failed: " + e);
                continue;
            }
            Thread.ofVirtual().name("jrdma-siw-mpa-responder").start(() -> respond(l, ch, upcalls));
        }
    }

    /** siw_proc_mpareq: read and check the request, then report it to iw_cm. */
    private void respond(SiwListener l, SocketChannel ch, Upcalls upcalls) {
        l.handshaking.add(ch);
        try {
            respondTracked(l, ch, upcalls);
        } finally {
            l.handshaking.remove(ch);
        }
    }

    private void respondTracked(SiwListener l, SocketChannel ch, Upcalls upcalls) {
        Deadline timer = deadline(ch, config.responderTimeout());
        MpaRequest req;
        try {
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            MpaFrame f = MpaExchange.read(ch, true);
            req = (MpaRequest) f;
        } catch (MpaExchange.MpaException e) {
            timer.cancel(false);
            if (e.invalid.problem() == MpaProblem.MARKERS_NOT_SUPPORTED && e.invalid.frame().isPresent()
                    && e.invalid.frame().get() instanceof MpaRequest m) {
                refuseMarkers(ch, m);
                return;
            }
            // siw_proc_mpareq: a bad key, revision or PD_Length gets no reply; the socket is released (FIN).
            LOG.log(System.Logger.Level.DEBUG, "[" + device.name() + "] bad MPA request: " + e.getMessage());
            closeQuietly(ch, false);
            return;
        } catch (IOException e) {
            timer.cancel(false);
            closeQuietly(ch, false);
            return;
        }
        timer.cancel(false);
        if (req.markers()) {
            refuseMarkers(ch, req);
            return;
        }
        InetSocketAddress local;
        InetSocketAddress remote;
        try {
            local = (InetSocketAddress) ch.getLocalAddress();
            remote = (InetSocketAddress) ch.getRemoteAddress();
        } catch (IOException e) {
            closeQuietly(ch, true);
            return;
        }
        SiwConnection conn = new SiwConnection(this, ch, local, remote, upcalls);
        conn.request = new MpaExchange.Request(req);
        // From here on the request belongs to iw_cm (iwcm.c gives it its own id): closing the listener
        // must not close it; the rdma_cm layer answers requests nobody retrieved.
        l.pending.remove(conn);
        int ird = req.v2().map(MpaV2Ctrl::ird).orElse(1);
        int ord = req.v2().map(MpaV2Ctrl::ord).orElse(1);
        upcalls.connectRequest(conn, ird, ord, req.privateData());
    }

    /** siw_proc_mpareq, reject_conn: markers are not supported; a reject reply (M cleared), then FIN. */
    private void refuseMarkers(SocketChannel ch, MpaRequest req) {
        try {
            MpaExchange.write(ch, MpaReply.refusing(req));
            device.counters().mpaFrameSent();
            device.counters().mpaRejectSent();
        } catch (IOException e) {
            // the peer is gone anyway
        }
        closeQuietly(ch, false);
    }

    /** siw_accept: the MPA reply, then the socket goes to the QP. */
    void accept(SiwConnection conn, QpImpl qpImpl, IwConnParam param) {
        MpaRequest req = conn.request.frame();
        if (!(qpImpl.provider() instanceof SiwQp qp)) {
            throw new IllegalArgumentException("QP 0x" + Integer.toHexString(qpImpl.qpNum()) + " is not a siw QP");
        }
        boolean crc = req.crc() || config.crcRequired();
        boolean v2 = req.revision() == MpaFrame.REVISION_2 && req.v2().isPresent();
        boolean p2p = v2 && req.v2().get().peerToPeer();
        boolean writeRtr = false;
        boolean readRtr = false;
        if (p2p) {
            // siw_proc_mpareq: a zero-length WRITE as the RTR if offered, else a READ if offered, else
            // (a zero-length SEND only, or nothing) propose the WRITE anyway.
            MpaV2Ctrl c = req.v2().get();
            readRtr = !c.zeroLengthWriteRtr() && c.zeroLengthReadRtr();
            writeRtr = !readRtr;
        }
        int peerIrd = v2 ? req.v2().get().ird() : 1;
        int peerOrd = v2 ? req.v2().get().ord() : 1;
        int ird = Math.min(Math.max(param.ird(), 0), SiwDevice.MAX_ORD_IRD);
        int ord = Math.min(Math.max(param.ord(), 0), Math.min(peerIrd, SiwDevice.MAX_ORD_IRD));
        // siw_accept, relaxed IRD negotiation: our ORD never exceeds the peer's IRD, and our IRD grows
        // to the peer's ORD when it asks for more.
        ird = Math.max(ird, Math.min(peerOrd, SiwDevice.MAX_ORD_IRD));
        Optional<MpaV2Ctrl> ctrl = v2 ? Optional.of(new MpaV2Ctrl(ird, ord, p2p, false, writeRtr, readRtr))
                : Optional.empty();
        MpaReply reply = new MpaReply(req.revision(), false, crc, false, ctrl, param.privateData());
        try {
            MpaExchange.write(conn.channel, reply);
            device.counters().mpaFrameSent();
            int irdFinal = ird;
            int ordFinal = ord;
            if (!p2p) {
                conn.holdUpcalls();
            }
            qp.engine().runSync(() -> {
                try {
                    qp.captureInfo(conn.localAddress(), conn.remoteAddress(), false, req.toBytes(), reply.toBytes());
                    qp.attach(conn.channel, conn, crc, ordFinal, irdFinal, null, p2p, config.maxSegment());
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
        } catch (IOException | java.io.UncheckedIOException e) {
            closeQuietly(conn.channel, true);
            conn.release(false);
            throw new RdmaException(Errno.ECONNRESET, "MPA reply could not be sent: " + e.getMessage(), e);
        }
        conn.attached(qp);
        if (!p2p) {
            // Without peer-to-peer, siw reports ESTABLISHED right after the reply (possibly before
            // iw_cm_accept returns).
            conn.upcalls().established(conn);
            conn.release(true);
        }
    }

    /** siw_reject: an MPA reply with the reject bit and the private data, then close. */
    void reject(SiwConnection conn, byte[] privateData) {
        MpaRequest req = conn.request.frame();
        Optional<MpaV2Ctrl> ctrl = req.revision() == MpaFrame.REVISION_2 && req.v2().isPresent()
                ? Optional.of(MpaV2Ctrl.of(0, 0)) : Optional.empty();
        try {
            device.counters().mpaFrameSent();
            MpaExchange.write(conn.channel, new MpaReply(req.revision(), false, req.crc(), true, ctrl,
                    privateData == null ? new byte[0] : privateData));
            device.counters().mpaRejectSent();
            conn.channel.shutdownOutput();
        } catch (IOException e) {
            // the peer is gone: it sees a reset
        }
        Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(200); // let the reject reach the peer before the socket goes
            } catch (InterruptedException ignored) {
                // close now
            }
            closeQuietly(conn.channel, false);
        });
    }

    // ------------------------------------------------------------------------------------------ connect

    @Override
    public Connection connect(QpImpl qpImpl, InetSocketAddress local, InetSocketAddress remote, IwConnParam param,
            Upcalls upcalls) {
        if (!(qpImpl.provider() instanceof SiwQp qp)) {
            throw new IllegalArgumentException("QP 0x" + Integer.toHexString(qpImpl.qpNum()) + " is not a siw QP");
        }
        // The request is built (and its private data checked) before anything goes on the wire.
        MpaRequest req = request(param);
        SocketChannel ch = null;
        try {
            ch = SocketChannel.open();
            ch.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ch.bind(local);
            // siw_connect: kernel_bindconnect is blocking; a refused connect fails rdma_connect itself.
            ch.socket().connect(remote, (int) config.initiatorTimeout().toMillis());
        } catch (BindException e) {
            closeOnFailure(ch);
            throw new RdmaException(Errno.EADDRINUSE, "cannot bind " + local + ": " + e.getMessage(), e);
        } catch (ConnectException e) {
            closeOnFailure(ch);
            throw new RdmaException(Errno.ECONNREFUSED, "TCP connect to " + remote + " refused", e);
        } catch (SocketTimeoutException e) {
            closeOnFailure(ch);
            throw new RdmaException(Errno.ETIMEDOUT, "TCP connect to " + remote + " timed out", e);
        } catch (IOException e) {
            closeOnFailure(ch);
            throw new RdmaException(Errno.EHOSTUNREACH, "TCP connect to " + remote + " failed: " + e.getMessage(),
                    e);
        }
        InetSocketAddress l;
        try {
            l = (InetSocketAddress) ch.getLocalAddress();
        } catch (IOException e) {
            l = local;
        }
        SiwConnection conn = new SiwConnection(this, ch, l, remote, upcalls);
        Thread.ofVirtual().name("jrdma-siw-mpa-initiator").start(() -> initiate(conn, qp, req, param));
        return conn;
    }

    /** Closes the socket of a connect that failed before a connection existed. */
    private static void closeOnFailure(SocketChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // nothing more to release
            }
        }
    }

    /**
     * siw_connect: revision from the configuration, C if CRC is required, and with revision 2 the v2
     * block with IRD/ORD (an ORD of at least 1 in peer-to-peer mode, for a READ RTR) and, in peer-to-peer
     * mode, P with the offered RTR types.
     *
     * @throws IllegalArgumentException if the private data does not fit (252 bytes beside the v2 block)
     */
    MpaRequest request(IwConnParam param) {
        boolean v2 = config.mpaRevision() == MpaFrame.REVISION_2;
        boolean p2p = v2 && config.peerToPeer();
        int ird = Math.max(0, Math.min(param.ird(), SiwDevice.MAX_ORD_IRD));
        int ord = Math.max(0, Math.min(param.ord(), SiwDevice.MAX_ORD_IRD));
        if (p2p && ord == 0) {
            ord = 1;
        }
        byte[] pd = param.privateData() == null ? new byte[0] : param.privateData();
        return new MpaRequest(config.mpaRevision(), false, config.crcRequired(),
                v2 ? Optional.of(new MpaV2Ctrl(ird, ord, p2p, false, p2p && config.rtr().write(),
                        p2p && config.rtr().read())) : Optional.empty(), pd);
    }

    /**
     * siw_proc_mpareply: send the request, wait for the reply (at most the initiator timeout), check and
     * negotiate, hand the socket to the QP, send the RTR if peer-to-peer mode was agreed.
     *
     * <p>Outcomes, as {@code connectReply} statuses: 0; -ECONNREFUSED for a reject (a consumer reject,
     * SPEC rule 11; siw reports -ECONNRESET); -ECONNRESET for markers, a missing C when CRC is required, a
     * close or a reset; -ETIMEDOUT when the reply did not come in time; -EINVAL for a protocol failure,
     * after a TERMINATE as siw sends it: LLP/MPA "invalid request/reply" for a bad key, "insufficient
     * IRD" for an ORD above 128, "no matching RTR" when peer-to-peer mode found no common RTR type. A
     * revision 1 reply to a revision 2 request is accepted (RFC 6581 §5 fallback: IRD/ORD 1/1, no RTR);
     * siw refuses it with -ECONNRESET.
     */
    private void initiate(SiwConnection conn, SiwQp qp, MpaRequest req, IwConnParam param) {
        SocketChannel ch = conn.channel;
        Deadline timer = deadline(ch, config.initiatorTimeout());
        MpaReply reply;
        try {
            MpaExchange.write(ch, req);
            device.counters().mpaFrameSent();
            reply = (MpaReply) MpaExchange.read(ch, false);
        } catch (MpaExchange.MpaException e) {
            timer.cancel(false);
            MpaProblem problem = e.invalid.problem();
            if (problem == MpaProblem.BAD_KEY) {
                refuseReply(conn, TermError.MPA_INVALID_REQUEST_REPLY, Errno.EINVAL);
            } else if (problem == MpaProblem.MARKERS_NOT_SUPPORTED) {
                refuseReply(conn, null, Errno.ECONNRESET);
            } else {
                refuseReply(conn, null, Errno.EINVAL);
            }
            return;
        } catch (IOException e) {
            boolean timedOut = timer.expired();
            timer.cancel(false);
            closeQuietly(ch, false);
            conn.upcalls().connectReply(conn, timedOut ? Errno.ETIMEDOUT.status() : Errno.ECONNRESET.status(), 0,
                    0, null);
            return;
        }
        timer.cancel(false);
        if (reply.reject()) {
            device.counters().mpaRejectReceived();
            closeQuietly(ch, false);
            conn.upcalls().connectReply(conn, Errno.ECONNREFUSED.status(), 0, 0, reply.privateData());
            return;
        }
        if (config.crcRequired() && !reply.crc()) {
            refuseReply(conn, null, Errno.ECONNRESET);
            return;
        }
        // RFC 5044 §7.1: CRC is on when either side asks for it; siw honours a C in the reply.
        boolean crc = reply.crc() || config.crcRequired();
        MpaV2Ctrl asked = req.v2().orElse(null);
        int ird = asked != null ? asked.ird() : Math.max(0, Math.min(param.ird(), SiwDevice.MAX_ORD_IRD));
        int ord = asked != null ? asked.ord() : Math.max(0, Math.min(param.ord(), SiwDevice.MAX_ORD_IRD));
        int peerIrd = 1;
        int peerOrd = 1;
        boolean rtrWrite = false;
        boolean rtrRead = false;
        if (reply.revision() == MpaFrame.REVISION_2 && reply.v2().isPresent()) {
            MpaV2Ctrl c = reply.v2().get();
            peerIrd = c.ird();
            peerOrd = c.ord();
            if (peerOrd > SiwDevice.MAX_ORD_IRD) {
                // siw_proc_mpareply: the responder's ORD exceeds what this side can ever serve.
                refuseReply(conn, TermError.MPA_INSUFFICIENT_IRD, Errno.EINVAL);
                return;
            }
            if (asked != null && asked.peerToPeer()) {
                // siw looks at the W and R bits of the reply only, and prefers the WRITE.
                rtrWrite = asked.zeroLengthWriteRtr() && c.zeroLengthWriteRtr();
                rtrRead = !rtrWrite && asked.zeroLengthReadRtr() && c.zeroLengthReadRtr();
                if (!rtrWrite && !rtrRead) {
                    refuseReply(conn, TermError.MPA_NO_MATCHING_RTR, Errno.EINVAL);
                    return;
                }
            }
        }
        // Relaxed IRD negotiation (siw): our ORD is at most what the responder's IRD allows, our IRD
        // covers what its ORD may send.
        int myOrd = Math.min(ord, peerIrd);
        int myIrd = Math.max(ird, Math.min(peerOrd, SiwDevice.MAX_ORD_IRD));
        if (rtrRead) {
            myOrd = Math.max(myOrd, 1);
        }
        boolean sendRtr = rtrWrite || rtrRead;
        boolean readRtr = rtrRead;
        int ordFinal = myOrd;
        conn.holdUpcalls();
        try {
            qp.engine().runSync(() -> {
                try {
                    qp.captureInfo(conn.localAddress(), conn.remoteAddress(), true, req.toBytes(), reply.toBytes());
                    qp.attach(ch, conn, crc, ordFinal, myIrd, null, false, config.maxSegment());
                    if (sendRtr) {
                        qp.sendRtr(readRtr);
                    }
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
        } catch (RuntimeException e) {
            closeQuietly(ch, true);
            conn.upcalls().connectReply(conn, Errno.ECONNRESET.status(), 0, 0, null);
            conn.release(false);
            return;
        }
        conn.attached(qp);
        conn.upcalls().connectReply(conn, 0, peerIrd, peerOrd, reply.privateData());
        conn.release(true);
    }

    /**
     * Gives up on a reply: a TERMINATE {@code term} first if given (siw sends it on the socket before the
     * QP has a CRC context, so with a zero trailer), then the socket is released (FIN) and the connect
     * fails with {@code status}.
     */
    private void refuseReply(SiwConnection conn, TermError term, Errno status) {
        if (term != null) {
            try {
                MpaExchange.writeFully(conn.channel, java.nio.ByteBuffer.wrap(Terminate.of(term)
                        .toBytes(TermLayout.SIW_LITTLE_ENDIAN)));
                device.counters().terminateSent();
                Trace.terminate(device.name(), 0, true, term.layer().name(), term.etype(), term.ecode(), term.name());
            } catch (IOException e) {
                // the peer is gone anyway
            }
        }
        closeQuietly(conn.channel, false);
        conn.upcalls().connectReply(conn, status.status(), 0, 0, null);
    }

    /**
     * A daemon timer thread whose cancelled timers leave its queue at once: a connection cancels
     * most of its timers long before they would fire, and kept until then they (and the ids they
     * capture) pile up at high connection rates.
     */
    private static ScheduledExecutorService timerThread(String name) {
        ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
        e.setRemoveOnCancelPolicy(true);
        return e;
    }
}
