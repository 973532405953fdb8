package io.jrdma.testkit.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventHandler;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A kernel-style event handler for tests: it records every event (with the thread it ran on and how
 * many handler calls were running at once), runs an optional reaction, and lets the test wait for an
 * event with a deadline. A reaction that throws is recorded as a failure for {@link #failures()}.
 */
final class EventRecorder implements CmEventHandler {
    /** What the handler does with an event; returns the handler's "destroy me" answer. */
    @FunctionalInterface
    interface Reaction {
        /** Reacts to {@code event} on {@code id}. */
        boolean react(CmId id, CmEvent event) throws Exception;
    }

    private final LinkedBlockingQueue<CmEvent> events = new LinkedBlockingQueue<>();
    private final List<CmEvent> all = java.util.Collections.synchronizedList(new ArrayList<>());
    private final Set<Thread> threads = ConcurrentHashMap.newKeySet();
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger maxRunning = new AtomicInteger();
    private final List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    private final Duration wait;
    private volatile Reaction reaction = (id, e) -> false;

    EventRecorder(Duration wait) {
        this.wait = wait;
    }

    /** Sets what the handler does from now on. */
    EventRecorder reaction(Reaction r) {
        this.reaction = r;
        return this;
    }

    @Override
    public boolean onEvent(CmId id, CmEvent event) {
        int now = running.incrementAndGet();
        maxRunning.accumulateAndGet(now, Math::max);
        threads.add(Thread.currentThread());
        try {
            all.add(event);
            boolean destroy = reaction.react(id, event);
            events.add(event);
            return destroy;
        } catch (Exception | AssertionError e) {
            failures.add(e);
            events.add(event);
            return false;
        } finally {
            running.decrementAndGet();
        }
    }

    /** The next recorded event within the wait. */
    CmEvent next() {
        try {
            CmEvent e = events.poll(wait.toNanos(), TimeUnit.NANOSECONDS);
            if (e == null) {
                fail("no CM event within " + wait + " (seen: " + all + ")");
            }
            return e;
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new AssertionError(ie);
        }
    }

    /** The next recorded event, which must be of {@code type}. */
    CmEvent expect(CmEventType type) {
        CmEvent e = next();
        assertThat(e.type()).as("expected %s, got %s", type, e).isEqualTo(type);
        return e;
    }

    /** Fails if an event is recorded within {@code quiet}. */
    void expectNone(Duration quiet) {
        try {
            CmEvent e = events.poll(quiet.toNanos(), TimeUnit.NANOSECONDS);
            if (e != null) {
                fail("unexpected CM event " + e);
            }
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new AssertionError(ie);
        }
    }

    /** Every event the handler saw, in order. */
    List<CmEvent> all() {
        synchronized (all) {
            return new ArrayList<>(all);
        }
    }

    /** The threads handler calls ran on. */
    Set<Thread> threads() {
        return Set.copyOf(threads);
    }

    /** The most handler calls that ever ran at once. */
    int maxConcurrent() {
        return maxRunning.get();
    }

    /** What reactions threw (assertion failures inside handlers). */
    List<Throwable> failures() {
        synchronized (failures) {
            return new ArrayList<>(failures);
        }
    }
}
