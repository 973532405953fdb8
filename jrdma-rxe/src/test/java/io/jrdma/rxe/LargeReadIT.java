package io.jrdma.rxe;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.verbs.Counters;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * An RDMA READ whose reply is larger than a UDP socket's receive buffer, with requester (rxe0) and responder
 * (rxe1) on the one engine of this JVM. The engine reads its ports between every {@link RxeEngine#TX_PER_CYCLE}
 * packets it sends; when it sent a whole 8,192-packet reply first, the requester's socket overflowed on every
 * READ (drops in {@code RcvbufErrors}), the missing tail waited for the ACK timeout and a retry, and read-bw
 * at 4 MiB measured 0 MB/s under load.
 */
class LargeReadIT {
    /** 8 MiB: 8,192 packets at MTU 1024, well beyond the largest receive buffer the socket asks for (4 MiB). */
    private static final int SIZE = 8 << 20;
    private static final int READS = 3;

    @Test
    void aReadReplyLargerThanTheSocketBufferArrivesWithoutALostPacket() {
        try (Endpoint a = Endpoint.rc("rxe0", 2 * SIZE); Endpoint b = Endpoint.rc("rxe1", SIZE)) {
            // An ACK timeout of 4.3 s: a load-induced pause never times out, so any retry means a lost packet.
            Endpoint.connect(a, b, new Endpoint.Options().timeout(20));
            byte[] pattern = new byte[SIZE];
            new Random(42).nextBytes(pattern);
            MemorySegment.copy(pattern, 0, b.buf, ValueLayout.JAVA_BYTE, 0, SIZE);
            Counters requester0 = a.qp.queryCounters();
            Counters responder0 = b.qp.queryCounters();
            for (int i = 0; i < READS; i++) {
                a.buf.asSlice(SIZE, SIZE).fill((byte) 0);
                a.qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                        .sg(a.mr, SIZE, SIZE).rdma(b.mr.address(), b.mr.rkey()));
                WorkCompletion wc = a.poll(60_000);
                assertThat(wc.status()).as("READ " + i).isEqualTo(WcStatus.SUCCESS);
                assertThat(wc.byteLen()).isEqualTo(SIZE);
                assertThat(a.buf.asSlice(SIZE, SIZE).toArray(ValueLayout.JAVA_BYTE)).as("READ " + i + " bytes")
                        .isEqualTo(pattern);
            }
            Counters requester = a.qp.queryCounters().minus(requester0);
            Counters responder = b.qp.queryCounters().minus(responder0);
            int packets = READS * (SIZE / 1024);
            assertThat(responder.get("sent_pkts")).as("reply packets sent, none again")
                    .isEqualTo((long) packets);
            assertThat(requester.get("rcvd_pkts")).as("reply packets received").isEqualTo((long) packets);
            assertThat(requester.get("completer_retry_err")).as("retries").isZero();
        }
    }
}
