package io.jrdma.bench;

/**
 * One measured figure of a benchmark run, with the floor it is compared to and the target it is
 * held to, if any.
 *
 * @param group what kind of figure: {@code floor}, {@code bandwidth}, {@code latency},
 *     {@code connect}, {@code memory}, {@code allocation}
 * @param test the tool or probe, e.g. {@code write-bw}, {@code tcp-lat}, {@code sequential}
 * @param transport {@code siw}, {@code rxe}, {@code loop}, {@code tcp}, {@code udp}
 * @param mode how it waits or runs, e.g. {@code busy-poll}
 * @param size message bytes (0 when not a message figure)
 * @param qps QPs (or connections) in the run
 * @param value the figure (bandwidth in MB/s, latency t_typical in µs, setups per second, bytes)
 * @param p99 the 99th percentile for latency (µs), else NaN
 * @param unit the unit of {@code value}
 * @param baseline what the figure is compared to, or {@code null}
 * @param baselineValue the floor's figure (NaN without a baseline)
 * @param baselineP99 the floor's 99th percentile (NaN unless latency)
 * @param target the target, e.g. {@code ">= 0.9x tcp"}, or {@code null}
 * @param met whether the target holds ({@code null} without a target)
 */
record Measurement(String group, String test, String transport, String mode, long size, int qps, double value,
        double p99, String unit, String baseline, double baselineValue, double baselineP99, String target,
        Boolean met) {

    /** A figure without a floor or a target. */
    static Measurement of(String group, String test, String transport, String mode, long size, int qps, double value,
            double p99, String unit) {
        return new Measurement(group, test, transport, mode, size, qps, value, p99, unit, null, Double.NaN,
                Double.NaN, null, null);
    }

    /** This figure compared to {@code floor}. */
    Measurement against(Measurement floor) {
        if (floor == null) {
            return this;
        }
        return new Measurement(group, test, transport, mode, size, qps, value, p99, unit, floor.label(),
                floor.value, floor.p99, target, met);
    }

    /** This figure held to {@code description}, which holds when {@code ok}. */
    Measurement target(String description, boolean ok) {
        return new Measurement(group, test, transport, mode, size, qps, value, p99, unit, baseline, baselineValue,
                baselineP99, description, ok);
    }

    /** The figure over its floor (NaN without one). */
    double ratio() {
        return value / baselineValue;
    }

    /** The 99th percentile over the floor's (NaN unless latency with a floor). */
    double p99Ratio() {
        return p99 / baselineP99;
    }

    /** A short name: test, transport, mode and size. */
    String label() {
        return test + " " + mode + (size > 0 ? " " + Report.size(size) : "");
    }
}
