package io.jrdma.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/**
 * The {@code struct sockaddr_in}/{@code sockaddr_in6} the connection manager hands librdmacm, checked on
 * any host (no library is called): the family in host order, the port and the address in network order,
 * the IPv6 scope id; and read back as {@code rdma_get_local_addr}/{@code rdma_get_peer_addr} give them.
 */
class NativeCmSockaddrTest {
    @Test
    void ipv4IsAfInetWithPortAndAddressInNetworkOrder() throws Exception {
        try (Arena a = Arena.ofConfined()) {
            InetSocketAddress s = new InetSocketAddress(InetAddress.getByName("10.0.2.15"), 0x1a2b);
            MemorySegment sa = NativeCm.sockaddr(a, s);
            assertThat(sa.get(ValueLayout.JAVA_SHORT, 0)).isEqualTo((short) 2);
            assertThat(sa.asSlice(2, 6).toArray(ValueLayout.JAVA_BYTE)).containsExactly(0x1a, 0x2b, 10, 0, 2, 15);
            assertThat(NativeCm.fromSockaddr(sa)).isEqualTo(s);
        }
    }

    @Test
    void ipv6CarriesItsScopeId() throws Exception {
        try (Arena a = Arena.ofConfined()) {
            byte[] ip = InetAddress.getByName("fe80::1").getAddress();
            InetSocketAddress s = new InetSocketAddress(Inet6Address.getByAddress(null, ip, 3), 7471);
            MemorySegment sa = NativeCm.sockaddr(a, s);
            assertThat(sa.get(ValueLayout.JAVA_SHORT, 0)).isEqualTo((short) 10);
            assertThat(sa.asSlice(2, 2).toArray(ValueLayout.JAVA_BYTE)).containsExactly(0x1d, 0x2f);
            assertThat(sa.asSlice(8, 16).toArray(ValueLayout.JAVA_BYTE)).containsExactly(ip);
            assertThat(sa.get(ValueLayout.JAVA_INT, 24)).isEqualTo(3);
            assertThat(NativeCm.fromSockaddr(sa)).isEqualTo(s);
        }
    }

    @Test
    void anUnresolvedAddressIsRefused() {
        try (Arena a = Arena.ofConfined()) {
            assertThatThrownBy(() -> NativeCm.sockaddr(a, InetSocketAddress.createUnresolved("peer", 1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unresolved");
        }
    }
}
