package io.jrdma.rxe.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.internal.roce.Psn;
import io.jrdma.rxe.testing.Tries;
import org.junit.jupiter.api.Test;

/** 24-bit PSN arithmetic. */
class PsnTest {

    @Test
    void wrapsAt2To24() {
        assertThat(Psn.next(0xffffff)).isZero();
        assertThat(Psn.add(0xfffffe, 3)).isEqualTo(1);
        assertThat(Psn.add(1, -2)).isEqualTo(0xffffff);
    }

    @Test
    void comparesAcrossTheWrap() {
        assertThat(Psn.isBefore(0xfffff0, 0x000010)).isTrue();
        assertThat(Psn.isAfter(0x000010, 0xfffff0)).isTrue();
        assertThat(Psn.diff(0x000010, 0xfffff0)).isEqualTo(0x20);
        assertThat(Psn.compare(5, 5)).isZero();
        assertThat(Psn.diff(0x800000, 0)).as("half the space away counts as before").isEqualTo(-0x800000);
        assertThat(Psn.diff(0x7fffff, 0)).isEqualTo(0x7fffff);
    }

    @Test
    void addingTheDistanceGivesTheOtherPsn() {
        Tries.run("addingTheDistanceGivesTheOtherPsn", 1000, g -> {
            int a = g.intBetween(0, 0xffffff);
            int b = g.intBetween(0, 0xffffff);
            assertThat(Psn.add(b, Psn.diff(a, b))).isEqualTo(a);
            if (((a - b) & Psn.MASK) != 0x800000) {
                assertThat(Psn.compare(a, b)).isEqualTo(-Psn.compare(b, a));
            }
        });
    }

    @Test
    void aPsnWithinHalfTheWindowAheadIsAfter() {
        Tries.run("aPsnWithinHalfTheWindowAheadIsAfter", 1000, g -> {
            int a = g.intBetween(0, 0xffffff);
            int n = g.intBetween(1, 0x7fffff);
            assertThat(Psn.isAfter(Psn.add(a, n), a)).isTrue();
            assertThat(Psn.isBefore(a, Psn.add(a, n))).isTrue();
            assertThat(Psn.diff(Psn.add(a, n), a)).isEqualTo(n);
        });
    }
}
