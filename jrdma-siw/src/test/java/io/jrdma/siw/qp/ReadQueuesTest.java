package io.jrdma.siw.qp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The ORQ and IRQ rings: oldest first through growth and wrap-around, nothing allocated before the
 * first READ, the IRQ never deeper than {@link ReadQueues#MAX_DEPTH}.
 */
class ReadQueuesTest {
    @Test
    void theOrqKeepsItsReadsOldestFirstAcrossWrapAroundAndGrowth() {
        ReadQueues q = new ReadQueues();
        long next = 0;
        long oldest = 0;
        // Interleave adds and pops so the ring wraps before it grows, then grow it while wrapped.
        for (int round = 0; round < 50; round++) {
            q.orqAdd(next++);
            q.orqAdd(next++);
            q.orqAdd(next++);
            assertThat(q.orqHead()).isEqualTo(oldest);
            q.orqPop();
            oldest++;
            q.orqPop();
            oldest++;
        }
        assertThat(q.orqCount()).isEqualTo(50);
        for (int i = 0; i < q.orqCount(); i++) {
            assertThat(q.orqEntry(i)).isEqualTo(oldest + i);
        }
        q.orqClear();
        assertThat(q.orqCount()).isZero();
        q.orqAdd(ReadQueues.RTR_READ);
        assertThat(q.orqHead()).isEqualTo(ReadQueues.RTR_READ);
    }

    @Test
    void theIrqKeepsEachRequestWholeAcrossWrapAroundAndGrowsOnlyToTheMaximum() {
        ReadQueues q = new ReadQueues();
        int added = 0;
        int answered = 0;
        for (int round = 0; round < 3; round++) {
            q.irqAdd(added, 0x1000L * added, 100 + added, null, 8L * added);
            added++;
        }
        for (int round = 0; round < 10; round++) { // wraps the ring of 4
            q.irqSent(q.irqIndex(0), 100 + answered);
            q.irqPop();
            answered++;
            q.irqAdd(added, 0x1000L * added, 100 + added, null, 8L * added);
            added++;
        }
        while (q.irqCount() < ReadQueues.MAX_DEPTH) { // grows while wrapped
            q.irqAdd(added, 0x1000L * added, 100 + added, null, 8L * added);
            added++;
        }
        assertThat(q.irqCount()).isEqualTo(ReadQueues.MAX_DEPTH);
        for (int k = 0; k < q.irqCount(); k++) {
            int i = q.irqIndex(k);
            int n = answered + k;
            assertThat(q.irqSinkStag(i)).isEqualTo(n);
            assertThat(q.irqSinkTo(i)).isEqualTo(0x1000L * n);
            assertThat(q.irqLength(i)).isEqualTo(100 + n);
            assertThat(q.irqSourceOff(i)).isEqualTo(8L * n);
            assertThat(q.irqSent(i)).as("a new entry has sent nothing").isZero();
            assertThat(i).isBetween(0, ReadQueues.MAX_DEPTH - 1);
        }
    }
}
