package io.jrdma.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.verbs.Errno;
import io.jrdma.verbs.RdmaException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** One thread at a time holds the engine; commands reach the holder, or run inline on a free engine. */
class EngineHolderTest {
    private static final long WAIT_MS = 10_000;

    /** A thread that takes the engine, signals, and holds it until told to run the commands and let go. */
    private static final class Holder extends Thread {
        final EngineHolder engine;
        final CountDownLatch holding = new CountDownLatch(1);
        final CountDownLatch letGo = new CountDownLatch(1);
        final AtomicInteger ran = new AtomicInteger();

        Holder(EngineHolder engine) {
            super("holder");
            this.engine = engine;
            setDaemon(true);
        }

        @Override
        public void run() {
            if (!engine.tryHold()) {
                return;
            }
            holding.countDown();
            try {
                long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
                while (letGo.getCount() > 0 && System.nanoTime() < end) {
                    ran.addAndGet(engine.runCommands()); // as an engine's duty cycle does
                    Thread.onSpinWait();
                }
            } finally {
                engine.release();
            }
        }
    }

    @Test
    void oneThreadAtATimeHoldsTheEngine() throws Exception {
        EngineHolder engine = new EngineHolder("test engine");
        assertThat(engine.isHeld()).isFalse();
        assertThat(engine.tryHold()).isTrue();
        assertThat(engine.heldByCaller()).isTrue();
        assertThat(engine.tryHold()).as("not re-entrant").isFalse();
        AtomicReference<Boolean> other = new AtomicReference<>();
        Thread t = new Thread(() -> other.set(engine.tryHold() || engine.heldByCaller()));
        t.start();
        t.join(WAIT_MS);
        assertThat(other.get()).as("another thread while held").isFalse();
        engine.release();
        assertThat(engine.isHeld()).isFalse();
        assertThat(engine.heldByCaller()).isFalse();
    }

    @Test
    void runSyncOnAFreeEngineRunsInlineAfterTheQueuedCommands() {
        EngineHolder engine = new EngineHolder("test engine");
        List<String> order = new ArrayList<>();
        engine.add(() -> order.add("queued"));
        AtomicInteger after = new AtomicInteger();
        Thread caller = Thread.currentThread();
        engine.runSync(() -> {
            order.add(Thread.currentThread() == caller && engine.heldByCaller() ? "inline, held" : "elsewhere");
        }, true, after::incrementAndGet, () -> order.add("kicked"));
        assertThat(order).containsExactly("queued", "inline, held");
        assertThat(after).hasValue(1);
        assertThat(engine.isHeld()).as("let go afterwards").isFalse();
        assertThat(engine.hasCommands()).isFalse();
    }

    @Test
    void runSyncWhileAnotherThreadHoldsTheEngineRunsOnTheHolder() throws Exception {
        EngineHolder engine = new EngineHolder("test engine");
        Holder holder = new Holder(engine);
        holder.start();
        assertThat(holder.holding.await(WAIT_MS, TimeUnit.MILLISECONDS)).isTrue();
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        AtomicInteger kicks = new AtomicInteger();
        try {
            engine.runSync(() -> ranOn.set(Thread.currentThread()), true, () -> { }, kicks::incrementAndGet);
        } finally {
            holder.letGo.countDown();
        }
        holder.join(WAIT_MS);
        assertThat(ranOn.get()).isSameAs(holder);
        assertThat(kicks).hasValue(1);
        assertThat(holder.ran).hasValue(1);
    }

    @Test
    void theHoldersOwnRunSyncRunsAtOnceWithoutQueueing() {
        EngineHolder engine = new EngineHolder("test engine");
        assertThat(engine.tryHold()).isTrue();
        try {
            AtomicInteger ran = new AtomicInteger();
            Runnable noKick = () -> {
                throw new AssertionError("kicked");
            };
            engine.runSync(ran::incrementAndGet, false, () -> { }, noKick);
            assertThat(ran).hasValue(1);
            assertThat(engine.hasCommands()).isFalse();
        } finally {
            engine.release();
        }
    }

    @Test
    void aQueuedCommandsFailureReachesItsCallerAsThrownAndOthersStillRun() throws Exception {
        EngineHolder engine = new EngineHolder("test engine");
        AtomicInteger later = new AtomicInteger();
        engine.add(() -> {
            throw new IllegalStateException("a fire-and-forget command fails");
        });
        engine.add(later::incrementAndGet);
        Holder holder = new Holder(engine);
        holder.start();
        assertThat(holder.holding.await(WAIT_MS, TimeUnit.MILLISECONDS)).isTrue();
        try {
            assertThatThrownBy(() -> engine.runSync(() -> {
                throw new RdmaException(Errno.EINVAL, "the command's own failure");
            }, true, () -> { }, () -> { }))
                    .isInstanceOf(RdmaException.class)
                    .hasMessageContaining("the command's own failure")
                    .satisfies(e -> assertThat(((RdmaException) e).errno()).isEqualTo(Errno.EINVAL));
        } finally {
            holder.letGo.countDown();
        }
        holder.join(WAIT_MS);
        assertThat(later).as("the command after the failing one").hasValue(1);
    }

    @Test
    void runSyncTimesOutWhenTheHolderNeverRunsCommands() {
        EngineHolder engine = new EngineHolder("stuck engine", TimeUnit.MILLISECONDS.toNanos(50));
        assertThat(engine.tryHold()).isTrue(); // this thread holds it and runs no commands meanwhile
        try {
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread caller = new Thread(() -> {
                try {
                    engine.runSync(() -> { }, true, () -> { }, () -> { });
                } catch (RuntimeException e) {
                    thrown.set(e);
                }
            });
            caller.start();
            try {
                caller.join(WAIT_MS);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            assertThat(thrown.get()).isInstanceOf(RdmaException.class)
                    .hasMessageContaining("stuck engine did not answer in 50 ms");
            assertThat(((RdmaException) thrown.get()).errno()).isEqualTo(Errno.ETIMEDOUT);
            assertThat(engine.hasCommands()).as("the command stays queued for a later holder").isTrue();
        } finally {
            engine.release();
        }
    }

    @Test
    void aCallerInterruptedWhileWaitingGetsEintrAndKeepsItsInterrupt() throws Exception {
        EngineHolder engine = new EngineHolder("busy engine");
        assertThat(engine.tryHold()).isTrue(); // held by this thread, which runs no commands meanwhile
        try {
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            AtomicReference<Boolean> stillInterrupted = new AtomicReference<>();
            Thread caller = new Thread(() -> {
                try {
                    engine.runSync(() -> { }, true, () -> { }, () -> { });
                } catch (RuntimeException e) {
                    thrown.set(e);
                    stillInterrupted.set(Thread.currentThread().isInterrupted());
                }
            });
            caller.start();
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
            while (!engine.hasCommands() && System.nanoTime() < end) {
                Thread.onSpinWait(); // until the caller has queued its command and waits
            }
            caller.interrupt();
            caller.join(WAIT_MS);
            assertThat(thrown.get()).isInstanceOf(RdmaException.class).hasMessageContaining("interrupted");
            assertThat(((RdmaException) thrown.get()).errno()).isEqualTo(Errno.EINTR);
            assertThat(stillInterrupted.get()).isTrue();
        } finally {
            engine.release();
        }
    }

    @Test
    void aCallersMistakesAreNamed() {
        assertThatThrownBy(() -> new EngineHolder("e", 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timeoutNanos");
        assertThatThrownBy(() -> new EngineHolder("e").add(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("command");
    }
}
