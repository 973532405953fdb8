package io.jrdma.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** Addresses and endpoints as the public API writes them for a user. */
class CmStringsTest {

    @Test
    void addressesAreWrittenAsInetNtopWritesThem() throws Exception {
        assertThat(CmStrings.address(InetAddress.getByName("10.0.4.2"))).isEqualTo("10.0.4.2");
        assertThat(CmStrings.address(InetAddress.getByName("fd00:4:0:0:0:0:0:15"))).isEqualTo("fd00:4::15");
        assertThat(CmStrings.address(InetAddress.getByName("0:0:0:0:0:0:0:1"))).isEqualTo("::1");
        assertThat(CmStrings.address(InetAddress.getByName("fe80::1%7"))).isEqualTo("fe80::1%7");
        byte[] raw = HexFormat.of().parseHex("00000000000000000000ffff0a00040f");
        InetAddress mapped = Inet6Address.getByAddress(null, raw, null);
        assertThat(CmStrings.address(mapped)).isEqualTo("::ffff:10.0.4.15");
    }

    @Test
    void endpointsPutAnIpv6AddressInBrackets() throws Exception {
        assertThat(CmStrings.endpoint(new InetSocketAddress(InetAddress.getByName("fd00:4::2"), 7174)))
                .isEqualTo("[fd00:4::2]:7174");
        assertThat(CmStrings.endpoint(new InetSocketAddress(InetAddress.getByName("10.0.4.2"), 7174)))
                .isEqualTo("10.0.4.2:7174");
        assertThat(CmStrings.endpoint(InetSocketAddress.createUnresolved("node1", 7174))).isEqualTo("node1:7174");
    }

    @Test
    void aMissingAddressIsRefusedAtTheCall() {
        assertThatThrownBy(() -> CmStrings.address(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("address");
        assertThatThrownBy(() -> CmStrings.endpoint(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("endpoint");
    }
}
