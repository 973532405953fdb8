package io.jrdma.tools.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

import io.jrdma.testkit.Property;

/** Bandwidth figures as perftest's print_report_bw computes them. */
class BwStatsTest {

    @Test
    void averageIsBytesOverFirstPostToLastCompletionInMebibytes() {
        long[] posted = {0, 250_000_000, 500_000_000, 750_000_000};
        long[] completed = {250_000_000, 500_000_000, 750_000_000, 1_000_000_000};
        BwResult r = BwStats.fromTimestamps(1 << 20, posted, completed, 4, 1, 1, true, ReportUnit.MB_PER_SEC);
        assertThat(r.bwAverage()).isEqualTo(4.0); // 4 MiB in 1 s
        assertThat(r.msgRateMpps()).isEqualTo(4e-6);
        assertThat(r.bwPeak()).isEqualTo(4.0); // every window runs at the same rate
        assertThat(r.iterations()).isEqualTo(4);
    }

    @Test
    void gigabitsAreTenToTheNinthBits() {
        BwResult r = BwStats.fromInterval(125_000_000, 1, 1_000_000_000L, ReportUnit.GBIT_PER_SEC);
        assertThat(r.bwAverage()).isEqualTo(1.0);
        assertThat(r.bwPeak()).isZero();
    }

    @Test
    void peakIsTheFastestWindowOfConsecutiveMessages() {
        // Messages 1 and 2 complete 10 ns apart after a slow start; the best window is 1..2 (posted 100, done 120).
        long[] posted = {0, 100, 105, 500};
        long[] completed = {90, 110, 120, 1000};
        long[] best = BwStats.minWindow(posted, completed, 4, 1, 1);
        assertThat(best[0] * 1.0 / best[1]).isEqualTo(10.0); // message 1 alone: 110 - 100 over 1
        BwResult r = BwStats.fromTimestamps(1000, posted, completed, 4, 1, 1, true, ReportUnit.MB_PER_SEC);
        assertThat(r.bwPeak()).isCloseTo(1000 * 1e9 / 10 / (1 << 20), within(1e-9));
    }

    @Test
    void withCqModerationOnlySignalledMessagesEndAWindow() {
        // cqMod 2 over 5 messages: completions exist for messages 1 and 3, and for the last one (4).
        // Entries 0 and 2 are never written by a CQ poll; they must not be read.
        long[] posted = {0, 10, 20, 30, 40};
        long[] completed = {0, 50, 0, 100, 1000};
        long[] best = BwStats.minWindow(posted, completed, 5, 1, 2);
        assertThat(best[0] * 1.0 / best[1]).isEqualTo(25.0); // messages 0..1 (50 ns / 2) or 0..3 (100 / 4)
    }

    @Test
    void peakIsSkippedWherePerftestSkipsIt() {
        assertThat(BwStats.peakWanted(20_000, false, false)).isTrue();
        assertThat(BwStats.peakWanted(20_001, false, false)).isFalse();
        assertThat(BwStats.peakWanted(100, true, false)).isFalse();
        assertThat(BwStats.peakWanted(100, false, true)).isFalse();
    }

    @Test
    void minWindowEqualsPerftestsExhaustiveSearch() {
        Property.of("minWindow vs perftest's double loop").tries(300).sizes(1, 40).check((random, size) -> {
            long[] gaps = random.longs(size).toArray();
            minWindowMatches(gaps, 1 + random.nextInt(4), 1 + random.nextInt(5));
        });
    }

    private static void minWindowMatches(long[] gaps, int postList, int cqMod) {
        int n = gaps.length;
        long[] posted = new long[n];
        long[] completed = new long[n];
        long t = 0;
        for (int i = 0; i < n; i++) {
            t += Math.floorMod(gaps[i], 1000) + 1;
            posted[i] = t;
            completed[i] = t + 1 + Math.floorMod(gaps[i] >>> 7, 5000);
        }
        // Completions must not go backwards, as a CQ's do not.
        for (int i = 1; i < n; i++) {
            completed[i] = Math.max(completed[i], completed[i - 1]);
        }
        long[] best = BwStats.minWindow(posted, completed, n, postList, cqMod);
        assertThat(best[0] * 1.0 / best[1]).isCloseTo(bruteForce(posted, completed, n, postList, cqMod),
                within(1e-9));
    }

    /** perftest's double loop of print_report_bw, with exact division. */
    private static double bruteForce(long[] posted, long[] completed, int n, int postList, int cqMod) {
        double best = cqMod > 1 && n > 1 ? (completed[n - 1] - posted[0]) / (double) n : completed[0] - posted[0];
        for (int i = 0; i < n; i += postList) {
            for (int j = ((i + 1 + cqMod - 1) / cqMod) * cqMod - 1; j < n; j += cqMod) {
                best = Math.min(best, (completed[j] - posted[i]) / (double) (j - i + 1));
            }
            if (n % cqMod != 0) {
                best = Math.min(best, (completed[n - 1] - posted[i]) / (double) (n - i));
            }
        }
        return best;
    }
}
