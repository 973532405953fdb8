package io.jrdma.rxe;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.testkit.Await;
import io.jrdma.verbs.Counter;
import io.jrdma.verbs.Counters;
import io.jrdma.verbs.DeviceMBeans;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * rxe's counters over real UDP between rxe0 and rxe1: each QP counts the packets it sent and
 * received (a 3000-byte SEND is 3 packets at the 1024-byte MTU, its ACK one), RNR NAKs on both sides,
 * the device totals include them, and JMX serves the same values.
 */
class CountersIT {
    private static final Duration WAIT = Duration.ofSeconds(5);
    private Endpoint a;
    private Endpoint b;

    @AfterEach
    void close() {
        if (a != null) {
            a.close();
        }
        if (b != null) {
            b.close();
        }
    }

    @Test
    void eachQpCountsItsPacketsAndTheDeviceAddsThemUp() throws Exception {
        a = Endpoint.rc("rxe0", 1 << 16);
        b = Endpoint.rc("rxe1", 1 << 16);
        Endpoint.connect(a, b, new Endpoint.Options());
        Counters dev0 = a.ctx.queryCounters();
        b.qp.postRecv(new RecvWr().wrId(1).sg(b.mr, 0, 4096));
        a.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(a.mr, 0, 3000));
        assertThat(a.poll().status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(b.poll().status()).isEqualTo(WcStatus.SUCCESS);
        // An engine counts a packet once its socket took it, so the requester (on the other engine thread) may
        // complete on the last ACK before the responder's count shows it.
        Await.until("the responder's ACKs counted", WAIT, () -> b.qp.queryCounters().sentPkts() >= 1
                && b.qp.queryCounters().sentPkts() == a.qp.queryCounters().rcvdPkts());
        Counters qa = a.qp.queryCounters();
        Counters qb = b.qp.queryCounters();
        assertThat(qa.sentPkts()).as("3000 bytes at MTU 1024").isEqualTo(3);
        assertThat(qb.rcvdPkts()).isEqualTo(3);
        assertThat(qb.sentPkts()).as("ACKs: coalesced, at least one").isBetween(1L, 3L);
        assertThat(qa.rcvdPkts()).isEqualTo(qb.sentPkts());
        assertThat(qa.rdmaSends()).isEqualTo(1);
        assertThat(qb.rdmaRecvs()).isEqualTo(1);
        Counters delta = a.ctx.queryCounters().minus(dev0);
        assertThat(delta.sentPkts()).isEqualTo(3);
        assertThat(delta.rdmaSends()).isEqualTo(1);
        assertThat(a.ctx.queryCounters().values()).containsKeys("ack_deferred", "link_downed", "rcvd_icrc_err",
                "cm_tx_mads");
        long viaJmx = (Long) ManagementFactory.getPlatformMBeanServer().getAttribute(DeviceMBeans.objectName("rxe0"),
                "sent_pkts");
        assertThat(viaJmx).isGreaterThanOrEqualTo(dev0.sentPkts() + 3);
    }

    @Test
    void anRnrNakCountsAsSentByTheResponderAndReceivedByTheRequester() throws Exception {
        a = Endpoint.rc("rxe0", 1 << 16);
        b = Endpoint.rc("rxe1", 1 << 16);
        Endpoint.connect(a, b, new Endpoint.Options().minRnrTimer(12));
        a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(a.mr, 0, 100));
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (b.qp.queryCounters().sendRnrErr() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        b.qp.postRecv(new RecvWr().wrId(9).sg(b.mr, 0, 100));
        assertThat(a.poll().status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(b.qp.queryCounters().get(Counter.SEND_RNR_ERR)).isPositive();
        assertThat(a.qp.queryCounters().rcvdRnrErr()).isEqualTo(b.qp.queryCounters().sendRnrErr());
    }
}
