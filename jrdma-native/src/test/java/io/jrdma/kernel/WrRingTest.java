package io.jrdma.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * How a QP's {@link WrRing} retires its WRs, checked on any host (no library is called): a successful send
 * completion takes the unsignaled WRs before it, an error completion the one it names, a full ring drops its
 * oldest entry, and entries a post did not take are removed again.
 */
class WrRingTest {
    @Test
    void aSignaledCompletionRetiresTheUnsignaledWorkRequestsBeforeIt() {
        WrRing r = new WrRing(8);
        r.add(1, 0);
        r.add(2, 0);
        r.add(3, WrRing.SIGNALED);
        r.add(4, 0);
        assertThat(r.retire(3, true)).isEqualTo(WrRing.SIGNALED);
        assertThat(r.size()).isEqualTo(1);
        assertThat(r.oldestIs(4)).isTrue();
    }

    @Test
    void aSuccessNamingOnlyAnUnsignaledIdRetiresNothing() {
        WrRing r = new WrRing(8);
        r.add(7, 0);
        r.add(7, WrRing.SIGNALED);
        assertThat(r.retire(7, true)).isEqualTo(WrRing.SIGNALED);
        assertThat(r.size()).isZero();
        r.add(9, 0);
        assertThat(r.retire(9, true)).isEqualTo(-1);
        assertThat(r.size()).isEqualTo(1);
    }

    @Test
    void anErrorCompletionRetiresTheEntryItNamesSignaledOrNot() {
        WrRing r = new WrRing(8);
        r.add(1, WrRing.SIGNALED);
        r.add(2, 0);
        r.add(NativeQp.MARKER_ID, WrRing.SIGNALED | WrRing.MARKER);
        assertThat(r.holds(2)).isTrue();
        assertThat(r.retire(2, false)).isZero();
        assertThat(r.retire(NativeQp.MARKER_ID, false) & WrRing.MARKER).isNotZero();
        assertThat(r.size()).isZero();
        assertThat(r.holds(1)).isFalse();
    }

    @Test
    void aFullRingDropsItsOldestEntryAndARefusedPostIsTakenBack() {
        WrRing r = new WrRing(3);
        for (int i = 1; i <= 5; i++) {
            r.add(i, 0);
        }
        assertThat(r.size()).isEqualTo(4);
        assertThat(r.oldestIs(2)).isTrue();
        r.dropNewest(2);
        assertThat(r.size()).isEqualTo(2);
        assertThat(r.holds(4)).isFalse();
        r.dropNewest(5);
        assertThat(r.size()).isZero();
        r.add(6, 0);
        r.clear();
        assertThat(r.size()).isZero();
        assertThat(r.oldestIs(6)).isFalse();
    }
}
