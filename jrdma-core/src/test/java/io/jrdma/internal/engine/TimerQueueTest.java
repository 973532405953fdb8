package io.jrdma.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Test;

/** The timer heap driven by a manual clock: order, cancel, re-arm. */
class TimerQueueTest {
    private final ManualClock clock = new ManualClock(1_000);
    private final TimerQueue q = new TimerQueue(clock);
    private final List<String> fired = new ArrayList<>();

    private Timer timer(String name) {
        return new Timer(() -> fired.add(name));
    }

    @Test
    void timersFireInDeadlineOrderOnceTheirTimeHasCome() {
        Timer a = timer("a");
        Timer b = timer("b");
        Timer c = timer("c");
        q.schedule(a, 30);
        q.schedule(b, 10);
        q.schedule(c, 20);
        assertThat(q.nanosToNext()).isEqualTo(10);
        assertThat(q.poll()).isZero();
        clock.advance(9);
        assertThat(q.poll()).isZero();
        clock.advance(16);
        assertThat(q.poll()).isEqualTo(2);
        assertThat(fired).containsExactly("b", "c");
        assertThat(a.isArmed()).isTrue();
        assertThat(b.isArmed()).isFalse();
        assertThat(q.nanosToNext()).isEqualTo(5);
        clock.advance(5);
        assertThat(q.poll()).isEqualTo(1);
        assertThat(fired).containsExactly("b", "c", "a");
        assertThat(q.size()).isZero();
        assertThat(q.nanosToNext()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aCancelledTimerNeverFiresAndCancellingTwiceIsHarmless() {
        Timer a = timer("a");
        Timer b = timer("b");
        q.schedule(a, 10);
        q.schedule(b, 10);
        q.cancel(a);
        q.cancel(a);
        q.cancel(timer("never armed"));
        clock.advance(10);
        assertThat(q.poll()).isEqualTo(1);
        assertThat(fired).containsExactly("b");
    }

    @Test
    void reArmingMovesTheDeadlineEitherWay() {
        Timer a = timer("a");
        q.schedule(a, 10);
        q.schedule(a, 50);
        assertThat(q.size()).isOne();
        clock.advance(20);
        assertThat(q.poll()).isZero();
        q.scheduleAt(a, clock.nanoTime() + 5);
        clock.advance(5);
        assertThat(q.poll()).isOne();
        assertThat(fired).containsExactly("a");
    }

    @Test
    void aTimerMayReArmItselfFromItsAction() {
        int[] count = new int[1];
        Timer[] self = new Timer[1];
        self[0] = new Timer(() -> {
            count[0]++;
            q.schedule(self[0], 10);
        });
        q.schedule(self[0], 10);
        for (int i = 0; i < 5; i++) {
            clock.advance(10);
            assertThat(q.poll()).isOne();
        }
        assertThat(count[0]).isEqualTo(5);
        assertThat(self[0].isArmed()).isTrue();
    }

    @RepeatedTest(20)
    void randomSchedulesCancelsAndReArmsFireExactlyTheLiveTimersInOrder(RepetitionInfo info) {
        long seed = 0x5EED_0000L + info.getCurrentRepetition();
        SplittableRandom rnd = new SplittableRandom(seed);
        int n = 300;
        List<long[]> order = new ArrayList<>();
        Timer[] timers = new Timer[n];
        long[] deadline = new long[n];
        for (int i = 0; i < n; i++) {
            int id = i;
            timers[i] = new Timer(() -> order.add(new long[] {id, clock.nanoTime()}));
        }
        boolean[] live = new boolean[n];
        for (int step = 0; step < 2000; step++) {
            int i = rnd.nextInt(n);
            switch (rnd.nextInt(3)) {
                case 0, 1 -> {
                    deadline[i] = clock.nanoTime() + rnd.nextInt(1000);
                    q.scheduleAt(timers[i], deadline[i]);
                    live[i] = true;
                }
                default -> {
                    q.cancel(timers[i]);
                    live[i] = false;
                }
            }
        }
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (live[i]) {
                expected.add(i);
            }
        }
        expected.sort(Comparator.comparingLong(i -> deadline[i]));
        for (int t = 0; t <= 1000; t++) {
            q.poll();
            clock.advance(1);
        }
        assertThat(order).as("seed 0x%x", seed).hasSameSizeAs(expected);
        for (int k = 0; k < order.size(); k++) {
            long id = order.get(k)[0];
            assertThat(live[(int) id]).isTrue();
            assertThat(order.get(k)[1]).as("fired no sooner than its deadline")
                    .isGreaterThanOrEqualTo(deadline[(int) id]);
            if (k > 0) {
                assertThat(deadline[(int) id]).isGreaterThanOrEqualTo(deadline[(int) order.get(k - 1)[0]]);
            }
        }
        assertThat(q.size()).isZero();
    }

    /**
     * An agent thread reads the next deadline to bound its park while another thread runs the duty
     * cycle and arms and cancels timers: it gets a hint, never an exception (it once died of a
     * NullPointerException reading heap[0] between a cancel's two writes, and its engine with it).
     */
    @Test
    void nanosToNextFromAnotherThreadNeverThrowsWhileTheOwnerArmsAndCancels() throws Exception {
        long maxDelay = 1_000_001_000L;
        TimerQueue shared = new TimerQueue(NanoClock.SYSTEM);
        Timer[] timers = new Timer[8];
        for (int i = 0; i < timers.length; i++) {
            timers[i] = new Timer(() -> { });
        }
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean stop = new AtomicBoolean();
        long[] reads = new long[1];
        Thread reader = Thread.ofPlatform().start(() -> {
            try {
                while (!stop.get()) {
                    long hint = shared.nanosToNext();
                    // Every deadline is armed at most maxDelay after the moment it was armed, so a hint is
                    // "none armed", "look again" (0) or a wait no longer than that, never garbage.
                    if (hint != Long.MAX_VALUE) {
                        assertThat(hint).isBetween(0L, maxDelay);
                    }
                    reads[0]++;
                }
            } catch (RuntimeException | Error t) {
                failure.set(t);
            }
        });
        SplittableRandom r = new SplittableRandom(7);
        long end = System.nanoTime() + 1_000_000_000L;
        for (int n = 0; n < 20_000_000 && System.nanoTime() < end && failure.get() == null; n++) {
            Timer t = timers[r.nextInt(timers.length)];
            if (t.isArmed() && r.nextBoolean()) {
                shared.cancel(t);
            } else {
                shared.schedule(t, maxDelay - r.nextInt(1000));
            }
        }
        stop.set(true);
        reader.join(5_000);
        assertThat(failure.get()).as("the reading thread's failure").isNull();
        assertThat(reads[0]).as("hints read while the owner armed and cancelled").isPositive();
        int armed = 0;
        for (Timer t : timers) {
            armed += t.isArmed() ? 1 : 0;
        }
        assertThat(shared.size()).as("the queue holds exactly the armed timers").isEqualTo(armed);
    }
}
