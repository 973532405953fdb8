package io.jrdma.bench.wire;

import io.jrdma.siw.wire.FpduCheck;
import io.jrdma.siw.wire.FpduHeader;
import io.jrdma.siw.wire.RdmapOpcode;
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
 * The iWARP FPDU header on the hot path: what {@code SiwQp} writes for every FPDU it sends
 * (ULPDU_Length, DDP/RDMAP control, the tagged STag and offset or the untagged QN/MSN/MO) and what
 * it reads and checks for every FPDU it receives (RFC 5044 §7, RFC 5041 §4, RFC 5040 §4), on a
 * native segment as the engine uses them. Expect a few nanoseconds and 0 B/op with {@code -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class FpduBenchmark {
    /** The opcode: RDMA WRITE (tagged, 16-byte header) or SEND (untagged, 20 bytes). */
    @Param({"RDMA_WRITE", "SEND"})
    public RdmapOpcode opcode;

    private final FpduHeader header = new FpduHeader();
    private Arena arena;
    private MemorySegment segment;
    private int msn;

    /** Allocates the header area and writes one FPDU header for the decode benchmark. */
    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofShared();
        segment = arena.allocate(64, 8);
        encode();
    }

    /** Frees the header area. */
    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    /** Encodes a header for a 1,024-byte payload, as the transmit machine does per FPDU. */
    @Benchmark
    public int encode() {
        FpduHeader h = header.wrap(segment, 0).start(opcode, true, 1024);
        if (opcode.tagged()) {
            h.stag(0x1234_5601).taggedOffset(0x7f00_0000_1000L + msn);
        } else {
            h.invalidateStag(0).queueNumber(RdmapOpcode.QN_SEND).messageSequenceNumber(++msn).messageOffset(0);
        }
        return h.mpaLength();
    }

    /** Checks and reads a received header, as the receive machine does per FPDU. */
    @Benchmark
    public long decode() {
        if (FpduHeader.check(segment, 0, 64) != FpduCheck.OK) {
            return -1;
        }
        FpduHeader h = header.wrap(segment, 0);
        long r = h.opcode() + h.payloadLength() + (h.last() ? 1 : 0);
        if (h.tagged()) {
            r += h.stag() + h.taggedOffset();
        } else {
            r += h.queueNumber() + h.messageSequenceNumber() + h.messageOffset();
        }
        return r;
    }
}
