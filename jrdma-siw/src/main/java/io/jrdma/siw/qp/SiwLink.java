package io.jrdma.siw.qp;

import io.jrdma.internal.capture.StreamTaps;
import io.jrdma.internal.engine.Timer;
import io.jrdma.siw.net.SiwEngine;
import io.jrdma.siw.wire.FpduHeader;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import jdk.net.ExtendedSocketOptions;

/**
 * A QP's connection (the socket side of Linux siw's {@code siw_qp.c} and {@code siw_cm.c}'s hand-over):
 * the TCP socket on the engine's selector, what MPA negotiated for it (CRC, ORD/IRD, the FPDU size, a
 * pending RTR), TCP keepalive and the stall check of {@link QpContext#stall()}, and the packet captures of
 * the stream.
 *
 * <p>The receive and transmit machines see the connection only through a byte seam, the two NIO
 * interfaces {@link #in} and {@link #out}: on a live connection both are the socket itself (no
 * indirection on the data path); {@link #openStream} puts a pair of in-memory channels there instead, so
 * the machines can be driven from recorded bytes without a socket. Engine thread only.
 */
final class SiwLink {
    private static final System.Logger LOG = System.getLogger("io.jrdma.siw");

    /** Where the connection is ({@code siw_qp}'s LLP state as the QP sees it). */
    enum State {
        /** No connection yet (or after a reset). */
        NONE,
        /** Connected: FPDUs flow both ways. */
        UP,
        /** This side shut its output down; what the peer still sends is read until its FIN. */
        CLOSING,
        /** The socket is closed. */
        CLOSED
    }

    private final SiwQp owner;
    private final QpContext context;
    private final SiwEngine engine;
    /** Packet captures of this connection (the device's, the QP's); idle unless one runs. */
    final StreamTaps taps = new StreamTaps();
    /** Fires while the link is up, to give up a connection that stalls while the QP waits on the peer. */
    private final Timer timer = new Timer(this::onTimer);

    private SocketChannel channel;
    private SelectionKey key;
    /** The byte seam: where the receive machine reads and the transmit machine writes. */
    ReadableByteChannel in;
    GatheringByteChannel out;
    /** The CM's side of the connection. */
    SiwQp.Link cm;
    State state = State.NONE;
    boolean crc;
    int ord;
    int ird;
    /** The largest FPDU to send. */
    int maxSegment;
    /** The connection's TCP segment size as the kernel cuts it (what a held tail is aligned to). */
    int tcpMss;
    /** The peer will send an RTR FPDU before anything else (peer-to-peer mode, responder side). */
    boolean rtrPending;
    /** When a byte last went out or came in, or the QP last had nothing to wait for (engine clock). */
    private long lastProgress;

    SiwLink(SiwQp owner, QpContext context, SiwEngine engine) {
        this.owner = owner;
        this.context = context;
        this.engine = engine;
    }

    /** Whether FPDUs may still go out (up, or closing with what was queued). */
    boolean writable() {
        return state == State.UP || state == State.CLOSING;
    }

    /** Whether there is no connection to read from. */
    boolean gone() {
        return state == State.CLOSED || in == null;
    }

    /** Takes the socket of an MPA exchange over (siw's {@code siw_qp_modify(RTS, LLP_HANDLE)}). */
    void openSocket(SocketChannel ch, int segment) throws IOException {
        ch.configureBlocking(false);
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        keepalive(ch);
        channel = ch;
        in = ch;
        out = ch;
        InetAddress local = ((InetSocketAddress) ch.getLocalAddress()).getAddress();
        tcpMss = tcpMss(local, localMtu(local));
        maxSegment = segmentSize(tcpMss, segment);
        key = ch.register(engine.selector(), SelectionKey.OP_READ, owner);
        engine.addPollable(key);
        up();
    }

    /**
     * Puts a byte stream in place of a socket (tests: the machines fed from memory). {@code in} reads
     * return 0 when nothing is there for now and -1 at the peer's close.
     */
    void openStream(ReadableByteChannel from, GatheringByteChannel to, int segment) {
        in = from;
        out = to;
        tcpMss = segment;
        maxSegment = segmentSize(segment, segment);
        up();
    }

    private void up() {
        state = State.UP;
        lastProgress = now();
        arm();
    }

    /** A byte moved in or out. */
    void progress() {
        lastProgress = now();
    }

    /** The transmit side waits for the socket to drain. */
    void wantWritable() {
        if (key != null) {
            key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
        }
    }

    /** The socket drained. */
    void writableAgain() {
        if (key != null && key.isValid()) {
            key.interestOps(SelectionKey.OP_READ);
        }
    }

