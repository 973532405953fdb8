package io.jrdma.tools.perftest;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;

import io.jrdma.tools.perf.BwResult;
import io.jrdma.tools.perf.LatResult;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The data path's allocation rule, through the in-process API the benchmark calls. The tools' loops
 * allocate nothing per message (JFR allocation samples of a 200,000-message write-bw show none in
 * io.jrdma.tools), and the verbs layer's postSend builds its error text only for a rejected WR.
 */
@Timeout(120)
class PerfEngineIT {

    @ParameterizedTest(name = "{0} on {1}")
    @CsvSource({"write-bw, siw0", "send-bw, siw0", "write-lat, siw0", "read-lat, loop0", "send-bw, loop0"})
    void theMessageLoopsAllocateNothingPerMessage(String tool, String dev) {
        // The client runs on this thread. Bandwidth runs without the peak keep no per-message arrays;
        // latency runs keep one long of post time per iteration and, for the report, one long of latency
        // per sample (16 bytes, perftest's tposted and delta arrays), both allocated outside the loop. One
        // object per message would add at least 16 more (its header), so the bound is 24.
        PerfTest t = PerfTest.ofCommand(tool);
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long[] iterations = t.bandwidth() ? new long[] {2_000, 22_000} : new long[] {1_000, 6_000};
        long[] allocated = new long[2];
        // Round 0 warms up; the least of the later rounds counts. Each run sets a connection up and
        // tears it down, and on siw that control work (an attach, a deferred close, a timer of the
        // run before) runs on whichever thread holds the engine when it is due, this one included:
        // a few KB more or less in one run (once 13,700 B, 0.68 B/msg of send-bw), but not in every
        // round as an allocation per message would be.
        double perIteration = Double.MAX_VALUE;
        StringBuilder seen = new StringBuilder();
        for (int round = 0; round < 4; round++) {
            for (int i = 0; i < 2; i++) {
                PerfSpec s = PerfSpec.builder(t).device(dev).size(64).iterations(iterations[i]).noPeak(true).build();
                long before = mx.getCurrentThreadAllocatedBytes();
                PerfEngine.LocalRun r = PerfEngine.runLocal(s);
                allocated[i] = mx.getCurrentThreadAllocatedBytes() - before;
                assertThat(r.client().rows()).singleElement().isInstanceOf(t.bandwidth() ? BwResult.class
                        : LatResult.class);
            }
            if (round > 0) {
                perIteration = Math.min(perIteration,
                        (allocated[1] - allocated[0]) / (double) (iterations[1] - iterations[0]));
                seen.append(" (").append(allocated[0]).append(", ").append(allocated[1]).append(')');
            }
        }
        assertThat(perIteration).as("bytes allocated per message, least of 3 rounds:%s", seen)
                .isLessThan(t.bandwidth() ? 0.5 : 24);
    }
}
