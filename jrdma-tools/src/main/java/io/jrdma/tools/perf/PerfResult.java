package io.jrdma.tools.perf;

/**
 * One result row of a perftest-style report: a bandwidth row, a latency row, or the row of a
 * latency test run for a duration.
 */
public sealed interface PerfResult permits BwResult, LatResult, LatDurationResult {

    /**
     * The message size of the row.
     *
     * @return {@code #bytes}
     */
    long bytes();

    /**
     * The iteration count perftest prints in the row.
     *
     * @return {@code #iterations}
     */
    long iterations();

    /**
     * Writes the row's figures into a JSON object, with perftest's names where it has them.
     *
     * @param json the object to add the fields to
     */
    void writeJson(JsonObject json);
}
