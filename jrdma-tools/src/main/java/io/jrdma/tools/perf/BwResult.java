package io.jrdma.tools.perf;

/**
 * A bandwidth row: {@code #bytes #iterations BW peak BW average MsgRate}.
 *
 * @param bytes the message size
 * @param iterations the messages counted (perftest multiplies by the number of QPs)
 * @param bwPeak the peak bandwidth in {@code unit}, 0 when the peak was not computed
 * @param bwAverage the average bandwidth in {@code unit}
 * @param msgRateMpps the average message rate in millions of messages per second
 * @param unit the bandwidth unit
 */
public record BwResult(long bytes, long iterations, double bwPeak, double bwAverage, double msgRateMpps,
        ReportUnit unit) implements PerfResult {

    /**
     * Checks the row.
     *
     * @throws IllegalArgumentException if a count is negative or the unit is missing
     */
    public BwResult {
        if (bytes < 0 || iterations < 0) {
            throw new IllegalArgumentException("bytes and iterations must be >= 0: " + bytes + ", " + iterations);
        }
        if (unit == null) {
            throw new IllegalArgumentException("unit is required");
        }
    }

    @Override
    public void writeJson(JsonObject json) {
        json.put("bytes", bytes)
                .put("iterations", iterations)
                .put("bw_peak", bwPeak)
                .put("bw_average", bwAverage)
                .put("bw_unit", unit.label())
                .put("msg_rate_mpps", msgRateMpps);
    }
}