    /** Shuts the output down after what is queued (a FIN); returns false when that failed. */
    boolean shutdownOutput() {
        state = State.CLOSING;
        if (channel == null) {
            return true;
        }
        try {
            channel.shutdownOutput();
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Closes the connection, abruptly (RST) or not, and tells the CM with {@code status} (0 or a negative
     * errno); nothing when there was none or it is closed already.
     */
    void close(int status, boolean abrupt) {
        engine.timers.cancel(timer);
        if (state == State.CLOSED || in == null) {
            state = in == null ? State.NONE : State.CLOSED;
            return;
        }
        state = State.CLOSED;
        owner.linkClosing(); // what was not written goes nowhere now; the flush completes its WQEs
        taps.closed(true);
        try {
            if (key != null) {
                engine.removePollable(key);
                key.cancel();
            }
            if (channel != null) {
                if (abrupt) {
                    channel.setOption(StandardSocketOptions.SO_LINGER, 0);
                }
                channel.close();
            } else {
                in.close();
                out.close();
            }
        } catch (IOException e) {
            // closing anyway
        }
        SiwQp.Link l = cm;
        if (l != null) {
            l.closed(status);
        }
    }

    /** Writes a control FPDU (RTR, TERMINATE) whole, within a second; a failure is only logged. */
    void writeFully(ByteBuffer b) {
        taps.tx(context.tap(), owner.qp.capture(), b);
        try {
            long deadline = System.nanoTime() + 1_000_000_000L;
            while (b.hasRemaining() && System.nanoTime() < deadline) {
                if (out.write(b) == 0) {
                    Thread.onSpinWait();
                }
            }
        } catch (IOException e) {
            if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
                LOG.log(System.Logger.Level.DEBUG, owner.tag() + " control write failed: " + e);
            }
        }
    }

    /** The socket (tests size its buffers); {@code null} on a memory stream. */
    SocketChannel channel() {
        return channel;
    }

    // ------------------------------------------------------------------------------------ segment sizes

    /** The MTU of the interface holding {@code local}; Ethernet's 1500 when unknown. */
    private static int localMtu(InetAddress local) {
        int m = io.jrdma.siw.net.InterfaceMtu.of(local);
        return m > 0 ? m : 1500;
    }

    /**
     * The TCP segment size the kernel cuts the stream into from {@code local} over an interface of
     * {@code mtu} (Java has no TCP_MAXSEG): the MTU less the IP and TCP headers and the timestamp
     * option, within the IP length field (IPv4 loopback: MTU 65,536, segments of 65,483 bytes,
     * measured). A slight underestimate only makes an aligned write's segments a little short; an
     * overestimate would leave a tiny segment behind each.
     */
    static int tcpMss(InetAddress local, int mtu) {
        int mss = local instanceof Inet6Address ? Math.min(mtu - 40, 65535) - 20 - 12
                : Math.min(mtu, 65535) - 20 - 20 - 12;
        return Math.max(536, mss);
    }

    /**
     * The segment size FPDUs are cut to: the configured one, or the path MSS ({@link #tcpMss}: the MTU
     * less the IPv4 or IPv6 header, TCP's and the timestamp option), as siw takes the socket's
     * {@code mss_cache}. An FPDU longer than the MSS would cost a second TCP segment each.
     */
    static int segmentSize(int pathMss, int configured) {
        int mss = configured > 0 ? configured : pathMss;
        return Math.min(FpduHeader.tcpSegmentLength(mss), FpduHeader.MAX_MPA_LENGTH + 2);
    }

    // ------------------------------------------------------------------------------------------ liveness

    /** TCP keepalive as configured, so an idle connection to a vanished peer fails in bounded time. */
    private void keepalive(SocketChannel ch) throws IOException {
        if (context.keepIdle().isZero()) {
            return;
        }
        ch.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
        try {
            ch.setOption(ExtendedSocketOptions.TCP_KEEPIDLE, (int) context.keepIdle().toSeconds());
            ch.setOption(ExtendedSocketOptions.TCP_KEEPINTERVAL, (int) context.keepInterval().toSeconds());
            ch.setOption(ExtendedSocketOptions.TCP_KEEPCOUNT, context.keepCount());
        } catch (UnsupportedOperationException e) {
            LOG.log(System.Logger.Level.DEBUG, "TCP keepalive timing not supported here; system defaults apply");
        }
    }

    private long now() {
        return engine.timers.clock().nanoTime();
    }

    private void arm() {
        long stall = context.stall().toNanos();
        if (stall > 0) {
            engine.timers.schedule(timer, Math.max(stall / 4, 10_000_000L));
        }
    }

    /**
     * The stall check ({@link QpContext#stall()}): the QP waits on its peer when bytes of its own
     * are not yet taken by the socket or RDMA READs are unanswered; if no byte moved either way for the
     * stall time, the connection is given up. A QP with nothing to wait for restarts the clock.
     */
    private void onTimer() {
        if (!writable()) {
            return;
        }
        long stall = context.stall().toNanos();
        long now = now();
        if (!owner.waitingOnPeer()) {
            lastProgress = now;
        } else if (now - lastProgress >= stall) {
            owner.errors.linkTimedOut(stall);
            return;
        }
        arm();
    }
}
