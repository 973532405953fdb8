package io.jrdma.internal.capture;

import io.jrdma.verbs.PacketCapture;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One pcap file being written: the libpcap format (magic {@code a1b2c3d4}, version 2.4, microsecond
 * timestamps) with link type {@value #LINKTYPE_RAW} (raw IP: each record starts with an IPv4 or IPv6
 * header), which tshark and Wireshark read with {@code -r}. The providers hand it what a device or a
 * QP sent or received; it frames the bytes the way the kernel would have put them on the wire:
 * <ul>
 *   <li>RoCEv2 ({@link #roce4}, {@link #roce6}): IPv4 (DF, the identification the ICRC was computed for)
 *       or IPv6, then UDP to or from port {@value #ROCE_PORT}, then the packet from its BTH to its ICRC;
 *   <li>iWARP ({@link TcpStream}): TCP segments of one connection with sequence and acknowledgement
 *       numbers that follow the bytes, so tshark reassembles the MPA FPDUs across segments.
 * </ul>
 * Checksums (IPv4 header, UDP over IPv6, TCP) are computed, so nothing is flagged as malformed.
 *
 * <p>Any thread: every write holds the tap's monitor. A tap costs a copy of every packet while it
 * runs; it is a debugging aid, off unless started ({@code Context.startCapture},
 * {@code QueuePair.startCapture}, {@code -Djrdma.capture.dir=DIR}).
 */
public final class PacketTap implements PacketCapture {
    /** pcap link type for raw IPv4/IPv6 ({@code LINKTYPE_RAW}). */
    public static final int LINKTYPE_RAW = 101;
    /** The RoCEv2 UDP port (IANA). */
    public static final int ROCE_PORT = 4791;
    /** Largest IP packet written. */
    static final int MAX_IP_PACKET = 65_535;
    /** Largest TCP payload per synthetic segment (fits an IPv6 packet with its TCP header). */
    static final int MAX_TCP_PAYLOAD = MAX_IP_PACKET - 40 - 20;
    /** The file buffer is written out once it holds this much. */
    static final int FLUSH_AT = 64 * 1024;
    static final int TCP_FIN = 0x01;
    static final int TCP_SYN = 0x02;
    static final int TCP_PSH = 0x08;
    static final int TCP_ACK = 0x10;
    private static final int SNAPLEN = 262_144;
    private static final int RECORD_HEADER = 16;
    private static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;

    private final Path file;
    private final FileChannel channel;
    private final Runnable onClose;
    private final byte[] pkt = new byte[MAX_IP_PACKET];
    private final ByteBuffer out = ByteBuffer.allocate(1 << 20).order(ByteOrder.LITTLE_ENDIAN);
    private final long baseMicros = System.currentTimeMillis() * 1000;
    private final long baseNanos = System.nanoTime();
    private long packets;
    private boolean closed;
    /** The TCP connections written, by {@link TcpStream#key}: both ends of a connection share one. */
    private final java.util.Map<String, TcpStream> streams = new java.util.HashMap<>();

    // The TCP segment being assembled in pkt.
    private TcpStream segStream;
    private boolean segFromLocal;
    private int segHeader;
    private int segLen;

    private PacketTap(Path file, FileChannel channel, Runnable onClose) {
        this.file = file;
        this.channel = channel;
        this.onClose = onClose;
    }

    /**
     * Creates (or truncates) {@code file} and writes the pcap header.
     *
     * @param file the pcap file
     * @param onClose run once after the file is closed (detaches the tap)
     * @return the tap
     * @throws UncheckedIOException if the file cannot be written
     */
    public static PacketTap open(Path file, Runnable onClose) {
        try {
            FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING);
            PacketTap t = new PacketTap(file, ch, onClose);
            t.out.putInt(0xa1b2c3d4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(SNAPLEN)
                    .putInt(LINKTYPE_RAW);
            t.flush();
            return t;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the capture file " + file, e);
        }
    }

    /**
     * The tap behind a capture the SPI hands a provider ({@link io.jrdma.spi.ProviderDevice#captureChanged}):
     * jrdma's own providers write their packets into it here, outside the SPI.
     *
     * @param capture a capture core started, or {@code null}
     * @return the same capture as a tap, or {@code null}
     * @throws IllegalArgumentException if {@code capture} was not started by core
     */
    public static PacketTap of(PacketCapture capture) {
        if (capture == null || capture instanceof PacketTap) {
            return (PacketTap) capture;
        }
        throw new IllegalArgumentException("not a capture of jrdma's core: " + capture);
    }

    @Override
    public Path file() {
        return file;
    }

    @Override
    public synchronized long packets() {
        return packets;
    }

    /**
     * Whether the capture was stopped (writes are ignored).
     *
     * @return true once closed
     */
    public synchronized boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            try {
                flush();
                channel.close();
            } catch (IOException e) {
                // the file is as complete as it could be made
            }
            closed = true;
        }
        onClose.run();
    }

    /** Writes what is buffered to the file. */
    public synchronized void flushFile() {
        if (!closed) {
            try {
                flush();
            } catch (IOException e) {
                closed = true;
            }
        }
    }

    // ------------------------------------------------------------------------------------------ RoCE

    /**
     * A RoCEv2 packet over IPv4: IPv4 with {@code ipId} and {@code ipFlags} (the values its ICRC
     * covers), UDP, then {@code length} bytes from the BTH to the ICRC.
     *
     * @param srcIp the source address (big-endian int)
     * @param dstIp the destination address
     * @param srcPort the UDP source port
     * @param dstPort the UDP destination port
     * @param ipId the IPv4 identification
     * @param ipFlags the IPv4 flags and fragment offset (0x4000: DF)
     * @param seg the packet
     * @param off where it starts
     * @param length its length, ICRC included
     */
    public synchronized void roce4(int srcIp, int dstIp, int srcPort, int dstPort, int ipId, int ipFlags,
            MemorySegment seg, long off, int length) {
        if (closed || length > MAX_IP_PACKET - 28) {
            return;
        }
        int h = ipv4Header(srcIp, dstIp, 17, 8 + length, ipId, ipFlags);
        udpHeader(h, srcPort, dstPort, length);
        MemorySegment.copy(seg, BYTE, off, pkt, h + 8, length);
        record(h + 8 + length);
    }

    /**
     * A RoCEv2 packet over IPv6 (addresses as two big-endian longs each).
     *
     * @param srcHigh the source address, bytes 0-7
     * @param srcLow the source address, bytes 8-15
     * @param dstHigh the destination address, bytes 0-7
     * @param dstLow the destination address, bytes 8-15
     * @param srcPort the UDP source port
     * @param dstPort the UDP destination port
     * @param seg the packet
     * @param off where it starts
     * @param length its length, ICRC included
     */
    public synchronized void roce6(long srcHigh, long srcLow, long dstHigh, long dstLow, int srcPort, int dstPort,
            MemorySegment seg, long off, int length) {
        if (closed || length > MAX_IP_PACKET - 48) {
            return;
        }
        int h = ipv6Header(srcHigh, srcLow, dstHigh, dstLow, 17, 8 + length);
        udpHeader(h, srcPort, dstPort, length);
        MemorySegment.copy(seg, BYTE, off, pkt, h + 8, length);
        put16(h + 6, transportChecksum(h, 8 + length, 17));
        record(h + 8 + length);
    }

    // ------------------------------------------------------------------------------------------ TCP

    /**
     * The stream of the connection from {@code local} to {@code remote} in this capture: a new one
     * (written from its start: handshake, MPA frames) or, when the other end of the same connection is
     * captured here too (both QPs in this JVM on the device), the one that end started, now written by
     * both ends, each its own transmit side.
     *
     * @param local this end
     * @param remote the peer
     * @param initiator whether this end connected
     * @param mpaRequest the MPA request as sent
     * @param mpaReply the MPA reply as sent
     * @return the stream and this end's side of it
     */
    public synchronized TcpStream.Side stream(java.net.InetSocketAddress local, java.net.InetSocketAddress remote,
            boolean initiator, byte[] mpaRequest, byte[] mpaReply) {
        String mine = TcpStream.key(local, remote);
        String theirs = TcpStream.key(remote, local);
        TcpStream other = streams.get(theirs);
        if (other != null && !other.bothEnds) {
            other.bothEnds = true;
            return new TcpStream.Side(other, false);
        }
        TcpStream s = new TcpStream(this, local, remote, initiator, mpaRequest, mpaReply);
        streams.put(mine, s);
        return new TcpStream.Side(s, true);
    }

    /** A stream's connection is over: a new connection on the same ports starts a new stream. */
    synchronized void forget(TcpStream s) {
        streams.values().remove(s);
    }

    /** A segment without payload (SYN, SYN-ACK, ACK, FIN) of {@code s}. */
    synchronized void tcpControl(TcpStream s, boolean fromLocal, int flags) {
        if (closed) {
            return;
        }
        begin(s, fromLocal);
        emit(flags);
    }

    /** Bytes [pos, lim) of {@code b} as stream data, without moving its position. */
    synchronized void tcpData(TcpStream s, boolean fromLocal, ByteBuffer b, int pos, int lim) {
        if (closed || lim <= pos) {
            return;
        }
        begin(s, fromLocal);
        appendBuffer(b, pos, lim);
        emit(TCP_PSH | TCP_ACK);
    }

    /** The remaining bytes of {@code count} buffers of {@code vec} as stream data. */
    synchronized void tcpData(TcpStream s, boolean fromLocal, ByteBuffer[] vec, int from, int count) {
        if (closed) {
            return;
        }
        begin(s, fromLocal);
        for (int i = from; i < from + count; i++) {
            ByteBuffer b = vec[i];
            if (b != null) {
                appendBuffer(b, b.position(), b.limit());
            }
        }
        emit(TCP_PSH | TCP_ACK);
    }

    /** {@code length} bytes of {@code seg} at {@code off} as stream data. */
    synchronized void tcpData(TcpStream s, boolean fromLocal, MemorySegment seg, long off, int length) {
        if (closed || length <= 0) {
            return;
        }
        begin(s, fromLocal);
        long at = off;
        int left = length;
        while (left > 0) {
            int c = Math.min(left, MAX_TCP_PAYLOAD - segLen);
            MemorySegment.copy(seg, BYTE, at, pkt, segHeader + segLen, c);
            segLen += c;
            at += c;
            left -= c;
            if (segLen == MAX_TCP_PAYLOAD) {
                emit(TCP_ACK);
                begin(s, fromLocal);
            }
        }
        emit(TCP_PSH | TCP_ACK);
    }

    private void appendBuffer(ByteBuffer b, int pos, int lim) {
        int at = pos;
        while (at < lim) {
            int c = Math.min(lim - at, MAX_TCP_PAYLOAD - segLen);
            b.get(at, pkt, segHeader + segLen, c);
            segLen += c;
            at += c;
            if (segLen == MAX_TCP_PAYLOAD) {
                TcpStream s = segStream;
                boolean local = segFromLocal;
                emit(TCP_ACK);
                begin(s, local);
            }
        }
    }

    private void begin(TcpStream s, boolean fromLocal) {
        segStream = s;
        segFromLocal = fromLocal;
        segHeader = (s.ipv6 ? 40 : 20) + 20;
        segLen = 0;
    }

    /** Writes the assembled segment (nothing for an empty data segment) and advances the sequence. */
    private void emit(int flags) {
        TcpStream s = segStream;
        if (segLen == 0 && (flags & (TCP_SYN | TCP_FIN)) == 0 && flags != TCP_ACK) {
            return;
        }
        byte[] src = segFromLocal ? s.localIp : s.remoteIp;
        byte[] dst = segFromLocal ? s.remoteIp : s.localIp;
        int sport = segFromLocal ? s.localPort : s.remotePort;
        int dport = segFromLocal ? s.remotePort : s.localPort;
        int seq = segFromLocal ? s.localSeq : s.remoteSeq;
        int ack = segFromLocal ? s.remoteSeq : s.localSeq;
        int h = ipHeader(src, dst, 6, 20 + segLen);
        put16(h, sport);
        put16(h + 2, dport);
        put32(h + 4, seq);
        put32(h + 8, (flags & TCP_ACK) != 0 ? ack : 0);
        pkt[h + 12] = (byte) (5 << 4);
        pkt[h + 13] = (byte) flags;
        put16(h + 14, 0xffff);
        put16(h + 16, 0);
        put16(h + 18, 0);
        put16(h + 16, transportChecksum(h, 20 + segLen, 6));
        int advance = segLen + ((flags & (TCP_SYN | TCP_FIN)) != 0 ? 1 : 0);
        if (segFromLocal) {
            s.localSeq += advance;
        } else {
            s.remoteSeq += advance;
        }
        record(h + 20 + segLen);
        segLen = 0;
    }

    // ------------------------------------------------------------------------------------------ framing

    private int ipHeader(byte[] src, byte[] dst, int proto, int payload) {
        if (src.length == 4) {
            return ipv4Header(int32(src, 0), int32(dst, 0), proto, payload, 0, 0x4000);
        }
        return ipv6Header(long64(src, 0), long64(src, 8), long64(dst, 0), long64(dst, 8), proto, payload);
    }

    private int ipv4Header(int src, int dst, int proto, int payload, int id, int flags) {
        pkt[0] = 0x45;
        pkt[1] = 0;
        put16(2, 20 + payload);
        put16(4, id);
        put16(6, flags);
        pkt[8] = 64;
        pkt[9] = (byte) proto;
        put16(10, 0);
        put32(12, src);
        put32(16, dst);
        put16(10, ~fold(sum(0, 20, 0)) & 0xffff);
        return 20;
    }

    private int ipv6Header(long srcHigh, long srcLow, long dstHigh, long dstLow, int proto, int payload) {
        put32(0, 0x6000_0000);
        put16(4, payload);
        pkt[6] = (byte) proto;
        pkt[7] = 64;
        put64(8, srcHigh);
        put64(16, srcLow);
        put64(24, dstHigh);
        put64(32, dstLow);
        return 40;
    }

    /** UDP header at {@code h}; the checksum is 0 (IPv4: none, as rxe sends) until filled in. */
    private void udpHeader(int h, int sport, int dport, int payload) {
        put16(h, sport);
        put16(h + 2, dport);
        put16(h + 4, 8 + payload);
        put16(h + 6, 0);
    }

    /** The checksum of a UDP or TCP segment at {@code h} of {@code len} bytes, with its pseudo-header. */
    private int transportChecksum(int h, int len, int proto) {
        long s;
        if (h == 20) {
            s = sum(12, 8, 0);
        } else {
            s = sum(8, 32, 0);
        }
        s += proto + len;
        s = sum(h, len, s);
        int c = ~fold(s) & 0xffff;
        return c == 0 && proto == 17 ? 0xffff : c;
    }

    private long sum(int off, int len, long start) {
        long s = start;
        int i = off;
        for (; i + 1 < off + len; i += 2) {
            s += ((pkt[i] & 0xff) << 8) | (pkt[i + 1] & 0xff);
        }
        if (i < off + len) {
            s += (pkt[i] & 0xff) << 8;
        }
        return s;
    }

    private static int fold(long s) {
        long v = s;
        while ((v >>> 16) != 0) {
            v = (v & 0xffff) + (v >>> 16);
        }
        return (int) v;
    }

    private void record(int length) {
        try {
            if (out.remaining() < RECORD_HEADER + length) {
                flush();
            }
            long micros = baseMicros + (System.nanoTime() - baseNanos) / 1000;
            out.putInt((int) (micros / 1_000_000)).putInt((int) (micros % 1_000_000)).putInt(length).putInt(length);
            out.put(pkt, 0, length);
            packets++;
            if (out.position() >= FLUSH_AT) {
                flush();
            }
        } catch (IOException e) {
            closed = true;
        }
    }

    private void flush() throws IOException {
        out.flip();
        while (out.hasRemaining()) {
            channel.write(out);
        }
        out.clear();
    }

    private void put16(int at, int v) {
        pkt[at] = (byte) (v >>> 8);
        pkt[at + 1] = (byte) v;
    }

    private void put32(int at, int v) {
        put16(at, v >>> 16);
        put16(at + 2, v);
    }

    private void put64(int at, long v) {
        put32(at, (int) (v >>> 32));
        put32(at + 4, (int) v);
    }

    static int int32(byte[] b, int at) {
        return (b[at] & 0xff) << 24 | (b[at + 1] & 0xff) << 16 | (b[at + 2] & 0xff) << 8 | (b[at + 3] & 0xff);
    }

    static long long64(byte[] b, int at) {
        return (long) int32(b, at) << 32 | (int32(b, at + 4) & 0xffffffffL);
    }
}
