package io.jrdma.bench;

import io.jrdma.tools.perf.BwResult;
import io.jrdma.tools.perf.BwStats;
import io.jrdma.tools.perf.LatResult;
import io.jrdma.tools.perf.LatStats;
import io.jrdma.tools.perf.ReportUnit;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The in-process floor, what loop is compared to: what two threads of one JVM pay to hand memory to
 * each other, and what one thread pays to copy it.
 *
 * <ul>
 *   <li>{@code mem-lat}: two busy-polling threads ping-pong a sequence number, each side's in a cache
 *       line of its own (padded on both sides, published with a release store and read with acquire
 *       loads); a waiting thread spins, and yields after 64 empty looks, as the tools' latency loops
 *       do. At 64 B that one line is the whole message; at a larger size the sender first copies the
 *       message ({@code MemorySegment.copy}) into the receiver's buffer, as loop's WRITE places it.
 *       The client takes a time stamp before each send; the samples are the times between them, halved,
 *       as {@code write-lat} reports one-way latency ({@link LatStats#fromPostTimes}).</li>
 *   <li>{@code memcpy}: one thread copies a message of the size from one native buffer to another
 *       ({@code MemorySegment.copy}) for the run's duration, in MB/s as the bandwidth rows count them.</li>
 * </ul>
 */
final class MemFloor {
    /** Cache line size assumed for padding (x86-64 and most arm64). */
    static final int LINE = 64;
    /** Empty looks before each further one yields, as jrdma-tools' latency loops do. */
    static final int SPINS_BEFORE_YIELD = 64;
    private static final long SPIN_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final VarHandle SEQ = ValueLayout.JAVA_LONG.varHandle();

    private MemFloor() {
    }

    /**
     * The floor rows: {@code memcpy} at every bandwidth size and {@code mem-lat} at every latency size.
     *
     * @param bwSizes sizes of the copy runs
     * @param seconds seconds per copy run
     * @param latSizes sizes of the ping-pong runs
     * @param iterations round trips per ping-pong run
     * @return the measurements, in that order
     */
    static List<Measurement> measure(List<Integer> bwSizes, int seconds, List<Integer> latSizes, long iterations) {
        List<Measurement> out = new ArrayList<>();
        for (int s : bwSizes) {
            out.add(Measurement.of("floor", "memcpy", "mem", "one thread", s, 1, memcpy(s, seconds).bwAverage(),
                    Double.NaN, "MB/s"));
        }
        for (int s : latSizes) {
            LatResult r = memLat(s, iterations);
            out.add(Measurement.of("floor", "mem-lat", "mem", "busy-poll", s, 1, r.tTypical(), r.p99(), "us"));
        }
        return out;
    }

    /**
     * Copies {@code size} bytes from one native buffer to another for {@code seconds}.
     *
     * @param size the message size (at least 1)
     * @param seconds how long (at least 1)
     * @return the rate, in MB/s of 2^20 bytes as perftest counts
     */
    static BwResult memcpy(int size, int seconds) {
        if (size < 1 || seconds < 1) {
            throw new IllegalArgumentException("size and seconds must be positive: " + size + ", " + seconds);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(size, 4096);
            MemorySegment dst = arena.allocate(size, 4096);
            src.fill((byte) 0x5a);
            // Warm-up: the copy's code compiled and both buffers' pages touched.
            long warmEnd = System.nanoTime() + 100_000_000L;
            while (System.nanoTime() < warmEnd) {
                MemorySegment.copy(src, 0, dst, 0, size);
            }
            long start = System.nanoTime();
            long end = start + TimeUnit.SECONDS.toNanos(seconds);
            long copies = 0;
            long now;
            do {
                for (int i = 0; i < 16; i++) {
                    MemorySegment.copy(src, 0, dst, 0, size);
                }
                copies += 16;
                now = System.nanoTime();
            } while (now < end);
            if (dst.get(ValueLayout.JAVA_BYTE, size - 1) != 0x5a) {
                throw new IllegalStateException("memcpy floor: the copy did not arrive");
            }
            return BwStats.fromInterval(size, copies, now - start, ReportUnit.MB_PER_SEC);
        }
    }

    /**
     * Two busy-polling threads hand {@code size} bytes back and forth {@code iterations} times.
     *
     * @param size the message size (at least 1; up to {@link #LINE} the sequence number's line is the message)
     * @param iterations round trips (at least {@link LatStats#MIN_ITERATIONS})
     * @return one-way latency, as {@code write-lat} reports it
     */
    static LatResult memLat(int size, long iterations) {
        if (size < 1 || iterations < LatStats.MIN_ITERATIONS || iterations > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("size " + size + " or iterations " + iterations + " out of range");
        }
        int n = (int) iterations;
        try (Arena arena = Arena.ofShared()) {
            // Each direction's sequence number in a line of its own, a line of padding on either side.
            MemorySegment lines = arena.allocate(5 * LINE, LINE);
            MemorySegment toServer = lines.asSlice(LINE, LINE);
            MemorySegment toClient = lines.asSlice(3 * LINE, LINE);
            boolean copy = size > LINE;
            MemorySegment clientBuf = copy ? arena.allocate(size, 4096) : null;
            MemorySegment serverBuf = copy ? arena.allocate(size, 4096) : null;
            long[] posted = new long[n];
            CompletableFuture<Void> server = new CompletableFuture<>();
            Thread t = Thread.ofPlatform().daemon().name("bench-mem-lat-server").start(() -> {
                try {
                    for (long i = 1; i <= n; i++) {
                        await(toServer, i);
                        if (copy) {
                            MemorySegment.copy(serverBuf, 0, clientBuf, 0, size);
                        }
                        SEQ.setRelease(toClient, 0L, i);
                    }
                    server.complete(null);
                } catch (RuntimeException e) {
                    server.completeExceptionally(e);
                }
            });
            for (int i = 0; i < n; i++) {
                posted[i] = System.nanoTime();
                if (copy) {
                    MemorySegment.copy(clientBuf, 0, serverBuf, 0, size);
                }
                SEQ.setRelease(toServer, 0L, (long) i + 1);
                await(toClient, (long) i + 1);
            }
            server.join();
            join(t);
            return LatStats.fromPostTimes(size, posted, n, LatStats.RTT_FACTOR_PING_PONG);
        }
    }

    /**
     * Spins until {@code line}'s sequence number reaches {@code want}, as the perftest-style tools wait
     * ({@link #SPINS_BEFORE_YIELD} spins, then a yield per empty look), so that on a busy host the floor
     * and {@code write-lat} lose their CPUs alike; bounded by {@link #SPIN_LIMIT_NANOS}.
     */
    private static void await(MemorySegment line, long want) {
        int spins = 0;
        long deadline = 0;
        while ((long) SEQ.getAcquire(line, 0L) != want) {
            if (++spins > SPINS_BEFORE_YIELD) {
                Thread.yield();
            } else {
                Thread.onSpinWait();
            }
            if ((spins & 0xFFFF) == 0) {
                long now = System.nanoTime();
                if (deadline == 0) {
                    deadline = now + SPIN_LIMIT_NANOS;
                } else if (now > deadline) {
                    throw new IllegalStateException("mem-lat: the peer did not answer round trip " + want
                            + " in " + TimeUnit.NANOSECONDS.toSeconds(SPIN_LIMIT_NANOS) + " s");
                }
            }
        }
    }

    private static void join(Thread t) {
        try {
            t.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
