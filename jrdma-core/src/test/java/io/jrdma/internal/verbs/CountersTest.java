package io.jrdma.internal.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.verbs.Counter;
import io.jrdma.verbs.Counters;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.DeviceMBeans;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import java.lang.management.ManagementFactory;
import java.util.Map;
import javax.management.MBeanServer;
import org.junit.jupiter.api.Test;

/**
 * Counters on loop0: every message counts its synthetic RoCEv2 packets (cut at the path MTU, 1024
 * here) on both QPs, completions count as rdma_sends/rdma_recvs, RNR NAKs and exhausted retries count
 * as rxe counts them, the device adds up its QPs (destroyed ones too), and JMX shows the device.
 */
class CountersTest {

    @Test
    void aSendCountsItsPacketsItsAckAndBothCompletionsOnBothQps() {
        try (LoopPair p = new LoopPair()) {
            p.b.postRecv(new RecvWr().wrId(1).sg(p.mrB, 0, 4096));
            p.a.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(p.mrA, 0, 3000));
            assertThat(LoopPair.poll(p.cqA).status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(LoopPair.poll(p.cqB).status()).isEqualTo(WcStatus.SUCCESS);
            Counters a = p.a.queryCounters();
            Counters b = p.b.queryCounters();
            assertThat(a.sentPkts()).as("3000 bytes at MTU 1024").isEqualTo(3);
            assertThat(b.rcvdPkts()).isEqualTo(3);
            assertThat(b.sentPkts()).as("one ACK").isEqualTo(1);
            assertThat(a.rcvdPkts()).isEqualTo(1);
            assertThat(a.rdmaSends()).isEqualTo(1);
            assertThat(b.rdmaRecvs()).isEqualTo(1);
            assertThat(a.rdmaRecvs()).isZero();
            assertThat(a.qpNum()).isEqualTo(p.a.qpNum());
            assertThat(a.device()).isEqualTo("loop0");
            assertThat(a.values()).containsKeys("sent_pkts", "rcvd_pkts", "rcvd_rnr_err", "completer_retry_err")
                    .doesNotContainKey("cm_tx_mads");
        }
    }

    @Test
    void anRdmaReadCountsOneRequestAndOneResponsePacketPerMtu() {
        try (LoopPair p = new LoopPair()) {
            p.a.postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                    .sg(p.mrA, 0, 2500).rdma(p.mrB.address(), p.mrB.rkey()));
            assertThat(LoopPair.poll(p.cqA).status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(p.a.queryCounters().sentPkts()).isEqualTo(1);
            assertThat(p.b.queryCounters().rcvdPkts()).isEqualTo(1);
            assertThat(p.b.queryCounters().sentPkts()).as("2500 bytes of READ response").isEqualTo(3);
            assertThat(p.a.queryCounters().rcvdPkts()).isEqualTo(3);
            assertThat(p.b.queryCounters().rdmaRecvs()).as("a READ consumes no receive").isZero();
        }
    }

    @Test
    void anRnrNakCountsOnBothSidesAndExhaustionCountsAsRetryRnrExceeded() {
        try (LoopPair p = new LoopPair(QpCap.of(16, 16), 64, 0)) {
            p.a.postSend(new SendWr().wrId(4).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(p.mrA, 0, 8));
            assertThat(LoopPair.poll(p.cqA).status()).isEqualTo(WcStatus.RNR_RETRY_EXC_ERR);
            assertThat(p.a.queryCounters().rcvdRnrErr()).isEqualTo(1);
            assertThat(p.b.queryCounters().sendRnrErr()).isEqualTo(1);
            assertThat(p.a.queryCounters().retryRnrExceededErr()).isEqualTo(1);
            assertThat(p.a.queryCounters().rdmaSends()).as("a failed WR is no rdma_send").isZero();
        }
    }

    @Test
    void theDeviceAddsUpItsQpsAndKeepsWhatDestroyedQpsCounted() {
        Counters before;
        int qpn;
        try (LoopPair p = new LoopPair()) {
            before = p.ctx.queryCounters();
            qpn = p.a.qpNum();
            for (int i = 0; i < 5; i++) {
                p.a.postSend(new SendWr().wrId(i).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                        .sg(p.mrA, 0, 100).rdma(p.mrB.address(), p.mrB.rkey()));
                assertThat(LoopPair.poll(p.cqA).status()).isEqualTo(WcStatus.SUCCESS);
            }
            Counters live = p.ctx.queryCounters().minus(before);
            assertThat(live.sentPkts()).as("5 WRITEs and 5 ACKs").isEqualTo(10);
            assertThat(live.rcvdPkts()).isEqualTo(10);
            assertThat(live.rdmaSends()).isEqualTo(5);
        }
        Device dev = io.jrdma.verbs.Rdma.device("loop0");
        Counters after = dev.queryCounters().minus(before);
        assertThat(after.sentPkts()).as("kept after both QPs were destroyed").isEqualTo(10);
        assertThat(dev.queryDestroyedQpCounters(before.nanoTime())).extracting(Counters::qpNum).contains(qpn);
        assertThat(dev.queryDestroyedQpCounters(before.nanoTime()).stream()
                .filter(c -> c.qpNum() == qpn).findFirst().orElseThrow().sentPkts()).isEqualTo(5);
        assertThat(dev.queryQpCounters()).extracting(Counters::qpNum).doesNotContain(qpn);
        assertThat(dev.queryDestroyedQpCounters(System.nanoTime())).as("none destroyed after now").isEmpty();
    }

