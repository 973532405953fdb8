package io.jrdma.tools.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;

import org.junit.jupiter.api.Test;

/** How the tools read addresses (IPv4, IPv6 with or without brackets, names, HOST:PORT) and write them. */
class HostsTest {
    @Test
    void literalsOfBothFamiliesResolveWithOrWithoutBrackets() throws Exception {
        assertThat(Hosts.resolve("10.0.4.2", "-a")).isEqualTo(InetAddress.getByName("10.0.4.2"));
        assertThat(Hosts.resolve("fd00:4::15", "-a")).isEqualTo(InetAddress.getByName("fd00:4::15"));
        assertThat(Hosts.resolve("[fd00:4::15]", "-a")).isEqualTo(InetAddress.getByName("fd00:4::15"));
        assertThat(Hosts.resolve(" ::1 ", "-a")).isInstanceOf(Inet6Address.class);
        assertThat(Hosts.isLiteral("fd00:4::15")).isTrue();
        assertThat(Hosts.isLiteral("[::1]")).isTrue();
        assertThat(Hosts.isLiteral("fe80::1%eth1")).isTrue();
        assertThat(Hosts.isLiteral("10.0.4.2")).isTrue();
        assertThat(Hosts.isLiteral("localhost")).isFalse();
        assertThat(Hosts.isLiteral("beef")).as("a name made of hex letters").isFalse();
    }

    @Test
    void anIpv4MappedLiteralStaysAnIpv6AddressAsGetaddrinfoGivesIt() {
        InetAddress a = Hosts.resolve("::ffff:10.0.4.15", "-a");
        assertThat(a).isInstanceOf(Inet6Address.class);
        assertThat(Hosts.literal(a)).isEqualTo("::ffff:10.0.4.15");
    }

    @Test
    void aFamilyPicksTheAddressOfThatFamilyOrFailsClearly() {
        assertThat(Hosts.resolve("localhost", "HOST", StandardProtocolFamily.INET)).isInstanceOf(Inet4Address.class);
        assertThatThrownBy(() -> Hosts.resolve("127.0.0.1", "HOST", StandardProtocolFamily.INET6))
                .isInstanceOf(ToolFailure.class).hasMessageContaining("127.0.0.1 has no IPv6 address");
        assertThatThrownBy(() -> Hosts.resolve("no-such-host.invalid", "-a")).isInstanceOf(ToolFailure.class)
                .hasMessageContaining("cannot resolve no-such-host.invalid");
    }

    @Test
    void hostAndPortTakeBracketsForIpv6() throws Exception {
        assertThat(Hosts.hostPort("[::1]:9010", "--jmx"))
                .isEqualTo(new InetSocketAddress(InetAddress.getByName("::1"), 9010));
        assertThat(Hosts.hostPort("127.0.0.1:9010", "--jmx"))
                .isEqualTo(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 9010));
        assertThatThrownBy(() -> Hosts.hostPort("::1:9010", "--jmx")).as("a bare IPv6 literal has no port")
                .isInstanceOf(ToolFailure.class).hasMessageContaining("[::1]:9010");
        assertThatThrownBy(() -> Hosts.hostPort("[::1]9010", "--jmx")).isInstanceOf(ToolFailure.class);
        assertThatThrownBy(() -> Hosts.hostPort("127.0.0.1:70000", "--jmx")).isInstanceOf(ToolFailure.class)
                .hasMessageContaining("0..65535");
        assertThatThrownBy(() -> Hosts.hostPort("127.0.0.1", "--jmx")).isInstanceOf(ToolFailure.class);
    }

    @Test
    void endpointsAreWrittenAsUsersWriteThem() throws Exception {
        assertThat(Hosts.endpoint(new InetSocketAddress(InetAddress.getByName("fd00:4:0:0:0:0:0:2"), 7174)))
                .isEqualTo("[fd00:4::2]:7174");
        assertThat(Hosts.endpoint(new InetSocketAddress(InetAddress.getByName("10.0.4.2"), 7174)))
                .isEqualTo("10.0.4.2:7174");
        assertThat(Hosts.literal(InetAddress.getByName("::1"))).isEqualTo("::1");
        assertThat(Hosts.endpoint(null)).isEqualTo("null");
    }

    @Test
    void aServerWithoutAnAddressListensOnTheWildcardOfItsFamily() {
        assertThat(Hosts.wildcard(false)).isInstanceOf(java.net.Inet4Address.class)
                .matches(InetAddress::isAnyLocalAddress);
        assertThat(Hosts.literal(Hosts.wildcard(false))).isEqualTo("0.0.0.0");
        assertThat(Hosts.wildcard(true)).isInstanceOf(java.net.Inet6Address.class)
                .matches(InetAddress::isAnyLocalAddress);
        assertThat(Hosts.literal(Hosts.wildcard(true))).isEqualTo("::");
    }
}
