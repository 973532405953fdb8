package io.jrdma.rxe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.rxe.net.RxeEngine;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import io.jrdma.testkit.Await;
import io.jrdma.testkit.Completion;
import java.lang.foreign.ValueLayout;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@code jrdma.rxe.engines=2} (this execution's setting, pom.xml): the devices go round robin over two
 * engine threads in the order {@code jrdma.rxe.devices} names them (rxe0, rxe1, rxe6), and an RC
 * connection between devices on different engines carries SEND, WRITE and READ as on one engine.
 */
class EnginesIT {
    @Test
    void devicesGoRoundRobinOverTheEnginesEachOnItsOwnThread() {
        assertThat(Integer.getInteger("jrdma.rxe.engines")).as("set by this execution").isEqualTo(2);
        RxeEngine first = LossIT.device("rxe0").engine();
        RxeEngine second = LossIT.device("rxe1").engine();
        assertThat(second).isNotSameAs(first);
        assertThat(LossIT.device("rxe6").engine()).as("the third device, back on the first engine")
                .isSameAs(first);
        assertThat(first).isSameAs(RxeEngine.shared(0, false, true));
        assertThat(second).isSameAs(RxeEngine.shared(1, false, true));
        Set<String> names = Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
                .filter(n -> n.startsWith("jrdma-rxe-engine")).collect(Collectors.toSet());
        assertThat(names).containsExactlyInAnyOrder("jrdma-rxe-engine", "jrdma-rxe-engine-1");
        assertThatThrownBy(() -> RxeEngine.shared(RxeEngine.MAX_SHARED, false, true))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outside 0..15");
    }

    @Test
    void anRcConnectionAcrossTwoEnginesCarriesSendWriteAndRead() {
        try (Endpoint a = Endpoint.rc("rxe0", 1 << 16); Endpoint b = Endpoint.rc("rxe1", 1 << 16)) {
            Endpoint.connect(a, b, new Endpoint.Options());
            for (int i = 0; i < 4096; i++) {
                a.mr.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 1));
                b.mr.segment().set(ValueLayout.JAVA_BYTE, 32768 + i, (byte) (i * 13 + 5));
            }
            b.qp.postRecv(new RecvWr().wrId(9).sg(b.mr, 0, 4096));
            a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(a.mr, 0, 3000));
            a.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .sg(a.mr, 0, 4096).rdma(b.mr.address() + 8192, b.mr.rkey()));
            a.qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                    .sg(a.mr, 16384, 4096).rdma(b.mr.address() + 32768, b.mr.rkey()));
            assertThat(Await.completions(a.cq, 3)).extracting(Completion::wrId, Completion::status)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple(1L, WcStatus.SUCCESS),
                            org.assertj.core.groups.Tuple.tuple(2L, WcStatus.SUCCESS),
                            org.assertj.core.groups.Tuple.tuple(3L, WcStatus.SUCCESS));
            Completion recv = Await.completion(b.cq);
            assertThat(recv.wrId()).isEqualTo(9);
            assertThat(recv.byteLen()).isEqualTo(3000);
            assertThat(b.mr.segment().asSlice(0, 3000).toArray(ValueLayout.JAVA_BYTE))
                    .isEqualTo(a.mr.segment().asSlice(0, 3000).toArray(ValueLayout.JAVA_BYTE));
            assertThat(b.mr.segment().asSlice(8192, 4096).toArray(ValueLayout.JAVA_BYTE))
                    .as("the WRITE, acknowledged, so placed").isEqualTo(a.mr.segment().asSlice(0, 4096)
                            .toArray(ValueLayout.JAVA_BYTE));
            assertThat(a.mr.segment().asSlice(16384, 4096).toArray(ValueLayout.JAVA_BYTE))
                    .as("the READ's response").isEqualTo(b.mr.segment().asSlice(32768, 4096)
                            .toArray(ValueLayout.JAVA_BYTE));
        }
    }
}
