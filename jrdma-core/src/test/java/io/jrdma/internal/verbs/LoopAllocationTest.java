package io.jrdma.internal.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.verbs.Counters;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * The loop provider's data path allocates nothing per message, counters and observability hooks
 * included: the engine thread's allocated bytes, measured with the thread allocation counter, grow by
 * far less than one object per message over thousands of SENDs, WRITEs and READs.
 */
class LoopAllocationTest {
    private static final int ROUNDS = 2000;

    private static Thread engineThread() {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals("jrdma-loop-engine")) {
                return t;
            }
        }
        throw new AssertionError("no loop engine thread");
    }

    private static void traffic(LoopPair p, int rounds, SendWr send, SendWr write, SendWr read, RecvWr recv,
            WorkCompletion[] wc) {
        for (int i = 0; i < rounds; i++) {
            p.b.postRecv(recv);
            p.a.postSend(send);
            p.a.postSend(write);
            p.a.postSend(read);
            int got = 0;
            long deadline = System.nanoTime() + LoopPair.TIMEOUT_NANOS;
            while (got < 3) {
                int n = p.cqA.poll(wc, 0, wc.length);
                for (int k = 0; k < n; k++) {
                    if (wc[k].status() != WcStatus.SUCCESS) {
                        throw new AssertionError(wc[k].toString());
                    }
                }
                got += n;
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("timed out");
                }
            }
            while (p.cqB.poll(wc, 0, 1) == 0) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("timed out");
                }
                Thread.onSpinWait();
            }
        }
    }

    @Test
    void theLoopEngineAllocatesNothingPerMessageOnceWarm() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (LoopPair p = new LoopPair()) {
            SendWr send = new SendWr().wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(p.mrA, 0, 2000);
            SendWr write = new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .sg(p.mrA, 0, 3000).rdma(p.mrB.address() + 8192, p.mrB.rkey());
            SendWr read = new SendWr().wrId(3).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                    .sg(p.mrA, 16384, 3000).rdma(p.mrB.address() + 8192, p.mrB.rkey());
            RecvWr recv = new RecvWr().wrId(9).sg(p.mrB, 0, 4096);
            WorkCompletion[] wc = new WorkCompletion[8];
            for (int i = 0; i < wc.length; i++) {
                wc[i] = new WorkCompletion();
            }
            traffic(p, ROUNDS, send, write, read, recv, wc); // warm up: JIT
            long tid = engineThread().threadId();
            Counters before = p.a.queryCounters();
            long bytes = mx.getThreadAllocatedBytes(tid);
            traffic(p, ROUNDS, send, write, read, recv, wc);
            long allocated = mx.getThreadAllocatedBytes(tid) - bytes;
            long packets = p.a.queryCounters().minus(before).sentPkts();
            System.out.printf("loop engine: %d bytes allocated for %d messages%n", allocated, 3L * ROUNDS);
            assertThat(packets).as("SEND 2 + WRITE 3 + READ 1 packets per round").isEqualTo(ROUNDS * 6L);
            // the engine parks between rounds; a wake-up may allocate a little, never an object per message
            assertThat(allocated).as("bytes the loop engine allocated for %d messages", 3L * ROUNDS)
                    .isLessThan(3L * ROUNDS);
        }
    }
}
