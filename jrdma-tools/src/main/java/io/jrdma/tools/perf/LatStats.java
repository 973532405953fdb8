package io.jrdma.tools.perf;

import java.util.Arrays;

import org.HdrHistogram.Histogram;

/**
 * Latency figures computed the way perftest computes them.
 *
 * <p>Modelled on perftest v4.5-0.20 {@code src/perftest_parameters.c}, {@code print_report_lat}
 * and {@code print_report_lat_duration}:
 * <ul>
 *   <li>a sample is the time between two consecutive posts, {@code posted[i+1] - posted[i]}, so an
 *       N-iteration run gives N&minus;1 samples; each is divided by the round-trip factor (2 for
 *       SEND and WRITE ping-pong, whose samples are round trips; 1 for READ and ATOMIC);</li>
 *   <li>the samples are sorted; the two largest are kept out of the median, mean and deviation;</li>
 *   <li>{@code t_min} is the smallest sample and {@code t_max} the second largest (perftest reads
 *       the sorted array at the count of kept samples);</li>
 *   <li>{@code t_typical} is the median of the kept samples: the middle one, or the integer mean
 *       of the two middle ones;</li>
 *   <li>{@code t_avg} is their mean; {@code t_stdev} is computed from deviations truncated to
 *       whole microseconds, as perftest's {@code int} arithmetic does;</li>
 *   <li>the 99% and 99.9% percentiles are the samples at index ceil(kept &times; 0.99) and
 *       ceil(kept &times; 0.999) of the sorted array.</li>
 * </ul>
 * Duration runs report the mean latency, (end &minus; start) / factor / iterations, and the
 * transaction rate, iterations / (end &minus; start).
 */
public final class LatStats {

    /** The fewest iterations perftest accepts ({@code MIN_ITER}); fewer leave no kept samples. */
    public static final int MIN_ITERATIONS = 5;

    /** Round-trip factor of ping-pong tests (SEND, WRITE): a sample spans two one-way trips. */
    public static final int RTT_FACTOR_PING_PONG = 2;

    /** Round-trip factor of READ and ATOMIC, whose samples are one operation each. */
    public static final int RTT_FACTOR_READ = 1;

    private static final int MEASURE_TAIL = 2;
    private static final double NANOS_PER_MICRO = 1e3;

    private LatStats() {
    }

    /**
     * Computes a latency row from the post time of every iteration. The array is not modified.
     *
     * @param bytes the message size
     * @param posted the post time of each iteration, nanoseconds
     * @param iterations the iterations run (entries used)
     * @param rttFactor {@link #RTT_FACTOR_PING_PONG} or {@link #RTT_FACTOR_READ}
     * @return the row
     * @throws IllegalArgumentException if there are fewer than {@link #MIN_ITERATIONS} iterations
     */
    public static LatResult fromPostTimes(long bytes, long[] posted, int iterations, int rttFactor) {
        if (iterations < MIN_ITERATIONS || iterations > posted.length) {
            throw new IllegalArgumentException("need " + MIN_ITERATIONS + ".." + posted.length
                    + " iterations, got " + iterations);
        }
        if (rttFactor != RTT_FACTOR_PING_PONG && rttFactor != RTT_FACTOR_READ) {
            throw new IllegalArgumentException("rttFactor must be 1 or 2: " + rttFactor);
        }
        int samples = iterations - 1;
        long[] delta = new long[samples];
        for (int i = 0; i < samples; i++) {
            delta[i] = posted[i + 1] - posted[i];
        }
        return fromSamples(bytes, iterations, delta, rttFactor);
    }

    /**
     * Computes a latency row from raw samples (each a time between consecutive posts, in
     * nanoseconds). The array is sorted in place.
     *
     * @param bytes the message size
     * @param iterations the iteration count to print
     * @param delta the samples; at least 3
     * @param rttFactor {@link #RTT_FACTOR_PING_PONG} or {@link #RTT_FACTOR_READ}
     * @return the row
     * @throws IllegalArgumentException if fewer than 3 samples are given
     */
    public static LatResult fromSamples(long bytes, long iterations, long[] delta, int rttFactor) {
        if (delta.length <= MEASURE_TAIL) {
            throw new IllegalArgumentException("need more than " + MEASURE_TAIL + " samples, got " + delta.length);
        }
        Arrays.sort(delta);
        int kept = delta.length - MEASURE_TAIL;
        double q = NANOS_PER_MICRO * rttFactor;
        long median = (kept - 1) % 2 != 0 ? (delta[kept / 2] + delta[kept / 2 - 1]) / 2 : delta[kept / 2];
        double sum = 0;
        for (int i = 0; i < kept; i++) {
            sum += delta[i] / q;
        }
        double avg = sum / kept;
        double truncatedSquares = 0;
        double exactSquares = 0;
        for (int i = 0; i < kept; i++) {
            double d = avg - delta[i] / q;
            long whole = (long) d; // perftest: int temp_var = average - sample (truncation toward 0)
            truncatedSquares += (double) whole * whole;
            exactSquares += d * d;
        }
        int i99 = (int) Math.ceil(kept * 0.99);
        int i999 = (int) Math.ceil(kept * 0.999);
        return new LatResult(bytes, iterations, delta[0] / q, delta[kept] / q, median / q, avg,
                Math.sqrt(truncatedSquares / kept), delta[i99] / q, delta[i999] / q, Math.sqrt(exactSquares / kept));
    }

    /**
     * Computes the row of a duration run.
     *
     * @param bytes the message size
     * @param iterations iterations counted in the sampling window
     * @param elapsedNanos the sampling window
     * @param rttFactor {@link #RTT_FACTOR_PING_PONG} or {@link #RTT_FACTOR_READ}
     * @param histogram one-way latencies recorded in nanoseconds, for percentiles; may be null
     * @return the row
     * @throws IllegalArgumentException if the window is not positive or nothing was counted
     */
    public static LatDurationResult fromDuration(long bytes, long iterations, long elapsedNanos, int rttFactor,
            Histogram histogram) {
        if (elapsedNanos <= 0 || iterations <= 0) {
            throw new IllegalArgumentException("need a positive window and count: " + elapsedNanos + " ns, "
                    + iterations + " iterations");
        }
        double micros = elapsedNanos / NANOS_PER_MICRO;
        double latency = micros / rttFactor / iterations;
        double tps = iterations / (micros / 1e6);
        double p50 = Double.NaN;
        double p99 = Double.NaN;
        double p999 = Double.NaN;
        if (histogram != null && histogram.getTotalCount() > 0) {
            p50 = histogram.getValueAtPercentile(50) / NANOS_PER_MICRO;
            p99 = histogram.getValueAtPercentile(99) / NANOS_PER_MICRO;
            p999 = histogram.getValueAtPercentile(99.9) / NANOS_PER_MICRO;
        }
        return new LatDurationResult(bytes, iterations, latency, tps, p50, p99, p999);
    }
}
