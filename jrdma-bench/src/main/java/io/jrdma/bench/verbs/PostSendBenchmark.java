package io.jrdma.bench.verbs;

import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Core's {@code postSend} (ibv_post_send): validate the WR, copy it into the send queue slot (and
 * the inline bytes), ring the provider; then the provider's {@code completeSend} and the
 * application's {@code poll} of the CQE. The transport is {@link StubDevice}, which completes in the
 * posting thread, so this is the verbs layer's own cost per WR. Expect 0 B/op with {@code -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class PostSendBenchmark {
    /** Payload bytes: 64 B inline (copied at post time) or 4 KiB by reference. */
    @Param({"inline-64", "sge-4096"})
    public String payload;

    private DeviceImpl device;
    private Context context;
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private QueuePair qp;
    private MemoryRegion mr;
    private Arena arena;
    private SendWr wr;
    private final WorkCompletion[] wc = {new WorkCompletion()};

    /** A QP in RTS on the stub device, a registered buffer and the WR. */
    @Setup(Level.Trial)
    public void setUp() {
        device = StubDevice.open();
        context = device.open();
        pd = context.allocPd();
        cq = context.createCq(256);
        qp = pd.createQp(QpInitAttr.rc(cq, new QpCap(64, 1, 1, 1, 64)));
        qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(0));
        ((io.jrdma.internal.verbs.QpImpl) qp).enterRts();
        arena = Arena.ofShared();
        MemorySegment buf = arena.allocate(4096, 4096);
        mr = pd.registerMemory(buf, Access.LOCAL_WRITE);
        boolean inline = payload.startsWith("inline");
        wr = new SendWr().wrId(7).opcode(WrOpcode.RDMA_WRITE).rdma(0x1000, 0x42)
                .flags(SendFlags.SIGNALED | (inline ? SendFlags.INLINE : 0)).sg(mr, 0, inline ? 64 : 4096);
    }

    /** Releases everything. */
    @TearDown(Level.Trial)
    public void tearDown() {
        qp.close();
        mr.close();
        cq.close();
        pd.close();
        context.close();
        arena.close();
    }

    /** One signaled RDMA WRITE posted, completed by the stub and polled. */
    @Benchmark
    public long postAndPoll() {
        if (qp.postSend(wr) != 1) {
            throw new IllegalStateException("send queue full");
        }
        if (cq.poll(wc) != 1) {
            throw new IllegalStateException("no completion");
        }
        return wc[0].wrId();
    }
}
