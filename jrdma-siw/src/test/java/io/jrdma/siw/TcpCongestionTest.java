package io.jrdma.siw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The public face of socket congestion control, as an application uses it on its own loopback sockets. */
class TcpCongestionTest {

    /** An algorithm new sockets do not get by default and this process may choose (reno always may). */
    private static String notTheDefault() throws IOException {
        String def = Files.readString(Path.of("/proc/sys/net/ipv4/tcp_congestion_control")).strip();
        String other = def.equals("reno") ? "cubic" : "reno";
        List<String> allowed = List.of(Files.readString(Path.of("/proc/sys/net/ipv4/tcp_allowed_congestion_control"))
                .strip().split("\\s+"));
        assumeTrue(other.equals("reno") || allowed.contains(other), other + " is not allowed here");
        return other;
    }

    @Test
    void misuseIsRefusedAtTheCall() {
        assertThatThrownBy(() -> TcpCongestion.set(null, "reno")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("channel");
        assertThatThrownBy(() -> TcpCongestion.get((SocketChannel) null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TcpCongestion.get(null, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("local endpoint");
        assertThatThrownBy(() -> TcpCongestion.checkName("BBR v3")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("BBR v3");
        assertThat(TcpCongestion.checkName("reno")).isEqualTo("reno");
    }

    @Test
    void aListenersAlgorithmIsInheritedByTheConnectionsItAccepts() throws IOException {
        assumeTrue(TcpCongestion.supported(), "Linux only");
        String want = notTheDefault();
        try (ServerSocketChannel server = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            TcpCongestion.set(server, want);
            assertThat(TcpCongestion.get(server)).isEqualTo(want);
            try (SocketChannel client = SocketChannel.open(server.getLocalAddress());
                    SocketChannel accepted = server.accept()) {
                InetSocketAddress local = (InetSocketAddress) accepted.getLocalAddress();
                InetSocketAddress remote = (InetSocketAddress) accepted.getRemoteAddress();
                assertThat(TcpCongestion.get(local, remote)).as("accepted").isEqualTo(want);
                assertThat(TcpCongestion.get(accepted)).isEqualTo(want);
                assertThat(TcpCongestion.get(client)).as("the client keeps the default").isNotEqualTo(want);
            }
        }
    }

    @Test
    void anAlgorithmTheKernelLacksIsNamedInTheFailure() throws IOException {
        assumeTrue(TcpCongestion.supported(), "Linux only");
        try (ServerSocketChannel server = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            assertThatThrownBy(() -> TcpCongestion.set(server, "nosuchcc")).isInstanceOf(IOException.class)
                    .hasMessageContaining("nosuchcc");
        }
    }
}
