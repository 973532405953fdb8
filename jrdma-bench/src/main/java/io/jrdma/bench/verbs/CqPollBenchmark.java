package io.jrdma.bench.verbs;

import io.jrdma.internal.verbs.CqImpl;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The completion queue (ibv_poll_cq): an engine pushes {@code batch} CQEs (the MPSC ring's
 * producer side, as a transport does per completed WR) and the application polls them into its
 * reusable {@link WorkCompletion} array. Reported per completion. Expect 0 B/op with
 * {@code -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CqPollBenchmark {
    /** Completions per poll call. */
    @Param({"1", "16"})
    public int batch;

    private static final int MAX_BATCH = 16;

    private DeviceImpl device;
    private Context context;
    private CqImpl cq;
    private WorkCompletion[] wc;

    /** A CQ of 1,024 entries on the stub device. */
    @Setup(Level.Trial)
    public void setUp() {
        device = StubDevice.open();
        context = device.open();
        cq = (CqImpl) context.createCq(1024);
        wc = new WorkCompletion[MAX_BATCH];
        for (int i = 0; i < wc.length; i++) {
            wc[i] = new WorkCompletion();
        }
    }

    /** Releases the CQ. */
    @TearDown(Level.Trial)
    public void tearDown() {
        cq.close();
        context.close();
    }

    /** Pushes and polls 16 completions, {@code batch} per poll. */
    @Benchmark
    @OperationsPerInvocation(MAX_BATCH)
    public long pushAndPoll() {
        long sum = 0;
        for (int i = 0; i < MAX_BATCH; i += batch) {
            for (int k = 0; k < batch; k++) {
                cq.push(i + k, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, 4096, 0, 0x11, 0, 0, false);
            }
            int n = cq.poll(wc, 0, batch);
            for (int k = 0; k < n; k++) {
                sum += wc[k].wrId();
            }
        }
        return sum;
    }
}
