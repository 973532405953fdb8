package io.jrdma.testkit;

import io.jrdma.verbs.AsyncEvent;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.WorkCompletion;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Bounded waiting for tests: every wait has a deadline and fails with a message saying what did not
 * happen, so a broken provider makes a test fail, never hang. Polling spins briefly, then yields and
 * sleeps in short steps.
 */
public final class Await {
    /** How long a test waits for something that should happen at once. */
    public static final Duration DEFAULT = Duration.ofSeconds(5);
    /** How long a test watches for something that must not happen. */
    public static final Duration QUIET = Duration.ofMillis(50);
    private static final int POLL_BATCH = 16;

    private Await() {
    }

    private static void pause(int round) {
        if (round < 100) {
            Thread.onSpinWait();
        } else if (round < 200) {
            Thread.yield();
        } else {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting", e);
            }
        }
    }

    /** Waits up to {@code timeout} for {@code condition}; fails with {@code what} otherwise. */
    public static void until(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (int round = 0; ; round++) {
            if (condition.getAsBoolean()) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting for " + what);
            }
            pause(round);
        }
    }

    /** Polls {@code cq} until one completion arrives (within {@link #DEFAULT}). */
    public static Completion completion(CompletionQueue cq) {
        return completions(cq, 1, DEFAULT).getFirst();
    }

    /** Polls {@code cq} until {@code n} completions arrived (within {@link #DEFAULT}), in CQ order. */
    public static List<Completion> completions(CompletionQueue cq, int n) {
        return completions(cq, n, DEFAULT);
    }

    /**
     * Polls {@code cq} until {@code n} completions arrived, in CQ order; fails after {@code timeout}
     * naming how many did arrive. Never polls more than {@code n}.
     */
    public static List<Completion> completions(CompletionQueue cq, int n, Duration timeout) {
        List<Completion> got = new ArrayList<>(n);
        WorkCompletion[] wc = newArray(POLL_BATCH);
        long deadline = System.nanoTime() + timeout.toNanos();
        for (int round = 0; got.size() < n; round++) {
            int k = cq.poll(wc, 0, Math.min(wc.length, n - got.size()));
            for (int i = 0; i < k; i++) {
                got.add(Completion.of(wc[i]));
            }
            if (k > 0) {
                round = 0;
                continue;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + timeout.toMillis() + " ms: " + got.size() + " of " + n
                        + " completions arrived: " + got);
            }
            pause(round);
        }
        return got;
    }

    /** Everything {@code cq} holds right now (possibly nothing). */
    public static List<Completion> drain(CompletionQueue cq) {
        List<Completion> got = new ArrayList<>();
        WorkCompletion[] wc = newArray(POLL_BATCH);
        int k;
        while ((k = cq.poll(wc)) > 0) {
            for (int i = 0; i < k; i++) {
                got.add(Completion.of(wc[i]));
            }
        }
        return got;
    }

    /** Watches {@code cq} for {@code quiet} and fails if any completion arrives. */
    public static void noCompletion(CompletionQueue cq, Duration quiet) {
        long deadline = System.nanoTime() + quiet.toNanos();
        WorkCompletion[] wc = newArray(1);
        for (int round = 0; System.nanoTime() - deadline < 0; round++) {
            if (cq.poll(wc) > 0) {
                throw new AssertionError("unexpected completion " + Completion.of(wc[0]));
            }
            pause(round);
        }
    }

    /** Waits (within {@link #DEFAULT}) until {@code qp} is in {@code state}. */
    public static void state(QueuePair qp, QpState state) {
        until(qp + " to reach " + state, DEFAULT, () -> qp.state() == state);
    }

    /**
     * Takes events from {@code ctx}'s queue until one of {@code type} arrives (within
     * {@link #DEFAULT}); other events are skipped. Fails if none arrives.
     */
    public static AsyncEvent event(Context ctx, AsyncEventType type) {
        long deadline = System.nanoTime() + DEFAULT.toNanos();
        List<AsyncEvent> skipped = new ArrayList<>();
        try {
            for (;;) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("no " + type + " event within " + DEFAULT.toMillis() + " ms; saw "
                            + skipped);
                }
                AsyncEvent e = ctx.getAsyncEvent(Duration.ofNanos(left));
                if (e != null && e.type() == type) {
                    return e;
                }
                if (e != null) {
                    skipped.add(e);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for " + type, e);
        }
    }

    /** Takes every event {@code ctx} has queued within {@code quiet}; returns their types in order. */
    public static List<AsyncEventType> events(Context ctx, Duration quiet) {
        List<AsyncEventType> got = new ArrayList<>();
        try {
            AsyncEvent e;
            while ((e = ctx.getAsyncEvent(quiet)) != null) {
                got.add(e.type());
            }
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while draining events", ie);
        }
        return got;
    }

    /** An array of fresh {@link WorkCompletion}s to poll into. */
    public static WorkCompletion[] newArray(int n) {
        WorkCompletion[] wc = new WorkCompletion[n];
        for (int i = 0; i < n; i++) {
            wc[i] = new WorkCompletion();
        }
        return wc;
    }
}
