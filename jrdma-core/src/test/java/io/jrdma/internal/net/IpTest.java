package io.jrdma.internal.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** Address families, IPv4-mapped and link-local addresses, and the text a user reads. */
class IpTest {
    private static InetAddress v6(String hex) throws Exception {
        return Inet6Address.getByAddress(null, HexFormat.of().parseHex(hex), null);
    }

    @Test
    void anIpv4MappedAddressIsToldApartAndUnmappedToItsIpv4Address() throws Exception {
        InetAddress mapped = v6("00000000000000000000ffff0a00040f");
        assertThat(Ip.isIpv4Mapped(mapped)).isTrue();
        assertThat(Ip.unmapped(mapped)).isInstanceOf(Inet4Address.class)
                .isEqualTo(InetAddress.getByName("10.0.4.15"));
        assertThat(Ip.isIpv4Mapped(InetAddress.getByName("10.0.4.15"))).isFalse();
        assertThat(Ip.isIpv4Mapped(InetAddress.getByName("fd00:4::15"))).isFalse();
        // ::ffff:0:0:1 differs from the mapped prefix in one byte: not mapped
        assertThat(Ip.isIpv4Mapped(v6("0000000000000000ffff00000a00040f"))).isFalse();
        InetAddress plain = InetAddress.getByName("fd00:4::15");
        assertThat(Ip.unmapped(plain)).isSameAs(plain);
    }

    @Test
    void addressesAreWrittenInTheirShortestForm() throws Exception {
        assertThat(Ip.literal(InetAddress.getByName("::1"))).isEqualTo("::1");
        assertThat(Ip.literal(InetAddress.getByName("::"))).isEqualTo("::");
        assertThat(Ip.literal(InetAddress.getByName("fd00:4:0:0:0:0:0:15"))).isEqualTo("fd00:4::15");
        assertThat(Ip.literal(InetAddress.getByName("2001:db8:0:0:1:0:0:1"))).isEqualTo("2001:db8::1:0:0:1");
        assertThat(Ip.literal(InetAddress.getByName("2001:db8:0:1:1:1:1:1"))).as("one zero group stays")
                .isEqualTo("2001:db8:0:1:1:1:1:1");
        assertThat(Ip.literal(InetAddress.getByName("FE80::5054:FF:FE12:3457"))).isEqualTo("fe80::5054:ff:fe12:3457");
        assertThat(Ip.literal(InetAddress.getByName("fe80::1%7"))).isEqualTo("fe80::1%7");
        assertThat(Ip.literal(v6("00000000000000000000ffff0a00040f"))).isEqualTo("::ffff:10.0.4.15");
        assertThat(Ip.literal(InetAddress.getByName("10.0.4.2"))).isEqualTo("10.0.4.2");
        assertThat(Ip.endpoint(new InetSocketAddress(InetAddress.getByName("::1"), 7174))).isEqualTo("[::1]:7174");
        assertThat(Ip.endpoint(new InetSocketAddress(InetAddress.getByName("10.0.4.2"), 7174)))
                .isEqualTo("10.0.4.2:7174");
        assertThat(Ip.endpoint(InetSocketAddress.createUnresolved("fd00::1", 1))).isEqualTo("[fd00::1]:1");
    }

    @Test
    void aLinkLocalAddressWithoutAScopeTakesTheScopeOfTheInterfaceAddress() throws Exception {
        InetAddress bare = InetAddress.getByName("fe80::2");
        InetAddress mine = InetAddress.getByName("fe80::1%3");
        assertThat(Ip.isLinkLocal(bare)).isTrue();
        assertThat(Ip.hasScope(bare)).isFalse();
        assertThat(Ip.hasScope(mine)).isTrue();
        InetAddress scoped = Ip.withScopeOf(bare, mine);
        assertThat(((Inet6Address) scoped).getScopeId()).isEqualTo(3);
        assertThat(scoped).isEqualTo(bare);
        InetAddress global = InetAddress.getByName("fd00::2");
        assertThat(Ip.withScopeOf(global, mine)).isSameAs(global);
        assertThat(Ip.withScopeOf(bare, InetAddress.getByName("fd00::1"))).isSameAs(bare);
    }

    @Test
    void wildcardAndLoopbackAddressesComeInBothFamilies() {
        assertThat(Ip.wildcard(false).isAnyLocalAddress()).isTrue();
        assertThat(Ip.wildcard(false)).isInstanceOf(Inet4Address.class);
        assertThat(Ip.wildcard(true).isAnyLocalAddress()).isTrue();
        assertThat(Ip.wildcard(true)).isInstanceOf(Inet6Address.class);
        assertThat(Ip.loopback(true).isLoopbackAddress()).isTrue();
        assertThat(Ip.loopback(true)).isInstanceOf(Inet6Address.class);
        assertThat(Ip.loopback(false)).isInstanceOf(Inet4Address.class);
        assertThat(Ip.sameFamily(Ip.loopback(true), Ip.wildcard(true))).isTrue();
        assertThat(Ip.sameFamily(Ip.loopback(true), Ip.loopback(false))).isFalse();
    }
}
