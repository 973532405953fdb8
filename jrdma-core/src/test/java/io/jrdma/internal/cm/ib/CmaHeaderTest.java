package io.jrdma.internal.cm.ib;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.spi.ibcm.Octets;
import io.jrdma.spi.ibcm.Req;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** rdma_cm's 36-byte private-data header, against the bytes Linux 6.1 rping put in its REQ. */
class CmaHeaderTest {
    /** The first 36 private-data bytes of the REQ in interop/evidence/d-cm-req.bin. */
    private static final String CAPTURED = "0040958f" + "000000000000000000000000" + "0a00020f"
            + "000000000000000000000000" + "0a000202";

    @Test
    void decodesTheHeaderOfACapturedReq() throws Exception {
        byte[] pd = Arrays.copyOf(HexFormat.of().parseHex(CAPTURED), Req.PRIVATE_DATA_LIMIT);
        CmaHeader h = CmaHeader.decode(Octets.of(pd)).orElseThrow();
        assertThat(h.cmaVersion()).isZero();
        assertThat(h.ipVersion()).isEqualTo(4);
        assertThat(h.sourcePort()).isEqualTo(0x958f);
        assertThat(h.sourceAddress()).isEqualTo(InetAddress.getByName("10.0.2.15"));
        assertThat(h.destinationAddress()).isEqualTo(InetAddress.getByName("10.0.2.2"));
        assertThat(HexFormat.of().formatHex(h.encode())).isEqualTo(CAPTURED);
    }

    @Test
    void ipv6AddressesFillTheirFields() throws Exception {
        CmaHeader h = CmaHeader.of(InetAddress.getByName("fe80::1"), 7174, InetAddress.getByName("2001:db8::2"));
        byte[] b = h.encode();
        assertThat(b[1]).isEqualTo((byte) 0x60);
        assertThat(b[4]).isEqualTo((byte) 0xfe);
        assertThat(b[35]).isEqualTo((byte) 2);
        assertThat(CmaHeader.decode(Octets.of(b))).contains(h);
    }

    @Test
    void userDataFollowsTheHeaderWithinTheMessageLimit() throws Exception {
        CmaHeader h = CmaHeader.of(InetAddress.getByName("10.0.4.2"), 40001, InetAddress.getByName("10.0.4.15"));
        Octets pd = h.prependTo(new byte[CmaHeader.REQ_USER_LIMIT], Req.PRIVATE_DATA_LIMIT);
        assertThat(pd.length()).isEqualTo(92);
        assertThat(CmaHeader.REQ_USER_LIMIT).isEqualTo(56);
        assertThat(CmaHeader.SIDR_REQ_USER_LIMIT).isEqualTo(180);
        assertThatThrownBy(() -> h.prependTo(new byte[57], Req.PRIVATE_DATA_LIMIT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 56");
    }

    @Test
    void privateDataThatIsNotAnRdmaCmHeaderDecodesToNothing() {
        assertThat(CmaHeader.decode(Octets.of(new byte[35]))).isEmpty();
        byte[] b = HexFormat.of().parseHex(CAPTURED);
        b[1] = 0x50;
        assertThat(CmaHeader.decode(Octets.of(b))).isEmpty();
        assertThat(CmaHeader.decode(Octets.of(new byte[36]))).isEmpty();
    }

    @Test
    void mixedAddressFamiliesAndWidePortsAreRejected() throws Exception {
        InetAddress v4 = InetAddress.getByName("10.0.0.1");
        InetAddress v6 = InetAddress.getByName("::2");
        assertThatThrownBy(() -> CmaHeader.of(v4, 1, v6)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CmaHeader.of(v4, 65536, v4)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CmaHeader.of(null, 1, v4)).isInstanceOf(IllegalArgumentException.class);
    }
}
