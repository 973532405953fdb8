package io.jrdma.rxe.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** rxe's generators on the test kit's runner: reproducible values, edges reached, failures that name their seed. */
class TriesTest {

    @Test
    void theSameSeedGivesTheSameValues() {
        Gen a = new Gen(1234);
        Gen b = new Gen(1234);
        for (int i = 0; i < 100; i++) {
            assertThat(a.intBetween(-5, 77)).isEqualTo(b.intBetween(-5, 77));
            assertThat(a.bytes(0, 20)).isEqualTo(b.bytes(0, 20));
        }
    }

    @Test
    void valuesStayInTheirRangeAndTheEdgesComeUp() {
        Gen g = new Gen(99);
        boolean sawMin = false;
        boolean sawMax = false;
        for (int i = 0; i < 2000; i++) {
            int v = g.intBetween(3, 1_000_000);
            assertThat(v).isBetween(3, 1_000_000);
            sawMin |= v == 3;
            sawMax |= v == 1_000_000;
            assertThat(g.bits(5)).isBetween(0, 31);
            assertThat(g.bytes(2, 4).length).isBetween(2, 4);
        }
        assertThat(sawMin).isTrue();
        assertThat(sawMax).isTrue();
    }

    @Test
    void aFailingPropertyReportsItsTryAndSeed() {
        List<Integer> seen = new ArrayList<>();
        assertThatThrownBy(() -> Tries.run("fails on the third try", 10, g -> {
            seen.add(g.anyInt());
            assertThat(seen.size()).isLessThan(3);
        })).isInstanceOf(AssertionError.class).hasMessageContaining("fails on the third try")
                .hasMessageContaining("try 3 of 10").hasMessageContaining("-Djrdma.prop.seed=");
        assertThat(seen).hasSize(3);
    }

    @Test
    void aPassingPropertyRunsEveryTry() {
        int[] count = {0};
        Tries.run("counts", 25, g -> count[0]++);
        assertThat(count[0]).isEqualTo(25);
    }
}
