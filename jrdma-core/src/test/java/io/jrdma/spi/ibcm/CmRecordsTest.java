package io.jrdma.spi.ibcm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.verbs.Gid;
import org.junit.jupiter.api.Test;

/** The CM records enforce field widths and private-data limits, and nothing else. */
class CmRecordsTest {
    private static Octets bytes(int n) {
        return Octets.of(new byte[n]);
    }

    private static Req req(int qpn, int mtu, Octets pd) {
        return new Req(1, 0, 0x1061c06L, 2L, 0, qpn, 1, 0, 1, 0, 20, Req.TRANSPORT_RC, false, 0x123456, 20, 7, 0xffff,
                mtu, false, 7, 15, false, 0, CmPath.NONE, CmPath.NONE, false, 0, pd);
    }

    @Test
    void privateDataLimitsAreThoseOfIbtaChapter12() {
        assertThat(req(1, 3, Octets.empty()).privateDataLimit()).isEqualTo(92);
        assertThat(new Mra(0, 0, 0, 0, Octets.empty()).privateDataLimit()).isEqualTo(222);
        assertThat(new Rej(0, 0, 0, 28, Octets.empty(), Octets.empty()).privateDataLimit()).isEqualTo(148);
        assertThat(new Rep(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, false, 0, false, 0, 0, Octets.empty()).privateDataLimit())
                .isEqualTo(196);
        assertThat(new Rtu(0, 0, Octets.empty()).privateDataLimit()).isEqualTo(224);
        assertThat(new Dreq(0, 0, 0, Octets.empty()).privateDataLimit()).isEqualTo(220);
        assertThat(new Drep(0, 0, Octets.empty()).privateDataLimit()).isEqualTo(224);
        assertThat(new SidrReq(0, 0, 0, Octets.empty()).privateDataLimit()).isEqualTo(216);
        assertThat(new SidrRep(0, 0, Octets.empty(), 0, 0, 0, 0, 0, Octets.empty()).privateDataLimit()).isEqualTo(136);
    }

    @Test
    void privateDataUpToTheLimitIsAcceptedAndOneByteMoreIsNot() {
        assertThat(req(1, 3, bytes(92)).privateData().length()).isEqualTo(92);
        assertThatThrownBy(() -> req(1, 3, bytes(93))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("privateData is at most 92 bytes, got 93");
        assertThatThrownBy(() -> new Rep(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, false, 0, false, 0, 0, bytes(197)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Rej(0, 0, 0, 28, Octets.empty(), bytes(149)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Rej(0, 0, 0, 28, bytes(73), Octets.empty()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("additionalRejectInfo");
        assertThatThrownBy(() -> new Mra(0, 0, 0, 0, bytes(223))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Rtu(0, 0, bytes(225))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Dreq(0, 0, 0, bytes(221))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Drep(0, 0, bytes(225))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SidrReq(0, 0, 0, bytes(217))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SidrRep(0, 0, bytes(73), 0, 0, 0, 0, 0, Octets.empty()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SidrRep(0, 0, Octets.empty(), 0, 0, 0, 0, 0, bytes(137)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Rtu(0, 0, null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void fieldsWiderThanTheirWireWidthAreRejected() {
        assertThat(req(0xffffff, 15, Octets.empty()).localQpn()).isEqualTo(0xffffff);
        assertThatThrownBy(() -> req(0x1000000, 3, Octets.empty())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("localQpn is a 24-bit field");
        assertThatThrownBy(() -> req(1, 16, Octets.empty())).hasMessageContaining("pathMtu is a 4-bit field");
        assertThatThrownBy(() -> req(-1, 3, Octets.empty())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Mra(0, 0, 4, 0, Octets.empty())).hasMessageContaining("messageMraed");
        assertThatThrownBy(() -> new Mra(0, 0, 0, 32, Octets.empty())).hasMessageContaining("serviceTimeout");
        assertThatThrownBy(() -> new Rej(0, 0, 0, 0x10000, Octets.empty(), Octets.empty()))
                .hasMessageContaining("reason");
        assertThatThrownBy(() -> new Dreq(0, 0, 0x1000000, Octets.empty())).hasMessageContaining("remoteQpnEecn");
        assertThatThrownBy(() -> new SidrReq(0, 0x10000, 0, Octets.empty())).hasMessageContaining("partitionKey");
        assertThatThrownBy(() -> new SidrRep(0, 256, Octets.empty(), 0, 0, 0, 0, 0, Octets.empty()))
                .hasMessageContaining("status");
        assertThatThrownBy(() -> new CmPath(0, 0, Gid.ZERO, Gid.ZERO, 1 << 20, 0, 0, 0, 0, false, 0))
                .hasMessageContaining("flowLabel");
        assertThatThrownBy(() -> new CmPath(0, 0, null, Gid.ZERO, 0, 0, 0, 0, 0, false, 0))
                .hasMessageContaining("localGid");
    }

    @Test
    void thirtyTwoBitFieldsTakeEveryValue() {
        Rtu rtu = new Rtu(0xffffffff, 0x80000000, Octets.empty());
        assertThat(rtu.localCommId()).isEqualTo(-1);
        Rep rep = new Rep(0, 0, 0xdeadbeef, 0, 0xffffff, 0, 0, 255, 255, 31, 3, true, 7, true, -1L, -1,
                Octets.empty());
        assertThat(rep.vendorId()).isEqualTo(0xffffff);
        assertThat(rep.eceOptions()).isEqualTo(-1);
    }

    @Test
    void recordsCompareTheirBytesByContent() {
        assertThat(new Rtu(1, 2, Octets.of(new byte[] {1, 2}))).isEqualTo(new Rtu(1, 2, Octets.of(new byte[] {1, 2})));
        assertThat(new Rtu(1, 2, Octets.of(new byte[] {1, 2}))).isNotEqualTo(new Rtu(1, 2, Octets.of(new byte[] {1})));
    }

    @Test
    void attributeIdsAndNamesFollowIbCmH() {
        assertThat(req(1, 3, Octets.empty()).attributeId()).isEqualTo(0x0010);
        assertThat(new Mra(0, 0, 0, 0, Octets.empty()).attributeId()).isEqualTo(0x0011);
        assertThat(new Rej(0, 0, 0, 0, Octets.empty(), Octets.empty()).attributeId()).isEqualTo(0x0012);
        assertThat(new Rtu(0, 0, Octets.empty()).attributeId()).isEqualTo(0x0014);
        assertThat(new Dreq(0, 0, 0, Octets.empty()).attributeId()).isEqualTo(0x0015);
        assertThat(new Drep(0, 0, Octets.empty()).attributeId()).isEqualTo(0x0016);
        assertThat(new SidrReq(0, 0, 0, Octets.empty()).attributeId()).isEqualTo(0x0017);
        assertThat(new SidrRep(0, 0, Octets.empty(), 0, 0, 0, 0, 0, Octets.empty()).attributeId()).isEqualTo(0x0018);
        assertThat(CmMessage.attributeName(0x0013)).isEqualTo("REP");
        assertThat(CmMessage.attributeName(0x0018)).isEqualTo("SIDR_REP");
        assertThat(CmMessage.attributeName(0x0019)).isEqualTo("attr 0x0019");
    }
}
