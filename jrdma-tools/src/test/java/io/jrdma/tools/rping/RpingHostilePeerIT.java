package io.jrdma.tools.rping;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.testkit.Hygiene;
import io.jrdma.tools.ToolHarness;
import io.jrdma.tools.ToolHarness.Outcome;
import io.jrdma.tools.ToolHarness.Server;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A persistent {@code jrdma rping -s -P} server on siw against raw MPA bytes, then normal clients: what an
 * outside hostile-peer run sends it. Requests whose MPA v2 IRD/ORD are legal 14-bit values above what
 * rdma_cm's conn_param holds once wedged the server for good after three of them (its backlog); malformed
 * requests get siw's answer; and through all of it the server keeps serving, and its own output shows no
 * exception.
 */
@Timeout(120)
class RpingHostilePeerIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int TIMEOUT_MS = 10_000;

    @RegisterExtension
    final Hygiene hygiene = new Hygiene();

    /** An MPA request: revision 2, {@code flags}, PD_Length {@code pdLength}, then {@code body}. */
    private static byte[] request(int flags, int pdLength, byte[] body) {
        ByteBuffer b = ByteBuffer.allocate(20 + body.length);
        b.put("MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII)).put((byte) flags).put((byte) 2)
                .putShort((short) pdLength).put(body);
        return b.array();
    }

    /** The 24-byte request with the H bit and the v2 block {@code ird}/{@code ord}. */
    private static byte[] v2(int ird, int ord) {
        return request(0x10, 4, ByteBuffer.allocate(4).putShort((short) ird).putShort((short) ord).array());
    }

    private static Socket connect(int port) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), TIMEOUT_MS);
        s.setSoTimeout(TIMEOUT_MS);
        return s;
    }

    /** Sends {@code bytes} and returns the 20-byte header of the MPA reply. */
    private static byte[] exchange(Socket s, byte[] bytes) throws IOException {
        s.getOutputStream().write(bytes);
        byte[] head = s.getInputStream().readNBytes(20);
        assertThat(head).as("an MPA reply header").hasSize(20);
        assertThat(new String(head, 0, 16, StandardCharsets.US_ASCII)).isEqualTo("MPA ID Rep Frame");
        int pd = (head[18] & 0xFF) << 8 | head[19] & 0xFF;
        byte[] rest = s.getInputStream().readNBytes(pd);
        byte[] all = Arrays.copyOf(head, 20 + pd);
        System.arraycopy(rest, 0, all, 20, rest.length);
        return all;
    }

    /** Reads until the server closes; true for a close (FIN or RST) within the timeout. */
    private static boolean closes(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        try {
            while (in.read() >= 0) {
                // nothing is expected; the close is
            }
            return true;
        } catch (SocketException reset) {
            return true;
        }
    }

    @Test
    void aPersistentServerAnswersHostileRequestsAsSiwAndKeepsServingNormalClients() throws Exception {
        String port = Integer.toString(ToolHarness.freePort());
        Server server = ToolHarness.startServerAwaiting("rdma_listen", "rping", "-s", "-P", "-v", "-d", "-a",
                "127.0.0.1", "-p", port, "--device", "siw0", "--accept-timeout", "8");
        int p = Integer.parseInt(port);
        // Twice the backlog of requests with depths above 255: each is served (the depths capped at siw's
        // 128); the raw peer then leaves, which the server sees as a disconnect.
        int[][] depths = {{0x3FFF, 0x3FFF}, {256, 256}, {0x3FFF, 1}, {1, 0x3FFF}, {300, 4096}, {255, 0x2000}};
        for (int[] d : depths) {
            try (Socket s = connect(p)) {
                byte[] reply = exchange(s, v2(d[0], d[1]));
                assertThat(reply[16] & 0x20).as("accepted, not rejected").isZero();
                assertThat(reply).hasSize(24);
                int ird = (reply[20] & 0x3F) << 8 | reply[21] & 0xFF;
                int ord = (reply[22] & 0x3F) << 8 | reply[23] & 0xFF;
                assertThat(ird).as("the server's IRD covers the peer's ORD, capped").isEqualTo(Math.min(d[1], 128));
                assertThat(ord).as("the server's ORD within the peer's IRD, capped").isLessThanOrEqualTo(128);
            }
        }
        // The H bit without room for the v2 block: siw's reject (R set, H echoed, PD_Length 0), then a close.
        for (int pd = 0; pd < 4; pd++) {
            try (Socket s = connect(p)) {
                byte[] reply = exchange(s, request(0x10, pd, new byte[pd]));
                assertThat(reply[16] & 0xF0).as("R and H").isEqualTo(0x30);
                assertThat(reply).hasSize(20);
                assertThat(closes(s)).isTrue();
            }
        }
        // A bad key, revision 3, PD_Length 257, data behind the request: closed without a reply.
        byte[] badKey = v2(1, 1);
        badKey[0] = 'X';
        byte[] rev3 = v2(1, 1);
        rev3[17] = 3;
        byte[] pd257 = request(0x10, 257, new byte[257]);
        byte[] extra = Arrays.copyOf(v2(1, 1), 40);
        for (byte[] bad : new byte[][] {badKey, rev3, pd257, extra}) {
            try (Socket s = connect(p)) {
                s.getOutputStream().write(bad);
                assertThat(closes(s)).isTrue();
            }
        }
        for (int i = 0; i < 2; i++) {
            Outcome c = ToolHarness.run("rping", "-c", "-V", "-a", "127.0.0.1", "-p", port, "-C", "3", "--device",
                    "siw0");
            assertThat(c.exitCode()).as("client %d: %s", i, c.stderr()).isZero();
        }
        Outcome s = server.await(WAIT);
        assertThat(s.exitCode()).as(s.stderr()).isZero();
        assertThat(s.stdout().lines().filter(l -> l.startsWith("server ping data: rdma-ping-2: "))).hasSize(2);
        assertThat(s.stderr()).as("the server's own output").doesNotContain("Exception", "rping: ");
    }
}
