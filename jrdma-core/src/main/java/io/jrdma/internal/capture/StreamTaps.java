package io.jrdma.internal.capture;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * The captures of one iWARP connection, for the QP's engine: its side of a {@link TcpStream} in each
 * active tap (the device's and the QP's own). A tap started while the connection runs joins at the
 * next FPDU boundary of each direction, so its stream holds whole FPDUs only: transmitted bytes from
 * the start of the next batch ({@link #tx}), received bytes from the next header the receive machine
 * parses ({@link #rxBoundary}). When both ends of a connection are captured in one file (two QPs of
 * this JVM on a device), each end writes what it sends and the received side is left out, so every
 * byte appears once, as on a wire. Engine thread only; with no tap it costs two null checks per call.
 */
public final class StreamTaps {
    private InetSocketAddress local;
    private InetSocketAddress remote;
    private boolean initiator;
    private byte[] mpaRequest;
    private byte[] mpaReply;
    private PacketTap devTap;
    private PacketTap qpTap;
    private TcpStream.Side dev;
    private TcpStream.Side qp;
    private boolean devRxLive;
    private boolean qpRxLive;

    /** No connection yet. */
    public StreamTaps() {
    }

    /**
     * The connection the QP was given, with its MPA frames (so a capture can begin with them).
     *
     * @param local this end
     * @param remote the peer
     * @param initiator whether this end connected
     * @param request the MPA request as sent
     * @param reply the MPA reply as sent
     */
    public void connection(InetSocketAddress local, InetSocketAddress remote, boolean initiator, byte[] request,
            byte[] reply) {
        this.local = local;
        this.remote = remote;
        this.initiator = initiator;
        this.mpaRequest = request;
        this.mpaReply = reply;
        this.devTap = null;
        this.qpTap = null;
        this.dev = null;
        this.qp = null;
    }

    private TcpStream.Side side(PacketTap t) {
        return t == null || local == null || remote == null ? null
                : t.stream(local, remote, initiator, mpaRequest, mpaReply);
    }

    private void sync(PacketTap d, PacketTap q) {
        PacketTap dd = d != null && d.isClosed() ? null : d;
        PacketTap qq = q != null && q.isClosed() ? null : q;
        if (dd != devTap) {
            devTap = dd;
            dev = side(dd);
            devRxLive = false;
        }
        if (qq != qpTap) {
            qpTap = qq;
            qp = side(qq);
            qpRxLive = false;
        }
    }

    /** Whether nothing captures this stream: no tap given, none running. */
    public boolean idle(PacketTap d, PacketTap q) {
        return d == null && q == null && dev == null && qp == null;
    }

    /**
     * A batch of whole FPDUs is about to be written: the remaining bytes of the first {@code count}
     * buffers of {@code vec}.
     *
     * @param d the device's tap, or null
     * @param q the QP's tap, or null
     * @param vec the gather vector
     * @param count how many buffers it holds
     */
    public void tx(PacketTap d, PacketTap q, ByteBuffer[] vec, int count) {
        if (d == null && q == null && dev == null && qp == null) {
            return;
        }
        sync(d, q);
        if (dev != null) {
            dev.stream().tx(dev.asLocal(), vec, 0, count);
        }
        if (qp != null) {
            qp.stream().tx(qp.asLocal(), vec, 0, count);
        }
    }

    /**
     * One whole FPDU (an RTR, a TERMINATE) is about to be written: the remaining bytes of {@code b}.
     *
     * @param d the device's tap, or null
     * @param q the QP's tap, or null
     * @param b the FPDU
     */
    public void tx(PacketTap d, PacketTap q, ByteBuffer b) {
        if (d == null && q == null && dev == null && qp == null) {
            return;
        }
        sync(d, q);
        if (dev != null) {
            dev.stream().tx(dev.asLocal(), b, b.position(), b.limit());
        }
        if (qp != null) {
            qp.stream().tx(qp.asLocal(), b, b.position(), b.limit());
        }
    }

    /**
     * The receive machine is at an FPDU boundary with {@code length} unparsed bytes at {@code off}: a
     * stream not yet capturing received bytes starts here, with these.
     *
     * @param d the device's tap, or null
     * @param q the QP's tap, or null
     * @param seg the staging buffer
     * @param off where the unparsed bytes start
     * @param length how many there are
     */
    public void rxBoundary(PacketTap d, PacketTap q, MemorySegment seg, long off, int length) {
        if (d == null && q == null && dev == null && qp == null) {
            return;
        }
        sync(d, q);
        if (dev != null && !devRxLive) {
            devRxLive = true;
            dev.stream().rx(dev.asLocal(), seg, off, length);
        }
        if (qp != null && !qpRxLive) {
            qpRxLive = true;
            qp.stream().rx(qp.asLocal(), seg, off, length);
        }
    }

    /**
     * Bytes just read from the connection into {@code seg}.
     *
     * @param seg the buffer
     * @param off where they are
     * @param length how many
     */
    public void rx(MemorySegment seg, long off, int length) {
        if (dev != null && devRxLive) {
            dev.stream().rx(dev.asLocal(), seg, off, length);
        }
        if (qp != null && qpRxLive) {
            qp.stream().rx(qp.asLocal(), seg, off, length);
        }
    }

    /**
     * Bytes just read from the connection into {@code b}, at [pos, lim).
     *
     * @param b the buffer
     * @param pos where they start
     * @param lim where they end
     */
    public void rx(ByteBuffer b, int pos, int lim) {
        if (dev != null && devRxLive) {
            dev.stream().rx(dev.asLocal(), b, pos, lim);
        }
        if (qp != null && qpRxLive) {
            qp.stream().rx(qp.asLocal(), b, pos, lim);
        }
    }

    /**
     * The connection closed: each stream gets a FIN, from this end if it closed first, else from the
     * peer (unless the peer writes the stream itself).
     *
     * @param localClose whether this end closed first
     */
    public void closed(boolean localClose) {
        fin(dev, localClose);
        fin(qp, localClose);
        dev = null;
        qp = null;
        devTap = null;
        qpTap = null;
        local = null;
    }

    private static void fin(TcpStream.Side s, boolean localClose) {
        if (s == null) {
            return;
        }
        if (localClose) {
            s.stream().fin(s.asLocal());
        } else if (!s.stream().bothEnds) {
            s.stream().fin(!s.asLocal());
        }
    }
}