    @Test
    void theDeviceListsEachLiveQpsCountersWithoutAContext() {
        Device dev = io.jrdma.verbs.Rdma.device("loop0");
        try (LoopPair p = new LoopPair()) {
            p.a.postSend(new SendWr().wrId(7).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .sg(p.mrA, 0, 100).rdma(p.mrB.address(), p.mrB.rkey()));
            assertThat(LoopPair.poll(p.cqA).status()).isEqualTo(WcStatus.SUCCESS);
            Counters a = dev.queryQpCounters().stream().filter(c -> c.qpNum() == p.a.qpNum()).findFirst()
                    .orElseThrow();
            assertThat(a.sentPkts()).isEqualTo(1).isEqualTo(p.a.queryCounters().sentPkts());
            assertThat(a.rdmaSends()).isEqualTo(1);
            assertThat(a.isDevice()).isFalse();
            assertThat(dev.queryQpCounters()).extracting(Counters::qpNum).contains(p.b.qpNum());
            assertThat(dev.queryCounters().values().keySet()).isEqualTo(p.ctx.queryCounters().values().keySet());
            assertThat(dev.queryCounters().sentPkts()).isEqualTo(p.ctx.queryCounters().sentPkts()).isPositive();
        }
    }

    @Test
    void aDeviceSnapshotListsEveryCounterTheDeviceKeepsInRxeOrder() {
        try (LoopPair p = new LoopPair()) {
            Map<String, Long> v = p.ctx.queryCounters().values();
            assertThat(v.keySet()).containsSubsequence("sent_pkts", "rcvd_pkts", "rcvd_rnr_err", "send_rnr_err",
                    "rdma_sends", "rdma_recvs", "cm_tx_mads");
            assertThat(p.ctx.queryCounters().isDevice()).isTrue();
            assertThat(p.ctx.queryCounters().toLine()).startsWith("link loop0/1 sent_pkts ");
        }
    }

    @Test
    void snapshotsRefuseNegativeValuesAndSubtractingAnotherScope() {
        assertThatThrownBy(() -> new Counters("x", Counters.DEVICE, 0, Map.of("sent_pkts", -1L)))
                .isInstanceOf(IllegalArgumentException.class);
        Counters a = new Counters("x", Counters.DEVICE, 0, Map.of("sent_pkts", 1L));
        Counters b = new Counters("y", Counters.DEVICE, 0, Map.of("sent_pkts", 1L));
        assertThatThrownBy(() -> a.minus(b)).isInstanceOf(IllegalArgumentException.class);
        assertThat(Counter.ofLinuxName("retry_rnr_exceeded_err")).isEqualTo(Counter.RETRY_RNR_EXCEEDED_ERR);
    }

    @Test
    void everyDeviceHasAnMBeanWhoseAttributesAreItsCounters() throws Exception {
        try (LoopPair p = new LoopPair()) {
            p.a.postSend(new SendWr().wrId(9).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .sg(p.mrA, 0, 10).rdma(p.mrB.address(), p.mrB.rkey()));
            assertThat(LoopPair.poll(p.cqA).status()).isEqualTo(WcStatus.SUCCESS);
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            var name = DeviceMBeans.objectName("loop0");
            assertThat(name.toString()).isEqualTo("io.jrdma:type=Device,name=loop0");
            assertThat(server.queryNames(DeviceMBeans.allDevices(), null)).contains(name);
            long sent = (Long) server.getAttribute(name, "sent_pkts");
            assertThat(sent).isEqualTo(p.ctx.queryCounters().sentPkts()).isPositive();
            assertThat(server.getAttribute(name, "Provider")).isEqualTo("loop");
            assertThat((Integer) server.getAttribute(name, "LiveQueuePairs")).isGreaterThanOrEqualTo(2);
            assertThat((String[]) server.getAttribute(name, DeviceMBeans.QUEUE_PAIR_COUNTERS))
                    .contains(p.a.queryCounters().toLine());
        }
    }

    @Test
    void anMBeanNameRefusesADeviceNameThatIsNoJmxKeyValue() {
        assertThatThrownBy(() -> DeviceMBeans.objectName("a,b")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'a,b'");
        assertThatThrownBy(() -> DeviceMBeans.objectName("*")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DeviceMBeans.objectName(" ")).isInstanceOf(IllegalArgumentException.class);
        assertThat(DeviceMBeans.allDevices().apply(DeviceMBeans.objectName("siw0"))).isTrue();
    }
}
