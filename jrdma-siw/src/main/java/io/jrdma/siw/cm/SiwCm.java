package io.jrdma.siw.cm;

import io.jrdma.internal.obs.Trace;
import io.jrdma.cm.IwConnParam;
import io.jrdma.internal.engine.Timer;
import io.jrdma.internal.net.TcpCongestion;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.siw.SiwConfig;
import io.jrdma.siw.SiwDevice;
import io.jrdma.siw.net.SiwEngine;
import io.jrdma.siw.qp.SiwQp;
import io.jrdma.siw.wire.MpaFrame;
import io.jrdma.siw.wire.MpaProblem;
import io.jrdma.siw.wire.MpaReply;
import io.jrdma.siw.wire.MpaRequest;
import io.jrdma.siw.wire.MpaResult;
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
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The iWARP connection manager of a siw device (Linux {@code siw_cm.c}): TCP listen and connect on the
 * rdma_cm address and port itself, the MPA request/reply exchange (RFC 5044, enhanced MPA v2 of RFC
 * 6581, MPA v1 fallback), IRD/ORD and CRC negotiation, peer-to-peer RTR, MPA rejects, and the hand-over
 * of the socket to the QP's engine.
 *
 * <p>Threads: as siw runs its connection endpoints from one CM work queue driven by socket callbacks,
 * the handshakes run non-blocking on the siw engines, driven by selector readiness: a listener's
 * socket and the MPA requests of its new connections on one engine, an active connection's MPA reply
 * on its QP's engine, which then takes the socket over without a thread switch. The MPA deadlines are
 * timers of those engines; an expired one releases the socket (10 s initiator, 5 s responder, as siw).
 * Only the TCP connect itself blocks the caller, and only when the handshake did not complete at once
 * (it does on loopback), as siw's {@code kernel_bindconnect} blocks {@code rdma_connect}.
 *
 * <p>Values from the wire reach iw_cm within siw's ranges: the MPA v2 IRD and ORD of a request (and the IRD
 * of a reply) are capped at siw's maximum of 128 when they are read, as {@code siw_proc_mpareq} caps them;
 * an ORD above it in a reply is refused with TERMINATE "insufficient IRD". A request owns its socket
 * until iw_cm has taken it; every way out before that releases it.
 *
 * <p>Statuses reported to iw_cm: an MPA reject is -ECONNREFUSED (a consumer reject, SPEC rule 11; Linux
 * siw reports -ECONNRESET), a close or reset before the reply and any protocol failure -ECONNRESET, a
 * silent peer -ETIMEDOUT. A refused TCP connect fails the connect call itself with ECONNREFUSED, as
 * {@code rdma_connect} does on siw.
 */
public final class SiwCm implements IwCmProvider {
    private static final System.Logger LOG = System.getLogger("io.jrdma.siw");
    /** How long closing a listener waits for its engine to release the socket. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(2);
    /** Most connections a listener accepts per readiness event, so that other channels get their turn. */
    private static final int ACCEPT_BATCH = 64;

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

    /**
     * Closes {@code ch}, registered with {@code engine}'s selector under {@code key}, as {@code close(2)}
     * would (engine thread): the key is cancelled and the socket closed once the engine's selector has let
     * go of it. Closed while still registered, the JDK would only shut the output down (a FIN) until then,
     * where siw's close of a socket with unread bytes (a PD_Length over the limit) is a reset.
     */
    private static void release(SiwEngine engine, SelectionKey key, SocketChannel ch, boolean abrupt) {
        if (key == null) {
            closeQuietly(ch, abrupt);
            return;
        }
        key.cancel();
        engine.afterNextSelect(() -> closeQuietly(ch, abrupt));
    }

