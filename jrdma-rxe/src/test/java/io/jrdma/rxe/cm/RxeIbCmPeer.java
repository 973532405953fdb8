package io.jrdma.rxe.cm;

import io.jrdma.rxe.net.UdpPort;
import io.jrdma.internal.roce.Bth;
import io.jrdma.internal.roce.Icrc;
import io.jrdma.spi.ibcm.CmMessage;
import io.jrdma.testkit.cm.IbCmPeer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.time.Duration;

/**
 * A raw IB CM peer on RoCEv2: a UDP socket on {@code address}:4791 (DF) that speaks QP1 datagrams, the
 * bytes a Linux node's CM agent would send: BTH + DETH + the MAD ({@link CmMadCodec}) + an ICRC sealed for
 * the IPv4 pseudo-header. What it receives is decoded the same way; a datagram that is not a CM MAD fails
 * the test. IPv4 only.
 */
public final class RxeIbCmPeer implements IbCmPeer {
    private static final int RECEIVE_BUFFER = 4 << 20;
    private final InetAddress address;
    private final InetSocketAddress device;
    private final DatagramChannel channel;
    private final Icrc icrc = new Icrc();
    private final MemorySegment out = MemorySegment.ofArray(new byte[CmMadCodec.DATAGRAM_LENGTH]);
    private final ByteBuffer in = ByteBuffer.allocate(65536);
    private int psn;

    /**
     * Binds the peer.
     *
     * @param address the peer's address (127/8 on loopback), with UDP 4791 free
     * @param device the device's address (its CM agent listens on 4791)
     * @throws UncheckedIOException if the socket cannot be bound
     */
    public RxeIbCmPeer(InetAddress address, InetAddress device) {
        if (!(address instanceof Inet4Address) || !(device instanceof Inet4Address)) {
            throw new IllegalArgumentException("IPv4 only: " + address + " -> " + device);
        }
        this.address = address;
        this.device = new InetSocketAddress(device, 4791);
        try {
            channel = UdpPort.openDf(false);
            // Room for the answers to a flood the test sends before it reads them (a datagram takes ~1 KiB).
            channel.setOption(java.net.StandardSocketOptions.SO_RCVBUF, RECEIVE_BUFFER);
            channel.bind(new InetSocketAddress(address, 4791));
            channel.configureBlocking(false);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind a raw CM peer on " + address.getHostAddress() + ":4791", e);
        }
    }

    @Override
    public InetAddress address() {
        return address;
    }

    private static int ipv4(InetAddress a) {
        return ByteBuffer.wrap(a.getAddress()).getInt();
    }

    @Override
    public synchronized void send(long tid, CmMessage message) {
        int n = CmMadCodec.encodeDatagram(new CmMad(tid, message), Bth.DEFAULT_PKEY, psn, out, 0);
        psn = (psn + 1) & Bth.MASK_PSN;
        icrc.sealIpv4ForSend(out, 0, n, ipv4(address), ipv4(device.getAddress()), 4791, 4791);
        try {
            channel.send(ByteBuffer.wrap(out.asSlice(0, n).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)),
                    device);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public synchronized Received receive(Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        try {
            while (true) {
                in.clear();
                if (channel.receive(in) != null) {
                    in.flip();
                    MemorySegment d = MemorySegment.ofBuffer(in);
                    CmDecodeResult r = CmMadCodec.decodeDatagram(d, 0, in.remaining());
                    if (!(r instanceof CmDecodeResult.Decoded m)) {
                        throw new AssertionError("not a CM MAD: " + r);
                    }
                    return new Received(m.mad().transactionId(), m.mad().message());
                }
                if (System.nanoTime() - deadline > 0) {
                    return null;
                }
                Thread.sleep(1);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String toString() {
        return "raw CM peer " + address.getHostAddress();
    }
}
