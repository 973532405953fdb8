package io.jrdma.internal.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import jdk.net.ExtendedSocketOptions;
import org.junit.jupiter.api.Test;

/** IPV6_V6ONLY on a JDK channel: an IPv6 wildcard listener that refuses IPv4 and shares its port with one. */
class Ipv6OnlyTest {
    private static boolean ipv6Loopback() {
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.INET6)) {
            probe.bind(new InetSocketAddress(InetAddress.getByName("::1"), 0));
            return true;
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    @Test
    void aV6OnlyWildcardRefusesIpv4AndLetsAnIpv4ListenerHaveThePort() throws Exception {
        assumeTrue(TcpCongestion.supported() && ipv6Loopback(), "Linux with ::1");
        try (ServerSocketChannel v6 = ServerSocketChannel.open(StandardProtocolFamily.INET6)) {
            Ipv6Only.set(v6);
            assertThat(v6.getOption(ExtendedSocketOptions.TCP_KEEPIDLE)).as("the mark is gone").isNotEqualTo(0)
                    .isLessThanOrEqualTo(32767);
            v6.bind(new InetSocketAddress(InetAddress.getByName("::"), 0));
            int port = ((InetSocketAddress) v6.getLocalAddress()).getPort();
            assertThatThrownBy(() -> {
                try (SocketChannel c = SocketChannel.open(new InetSocketAddress("127.0.0.1", port))) {
                    c.isConnected();
                }
            }).as("nobody listens for IPv4 on the port").isInstanceOf(ConnectException.class);
            try (SocketChannel c = SocketChannel.open(new InetSocketAddress(InetAddress.getByName("::1"), port))) {
                assertThat(c.isConnected()).isTrue();
            }
            try (ServerSocketChannel v4 = ServerSocketChannel.open(StandardProtocolFamily.INET)) {
                v4.bind(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), port));
                assertThat(((InetSocketAddress) v4.getLocalAddress()).getPort()).isEqualTo(port);
            }
        }
    }

    @Test
    void aDualStackWildcardTakesIpv4AndKeepsThePortFromAnIpv4Listener() throws Exception {
        assumeTrue(TcpCongestion.supported() && ipv6Loopback(), "Linux with ::1");
        try (ServerSocketChannel dual = ServerSocketChannel.open(StandardProtocolFamily.INET6)) {
            dual.bind(new InetSocketAddress(InetAddress.getByName("::"), 0));
            int port = ((InetSocketAddress) dual.getLocalAddress()).getPort();
            try (SocketChannel c = SocketChannel.open(new InetSocketAddress("127.0.0.1", port))) {
                assertThat(c.isConnected()).as("the control: without V6ONLY IPv4 gets in").isTrue();
            }
            try (ServerSocketChannel v4 = ServerSocketChannel.open(StandardProtocolFamily.INET)) {
                assertThatThrownBy(() -> v4.bind(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), port)))
                        .isInstanceOf(java.net.BindException.class);
            }
        }
    }

    @Test
    void aBoundChannelIsRefused() throws Exception {
        assumeTrue(TcpCongestion.supported() && ipv6Loopback(), "Linux with ::1");
        try (ServerSocketChannel v6 = ServerSocketChannel.open(StandardProtocolFamily.INET6)) {
            v6.bind(new InetSocketAddress(InetAddress.getByName("::1"), 0));
            assertThatThrownBy(() -> Ipv6Only.set(v6)).isInstanceOf(IllegalStateException.class);
        }
    }
}
