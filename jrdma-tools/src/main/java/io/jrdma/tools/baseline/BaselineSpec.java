package io.jrdma.tools.baseline;

import java.time.Duration;
import java.util.List;

import io.jrdma.siw.TcpCongestion;
import io.jrdma.tools.perf.LatStats;
import io.jrdma.tools.perf.ReportUnit;

/**
 * What a baseline run measures: the tool, the message sizes, iterations or a duration, the I/O
 * mode and the report unit. Shared by the command line and the in-process API
 * ({@link Baselines#run(BaselineSpec)}).
 *
 * @param tool the baseline
 * @param sizes message sizes, run in order
 * @param iterations messages (bandwidth) or round trips (latency) per size, when not timed
 * @param durationSeconds run each size for this long ({@code -D}); 0 runs {@code iterations}
 * @param marginSeconds warm-up and cool-down inside a timed run ({@code -f}); the sample window is
 *     {@code durationSeconds - 2 * marginSeconds}
 * @param ioMode how to wait for the socket
 * @param unit bandwidth unit
 * @param noPeak skip the peak bandwidth ({@code -N})
 * @param warmupIterations untimed iterations before each size; -1 picks {@link #autoWarmup(int)}
 * @param stallTimeout how long a peer may stay silent before the run fails
 * @param tcpCongestion TCP congestion control of the test's TCP sockets, {@code null} for the kernel's default
 *     ({@code --tcp-cc}; Linux only): the floor to hold jrdma's siw against when siw runs with
 *     {@code jrdma.siw.tcpCongestion}
 */
