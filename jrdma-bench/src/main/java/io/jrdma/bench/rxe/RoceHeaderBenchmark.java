package io.jrdma.bench.rxe;

import io.jrdma.internal.roce.Bth;
import io.jrdma.internal.roce.IbOpcode;
import io.jrdma.internal.roce.Icrc;
import io.jrdma.internal.roce.Reth;
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
 * A RoCEv2 packet's headers and ICRC on the hot path (IBTA Vol 1 §9.2, §9.3; Annex A17): the
 * requester writes BTH + RETH of an RDMA WRITE Only and seals the ICRC (IPv4, DF, id 0) before
 * each datagram; the receiver solves the IPv4 identification from the ICRC it got (what rxe's
 * kernel counter put there) as {@code RxeEngine} does per packet. Payload sizes: 64 B and the
 * 1,024- and 4,096-byte path MTUs. Expect 0 B/op with {@code -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RoceHeaderBenchmark {
    /** Payload bytes after the headers. */
    @Param({"64", "1024", "4096"})
    public int payload;

    private static final int SOURCE = 0x7f00_0001;
    private static final int DESTINATION = 0x7f00_0002;
    private static final int PORT = 4791;

    private final Bth bth = new Bth();
    private final Reth reth = new Reth();
    private final Icrc icrc = new Icrc();
    private Arena arena;
    private MemorySegment packet;
    private int length;
    private int psn;

    /** Allocates a packet buffer and builds one packet for the receive benchmark. */
    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofShared();
        length = Bth.LENGTH + Reth.LENGTH + payload + Icrc.LENGTH;
        packet = arena.allocate(length, 8);
        send();
    }

    /** Frees the buffer. */
    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    /** Writes BTH + RETH and seals the ICRC, as the requester does per packet. */
    @Benchmark
    public int send() {
        psn = psn + 1 & Bth.MASK_PSN;
        bth.wrap(packet, 0).init(IbOpcode.RC_RDMA_WRITE_ONLY.code(), false, false, 0, Bth.DEFAULT_PKEY, 0x11, true,
                psn);
        reth.wrap(packet, Bth.LENGTH).va(0x7f00_0000_0000L).rkey(0x1234).dmaLength(payload);
        return icrc.sealIpv4ForSend(packet, 0, length, SOURCE, DESTINATION, PORT, PORT);
    }

    /** Solves the IPv4 identification of a received packet from its ICRC, as the engine does per packet. */
    @Benchmark
    public long receive() {
        return icrc.solveIpv4Id(packet, 0, length, SOURCE, DESTINATION, PORT, PORT);
    }
}
