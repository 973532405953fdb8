package io.jrdma.tools.perftest;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.junit.jupiter.api.Test;

class DataPathTest {

    @Test
    void stepsThroughTheCycleBufferInCacheLinesAsPerftestsIncDoes() {
        assertThat(DataPath.inc(2, 64)).isEqualTo(64);
        assertThat(DataPath.inc(64, 64)).isEqualTo(64);
        assertThat(DataPath.inc(65, 64)).isEqualTo(128);
        assertThat(DataPath.inc(4096, 64)).isEqualTo(4096);
    }

    @Test
    void thePatternChecksItselfAndFindsAChangedByte() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(300);
            PerfPattern.fill(s, 0, 300);
            assertThat(PerfPattern.firstMismatch(s, 300)).isEqualTo(-1);
            s.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 123, (byte) (PerfPattern.at(123) + 1));
            assertThat(PerfPattern.firstMismatch(s, 300)).isEqualTo(123);
        }
        assertThat(PerfPattern.crc(64)).isNotEqualTo(PerfPattern.crc(63));
    }

    @Test
    void theDurationClockWalksWarmUpSampleCoolDownEnd() {
        long s = 1_000_000_000L;
        DurationClock c = new DurationClock(0, 5, 1);
        assertThat(c.state()).isEqualTo(DurationClock.START);
        assertThat(c.advance(s)).isEqualTo(DurationClock.SAMPLE);
        assertThat(c.advance(4 * s)).isEqualTo(DurationClock.STOP_SAMPLE);
        assertThat(c.sampleNanos()).isEqualTo(3 * s);
        assertThat(c.advance(5 * s)).isEqualTo(DurationClock.END);
    }
}
