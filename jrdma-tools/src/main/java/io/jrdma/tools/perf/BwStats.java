package io.jrdma.tools.perf;

/**
 * Bandwidth figures computed the way perftest computes them, from per-message post and
 * completion timestamps in nanoseconds ({@link System#nanoTime()}).
 *
 * <p>Modelled on perftest v4.5-0.20 {@code src/perftest_parameters.c}, {@code print_report_bw}:
 * <ul>
 *   <li><b>average</b> = bytes &times; messages / (last completion &minus; first post);</li>
 *   <li><b>message rate</b> = messages / the same interval, in millions per second;</li>
 *   <li><b>peak</b> = bytes / the shortest time per message over any window of messages
 *       {@code i..j}: min over i &le; j of (completed[j] &minus; posted[i]) / (j &minus; i + 1), where
 *       {@code i} steps by the post-list length and {@code j} visits only messages that produce a
 *       completion (every {@code cqMod}-th, and the last).</li>
 * </ul>
 * perftest keeps the per-window time in whole CPU cycles (integer division); jrdma compares the
 * windows exactly (cross-multiplied), since whole nanoseconds would be a coarser grain than
 * perftest's cycles. perftest skips the peak ({@code noPeak}) for duration runs, for more than
 * {@value #PEAK_ITERATION_LIMIT} iterations and on request ({@code -N}); it then prints 0.00.
 */
public final class BwStats {

    /** Above this many iterations perftest does not compute the peak (its search is quadratic). */
    public static final long PEAK_ITERATION_LIMIT = 20_000;

    private static final double NANOS_PER_SECOND = 1e9;

    private BwStats() {
    }

    /**
     * Whether perftest would compute the peak for a run.
     *
     * @param iterations the iterations of an iteration-mode run
     * @param durationMode whether the run is timed ({@code -D})
     * @param noPeakRequested whether {@code -N} was given
     * @return true if the peak is to be computed
     */
    public static boolean peakWanted(long iterations, boolean durationMode, boolean noPeakRequested) {
        return !durationMode && !noPeakRequested && iterations <= PEAK_ITERATION_LIMIT;
    }

    /**
     * Computes a bandwidth row from an iteration-mode run.
     *
     * @param bytes the message size
     * @param posted post time of each message, nanoseconds
     * @param completed completion time of each message that has one (see {@code cqMod}); the last
     *     entry must be the completion of the last message
     * @param messages the number of messages (entries used in both arrays)
     * @param postList messages posted per post call (1 for the baselines)
     * @param cqMod completions are signalled every {@code cqMod} messages and for the last one
     * @param withPeak whether to search for the peak (see {@link #peakWanted})
     * @param unit the bandwidth unit
     * @return the row
     * @throws IllegalArgumentException if the counts are inconsistent or the run took no time
     */
    public static BwResult fromTimestamps(long bytes, long[] posted, long[] completed, int messages, int postList,
            int cqMod, boolean withPeak, ReportUnit unit) {
        if (messages < 1 || messages > posted.length || messages > completed.length) {
            throw new IllegalArgumentException("messages " + messages + " outside the timestamp arrays");
        }
        if (postList < 1 || cqMod < 1) {
            throw new IllegalArgumentException("postList and cqMod must be >= 1: " + postList + ", " + cqMod);
        }
        long elapsed = completed[messages - 1] - posted[0];
        double peak = 0;
        if (withPeak) {
            long[] best = minWindow(posted, completed, messages, postList, cqMod);
            peak = unit.fromBytesPerSecond(bytes * NANOS_PER_SECOND * best[1] / best[0]);
        }
        return average(bytes, messages, elapsed, peak, unit);
    }

    /**
     * Computes a bandwidth row from a count and an interval, as perftest does for duration runs
     * (the peak is 0).
     *
     * @param bytes the message size
     * @param messages messages completed in the interval
     * @param elapsedNanos the interval
     * @param unit the bandwidth unit
     * @return the row
     * @throws IllegalArgumentException if the interval is not positive
     */
    public static BwResult fromInterval(long bytes, long messages, long elapsedNanos, ReportUnit unit) {
        return average(bytes, messages, elapsedNanos, 0, unit);
    }

    private static BwResult average(long bytes, long messages, long elapsedNanos, double peak, ReportUnit unit) {
        if (elapsedNanos <= 0) {
            throw new IllegalArgumentException("elapsed time must be > 0 ns: " + elapsedNanos);
        }
        double seconds = elapsedNanos / NANOS_PER_SECOND;
        double avg = unit.fromBytesPerSecond((double) bytes * messages / seconds);
        double rate = messages / seconds / 1e6;
        return new BwResult(bytes, messages, peak, avg, rate, unit);
    }

    /**
     * The shortest time per message over the windows perftest searches, as an exact fraction.
     *
     * @param posted post times
     * @param completed completion times
     * @param n messages
     * @param postList post-list length (window starts)
     * @param cqMod completion moderation (window ends)
     * @return {@code {nanoseconds, messages}} of the best window
     */
    static long[] minWindow(long[] posted, long[] completed, int n, int postList, int cqMod) {
        long bestTime = completed[0] - posted[0];
        long bestCount = 1;
        if (cqMod > 1 && n > 1) {
            // Message 0 has no completion of its own; start from the whole run.
            bestTime = completed[n - 1] - posted[0];
            bestCount = n;
        }
        boolean lastIsExtra = n % cqMod != 0;
        for (int i = 0; i < n; i += postList) {
            long start = posted[i];
            int first = ((i + cqMod) / cqMod) * cqMod - 1; // the first signalled message at or after i
            for (int j = first; j < n; j += cqMod) {
                long time = completed[j] - start;
                long count = j - i + 1L;
                if (time * bestCount < bestTime * count) {
                    bestTime = time;
                    bestCount = count;
                }
            }
            if (lastIsExtra) {
                long time = completed[n - 1] - start;
                long count = (long) n - i;
                if (time * bestCount < bestTime * count) {
                    bestTime = time;
                    bestCount = count;
                }
            }
        }
        if (bestTime <= 0) {
            // Timer granularity: a window measured as 0 ns. Report it as 1 ns rather than infinity.
            bestTime = 1;
        }
        return new long[] {bestTime, bestCount};
    }
}