public record BaselineSpec(BaselineTool tool, List<Integer> sizes, long iterations, int durationSeconds,
        int marginSeconds, IoMode ioMode, ReportUnit unit, boolean noPeak, int warmupIterations,
        Duration stallTimeout, String tcpCongestion) {

    /** perftest's {@code MAX_ITER}. */
    public static final long MAX_ITERATIONS = 100_000_000;

    /** The default stall timeout, 10 s. */
    public static final Duration DEFAULT_STALL_TIMEOUT = Duration.ofSeconds(10);

    /** Warm-up moves at most this many bytes per size (64 MiB). */
    public static final long WARMUP_BYTES = 64L << 20;

    /** Warm-up runs at most this many iterations per size, enough for the JIT to compile the loop. */
    public static final int WARMUP_MAX_ITERATIONS = 20_000;

    /** Warm-up runs at least this many iterations per size. */
    public static final int WARMUP_MIN_ITERATIONS = 16;

    /**
     * Checks the spec.
     *
     * @throws IllegalArgumentException on a missing field, a size the tool cannot carry, an
     *     iteration count outside perftest's {@code 5..10^8}, or a duration not longer than twice
     *     the margin
     */
    public BaselineSpec {
        if (tool == null || sizes == null || ioMode == null || unit == null || stallTimeout == null) {
            throw new IllegalArgumentException("tool, sizes, ioMode, unit and stallTimeout are required");
        }
        sizes = List.copyOf(sizes);
        if (sizes.isEmpty()) {
            throw new IllegalArgumentException("at least one size is required");
        }
        for (int s : sizes) {
            if (s < 1 || s > tool.maxSize()) {
                throw new IllegalArgumentException(tool.command() + " carries messages of 1.." + tool.maxSize()
                        + " bytes, not " + s);
            }
        }
        if (durationSeconds < 0 || marginSeconds < 0) {
            throw new IllegalArgumentException("duration and margin must be >= 0");
        }
        if (durationSeconds > 0 && durationSeconds <= 2 * marginSeconds) {
            throw new IllegalArgumentException("duration " + durationSeconds + " s must exceed twice the margin "
                    + marginSeconds + " s");
        }
        if (durationSeconds == 0 && (iterations < LatStats.MIN_ITERATIONS || iterations > MAX_ITERATIONS)) {
            throw new IllegalArgumentException("iterations must be " + LatStats.MIN_ITERATIONS + ".." + MAX_ITERATIONS
                    + ", not " + iterations);
        }
        if (warmupIterations < -1) {
            throw new IllegalArgumentException("warm-up iterations must be >= 0, or -1 for automatic");
        }
        if (stallTimeout.isNegative() || stallTimeout.isZero()) {
            throw new IllegalArgumentException("stall timeout must be positive");
        }
        if (tcpCongestion != null) {
            TcpCongestion.checkName(tcpCongestion);
        }
    }

    /**
     * A spec with the tool's perftest defaults: its default size and iterations, busy-poll, MB/sec,
     * automatic warm-up.
     *
     * @param tool the baseline
     * @return the spec
     */
    public static BaselineSpec defaults(BaselineTool tool) {
        return new BaselineSpec(tool, List.of(tool.defaultSize()), tool.defaultIterations(), 0, 0,
                IoMode.BUSY_POLL, ReportUnit.MB_PER_SEC, false, -1, DEFAULT_STALL_TIMEOUT, null);
    }

    /**
     * Whether each size runs for a duration.
     *
     * @return true for {@code -D}
     */
    public boolean timed() {
        return durationSeconds > 0;
    }

    /**
     * The warm-up iterations for a size: {@code warmupIterations} if set, otherwise enough to move
     * {@link #WARMUP_BYTES}, between {@link #WARMUP_MIN_ITERATIONS} and
     * {@link #WARMUP_MAX_ITERATIONS}. Timed runs warm up in their margin instead.
     *
     * @param size the message size
     * @return iterations
     */
    public int warmupFor(int size) {
        if (timed()) {
            return 0;
        }
        return warmupIterations >= 0 ? warmupIterations : autoWarmup(size);
    }

    /**
     * The automatic warm-up for a size.
     *
     * @param size the message size
     * @return iterations
     */
    public static int autoWarmup(int size) {
        long byBytes = WARMUP_BYTES / size;
        return (int) Math.max(WARMUP_MIN_ITERATIONS, Math.min(WARMUP_MAX_ITERATIONS, byBytes));
    }

    /**
     * A copy with other sizes.
     *
     * @param newSizes the sizes
     * @return the spec
     */
    public BaselineSpec withSizes(List<Integer> newSizes) {
        return new BaselineSpec(tool, newSizes, iterations, durationSeconds, marginSeconds, ioMode, unit, noPeak,
                warmupIterations, stallTimeout, tcpCongestion);
    }

    /**
     * A copy with another iteration count.
     *
     * @param newIterations the iterations
     * @return the spec
     */
    public BaselineSpec withIterations(long newIterations) {
        return new BaselineSpec(tool, sizes, newIterations, durationSeconds, marginSeconds, ioMode, unit, noPeak,
                warmupIterations, stallTimeout, tcpCongestion);
    }

    /**
     * A copy with another I/O mode.
     *
     * @param mode the mode
     * @return the spec
     */
    public BaselineSpec withIoMode(IoMode mode) {
        return new BaselineSpec(tool, sizes, iterations, durationSeconds, marginSeconds, mode, unit, noPeak,
                warmupIterations, stallTimeout, tcpCongestion);
    }

    /**
     * A copy with another unit.
     *
     * @param newUnit the unit
     * @return the spec
     */
    public BaselineSpec withUnit(ReportUnit newUnit) {
        return new BaselineSpec(tool, sizes, iterations, durationSeconds, marginSeconds, ioMode, newUnit, noPeak,
                warmupIterations, stallTimeout, tcpCongestion);
    }

    /**
     * A copy that runs each size for a duration.
     *
     * @param seconds the duration
     * @param margin the margin
     * @return the spec
     */
    public BaselineSpec withDuration(int seconds, int margin) {
        return new BaselineSpec(tool, sizes, iterations, seconds, margin, ioMode, unit, noPeak, warmupIterations,
                stallTimeout, tcpCongestion);
    }

    /**
     * A copy with another warm-up.
     *
     * @param warmup iterations, or -1 for automatic
     * @return the spec
     */
    public BaselineSpec withWarmup(int warmup) {
        return new BaselineSpec(tool, sizes, iterations, durationSeconds, marginSeconds, ioMode, unit, noPeak,
                warmup, stallTimeout, tcpCongestion);
    }

    /**
     * A copy with another stall timeout.
     *
     * @param timeout the timeout
     * @return the spec
     */
    public BaselineSpec withStallTimeout(Duration timeout) {
        return new BaselineSpec(tool, sizes, iterations, durationSeconds, marginSeconds, ioMode, unit, noPeak,
                warmupIterations, timeout, tcpCongestion);
    }

    /**
     * A copy whose TCP sockets run congestion control {@code algorithm} ({@code null}: the kernel's default).
     *
     * @param algorithm a Linux algorithm name such as {@code reno}
     * @return the spec
     */
    public BaselineSpec withTcpCongestion(String algorithm) {
        return new BaselineSpec(tool, sizes, iterations, durationSeconds, marginSeconds, ioMode, unit, noPeak,
                warmupIterations, stallTimeout, algorithm);
    }
}
