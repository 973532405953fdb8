package io.jrdma.internal.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.verbs.QpCap;
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
}
