package io.jrdma.internal.capture;

import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * One TCP connection in a {@link PacketTap}: the addresses and ports of both ends and the next
 * sequence number of each direction. It starts with a synthetic three-way handshake and the
 * connection's MPA request and reply (RFC 5044 §7.1), so that Wireshark's {@code iwarp_mpa}
 * dissector, which recognises a stream by its MPA frames, decodes the FPDUs that follow, and its TCP
 * reassembly finds every FPDU boundary. The sequence numbers do not match the real connection's (the
 * kernel chose those); they are consistent within the capture.
 */
public final class TcpStream {
    final PacketTap tap;
    final byte[] localIp;
    final byte[] remoteIp;
    final boolean ipv6;
    final int localPort;
    final int remotePort;
    int localSeq;
    int remoteSeq;
    /** Both ends of the connection write this stream (each its transmit side): received bytes are not. */
    boolean bothEnds;

    /**
     * One end's view of a stream: the stream, and whether this end is the stream's local end.
     *
     * @param stream the stream
     * @param asLocal true for the end that started it
     */
    public record Side(TcpStream stream, boolean asLocal) {
    }

    /** The key of a connection seen from {@code local}. */
    static String key(InetSocketAddress local, InetSocketAddress remote) {
        return local.getAddress().getHostAddress() + "/" + local.getPort() + ">" + remote.getAddress().getHostAddress()
                + "/" + remote.getPort();
    }

    /**
     * Starts a stream in {@code tap}: SYN, SYN-ACK, ACK from the initiator's side, then the MPA request
     * and reply.
     *
     * @param tap the capture
     * @param local this end
     * @param remote the peer
     * @param initiator whether this end connected (and sent the MPA request)
     * @param mpaRequest the MPA request frame as sent
     * @param mpaReply the MPA reply frame as sent
     */
    public TcpStream(PacketTap tap, InetSocketAddress local, InetSocketAddress remote, boolean initiator,
            byte[] mpaRequest, byte[] mpaReply) {
        this.tap = tap;
        InetAddress l = local.getAddress();
        InetAddress r = remote.getAddress();
        boolean v6 = l instanceof Inet6Address || r instanceof Inet6Address;
        this.ipv6 = v6;
        this.localIp = v6 ? sixteen(l) : l.getAddress();
        this.remoteIp = v6 ? sixteen(r) : r.getAddress();
        this.localPort = local.getPort();
        this.remotePort = remote.getPort();
        // Plausible initial sequence numbers, different per connection and direction.
        this.localSeq = 0x1000_0000 ^ (localPort << 12) ^ remotePort;
        this.remoteSeq = 0x2000_0000 ^ (remotePort << 12) ^ localPort;
        tap.tcpControl(this, initiator, PacketTap.TCP_SYN);
        tap.tcpControl(this, !initiator, PacketTap.TCP_SYN | PacketTap.TCP_ACK);
        tap.tcpControl(this, initiator, PacketTap.TCP_ACK);
        if (mpaRequest != null) {
            tap.tcpData(this, initiator, ByteBuffer.wrap(mpaRequest), 0, mpaRequest.length);
        }
        if (mpaReply != null) {
            tap.tcpData(this, !initiator, ByteBuffer.wrap(mpaReply), 0, mpaReply.length);
        }
    }

    private static byte[] sixteen(InetAddress a) {
        if (a instanceof Inet4Address) {
            byte[] m = new byte[16];
            m[10] = (byte) 0xff;
            m[11] = (byte) 0xff;
            System.arraycopy(a.getAddress(), 0, m, 12, 4);
            return m;
        }
        return a.getAddress();
    }

    /**
     * The tap the stream writes to.
     *
     * @return the tap
     */
    public PacketTap tap() {
        return tap;
    }

    /** Bytes the end {@code asLocal} sends: the remaining bytes of {@code count} buffers of {@code vec}. */
    void tx(boolean asLocal, ByteBuffer[] vec, int from, int count) {
        tap.tcpData(this, asLocal, vec, from, count);
    }

    /** Bytes the end {@code asLocal} sends: [pos, lim) of {@code b}. */
    void tx(boolean asLocal, ByteBuffer b, int pos, int lim) {
        tap.tcpData(this, asLocal, b, pos, lim);
    }

    /** Bytes the end {@code asLocal} received (ignored when both ends write the stream). */
    void rx(boolean asLocal, MemorySegment seg, long off, int length) {
        if (!bothEnds) {
            tap.tcpData(this, !asLocal, seg, off, length);
        }
    }

    /** Bytes the end {@code asLocal} received: [pos, lim) of {@code b}. */
    void rx(boolean asLocal, ByteBuffer b, int pos, int lim) {
        if (!bothEnds) {
            tap.tcpData(this, !asLocal, b, pos, lim);
        }
    }

    /** The connection closed: a FIN from the end {@code fromLocal} (in the stream's orientation). */
    void fin(boolean fromLocal) {
        tap.tcpControl(this, fromLocal, PacketTap.TCP_FIN | PacketTap.TCP_ACK);
        tap.forget(this);
    }
}
