package io.jrdma.tools.perf;

/**
 * A latency row of a test run for a number of iterations, all times in microseconds.
 *
 * <p>{@code tStdev} is computed as perftest computes it (each deviation truncated to whole
 * microseconds before squaring); {@code tStdevExact} is the plain standard deviation of the same
 * samples, given in the JSON output only.
 *
 * @param bytes the message size
 * @param iterations the iterations run
 * @param tMin the smallest sample
 * @param tMax the second largest sample (perftest keeps the two largest out of the other figures)
 * @param tTypical the median
 * @param tAvg the mean
 * @param tStdev the standard deviation, computed as perftest does
 * @param p99 the 99th percentile
 * @param p999 the 99.9th percentile
 * @param tStdevExact the standard deviation without perftest's truncation
 */
public record LatResult(long bytes, long iterations, double tMin, double tMax, double tTypical, double tAvg,
        double tStdev, double p99, double p999, double tStdevExact) implements PerfResult {

    /**
     * Checks the row.
     *
     * @throws IllegalArgumentException if a count is negative
     */
    public LatResult {
        if (bytes < 0 || iterations < 0) {
            throw new IllegalArgumentException("bytes and iterations must be >= 0: " + bytes + ", " + iterations);
        }
    }

    @Override
    public void writeJson(JsonObject json) {
        json.put("bytes", bytes)
                .put("iterations", iterations)
                .put("t_min_usec", tMin)
                .put("t_max_usec", tMax)
                .put("t_typical_usec", tTypical)
                .put("t_avg_usec", tAvg)
                .put("t_stdev_usec", tStdev)
                .put("t_stdev_exact_usec", tStdevExact)
                .put("p99_usec", p99)
                .put("p99_9_usec", p999);
    }

    /**
     * The same row with every time multiplied by a factor (perftest's {@code -C}: microseconds times the
     * CPU's MHz are cycles).
     *
     * @param factor the factor
     * @return the scaled row
     */
    public LatResult scaled(double factor) {
        return new LatResult(bytes, iterations, tMin * factor, tMax * factor, tTypical * factor, tAvg * factor,
                tStdev * factor, p99 * factor, p999 * factor, tStdevExact * factor);
    }
}
