import io.jrdma.internal.cm.ib.CmaHeader;
import io.jrdma.rxe.cm.CmDecodeResult;
import io.jrdma.rxe.cm.CmMad;
import io.jrdma.rxe.cm.CmMadCodec;
import io.jrdma.internal.roce.Bth;
import io.jrdma.internal.roce.Icrc;
import io.jrdma.spi.ibcm.CmPath;
import io.jrdma.spi.ibcm.Drep;
import io.jrdma.spi.ibcm.Dreq;
import io.jrdma.spi.ibcm.Octets;
import io.jrdma.spi.ibcm.Rep;
import io.jrdma.spi.ibcm.Req;
import io.jrdma.spi.ibcm.Rtu;
import io.jrdma.verbs.Gid;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.Selector;
import java.nio.channels.SelectionKey;
import jdk.net.ExtendedSocketOptions;

/**
 * JavaCmProbe: jrdma-rxe's own codecs against a live Linux rxe, from a plain Java UDP socket in the
 * --tap namespace. Sends a REQ built with CmMadCodec and sealed with Icrc (id 0 + DF), expects the
 * guest's `rping -s -a 10.0.4.15` to answer REP (checked by solving its IPv4 id), sends RTU, then
 * DREQ, expects DREP. Exit 0 when all of that happened.
 *
 *   ip netns exec rxewire java -cp jrdma-rxe/target/classes:jrdma-core/target/classes \
 *       interop/capture/JavaCmProbe.java
 */
public class JavaCmProbe {
    static final int HOST = 0x0a000402, GUEST = 0x0a00040f, PORT = 4791;
    static final Icrc ICRC = new Icrc();
    static DatagramChannel ch;
    static int qp1Psn;

    public static void main(String[] args) throws Exception {
        ch = DatagramChannel.open(StandardProtocolFamily.INET);
        ch.setOption(ExtendedSocketOptions.IP_DONTFRAGMENT, true);
        ch.bind(new InetSocketAddress("10.0.4.2", PORT));
        InetAddress host = InetAddress.getByName("10.0.4.2");
        InetAddress guest = InetAddress.getByName("10.0.4.15");
        int comm = 0x1a2b3c4d;
        long tid = 0x4a4156410000_0001L;               // "JAVA" + 1
        CmPath path = new CmPath(0xffff, 0xffff, Gid.of(host), Gid.of(guest), 0x0abcd, 0, 0, 64, 0, false, 19);
        Req req = new Req(comm, 0, 0x0000000001061c06L, 0x5254000000000402L, 0, 0x000456, 1, 0, 1, 0, 20,
                Req.TRANSPORT_RC, false, 0x654321, 20, 7, 0xffff, 3, false, 7, 15, false, 0, path, CmPath.NONE,
                false, 0, CmaHeader.of(host, 40100, guest).prependTo(new byte[0], Req.PRIVATE_DATA_LIMIT));
        Rep rep = null;
        for (int attempt = 0; attempt < 8 && rep == null; attempt++) {
            send(new CmMad(tid, req), "REQ");
            CmMad in = receive(3000);
            if (in != null && in.message() instanceof Rep r) {
                rep = r;
            } else if (in != null) {
                System.out.println("  (not a REP: " + in.message().getClass().getSimpleName() + ", retrying)");
                Thread.sleep(1000);
            }
        }
        if (rep == null) {
            System.out.println("FAIL: no REP");
            System.exit(1);
        }
        System.out.printf("REP: qpn 0x%06x psn 0x%06x remote comm 0x%08x (ours 0x%08x)%n", rep.localQpn(),
                rep.startingPsn(), rep.remoteCommId(), comm);
        send(new CmMad(tid, new Rtu(comm, rep.localCommId(), Octets.empty())), "RTU");
        Thread.sleep(500);
        send(new CmMad(tid + 1, new Dreq(comm, rep.localCommId(), rep.localQpn(), Octets.empty())), "DREQ");
        CmMad in = receive(5000);
        boolean drep = in != null && in.message() instanceof Drep d && d.remoteCommId() == comm;
        System.out.println(drep ? "DREP received: PASS" : "FAIL: no DREP, got " + in);
        System.exit(drep ? 0 : 1);
    }

    static void send(CmMad mad, String what) throws Exception {
        byte[] buf = new byte[CmMadCodec.DATAGRAM_LENGTH];
        MemorySegment s = MemorySegment.ofArray(buf);
        int n = CmMadCodec.encodeDatagram(mad, 0xffff, qp1Psn++, s, 0);
        int icrc = ICRC.sealIpv4ForSend(s, 0, n, HOST, GUEST, PORT, PORT);
        ch.send(ByteBuffer.wrap(buf, 0, n), new InetSocketAddress("10.0.4.15", PORT));
        System.out.printf("sent %s, %d bytes, ICRC 0x%08x (IPv4 id 0 + DF)%n", what, n, icrc);
    }

    static CmMad receive(long timeoutMs) throws Exception {
        ch.configureBlocking(false);
        try (Selector sel = Selector.open()) {
            ch.register(sel, SelectionKey.OP_READ);
            long deadline = System.currentTimeMillis() + timeoutMs;
            while (System.currentTimeMillis() < deadline) {
                if (sel.select(Math.max(1, deadline - System.currentTimeMillis())) == 0) {
                    continue;
                }
                sel.selectedKeys().clear();
                ByteBuffer bb = ByteBuffer.allocate(4096);
                InetSocketAddress from = (InetSocketAddress) ch.receive(bb);
                if (from == null) {
                    continue;
                }
                bb.flip();
                MemorySegment s = MemorySegment.ofBuffer(bb);
                int len = bb.remaining();
                int src = java.nio.ByteBuffer.wrap(from.getAddress().getAddress()).getInt();
                long m = ICRC.solveIpv4Id(s, 0, len, src, HOST, from.getPort(), PORT);
                CmDecodeResult r = CmMadCodec.decodeDatagram(s, 0, len);
                System.out.printf("received %d bytes from %s:%d, ICRC %s, %s%n", len, from.getAddress()
                        .getHostAddress(), from.getPort(), m == Icrc.NO_MATCH ? "BAD"
                        : String.format("OK for IPv4 id 0x%04x flags 0x%04x", Icrc.matchedId(m), Icrc.matchedFlags(m)),
                        r instanceof CmDecodeResult.Decoded d ? d.mad().message().getClass().getSimpleName()
                                + " psn " + new Bth().wrap(s, 0).psn() : r);
                if (m != Icrc.NO_MATCH && r instanceof CmDecodeResult.Decoded d) {
                    return d.mad();
                }
            }
        } finally {
            ch.configureBlocking(true);
        }
        return null;
    }
}
