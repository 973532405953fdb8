package io.jrdma.tools.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** Latency statistics as perftest's print_report_lat computes them. */
class LatStatsTest {

    /** Post times whose consecutive differences are the given round trips, in nanoseconds. */
    private static long[] postsFor(long... rtts) {
        long[] posted = new long[rtts.length + 1];
        posted[0] = 1_000_000;
        for (int i = 0; i < rtts.length; i++) {
            posted[i + 1] = posted[i] + rtts[i];
        }
        return posted;
    }

    @Test
    void samplesAreHalfRoundTripsAndTheTwoLargestStayOutOfTheMean() {
        // 7 samples; sorted: 2000 4000 6000 8000 10000 | 90000 100000 dropped.
        long[] posted = postsFor(100_000, 8_000, 2_000, 90_000, 6_000, 10_000, 4_000);
        LatResult r = LatStats.fromPostTimes(64, posted, posted.length, LatStats.RTT_FACTOR_PING_PONG);
        assertThat(r.bytes()).isEqualTo(64);
        assertThat(r.iterations()).isEqualTo(8);
        assertThat(r.tMin()).isEqualTo(1.0);
        assertThat(r.tMax()).isEqualTo(45.0); // perftest's t_max is the second largest sample
        assertThat(r.tTypical()).isEqualTo(3.0); // odd count: middle sample 6000 ns / 2
        assertThat(r.tAvg()).isEqualTo(3.0);
        // kept = 5: ceil(4.95) = 5 and ceil(4.995) = 5 index the first dropped sample, as in perftest.
        assertThat(r.p99()).isEqualTo(45.0);
        assertThat(r.p999()).isEqualTo(45.0);
    }

    @Test
    void evenCountMedianIsTheIntegerMeanOfTheMiddleTwo() {
        // kept samples: 1001 2000 3001 4000 (+ two large dropped); middle two 2000 and 3001 -> 2500 (integer).
        LatResult r = LatStats.fromSamples(2, 7, new long[] {4000, 1001, 3001, 2000, 50_000, 60_000},
                LatStats.RTT_FACTOR_READ);
        assertThat(r.tTypical()).isEqualTo(2.5);
        assertThat(r.tMin()).isCloseTo(1.001, within(1e-12));
        assertThat(r.tMax()).isEqualTo(50.0);
    }

    @Test
    void stdevTruncatesEachDeviationToWholeMicrosecondsAsPerftestDoes() {
        // kept: 1.0 1.0 3.9 3.9 us (factor 1); mean 2.45; deviations 1.45 -> 1, -1.45 -> -1.
        LatResult r = LatStats.fromSamples(2, 7, new long[] {1000, 1000, 3900, 3900, 9000, 9000},
                LatStats.RTT_FACTOR_READ);
        assertThat(r.tAvg()).isCloseTo(2.45, within(1e-12));
        assertThat(r.tStdev()).isEqualTo(1.0);
        assertThat(r.tStdevExact()).isCloseTo(1.45, within(1e-12));
    }

    @Test
    void percentilesIndexTheSortedSamplesAtCeilOfTheirRank() {
        long[] samples = new long[1002];
        for (int i = 0; i < samples.length; i++) {
            samples[i] = (i + 1) * 1000L; // 1..1002 us, factor 1
        }
        LatResult r = LatStats.fromSamples(2, 1003, samples, LatStats.RTT_FACTOR_READ);
        // kept 1000: 99% -> index 990 (991 us), 99.9% -> index 999 (1000 us); t_max index 1000 (1001 us).
        assertThat(r.p99()).isEqualTo(991.0);
        assertThat(r.p999()).isEqualTo(1000.0);
        assertThat(r.tMax()).isEqualTo(1001.0);
        assertThat(r.tTypical()).isEqualTo(500.5); // mean of the middle two, 500000 and 501000 ns
    }

    @Test
    void fewerThanPerftestsMinimumIterationsAreRejected() {
        assertThatThrownBy(() -> LatStats.fromPostTimes(2, new long[4], 4, 2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("iterations");
    }

    @Test
    void durationRowIsMeanLatencyAndTransactionRate() {
        Histogram h = new Histogram(1_000_000_000L, 3);
        for (int i = 0; i < 100; i++) {
            h.recordValue(5_000);
        }
        LatDurationResult r = LatStats.fromDuration(64, 100_000, 1_000_000_000L, LatStats.RTT_FACTOR_PING_PONG, h);
        assertThat(r.tAvg()).isEqualTo(5.0); // 1 s / 100000 round trips / 2
        assertThat(r.tpsAverage()).isEqualTo(100_000.0);
        assertThat(r.p50()).isCloseTo(5.0, within(0.01));
        assertThat(LatStats.fromDuration(64, 10, 1000, 2, null).p99()).isNaN();
    }
}
