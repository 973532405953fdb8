package io.jrdma.tools.baseline;

import io.jrdma.tools.perf.PerfResult;

/**
 * One measured size of a baseline: the perftest row, and what the server counted, so a reader can
 * see lost UDP datagrams.
 *
 * @param result the row as the client computed it
 * @param serverMessages messages the server received in the measured run (whole run, including a
 *     timed run's margins)
 * @param serverBytes bytes the server received in the measured run
 * @param clientMessages messages the client sent in the measured run (whole run)
 */
public record BaselineRow(PerfResult result, long serverMessages, long serverBytes, long clientMessages) {

    /**
     * Checks the counts.
     *
     * @throws IllegalArgumentException if the result is missing or a count is negative
     */
    public BaselineRow {
        if (result == null || serverMessages < 0 || serverBytes < 0 || clientMessages < 0) {
            throw new IllegalArgumentException("a result and non-negative counts are required");
        }
    }

    /**
     * Messages sent but not received (UDP loss; always 0 for TCP).
     *
     * @return the difference, never negative
     */
    public long lostMessages() {
        return Math.max(0, clientMessages - serverMessages);
    }
}
