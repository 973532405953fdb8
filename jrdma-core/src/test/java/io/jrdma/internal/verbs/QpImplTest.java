package io.jrdma.internal.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import org.junit.jupiter.api.Test;

/** Core's QP over the loop provider: posting and completing, seen from the application. */
class QpImplTest {
    @Test
    void theWorkRequestsOfAChainWhosePostThrewAreStillProcessed() {
        try (LoopPair p = new LoopPair(new QpCap(16, 16, 1, 1, 0), 64, 7)) {
            // Drain every pending doorbell first, so only the failed post could schedule the QP.
            p.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .sg(p.mrA, 0, 8).rdma(p.mrB.address(), p.mrB.rkey()));
            assertThat(LoopPair.poll(p.cqA).wrId()).isEqualTo(1);
            SendWr bad = new SendWr().wrId(3).opcode(WrOpcode.RDMA_WRITE).numSge(2);
            SendWr chain = new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .sg(p.mrA, 0, 8).rdma(p.mrB.address(), p.mrB.rkey()).next(bad);
            assertThatThrownBy(() -> p.a.postSend(chain)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("1 earlier WRs of the chain were posted");
            WorkCompletion wc = LoopPair.poll(p.cqA);
            assertThat(wc.wrId()).isEqualTo(2);
            assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
        }
    }

    @Test
    void aReceiveCompletionIsPollableOnceTheReceiveQueueShowsItRetired() {
        try (LoopPair p = new LoopPair()) {
            WorkCompletion[] wc = {new WorkCompletion()};
            RecvWr recv = new RecvWr();
            SendWr send = new SendWr().opcode(WrOpcode.SEND).sg(p.mrA, 0, 8);
            long deadline = System.nanoTime() + 1_000_000_000L;
            for (int i = 0; i < 20_000 && System.nanoTime() < deadline; i++) {
                assertThat(p.b.postRecv(recv.wrId(i).sg(p.mrB, 0, 64))).isEqualTo(1);
                assertThat(p.a.postSend(send.wrId(i))).isEqualTo(1);
                long spin = System.nanoTime() + LoopPair.TIMEOUT_NANOS;
                while (p.b.recvQueueDepth() != 0) {
                    assertThat(System.nanoTime() - spin).isNegative();
                    Thread.onSpinWait();
                }
                assertThat(p.cqB.poll(wc)).as("iteration %d: the retired receive's completion", i).isEqualTo(1);
                assertThat(wc[0].wrId()).isEqualTo(i);
            }
        }
    }

    @Test
    void aSlotWhoseCompletionWasPolledTakesANewPostAtOnce() {
        // One receive and one send slot: the application polls a completion and posts into the slot
        // at once, as perftest and rping do; the queue must never look full then.
        try (LoopPair p = new LoopPair(new QpCap(1, 1, 1, 1, 0), 64, 7)) {
            WorkCompletion[] wc = {new WorkCompletion()};
            RecvWr recv = new RecvWr();
            SendWr send = new SendWr().opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(p.mrA, 0, 8);
            assertThat(p.b.postRecv(recv.wrId(0).sg(p.mrB, 0, 64))).isEqualTo(1);
            long deadline = System.nanoTime() + 1_000_000_000L;
            for (int i = 0; i < 20_000 && System.nanoTime() < deadline; i++) {
                assertThat(p.a.postSend(send.wrId(i))).as("iteration %d: the send slot", i).isEqualTo(1);
                int got = 0;
                long spin = System.nanoTime() + LoopPair.TIMEOUT_NANOS;
                while (got < 2) {
                    assertThat(System.nanoTime() - spin).isNegative();
                    if (p.cqB.poll(wc) == 1) {
                        got++;
                        assertThat(p.b.postRecv(recv.wrId(i + 1).sg(p.mrB, 0, 64)))
                                .as("iteration %d: the receive slot just polled", i).isEqualTo(1);
                    }
                    if (p.cqA.poll(wc) == 1) {
                        got++;
                    }
                }
            }
        }
    }
}