    /**
     * Puts {@code ch} on the configured TCP congestion control, if one is configured ({@link
     * SiwConfig#withTcpCongestion}); the caller closes {@code ch} on failure.
     *
     * @throws RdmaException {@code EINVAL} naming the algorithm when the kernel does not have it or does not
     *     allow it to this process; {@code EOPNOTSUPP} on a system that cannot choose
     */
    private void chooseCongestion(java.nio.channels.NetworkChannel ch) {
        String cc = config.tcpCongestion();
        if (cc == null) {
            return;
        }
        try {
            TcpCongestion.set(ch, cc);
        } catch (UnsupportedOperationException e) {
            throw new RdmaException(Errno.EOPNOTSUPP, device.name() + ": jrdma.siw.tcpCongestion=" + cc + ": "
                    + e.getMessage(), e);
        } catch (IOException e) {
            throw new RdmaException(Errno.EINVAL, device.name() + ": jrdma.siw.tcpCongestion=" + cc + ": "
                    + e.getMessage(), e);
        }
    }

    /** An MPA exchange in progress on an engine, which the connection's owner may abandon. */
    interface Handshake {
        /** The connection was closed by its owner before the exchange ended (any thread). */
        void abort();
    }

    // ------------------------------------------------------------------------------------------ listen

    @Override
    public Listener listen(InetSocketAddress local, int backlog, Upcalls upcalls) {
        return listen(local, backlog, false, upcalls);
    }

