package io.jrdma.tools.perf;

/**
 * The latency row of a test run for a duration ({@code -D}): perftest reports only the mean and
 * the transaction rate. jrdma also keeps a histogram of the samples, so the JSON output can carry
 * percentiles; they are {@code NaN} when no histogram was kept.
 *
 * @param bytes the message size
 * @param iterations the iterations counted in the sampling window
 * @param tAvg the mean latency in microseconds
 * @param tpsAverage transactions (round trips) per second
 * @param p50 the median from the histogram, in microseconds, or {@code NaN}
 * @param p99 the 99th percentile from the histogram, in microseconds, or {@code NaN}
 * @param p999 the 99.9th percentile from the histogram, in microseconds, or {@code NaN}
 */
public record LatDurationResult(long bytes, long iterations, double tAvg, double tpsAverage, double p50,
        double p99, double p999) implements PerfResult {

    /**
     * Checks the row.
     *
     * @throws IllegalArgumentException if a count is negative
     */
    public LatDurationResult {
        if (bytes < 0 || iterations < 0) {
            throw new IllegalArgumentException("bytes and iterations must be >= 0: " + bytes + ", " + iterations);
        }
    }

    @Override
    public void writeJson(JsonObject json) {
        json.put("bytes", bytes)
                .put("iterations", iterations)
                .put("t_avg_usec", tAvg)
                .put("tps_average", tpsAverage)
                .put("p50_usec", p50)
                .put("p99_usec", p99)
                .put("p99_9_usec", p999);
    }
}
