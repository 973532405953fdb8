package io.jrdma.internal.cm;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.internal.engine.NanoClock;
import io.jrdma.internal.engine.Timer;
import io.jrdma.internal.engine.TimerQueue;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The executor's own timers: fired on its thread, between tasks, no sooner than their deadlines. */
class SerialExecutorTest {

    /** An owner as the IB CM is one: a timer queue guarded by a lock, armed from any thread. */
    private static final class Owner implements SerialExecutor.Timers {
        final Object lock = new Object();
        final TimerQueue queue = new TimerQueue(NanoClock.SYSTEM);

        @Override
        public long nanosToNext() {
            return queue.nanosToNext();
        }

        @Override
        public void fireDue() {
            synchronized (lock) {
                queue.poll();
            }
        }
    }

    @Test
    void aTimerArmedOnAnotherThreadFiresOnTheExecutorNoSoonerThanItsDeadline() throws Exception {
        Owner owner = new Owner();
        try (SerialExecutor executor = new SerialExecutor("test-executor", owner)) {
            AtomicReference<Thread> firedOn = new AtomicReference<>();
            CountDownLatch fired = new CountDownLatch(1);
            long[] firedAt = new long[1];
            Timer t = new Timer(() -> {
                firedAt[0] = System.nanoTime();
                firedOn.set(Thread.currentThread());
                fired.countDown();
            });
            long delay = TimeUnit.MILLISECONDS.toNanos(30);
            long armedAt;
            synchronized (owner.lock) {
                armedAt = System.nanoTime();
                owner.queue.schedule(t, delay);
            }
            executor.wake();

            assertThat(fired.await(10, TimeUnit.SECONDS)).as("fired within 10 s").isTrue();
            assertThat(firedAt[0] - armedAt).as("no sooner than the deadline").isGreaterThanOrEqualTo(delay);
            assertThat(firedOn.get().getName()).isEqualTo("test-executor");
            synchronized (owner.lock) {
                assertThat(owner.queue.size()).as("disarmed once fired").isZero();
            }
        }
    }

    @Test
    void aCancelledTimerNeverFiresAndDueTimersRunBetweenTasksInDeadlineOrder() throws Exception {
        Owner owner = new Owner();
        List<String> order = new ArrayList<>();
        try (SerialExecutor executor = new SerialExecutor("test-executor", owner)) {
            CountDownLatch done = new CountDownLatch(1);
            Timer cancelled = new Timer(() -> order.add("cancelled timer"));
            Timer first = new Timer(() -> order.add("timer 1"));
            Timer second = new Timer(() -> {
                order.add("timer 2");
                done.countDown();
            });
            CountDownLatch blocking = new CountDownLatch(1);
            // The first task holds the thread past both deadlines: the timers wait for it, then fire in
            // deadline order before the next task is taken (the thread looks at its timers after each task).
            executor.execute(() -> {
                order.add("task 1");
                try {
                    blocking.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            synchronized (owner.lock) {
                owner.queue.schedule(second, TimeUnit.MILLISECONDS.toNanos(2));
                owner.queue.schedule(first, TimeUnit.MILLISECONDS.toNanos(1));
                owner.queue.schedule(cancelled, TimeUnit.MILLISECONDS.toNanos(1));
                owner.queue.cancel(cancelled);
            }
            executor.execute(() -> order.add("task 2"));
            long bothDue;
            synchronized (owner.lock) {
                bothDue = second.deadline(); // the later one; the queue's clock is System.nanoTime
            }
            while (System.nanoTime() - bothDue < 0) {
                Thread.onSpinWait(); // 2 ms at most
            }
            blocking.countDown();

            assertThat(done.await(10, TimeUnit.SECONDS)).as("timer 2 fired within 10 s").isTrue();
        }
        // close() ran the queued task and joined the thread: the list is complete and visible here.
        assertThat(order).containsExactly("task 1", "timer 1", "timer 2", "task 2");
    }
}