    /**
     * siw_create_listen: with {@code afOnly} an IPv6 listener is V6ONLY ({@code ip6_sock_set_v6only}), so
     * IPv4 connections are refused at the TCP level and an IPv4 listener may share the port; otherwise the
     * JDK's dual-stack socket takes both families (Linux 6.1 siw resets the IPv4 ones instead: its
     * {@code rdma_translate_ip} finds no interface with the v4-mapped address).
     */
    @Override
    public Listener listen(InetSocketAddress local, int backlog, boolean afOnly, Upcalls upcalls) {
        ServerSocketChannel server = null;
        try {
            // sock_create(addr_family): an IPv4 listener is an IPv4 socket, an IPv6 one an IPv6 socket.
            boolean ipv6 = local.getAddress() instanceof java.net.Inet6Address;
            server = ServerSocketChannel.open(ipv6 ? java.net.StandardProtocolFamily.INET6
                    : java.net.StandardProtocolFamily.INET);
            if (afOnly && ipv6) {
                try {
                    io.jrdma.internal.net.Ipv6Only.set(server);
                } catch (UnsupportedOperationException e) {
                    throw new RdmaException(Errno.EOPNOTSUPP, device.name() + ": an AFONLY IPv6 listener needs "
                            + "IPV6_V6ONLY, which jrdma sets on Linux only: " + e.getMessage(), e);
                }
            }
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            server.bind(local, backlog);
            // Accepted connections inherit the listener's congestion control (Linux tcp_ca_openreq_child).
            chooseCongestion(server);
            server.configureBlocking(false);
        } catch (IOException | RdmaException e) {
            // The socket of a failed bind is closed here: the CM retries a port it picked on another one,
            // and each attempt would otherwise leave an unbound socket open.
            if (server != null) {
                try {
                    server.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
            if (e instanceof RdmaException re) {
                throw re;
            }
            if (e instanceof BindException) {
                throw new RdmaException(Errno.EADDRINUSE, device.name() + ": TCP port " + local.getPort()
                        + " is in use", e);
            }
            throw new RdmaException(Errno.EADDRNOTAVAIL, device.name() + ": cannot listen on " + local, e);
        }
        SiwListener l = new SiwListener(server, device.nextEngine(), upcalls);
        try {
            l.engine.runSync(l::register);
        } catch (RuntimeException e) {
            try {
                server.close();
            } catch (IOException ignored) {
                // closing anyway
            }
            throw new RdmaException(Errno.EADDRNOTAVAIL, device.name() + ": cannot listen on " + local, e);
        }
        return l;
    }

    /**
     * A listening TCP socket on an engine's selector (siw's listening {@code siw_cep}, whose socket
     * callback queues the accept on the CM work queue) and the connections still in their MPA exchange.
     */
    final class SiwListener implements Listener, SiwEngine.Schedulable {
        final ServerSocketChannel server;
        /** The engine that accepts and reads the MPA requests. */
        final SiwEngine engine;
        private final Upcalls upcalls;
        /** Kept for connections that still belong to the listener (none once reported to iw_cm). */
        final Set<SiwConnection> pending = ConcurrentHashMap.newKeySet();
        /** Accepted connections whose MPA request is still being read (engine thread only). */
        private final Set<Responder> handshaking = new HashSet<>();
        private final InetSocketAddress bound;
        private SelectionKey key;

        SiwListener(ServerSocketChannel server, SiwEngine engine, Upcalls upcalls) {
            this.server = server;
            this.engine = engine;
            this.upcalls = upcalls;
            InetSocketAddress a;
            try {
                a = (InetSocketAddress) server.getLocalAddress();
            } catch (IOException e) {
                a = null;
            }
            this.bound = a;
        }

        /** Engine thread: accept when a connection is queued. */
        void register() {
            try {
                key = server.register(engine.selector(), SelectionKey.OP_ACCEPT, this);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        @Override
        public InetSocketAddress localAddress() {
            return bound;
        }

        /**
         * Like iw_destroy_listen, returns once the port no longer listens: the JDK releases the socket of
         * a channel registered with a selector only at that selector's next select, until then the
         * kernel still queues connections, which the late close resets (ECONNRESET, not ECONNREFUSED).
         * Requests still being read are reset.
         */
        @Override
        public void close() {
            CompletableFuture<Void> released = new CompletableFuture<>();
            engine.runOrQueue(() -> {
                if (key != null) {
                    key.cancel();
                }
                try {
                    server.close();
                } catch (IOException e) {
                    // closing anyway
                }
                for (Responder r : handshaking.toArray(new Responder[0])) {
                    r.abort();
                }
                engine.afterNextSelect(() -> released.complete(null));
            });
            for (SiwConnection c : pending) {
                closeQuietly(c.channel, true);
            }
            pending.clear();
            if (engine.onEngine()) {
                return; // the engine's next select releases the socket
            }
            try {
                released.get(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                LOG.log(System.Logger.Level.WARNING, "[" + device.name() + "] listener on " + bound
                        + " still closing after " + CLOSE_WAIT);
            }
        }

        @Override
        public int onDoorbell() {
            return 0;
        }

        /** siw_cm_llp_data_ready on a listening socket, then siw_accept_newconn. */
        @Override
        public int onReadable() {
            int n = 0;
            while (n < ACCEPT_BATCH && server.isOpen()) {
                SocketChannel ch;
                try {
                    ch = server.accept();
                } catch (ClosedChannelException e) {
                    return n;
                } catch (IOException e) {
                    LOG.log(System.Logger.Level.DEBUG, "[" + device.name() + "] accept failed: " + e);
                    return n + 1;
                }
                if (ch == null) {
                    break;
                }
                n++;
                new Responder(this, ch).start();
            }
            return n;
        }

        @Override
        public int onWritable() {
            return 0;
        }
    }

    /**
     * The passive side of one MPA exchange (siw_proc_mpareq): read and check the request on the
     * listener's engine, then report it to iw_cm. Engine thread only.
     */
    private final class Responder implements SiwEngine.Schedulable {
        private final SiwListener listener;
        private final SocketChannel ch;
        private final MpaExchange.Reader reader = new MpaExchange.Reader(true);
        private final Timer deadline = new Timer(this::expired);
        private SelectionKey key;
        private boolean done;

        Responder(SiwListener listener, SocketChannel ch) {
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
                closeQuietly(ch, false);
                return;
            }
            listener.engine.timers.schedule(deadline, config.responderTimeout().toNanos());
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
                LOG.log(System.Logger.Level.DEBUG, "[" + device.name() + "] MPA request not taken: " + e);
                release(listener.engine, key, ch, false);
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
            LOG.log(System.Logger.Level.DEBUG, "[" + device.name() + "] MPA request refused"
                    + (reply != null ? " with a reject" : "") + ": " + invalid.problem() + ": " + invalid.detail());
            if (reply != null) {
                try {
                    MpaExchange.writeFully(ch, ByteBuffer.wrap(reply));
                    device.counters().mpaFrameSent();
                    device.counters().mpaRejectSent();
                } catch (IOException e) {
                    // the peer is gone anyway
                }
            }
            release(listener.engine, key, ch, false);
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
                release(listener.engine, key, ch, true);
                return;
            }
            SiwConnection conn = new SiwConnection(SiwCm.this, ch, local, remote, listener.upcalls);
            MpaExchange.Request r = MpaExchange.Request.of(req);
            conn.request = r;
            conn.handshakeKey = key;
            conn.handshakeEngine = listener.engine;
            // From here on the request belongs to iw_cm (iwcm.c gives it its own id): closing the listener
            // must not close it; the rdma_cm layer answers requests nobody retrieved.
            try {
                listener.upcalls.connectRequest(conn, r.peerIrd(), r.peerOrd(), req.privateData());
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "[" + device.name() + "] connection request from " + remote
                        + " not taken: " + e, e);
                release(listener.engine, key, ch, true);
            }
        }

        /** The peer stayed silent: siw releases the socket (a FIN, not a reset). */
        private void expired() {
            if (!done) {
                finish();
                release(listener.engine, key, ch, false);
            }
        }

        /** The listener closes. */
        void abort() {
            if (!done) {
                finish();
                release(listener.engine, key, ch, true);
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

    /**
     * siw_accept: the MPA reply, then the socket goes to the QP. A caller's mistake (a QP of another
     * provider, private data over the limit) is an IllegalArgumentException before anything is sent;
     * whatever fails after that (the peer reset or closed, the socket could not be taken over) is the
     * connection's failure: the socket is closed and the accept fails with RdmaException ECONNRESET.
     */
    void accept(SiwConnection conn, QpImpl qpImpl, IwConnParam param) {
        MpaExchange.Request request = conn.request;
        MpaRequest req = request.frame();
        if (!(qpImpl.provider() instanceof SiwQp qp)) {
            throw new IllegalArgumentException("QP 0x" + Integer.toHexString(qpImpl.qpNum()) + " is not a siw QP");
        }
        boolean crc = req.crc() || config.crcRequired();
        boolean v2 = request.enhanced();
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
        int ird = Math.min(Math.max(param.ird(), 0), SiwDevice.MAX_ORD_IRD);
        int ord = Math.min(Math.max(param.ord(), 0), request.peerIrd());
        // siw_accept, relaxed IRD negotiation: our ORD never exceeds the peer's IRD, and our IRD grows
        // to the peer's ORD when it asks for more.
        ird = Math.max(ird, request.peerOrd());
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
            SelectionKey handshakeKey = conn.handshakeKey;
            SiwEngine handshakeEngine = conn.handshakeEngine;
            qp.engine().runSync(() -> {
                try {
                    if (handshakeKey != null && handshakeEngine != qp.engine()) {
                        // The request was read on another engine: the QP's engine takes the socket over.
                        handshakeEngine.cancel(handshakeKey);
                    }
                    qp.captureInfo(conn.localAddress(), conn.remoteAddress(), false, req.toBytes(), reply.toBytes());
                    qp.attach(conn.channel, conn, crc, ordFinal, irdFinal, null, p2p, config.maxSegment());
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
        } catch (IOException | RuntimeException e) {
            closeQuietly(conn.channel, true);
            conn.release(false);
            if (e instanceof RdmaException re) {
                throw re;
            }
            throw new RdmaException(Errno.ECONNRESET, "accept failed on the connection from " + conn.remoteAddress()
                    + ": " + e.getMessage(), e);
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
        Optional<MpaV2Ctrl> ctrl = conn.request.enhanced() ? Optional.of(MpaV2Ctrl.of(0, 0)) : Optional.empty();
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
            chooseCongestion(ch);
            // siw_connect: kernel_bindconnect is blocking; a refused connect fails rdma_connect itself. A
            // non-blocking connect finishes at once on loopback, so the caller only waits for a real path.
            ch.configureBlocking(false);
            if (!ch.connect(remote) && !ch.finishConnect()) {
                awaitConnect(ch, remote);
            }
        } catch (RdmaException e) {
            closeOnFailure(ch);
            throw e;
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
        Initiator initiator = new Initiator(conn, qp, req, param);
        conn.handshake = initiator;
        qp.engine().runOrQueue(initiator::start);
        return conn;
    }

    /**
     * Waits for a TCP connect in progress, at most the initiator timeout (a real network path; on
     * loopback the connect has finished by the time it returns).
     *
     * @throws SocketTimeoutException if the timeout expired
     * @throws IOException as {@link SocketChannel#finishConnect()} (ConnectException when refused)
     */
    private void awaitConnect(SocketChannel ch, InetSocketAddress remote) throws IOException {
        long deadline = System.nanoTime() + config.initiatorTimeout().toNanos();
        try (Selector s = Selector.open()) {
            ch.register(s, SelectionKey.OP_CONNECT);
            while (true) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new SocketTimeoutException("TCP connect to " + remote + " timed out");
                }
                s.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                if (ch.finishConnect()) {
                    return;
                }
            }
        }
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
     * The active side of one MPA exchange (siw_connect's send, then siw_proc_mpareply) on the QP's engine:
     * send the request, wait for the reply (at most the initiator timeout), check and negotiate, hand the
     * socket to the QP, send the RTR if peer-to-peer mode was agreed. Engine thread, but {@link #abort}.
     *
     * <p>Outcomes, as {@code connectReply} statuses: 0; -ECONNREFUSED for a reject (a consumer reject,
     * SPEC rule 11; siw reports -ECONNRESET); -ECONNRESET for markers, a missing C when CRC is required, a
     * close or a reset; -ETIMEDOUT when the reply did not come in time; -EINVAL for a protocol failure,
     * after a TERMINATE as siw sends it: LLP/MPA "invalid request/reply" for a bad key, "insufficient
     * IRD" for an ORD above 128, "no matching RTR" when peer-to-peer mode found no common RTR type. A
     * revision 1 reply to a revision 2 request is accepted (RFC 6581 §5 fallback: IRD/ORD 1/1, no RTR);
     * siw refuses it with -ECONNRESET.
     */
    private final class Initiator implements SiwEngine.Schedulable, Handshake {
        private final SiwConnection conn;
        private final SiwQp qp;
        private final SiwEngine engine;
        private final MpaRequest req;
        private final IwConnParam param;
        private final MpaExchange.Reader reader = new MpaExchange.Reader(false);
        private final Timer deadline = new Timer(this::expired);
        private ByteBuffer out;
        private SelectionKey key;
        private boolean done;

        Initiator(SiwConnection conn, SiwQp qp, MpaRequest req, IwConnParam param) {
            this.conn = conn;
            this.qp = qp;
            this.engine = qp.engine();
            this.req = req;
            this.param = param;
        }

        /** Engine thread: the request goes out, then the reply is awaited. */
        void start() {
            SocketChannel ch = conn.channel;
            if (done) {
                return; // aborted before it started
            }
            try {
                out = ByteBuffer.wrap(req.toBytes());
                ch.write(out);
                if (!out.hasRemaining()) {
                    device.counters().mpaFrameSent();
                }
                key = ch.register(engine.selector(), out.hasRemaining() ? SelectionKey.OP_READ
                        | SelectionKey.OP_WRITE : SelectionKey.OP_READ, this);
            } catch (IOException e) {
                finish();
                release(engine, key, ch, false);
                conn.upcalls().connectReply(conn, Errno.ECONNRESET.status(), 0, 0, null);
                return;
            }
            engine.timers.schedule(deadline, config.initiatorTimeout().toNanos());
        }

        @Override
        public int onWritable() {
            if (done || !out.hasRemaining()) {
                return 0;
            }
            try {
                conn.channel.write(out);
            } catch (IOException e) {
                return failed();
            }
            if (!out.hasRemaining()) {
                device.counters().mpaFrameSent();
                key.interestOps(SelectionKey.OP_READ);
            }
            return 1;
        }

        @Override
        public int onReadable() {
            if (done) {
                return 0;
            }
            MpaReply reply;
            try {
                MpaFrame f = reader.read(conn.channel);
                if (f == null) {
                    return 1;
                }
                reply = (MpaReply) f;
            } catch (MpaExchange.MpaException e) {
                finish();
                MpaProblem problem = e.invalid.problem();
                if (problem == MpaProblem.BAD_KEY) {
                    refuseReply(engine, key, conn, TermError.MPA_INVALID_REQUEST_REPLY, Errno.EINVAL);
                } else if (problem == MpaProblem.MARKERS_NOT_SUPPORTED) {
                    refuseReply(engine, key, conn, null, Errno.ECONNRESET);
                } else {
                    refuseReply(engine, key, conn, null, Errno.EINVAL);
                }
                return 1;
            } catch (IOException e) {
                return failed();
            }
            finish();
            replied(reply);
            return 1;
        }

        /** A close or a reset before the reply. */
        private int failed() {
            finish();
            release(engine, key, conn.channel, false);
            conn.upcalls().connectReply(conn, Errno.ECONNRESET.status(), 0, 0, null);
            return 1;
        }

        /** The reply did not come in time: siw releases the socket (a FIN). */
        private void expired() {
            if (!done) {
                finish();
                release(engine, key, conn.channel, false);
                conn.upcalls().connectReply(conn, Errno.ETIMEDOUT.status(), 0, 0, null);
            }
        }

        /** The owner closed the connection (its socket is closed): the connect fails as on a reset. */
        @Override
        public void abort() {
            engine.runOrQueue(() -> {
                if (!done) {
                    failed();
                }
            });
        }

        private void finish() {
            done = true;
            conn.handshake = null;
            engine.timers.cancel(deadline);
        }

        @Override
        public int onDoorbell() {
            return 0;
        }

        private void replied(MpaReply reply) {
            SocketChannel ch = conn.channel;
            if (reply.reject()) {
                device.counters().mpaRejectReceived();
                release(engine, key, ch, false);
                conn.upcalls().connectReply(conn, Errno.ECONNREFUSED.status(), 0, 0, reply.privateData());
                return;
            }
            if (config.crcRequired() && !reply.crc()) {
                refuseReply(engine, key, conn, null, Errno.ECONNRESET);
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
                // The responder's IRD only bounds our ORD: what it says above siw's maximum is reported as
                // that maximum, as the request's depths are, so no wire value above the rdma_cm API's range
                // goes up.
                peerIrd = Math.min(c.ird(), SiwDevice.MAX_ORD_IRD);
                peerOrd = c.ord();
                if (peerOrd > SiwDevice.MAX_ORD_IRD) {
                    // siw_proc_mpareply: the responder's ORD exceeds what this side can ever serve.
                    refuseReply(engine, key, conn, TermError.MPA_INSUFFICIENT_IRD, Errno.EINVAL);
                    return;
                }
                if (asked != null && asked.peerToPeer()) {
                    // siw looks at the W and R bits of the reply only, and prefers the WRITE.
                    rtrWrite = asked.zeroLengthWriteRtr() && c.zeroLengthWriteRtr();
                    rtrRead = !rtrWrite && asked.zeroLengthReadRtr() && c.zeroLengthReadRtr();
                    if (!rtrWrite && !rtrRead) {
                        refuseReply(engine, key, conn, TermError.MPA_NO_MATCHING_RTR, Errno.EINVAL);
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
            conn.holdUpcalls();
            try {
                // On the QP's engine already: the QP takes the socket (and this key) over in place.
                qp.captureInfo(conn.localAddress(), conn.remoteAddress(), true, req.toBytes(), reply.toBytes());
                qp.attach(ch, conn, crc, myOrd, myIrd, null, false, config.maxSegment());
                if (rtrWrite || rtrRead) {
                    qp.sendRtr(rtrRead);
                }
            } catch (IOException | RuntimeException e) {
                release(engine, key, ch, true);
                conn.upcalls().connectReply(conn, Errno.ECONNRESET.status(), 0, 0, null);
                conn.release(false);
                return;
            }
            conn.attached(qp);
            conn.upcalls().connectReply(conn, 0, peerIrd, peerOrd, reply.privateData());
            conn.release(true);
        }
    }

    /**
     * Gives up on a reply: a TERMINATE {@code term} first if given (siw sends it on the socket before the
     * QP has a CRC context, so with a zero trailer), then the socket is released (FIN) and the connect
     * fails with {@code status}.
     */
    private void refuseReply(SiwEngine engine, SelectionKey key, SiwConnection conn, TermError term, Errno status) {
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
        release(engine, key, conn.channel, false);
        conn.upcalls().connectReply(conn, status.status(), 0, 0, null);
    }
}
