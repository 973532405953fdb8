package io.jrdma.rxe;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/** RoCEv2 over IPv6 (rxe6 on ::1): the GID is the address itself, the ICRC masks IPv6's fields. */
class Ipv6IT {
    @Test
    void rcMovesDataOverIpv6() throws Exception {
        try (Endpoint a = Endpoint.rc("rxe6", 1 << 16); Endpoint b = Endpoint.rc("rxe6", 1 << 16)) {
            assertThat(a.gid()).isEqualTo(Gid.of(InetAddress.getByName("::1")));
            assertThat(a.gid().isIpv4Mapped()).isFalse();
            Endpoint.connect(a, b, new Endpoint.Options());
            for (int i = 0; i < 5000; i++) {
                a.buf.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 13));
            }
            b.qp.postRecv(new RecvWr().wrId(1).sg(b.mr, 0, 8192));
            a.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(a.mr, 0, 5000));
            assertThat(a.poll().status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(b.poll().byteLen()).isEqualTo(5000);
            a.qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                    .sg(a.mr, 16384, 5000).rdma(b.mr.address(), b.mr.rkey()));
            assertThat(a.poll().status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(a.buf.asSlice(16384, 5000).toArray(ValueLayout.JAVA_BYTE))
                    .isEqualTo(a.buf.asSlice(0, 5000).toArray(ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void aUdReceiveOverIpv6StartsWithTheSendersIpv6Header() throws Exception {
        try (Endpoint a = new Endpoint("rxe6", QpType.UD, 4096, QpCap.of(4, 4));
                Endpoint b = new Endpoint("rxe6", QpType.UD, 4096, QpCap.of(4, 4))) {
            for (Endpoint e : new Endpoint[] {a, b}) {
                e.qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(0x11111111));
                e.qp.modify(new QpAttr().qpState(QpState.RTR));
                e.qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(0));
            }
            b.qp.postRecv(new RecvWr().wrId(1).sg(b.mr, 0, 1024));
            AddressHandle ah = a.pd.createAh(AhAttr.to(InetAddress.getByName("::1")));
            a.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sg(a.mr, 0, 64)
                    .ud(ah, b.qp.qpNum(), 0x11111111));
            WorkCompletion r = b.poll();
            assertThat(r.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(r.byteLen()).isEqualTo(40 + 64);
            assertThat(r.srcQp()).isEqualTo(a.qp.qpNum());
            assertThat(b.buf.get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 0x60);
            assertThat(b.buf.get(ValueLayout.JAVA_BYTE, 23)).as("source ::1").isEqualTo((byte) 1);
            ah.close();
        }
    }
}
