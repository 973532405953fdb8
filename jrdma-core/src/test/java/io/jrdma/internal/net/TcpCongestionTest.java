package io.jrdma.internal.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.channels.DatagramChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Choosing a socket's congestion control on loopback; reno is allowed to every Linux process. */
class TcpCongestionTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    @BeforeAll
    static void linux() {
        assumeTrue(TcpCongestion.supported(), "Linux only");
    }

    /** The kernel's default for new sockets here. */
    private static String systemDefault() throws IOException {
        return Files.readString(Path.of("/proc/sys/net/ipv4/tcp_congestion_control")).strip();
    }

    @Test
    void aConnectedSocketIsFoundAmongManyAndOnlyItChanges() throws IOException {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(LOOPBACK, 0));
                SocketChannel a = SocketChannel.open(server.getLocalAddress());
                SocketChannel aPeer = server.accept();
                SocketChannel b = SocketChannel.open(server.getLocalAddress());
                SocketChannel bPeer = server.accept()) {
            String before = TcpCongestion.get(a);
            assertThat(before).isEqualTo(systemDefault());
            // reno is allowed to every process; cubic, needed only where reno is the default, may not be.
            String other = before.equals("reno") ? "cubic" : "reno";
            assumeTrue(other.equals("reno") || allowed().contains(other), other + " not allowed here");

            TcpCongestion.set(b, other);

            assertThat(TcpCongestion.get(b)).isEqualTo(other);
            // The socket with the same local port range, the peers and the listener are untouched.
            assertThat(TcpCongestion.get(a)).isEqualTo(before);
            assertThat(TcpCongestion.get(bPeer)).isEqualTo(before);
            assertThat(TcpCongestion.get(aPeer)).isEqualTo(before);
            assertThat(TcpCongestion.get(server)).isEqualTo(before);
        }
    }

    @Test
    void aListenersChoiceIsInheritedByTheConnectionsItAccepts() throws IOException {
        String want = "reno";
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(LOOPBACK, 0))) {
            TcpCongestion.set(server, want);
            assertThat(TcpCongestion.get(server)).isEqualTo(want);
            try (SocketChannel c = SocketChannel.open(server.getLocalAddress()); SocketChannel s = server.accept()) {
                assertThat(TcpCongestion.get(s)).isEqualTo(want);
                assertThat(TcpCongestion.get(c)).isEqualTo(systemDefault());
            }
        }
    }

    @Test
    void aBoundUnconnectedSocketCanChooseBeforeItConnects() throws IOException {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(LOOPBACK, 0));
                SocketChannel c = SocketChannel.open()) {
            c.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            c.bind(new InetSocketAddress(LOOPBACK, 0));
            TcpCongestion.set(c, "reno");
            c.connect(server.getLocalAddress());
            try (SocketChannel s = server.accept()) {
                assertThat(TcpCongestion.get(c)).isEqualTo("reno");
                assertThat(TcpCongestion.get(s)).isEqualTo(systemDefault());
            }
        }
    }

    @Test
    void aUdpSocketOnTheSamePortIsNotTakenForTheTcpListener() throws IOException {
        // TCP and UDP number their ports apart: an unconnected UDP socket can have the listener's very name.
        // Opened first, it has the lower descriptor, and the scan meets it first.
        for (int attempt = 0; attempt < 20; attempt++) {
            try (DatagramChannel udp = DatagramChannel.open(StandardProtocolFamily.INET)
                    .bind(new InetSocketAddress(LOOPBACK, 0));
                    ServerSocketChannel server = ServerSocketChannel.open()) {
                try {
                    server.bind(udp.getLocalAddress());
                } catch (BindException e) {
                    continue; // the port is taken for TCP; try another
                }
                TcpCongestion.forgetHint();
                TcpCongestion.set(server, "reno");
                assertThat(TcpCongestion.get(server)).isEqualTo("reno");
                return;
            }
        }
        throw new AssertionError("no port free for both UDP and TCP in 20 attempts");
    }

    @Test
    void aSocketNextToTheLastOneFoundIsFoundWithoutAScanAndAFarOneWithIt() throws IOException {
        try (ServerSocketChannel a = ServerSocketChannel.open().bind(new InetSocketAddress(LOOPBACK, 0));
                ServerSocketChannel b = ServerSocketChannel.open().bind(new InetSocketAddress(LOOPBACK, 0))) {
            int fa = TcpCongestion.fdOf(a);
            int fb = TcpCongestion.fdOf(b);
            assertThat(fb).isNotEqualTo(fa);
            TcpCongestion.forgetHint();
            assertThat(TcpCongestion.fdOf(b)).as("by the scan").isEqualTo(fb);
            assertThat(TcpCongestion.fdOf(a)).as("near the hint").isEqualTo(fa);
        }
    }

    @Test
    void anAlgorithmTheKernelDoesNotHaveIsRefusedByName() throws IOException {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(LOOPBACK, 0))) {
            String before = TcpCongestion.get(server);
            assertThatThrownBy(() -> TcpCongestion.set(server, "nosuchcc"))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("'nosuchcc' is not available on this host");
            assertThat(TcpCongestion.get(server)).isEqualTo(before);
        }
    }

    @Test
    void eachRefusalSaysWhyAndWhatTheHostOffers() throws IOException {
        // EPERM needs a process without CAP_NET_ADMIN, which a test run as root is not: the mapping is
        // checked here, the ENOENT path end to end above.
        String allowed = Files.readString(Path.of("/proc/sys/net/ipv4/tcp_allowed_congestion_control")).strip();
        assertThat(TcpCongestion.refusal("bbr", 1)).isEqualTo("TCP congestion control 'bbr' is not allowed to this "
                + "process (allowed without CAP_NET_ADMIN, net.ipv4.tcp_allowed_congestion_control: " + allowed + ")");
        assertThat(TcpCongestion.refusal("x", 2)).startsWith("TCP congestion control 'x' is not available on this "
                + "host (available: ").contains("reno");
        assertThat(TcpCongestion.refusal("reno", 22)).isEqualTo("setsockopt(TCP_CONGESTION, reno) failed: errno 22");
    }

    @Test
    void endpointsNoSocketHasAreReportedNotGuessed() throws IOException {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(LOOPBACK, 0))) {
            InetSocketAddress at = (InetSocketAddress) server.getLocalAddress();
            assertThat(TcpCongestion.get(at, null)).isEqualTo(TcpCongestion.get(server));
            InetSocketAddress peer = new InetSocketAddress(LOOPBACK, 1);
            TcpCongestion.forgetHint();
            assertThatThrownBy(() -> TcpCongestion.get(at, peer))
                    .isInstanceOf(IOException.class)
                    .hasMessage("no file descriptor of this process is the socket " + at + " -> " + peer);
        }
    }

    @Test
    void malformedNamesAreRejectedBeforeAnySystemCall() {
        for (String bad : new String[] {null, "", "Reno", "reno cubic", "a_name_far_too_long", "bbr\0"}) {
            assertThatThrownBy(() -> TcpCongestion.checkName(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("TCP congestion control must be a Linux algorithm name");
        }
        assertThat(TcpCongestion.checkName("htcp")).isEqualTo("htcp");
    }

    @Test
    void anUnboundChannelIsReportedNotGuessed() throws IOException {
        try (SocketChannel c = SocketChannel.open()) {
            assertThatThrownBy(() -> TcpCongestion.set(c, "reno"))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("not bound");
        }
    }

    private static List<String> allowed() throws IOException {
        return List.of(Files.readString(Path.of("/proc/sys/net/ipv4/tcp_allowed_congestion_control")).strip()
                .split("\\s+"));
    }
}
