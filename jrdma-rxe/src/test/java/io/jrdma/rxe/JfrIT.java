package io.jrdma.rxe;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * rxe's JFR events over real UDP: {@code jrdma.Retransmit} when a silent responder lets the ACK
 * timeout expire (reason "timeout", the PSN of the unacknowledged request, the budget counting down),
 * {@code jrdma.RnrWait} when the responder has no receive posted (the RNR timer of the NAK).
 */
class JfrIT {
    @TempDir
    Path dir;
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

    private List<RecordedEvent> record(String event, Runnable work) throws Exception {
        Path file = dir.resolve("rxe.jfr");
        try (Recording r = new Recording()) {
            r.enable(event);
            r.start();
            work.run();
            r.stop();
            r.dump(file);
        }
        return RecordingFile.readAllEvents(file).stream().filter(e -> e.getEventType().getName().equals(event))
                .sorted(Comparator.comparing(RecordedEvent::getStartTime)).toList();
    }

    @Test
    void aSilentResponderRecordsOneRetransmitEventPerRetry() throws Exception {
        a = Endpoint.rc("rxe0", 1 << 16);
        b = Endpoint.rc("rxe1", 1 << 16);
        Endpoint.connect(a, b, new Endpoint.Options().timeout(8).retryCnt(3));
        b.qp.modify(new QpAttr().qpState(QpState.ERR)); // drops everything that arrives
        int psn = a.qp.query().sqPsn();
        List<RecordedEvent> events = record("jrdma.Retransmit", () -> {
            a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sg(a.mr, 0, 100)
                    .rdma(b.mr.address(), b.mr.rkey()));
            assertThat(a.poll(5000).status()).isEqualTo(WcStatus.RETRY_EXC_ERR);
        });
        assertThat(events).hasSize(3);
        assertThat(events).allSatisfy(e -> {
            assertThat(e.getString("device")).isEqualTo("rxe0");
            assertThat(e.getInt("qpNum")).isEqualTo(a.qp.qpNum());
            assertThat(e.getString("reason")).isEqualTo("timeout");
            assertThat(e.getInt("psn")).isEqualTo(psn);
        });
        assertThat(events).extracting(e -> e.getInt("retriesLeft")).containsExactly(2, 1, 0);
    }

    @Test
    void aResponderWithoutReceivesRecordsRnrWaitsWithItsTimer() throws Exception {
        a = Endpoint.rc("rxe0", 1 << 16);
        b = Endpoint.rc("rxe1", 1 << 16);
        Endpoint.connect(a, b, new Endpoint.Options().minRnrTimer(12)); // 0.64 ms
        List<RecordedEvent> events = record("jrdma.RnrWait", () -> {
            a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(a.mr, 0, 100));
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (a.qp.queryCounters().rcvdRnrErr() < 2 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            b.qp.postRecv(new RecvWr().wrId(9).sg(b.mr, 0, 100));
            assertThat(a.poll().status()).isEqualTo(WcStatus.SUCCESS);
        });
        assertThat(events.size()).isGreaterThanOrEqualTo(2);
        assertThat(events.get(0).getInt("qpNum")).isEqualTo(a.qp.qpNum());
        assertThat(events.get(0).getDuration("wait")).isEqualTo(Duration.ofNanos(640_000));
        assertThat(events.get(0).getInt("retriesLeft")).as("rnr_retry 7: for ever").isEqualTo(7);
    }
}
