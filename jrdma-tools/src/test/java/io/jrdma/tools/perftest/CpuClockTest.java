package io.jrdma.tools.perftest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import io.jrdma.tools.cli.ToolFailure;
import org.junit.jupiter.api.Test;

/** {@code -C}'s clock rate from /proc/cpuinfo and C's {@code %g}, which the sample lists print with. */
class CpuClockTest {

    @Test
    void theRateIsTheFirstCpuMhzLine() {
        assertThat(CpuClock.mhz(List.of("processor\t: 0", "model name\t: x", "cpu MHz\t\t: 2495.998",
                "cpu MHz\t\t: 3000.000"))).isEqualTo(2495.998);
    }

    @Test
    void aMachineThatGivesNoRateIsNamedWithWhatToDoInstead() {
        assertThatThrownBy(() -> CpuClock.mhz(List.of("processor\t: 0", "cpu MHz\t\t: ?", "cpu MHz\t\t: 0")))
                .isInstanceOf(ToolFailure.class).hasMessageContaining("no 'cpu MHz' line")
                .hasMessageContaining("leave out -C");
    }

    @Test
    void numbersPrintAsCsPercentG() {
        assertThat(CpuClock.g(4.66)).isEqualTo("4.66");
        assertThat(CpuClock.g(4.0)).isEqualTo("4");
        assertThat(CpuClock.g(1701.23456)).isEqualTo("1701.23");
        assertThat(CpuClock.g(123456.7)).isEqualTo("123457");
        assertThat(CpuClock.g(1234567.0)).isEqualTo("1.23457e+06");
        assertThat(CpuClock.g(0.00012345)).isEqualTo("0.00012345");
        assertThat(CpuClock.g(0.000012345)).isEqualTo("1.2345e-05");
        assertThat(CpuClock.g(0)).isEqualTo("0");
    }
}
