package io.jrdma.siw.cm;

import io.jrdma.cm.IwConnParam;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.siw.SiwConfig;
import io.jrdma.siw.TcpCongestion;
import io.jrdma.siw.net.SiwEngine;
import io.jrdma.siw.qp.SiwQp;
import io.jrdma.siw.wire.MpaFrame;
import io.jrdma.siw.wire.MpaReply;
import io.jrdma.siw.wire.MpaRequest;
import io.jrdma.siw.wire.MpaV2Ctrl;
import io.jrdma.spi.IwCmProvider;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RdmaException;
import java.io.IOException;
import java.net.BindException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

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

    private final CmContext context;
    private final SiwConfig config;

    /**
     * The CM of the device {@code context} describes.
     *
     * @param context what the CM sees of its device
     * @param config the transport's configuration
     */
    public SiwCm(CmContext context, SiwConfig config) {
        this.context = context;
        this.config = config;
    }

    /** What this CM sees of its device. */
    CmContext context() {
        return context;
    }

    /** The device's configuration. */
    SiwConfig config() {
        return config;
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
    static void release(SiwEngine engine, SelectionKey key, SocketChannel ch, boolean abrupt) {
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
            throw new RdmaException(Errno.EOPNOTSUPP, context.deviceName() + ": jrdma.siw.tcpCongestion=" + cc + ": "
                    + e.getMessage(), e);
        } catch (IOException e) {
            throw new RdmaException(Errno.EINVAL, context.deviceName() + ": jrdma.siw.tcpCongestion=" + cc + ": "
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
                    throw new RdmaException(Errno.EOPNOTSUPP, context.deviceName() + ": an AFONLY IPv6 listener needs "
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
                throw new RdmaException(Errno.EADDRINUSE, context.deviceName() + ": TCP port " + local.getPort()
                        + " is in use", e);
            }
            throw new RdmaException(Errno.EADDRNOTAVAIL, context.deviceName() + ": cannot listen on " + local, e);
        }
        SiwListener l = new SiwListener(this, server, context.nextEngine(), upcalls);
        try {
            l.engine.runSync(l::register);
        } catch (RuntimeException e) {
            try {
                server.close();
            } catch (IOException ignored) {
                // closing anyway
            }
            throw new RdmaException(Errno.EADDRNOTAVAIL, context.deviceName() + ": cannot listen on " + local, e);
        }
        return l;
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
        int ird = Math.min(Math.max(param.ird(), 0), SiwQp.MAX_ORD_IRD);
        int ord = Math.min(Math.max(param.ord(), 0), request.peerIrd());
        // siw_accept, relaxed IRD negotiation: our ORD never exceeds the peer's IRD, and our IRD grows
        // to the peer's ORD when it asks for more.
        ird = Math.max(ird, request.peerOrd());
        Optional<MpaV2Ctrl> ctrl = v2 ? Optional.of(new MpaV2Ctrl(ird, ord, p2p, false, writeRtr, readRtr))
                : Optional.empty();
        MpaReply reply = new MpaReply(req.revision(), false, crc, false, ctrl, param.privateData());
        try {
            MpaExchange.write(conn.channel, reply);
            context.counters().mpaFrameSent();
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
            context.counters().mpaFrameSent();
            MpaExchange.write(conn.channel, new MpaReply(req.revision(), false, req.crc(), true, ctrl,
                    privateData == null ? new byte[0] : privateData));
            context.counters().mpaRejectSent();
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
    public Connection connect(QueuePair queuePair, InetSocketAddress local, InetSocketAddress remote,
            IwConnParam param, Upcalls upcalls) {
        QpImpl qpImpl = QpImpl.of(queuePair);
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
        Initiator initiator = new Initiator(this, conn, qp, req, param);
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
        int ird = Math.max(0, Math.min(param.ird(), SiwQp.MAX_ORD_IRD));
        int ord = Math.max(0, Math.min(param.ord(), SiwQp.MAX_ORD_IRD));
        if (p2p && ord == 0) {
            ord = 1;
        }
        byte[] pd = param.privateData() == null ? new byte[0] : param.privateData();
        return new MpaRequest(config.mpaRevision(), false, config.crcRequired(),
                v2 ? Optional.of(new MpaV2Ctrl(ird, ord, p2p, false, p2p && config.rtr().write(),
                        p2p && config.rtr().read())) : Optional.empty(), pd);
    }

}
