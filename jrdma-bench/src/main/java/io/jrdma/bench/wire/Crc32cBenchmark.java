package io.jrdma.bench.wire;

import io.jrdma.siw.wire.MpaCrc;
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
 * The MPA CRC32c (RFC 5044 §4.3) over one FPDU of each typical size, through {@link MpaCrc} on a
 * native segment ({@code java.util.zip.CRC32C}, intrinsified): a 64-byte message, an Ethernet-MSS
 * FPDU, a 4 KiB page and a loopback-MSS FPDU. Expect 0 B/op with {@code -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class Crc32cBenchmark {
    /** Bytes covered by the CRC. */
    @Param({"64", "1460", "4096", "65480"})
    public int size;

    private final MpaCrc crc = new MpaCrc();
    private Arena arena;
    private MemorySegment segment;

    /** Fills an FPDU-sized native buffer with a pattern. */
    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofShared();
        segment = arena.allocate(size + 8, 8);
        for (long i = 0; i < segment.byteSize(); i++) {
            segment.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 31));
        }
    }

    /** Frees the buffer. */
    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    /** CRC32c of {@code size} bytes. */
    @Benchmark
    public int crc32c() {
        return crc.compute(segment, 0, size);
    }
}
