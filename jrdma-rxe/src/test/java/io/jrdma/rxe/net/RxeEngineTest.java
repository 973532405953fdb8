package io.jrdma.rxe.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.internal.engine.Doorbell;
import io.jrdma.internal.engine.NanoClock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Who runs the engine: in application-driven mode the thread that posts runs the duty cycle before its
 * post returns, a doorbell rung while another thread holds the engine is served by that thread before it
 * lets go, and a poller that hands the engine back sends its thread to wait in select; with engine
 * threads a post only wakes the engine's thread.
 */
class RxeEngineTest {
    private static final long TEN_MINUTES = TimeUnit.MINUTES.toNanos(10);

    /** Records which threads ran its doorbell. */
    private static final class Recorder implements RxeEngine.Task {
        final List<Thread> ranOn = new ArrayList<>();
        final CountDownLatch ran = new CountDownLatch(1);
        Runnable during = () -> { };

        @Override
        public int process() {
            synchronized (this) {
                ranOn.add(Thread.currentThread());
            }
            during.run();
            ran.countDown();
            return 1;
        }

        synchronized List<Thread> threads() {
            return List.copyOf(ranOn);
        }
    }

    @Test
    void inApplicationDrivenModeThePostingThreadRunsTheCycleBeforePostReturns() {
        RxeEngine engine = new RxeEngine(NanoClock.SYSTEM, true, RxeEngine.APP_IDLE_NANOS);
        try {
            Recorder r = new Recorder();
            engine.post(new Doorbell<>(r));
            assertThat(r.threads()).containsExactly(Thread.currentThread());
        } finally {
            engine.stop();
        }
    }

    @Test
    void anEmptyPollRunsTheCycleOnThePollingThread() {
        RxeEngine engine = new RxeEngine(NanoClock.SYSTEM, true, RxeEngine.APP_IDLE_NANOS);
        try {
            Recorder r = new Recorder();
            engine.ring(new Doorbell<>(r)); // a doorbell nobody served yet (a retransmission, a flush)
            assertThat(engine.progress()).isPositive();
            assertThat(r.threads()).containsExactly(Thread.currentThread());
        } finally {
            engine.stop();
        }
    }

    @Test
    void aDoorbellRungWhileAnotherThreadHoldsTheEngineIsServedBeforeTheHolderLetsGo() {
        RxeEngine engine = new RxeEngine(NanoClock.SYSTEM, true, RxeEngine.APP_IDLE_NANOS);
        try {
            Recorder second = new Recorder();
            Doorbell<RxeEngine.Task> secondBell = new Doorbell<>(second);
            Recorder first = new Recorder();
            Thread holder = Thread.currentThread();
            boolean[] returned = new boolean[1];
            // While the first doorbell runs, this thread holds the engine: another thread's post cannot take
            // it, must return at once, and finds its doorbell served by this thread before this post returns.
            first.during = () -> {
                Thread other = Thread.ofPlatform().start(() -> engine.post(secondBell));
                try {
                    other.join(TimeUnit.SECONDS.toMillis(10));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                returned[0] = !other.isAlive();
                assertThat(second.threads()).as("not served while the first doorbell runs").isEmpty();
            };
            engine.post(new Doorbell<>(first));
            assertThat(returned[0]).as("the other post returned while the engine was held").isTrue();
            assertThat(first.threads()).containsExactly(holder);
            assertThat(second.threads()).containsExactly(holder);
        } finally {
            engine.stop();
        }
    }

    @Test
    void inApplicationDrivenModeRunSyncRunsOnTheCallingThreadWhenNobodyHoldsTheEngine() {
        RxeEngine engine = new RxeEngine(NanoClock.SYSTEM, true, RxeEngine.APP_IDLE_NANOS);
        engine.start(engine.idleStrategy(false));
        try {
            Thread[] ranOn = new Thread[1];
            boolean[] held = new boolean[1];
            engine.runSync(() -> {
                ranOn[0] = Thread.currentThread();
                held[0] = engine.onEngineThread();
            });
            assertThat(ranOn[0]).isSameAs(Thread.currentThread());
            assertThat(held[0]).as("the caller holds the engine while it runs").isTrue();
            assertThat(engine.onEngineThread()).as("and lets go afterwards").isFalse();
        } finally {
            engine.stop();
        }
    }

    @Test
    void withEngineThreadsAPostWakesTheEngineThreadInsteadOfRunningTheCycle() throws InterruptedException {
        RxeEngine engine = new RxeEngine(NanoClock.SYSTEM, false, RxeEngine.APP_IDLE_NANOS);
        engine.start(engine.idleStrategy(false));
        try {
            Recorder r = new Recorder();
            engine.post(new Doorbell<>(r));
            assertThat(r.ran.await(10, TimeUnit.SECONDS)).as("the engine thread ran the doorbell").isTrue();
            assertThat(r.threads()).hasSize(1);
            assertThat(r.threads().get(0)).isNotSameAs(Thread.currentThread());
            assertThat(r.threads().get(0).getName()).isEqualTo("jrdma-rxe-engine");
        } finally {
            engine.stop();
        }
    }

    /**
     * A poller that armed its CQ is about to sleep until the event: it hands the engine back, and the
     * engine's thread waits in select for datagrams at once instead of leaving the cycles to polls that
     * will not come until the idle time (here ten minutes) ran out.
     */
    @Test
    void aPollKeepsTheEngineThreadOutOfSelectUntilThePollerHandsTheEngineBack() throws InterruptedException {
        RxeEngine engine = new RxeEngine(NanoClock.SYSTEM, true, TEN_MINUTES);
        engine.start(engine.idleStrategy(false));
        try {
            assertThat(engine.progress()).as("an empty poll's cycle finds nothing to do").isZero();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (engine.selecting() && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            boolean selected = false;
            for (int i = 0; i < 100; i++) {
                selected |= engine.selecting();
                Thread.sleep(1);
            }
            assertThat(selected).as("while a poller drives it, the engine thread stays out of select").isFalse();
            engine.handBack();
            assertThat(eventuallySelecting(engine)).as("handed back: waits in select").isTrue();
        } finally {
            engine.stop();
        }
    }

    private static boolean eventuallySelecting(RxeEngine engine) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!engine.selecting() && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        return engine.selecting();
    }
}
