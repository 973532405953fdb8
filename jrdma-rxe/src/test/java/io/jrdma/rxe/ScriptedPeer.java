package io.jrdma.rxe;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.rxe.net.UdpPort;
import io.jrdma.internal.roce.Icrc;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;

/**
 * A RoCEv2 peer made of a bare UDP socket on 127.0.0.3:4791 (DF, unconnected): a test plays the
 * other side of a QP packet by packet, sees exactly the datagrams jrdma sends (checking their ICRC
 * as a receiver would, solving the IPv4 id) and sends hand-made ones (sealed for id 0 + DF).
 */
final class ScriptedPeer implements AutoCloseable {
    static final String ADDRESS = "127.0.0.3";
    static final int PORT = 4791;

    private final int self;
    private final DatagramChannel channel;
    private final Icrc icrc = new Icrc();

    /** The last datagram's sender. */
    InetSocketAddress lastSender;
    /** The IPv4 id and DF the last datagram's ICRC was made for ({@link Icrc#solveIpv4Id}). */
    long lastMatch;

    ScriptedPeer() throws IOException {
        this(ADDRESS);
    }

    /** A peer on {@code address}:4791 (127.0.0.3 unless a test needs a second, off-path sender). */
    ScriptedPeer(String address) throws IOException {
        InetSocketAddress at = new InetSocketAddress(address, PORT);
        self = ByteBuffer.wrap(at.getAddress().getAddress()).getInt();
        channel = UdpPort.openDf(false);
        channel.bind(at);
        channel.configureBlocking(false);
    }

    /** The next datagram's UDP payload (BTH .. ICRC), within {@code ms}; its ICRC must be valid. */
    byte[] receive(long ms) throws IOException, InterruptedException {
        ByteBuffer b = ByteBuffer.allocateDirect(65536);
        long deadline = System.nanoTime() + ms * 1_000_000L;
        while (System.nanoTime() < deadline) {
            InetSocketAddress from = (InetSocketAddress) channel.receive(b);
            if (from != null) {
                b.flip();
                byte[] p = new byte[b.remaining()];
                b.get(p);
                lastSender = from;
                int src = ByteBuffer.wrap(from.getAddress().getAddress()).getInt();
                lastMatch = icrc.solveIpv4Id(MemorySegment.ofArray(p), 0, p.length, src, self, from.getPort(), PORT);
                assertThat(lastMatch).as("ICRC of a datagram from %s", from).isNotEqualTo(Icrc.NO_MATCH);
                return p;
            }
            Thread.sleep(1);
        }
        throw new AssertionError("no datagram within " + ms + " ms");
    }

    /** Asserts nothing arrives within {@code ms}. */
    void assertQuiet(long ms) throws IOException, InterruptedException {
        ByteBuffer b = ByteBuffer.allocate(65536);
        long deadline = System.nanoTime() + ms * 1_000_000L;
        while (System.nanoTime() < deadline) {
            if (channel.receive(b) != null) {
                throw new AssertionError("unexpected datagram of " + b.position() + " bytes");
            }
            Thread.sleep(1);
        }
    }

    /** Sends {@code headersAndPayload} (BTH ..) plus an ICRC to {@code to}:4791. */
    void send(byte[] headersAndPayload, String to) throws IOException {
        send(headersAndPayload, to, 0);
    }

    /**
     * Sends {@code headersAndPayload} (BTH ..) plus an ICRC to {@code to}:4791, the ICRC xor-ed with
     * {@code icrcFlip} (0: a valid ICRC).
     */
    void send(byte[] headersAndPayload, String to, int icrcFlip) throws IOException {
        byte[] p = new byte[headersAndPayload.length + Icrc.LENGTH];
        System.arraycopy(headersAndPayload, 0, p, 0, headersAndPayload.length);
        InetSocketAddress dst = new InetSocketAddress(to, PORT);
        int d = ByteBuffer.wrap(dst.getAddress().getAddress()).getInt();
        MemorySegment s = MemorySegment.ofArray(p);
        icrc.sealIpv4ForSend(s, 0, p.length, self, d, PORT, PORT);
        if (icrcFlip != 0) {
            Icrc.store(s, 0, p.length, Icrc.stored(s, 0, p.length) ^ icrcFlip);
        }
        sendRaw(p, to);
    }

    /** Sends {@code datagram} exactly as given (no ICRC added or sealed) to {@code to}:4791. */
    void sendRaw(byte[] datagram, String to) throws IOException {
        channel.send(ByteBuffer.wrap(datagram), new InetSocketAddress(to, PORT));
    }

    /** Discards whatever waits. */
    void drain() throws IOException {
        ByteBuffer b = ByteBuffer.allocate(65536);
        while (channel.receive(b) != null) {
            b.clear();
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
