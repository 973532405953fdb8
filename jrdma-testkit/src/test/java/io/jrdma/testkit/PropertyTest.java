package io.jrdma.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

class PropertyTest {
    @AfterEach
    void clearProperties() {
        System.clearProperty(Property.TRIES_PROPERTY);
        System.clearProperty(Property.SEED_PROPERTY);
        System.clearProperty(Property.SIZE_PROPERTY);
    }

    @Test
    void aPassingPropertyRunsEveryTryWithGrowingSizesAndDistinctSeeds() {
        List<Integer> sizes = new ArrayList<>();
        Set<Long> firstDraws = new HashSet<>();
        Property.of("passes").tries(20).sizes(3, 13).check((r, size) -> {
            sizes.add(size);
            firstDraws.add(r.nextLong());
        });
        assertThat(sizes).hasSize(20).isSorted().startsWith(3).endsWith(13);
        assertThat(firstDraws).hasSize(20);
    }

    @Test
    void anAssumptionThatDoesNotHoldSkipsThePropertyAtItsFirstTry() {
        int[] runs = new int[1];
        assertThatThrownBy(() -> Property.of("assumes").tries(20).check((r, size) -> {
            runs[0]++;
            Assumptions.abort("the device lacks it");
        })).isInstanceOf(TestAbortedException.class).hasMessageContaining("the device lacks it");
        assertThat(runs[0]).isEqualTo(1);
    }

    @Test
    void theTriesPropertyOverridesTheDefault() {
        System.setProperty(Property.TRIES_PROPERTY, "3");
        int[] runs = new int[1];
        Property.of("counted").tries(50).check((r, size) -> runs[0]++);
        assertThat(runs[0]).isEqualTo(3);
    }

    @Test
    void aFailureNamesTheTrySeedAndSmallestFailingSize() {
        // Two tries: sizes 1 and 40; the second fails and is shrunk to 7.
        AssertionError e = catchThrowableOfType(AssertionError.class, () -> Property.of("breaks at 7").tries(2)
                .sizes(1, 40).baseSeed(42).check((r, size) -> {
                    if (size >= 7) {
                        throw new IllegalStateException("boom at " + size);
                    }
                }));
        assertThat(e).hasMessageContaining("property 'breaks at 7' failed at try 2 of 2")
                .hasMessageContaining("at size 40")
                .hasMessageContaining("seed 0x").hasMessageContaining("smallest failing size with this seed: 7")
                .hasMessageContaining("-D" + Property.SEED_PROPERTY + "=0x");
        assertThat(e.getCause()).isInstanceOf(IllegalStateException.class).hasMessage("boom at 7");
        assertThat(e.getSuppressed()).singleElement().satisfies(t -> assertThat(t).hasMessage("boom at 40"));
    }

    @Test
    void theReportedSeedAndSizeReproduceTheFailingTry() {
        List<Long> failingDraws = new ArrayList<>();
        AssertionError e = catchThrowableOfType(AssertionError.class, () -> Property.of("random failure")
                .tries(200).sizes(1, 10).baseSeed(7).check((r, size) -> {
                    long draw = r.nextLong();
                    if ((draw & 7) == 0) {
                        failingDraws.add(draw);
                        throw new AssertionError("draw " + draw);
                    }
                }));
        Matcher m = Pattern.compile("seed (0x[0-9a-f]+)").matcher(e.getMessage());
        assertThat(m.find()).isTrue();
        Matcher sz = Pattern.compile(Property.SIZE_PROPERTY + "=(\\d+)").matcher(e.getMessage());
        assertThat(sz.find()).isTrue();
        System.setProperty(Property.SEED_PROPERTY, m.group(1));
        System.setProperty(Property.SIZE_PROPERTY, sz.group(1));
        List<Long> rerun = new ArrayList<>();
        int[] runs = new int[1];
        AssertionError again = catchThrowableOfType(AssertionError.class, () -> Property.of("random failure")
                .check((r, size) -> {
                    runs[0]++;
                    long draw = r.nextLong();
                    rerun.add(draw);
                    if ((draw & 7) == 0) {
                        throw new AssertionError("draw " + draw);
                    }
                }));
        assertThat(again).isNotNull();
        assertThat(rerun.getFirst()).isEqualTo(failingDraws.getFirst());
        assertThat(again.getMessage()).contains(m.group(1));
    }

    @Test
    void seedsAreParsedInHexOrDecimal() {
        assertThat(Property.parseSeed("0x10")).isEqualTo(16);
        assertThat(Property.parseSeed("0xffffffffffffffff")).isEqualTo(-1);
        assertThat(Property.parseSeed("-5")).isEqualTo(-5);
    }
}
