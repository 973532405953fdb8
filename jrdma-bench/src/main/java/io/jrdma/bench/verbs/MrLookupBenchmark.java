package io.jrdma.bench.verbs;

import io.jrdma.internal.verbs.AccessResult;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.internal.verbs.MemoryTable;
import io.jrdma.internal.verbs.MrImpl;
import io.jrdma.internal.verbs.PdImpl;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
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
 * The responder's check of every tagged FPDU or RETH (siw_check_mem, rxe's lookup_mr + mr_check_range):
 * find the region by its STag/rkey in the device's memory table, then check validity, PD, access
 * rights and bounds. {@code regions} regions are registered and the keys are visited in a
 * scrambled order, so the table is not one hot cache line. Expect 0 B/op with {@code -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class MrLookupBenchmark {
    /** Regions registered. */
    @Param({"16", "1024"})
    public int regions;

    private DeviceImpl device;
    private Context context;
    private ProtectionDomain pd;
    private PdImpl pdImpl;
    private MemoryTable table;
    private Arena arena;
    private MemoryRegion[] mrs;
    private int[] keys;
    private long[] addresses;
    private int next;

    /** Registers the regions (4 KiB each) and scrambles their keys. */
    @Setup(Level.Trial)
    public void setUp() {
        device = StubDevice.open();
        context = device.open();
        pd = context.allocPd();
        pdImpl = (PdImpl) pd;
        table = device.memoryTable();
        arena = Arena.ofShared();
        mrs = new MemoryRegion[regions];
        keys = new int[regions];
        addresses = new long[regions];
        for (int i = 0; i < regions; i++) {
            MemorySegment s = arena.allocate(4096, 64);
            mrs[i] = pd.registerMemory(s, Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ);
        }
        for (int i = 0; i < regions; i++) {
            int j = (int) ((i * 0x9E3779B1L) % regions); // a fixed permutation step when regions is a power of 2
            keys[i] = mrs[j].rkey();
            addresses[i] = mrs[j].address();
        }
    }

    /** Deregisters the regions. */
    @TearDown(Level.Trial)
    public void tearDown() {
        for (MemoryRegion m : mrs) {
            m.close();
        }
        pd.close();
        context.close();
        arena.close();
    }

    /** Looks up a key and checks a 1,024-byte remote write at offset 512. */
    @Benchmark
    public int lookupAndCheck() {
        int i = next;
        next = i + 1 == regions ? 0 : i + 1;
        MrImpl mr = table.lookup(keys[i]);
        return mr == null ? AccessResult.INVALID_KEY
                : mr.check(pdImpl, addresses[i] + 512, 1024, Access.REMOTE_WRITE);
    }
}
