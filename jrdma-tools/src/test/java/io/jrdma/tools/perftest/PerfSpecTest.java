package io.jrdma.tools.perftest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import io.jrdma.verbs.QpType;
import org.junit.jupiter.api.Test;

class PerfSpecTest {

    @Test
    void startsFromPerftestsDefaultsForEachTool() {
        assertThat(PerfSpec.builder(PerfTest.WRITE_BW).build().sizes()).containsExactly(65536);
        assertThat(PerfSpec.builder(PerfTest.WRITE_BW).build().iterations()).isEqualTo(5000);
        assertThat(PerfSpec.builder(PerfTest.READ_BW).build().iterations()).isEqualTo(1000);
        assertThat(PerfSpec.builder(PerfTest.SEND_LAT).build().sizes()).containsExactly(2);
        assertThat(PerfSpec.builder(PerfTest.ATOMIC_BW).build().sizes()).containsExactly(8);
        assertThat(PerfSpec.builder(PerfTest.WRITE_LAT).build().port()).isEqualTo(18515);
    }

    @Test
    void theAutomaticWarmUpMovesAboutSixtyFourMebibytesWithinItsBoundsAndTimedRunsHaveNone() {
        PerfSpec auto = PerfSpec.builder(PerfTest.WRITE_LAT).build();
        assertThat(auto.warmupFor(2)).isEqualTo(PerfSpec.WARMUP_MAX_ITERATIONS);
        assertThat(auto.warmupFor(65536)).isEqualTo(1024);
        assertThat(auto.warmupFor(1 << 20)).isEqualTo(64);
        assertThat(auto.warmupFor(8 << 20)).isEqualTo(PerfSpec.WARMUP_MIN_ITERATIONS);
        assertThat(PerfSpec.builder(PerfTest.WRITE_LAT).warmup(300).build().warmupFor(2)).isEqualTo(300);
        assertThat(PerfSpec.builder(PerfTest.WRITE_LAT).warmup(0).build().warmupFor(2)).isZero();
        assertThat(PerfSpec.builder(PerfTest.WRITE_BW).duration(4, 1).build().warmupFor(2)).isZero();
        assertThatThrownBy(() -> PerfSpec.builder(PerfTest.WRITE_BW).warmup(-2).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--warmup");
    }

    @Test
    void allSizesArePowersOfTwoFromTwoToEightMebibytes() {
        List<Integer> sizes = PerfSpec.builder(PerfTest.WRITE_BW).allSizes().build().sizes();
        assertThat(sizes).hasSize(23).startsWith(2, 4, 8).endsWith(8 * 1024 * 1024);
    }

    @Test
    void rejectsWhatPerftestsParserRejects() {
        assertThatThrownBy(() -> PerfSpec.builder(PerfTest.WRITE_BW).iterations(4).build())
                .hasMessageContaining("between 5 and");
        assertThatThrownBy(() -> PerfSpec.builder(PerfTest.WRITE_BW).allSizes().duration(5, 2).build())
                .hasMessageContaining("all sizes");
        assertThatThrownBy(() -> PerfSpec.builder(PerfTest.ATOMIC_BW).size(64).build())
                .hasMessageContaining("Atomic");
        assertThatThrownBy(() -> PerfSpec.builder(PerfTest.WRITE_BW).connection(QpType.UD).build())
                .hasMessageContaining("UD supports SEND");
        assertThatThrownBy(() -> PerfSpec.builder(PerfTest.WRITE_LAT).mtu(1000).build())
                .hasMessageContaining("Invalid MTU");
        assertThatThrownBy(() -> PerfSpec.builder(PerfTest.SEND_BW).duration(4, 2).build())
                .hasMessageContaining("twice the margin");
    }

    @Test
    void aBuilderCopyKeepsEveryField() {
        PerfSpec s = PerfSpec.builder(PerfTest.SEND_BW).device("loop0").sizes(List.of(64, 4096)).iterations(77)
                .numQps(3).txDepth(9).rxDepth(10).cqMod(2).connection(QpType.UD).port(1234).noPeak(true)
                .events(true).inlineSize(8).outReads(4).gidIndex(1).mtu(1024).verify(true).build();
        assertThat(s.toBuilder().build()).isEqualTo(s);
    }

    @Test
    void perftestsScriptedOptionsAreCheckedAsPerftestChecksThem() {
        PerfSpec.Builder w = PerfSpec.builder(PerfTest.WRITE_BW);
        assertThat(w.postList(8).iterations(800).build().postList()).isEqualTo(8);
        assertThatThrownBy(() -> PerfSpec.builder(PerfTest.WRITE_BW).postList(8).iterations(801).build())
                .hasMessage("Number of iterations must be a multiple of post list size");
        assertThatThrownBy(() -> PerfSpec.builder(PerfTest.WRITE_LAT).postList(2).build())
                .hasMessage("Post list is supported in BW tests only");
        assertThatThrownBy(() -> PerfSpec.builder(PerfTest.WRITE_BW).postList(16).txDepth(8).iterations(1600).build())
                .hasMessageContaining("must not exceed the TX depth");
        assertThatThrownBy(() -> PerfSpec.builder(PerfTest.SEND_BW).duplex(true).build())
                .hasMessageContaining("not supported by send-bw");
        assertThatThrownBy(() -> PerfSpec.builder(PerfTest.WRITE_BW).runInfinitely(5).events(true).build())
                .hasMessage("run_infinitely does not support events feature yet.");
        assertThatThrownBy(() -> PerfSpec.builder(PerfTest.WRITE_LAT).runInfinitely(5).build())
                .hasMessage("run_infinitely exists only in BW tests for now.");
        assertThat(PerfSpec.builder(PerfTest.READ_BW).runInfinitely(3).build().durationSeconds()).isEqualTo(3);
        assertThatThrownBy(() -> PerfSpec.builder(PerfTest.SEND_LAT).connection(QpType.UD).qpTimeout(14).build())
                .hasMessageContaining("UD has none");
        assertThatThrownBy(() -> PerfSpec.builder(PerfTest.WRITE_BW)
                .latency(new PerfSpec.LatencyReport(true, false, false)).build())
                .hasMessage("-C, -H and -U are for latency tests");
        assertThatThrownBy(() -> PerfSpec.builder(PerfTest.WRITE_LAT).duration(3, 1)
                .latency(new PerfSpec.LatencyReport(false, true, false)).build())
                .hasMessageContaining("leave out -D");
    }
}
