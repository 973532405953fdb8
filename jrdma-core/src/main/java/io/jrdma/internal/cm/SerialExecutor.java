package io.jrdma.internal.cm;

import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Runs tasks one at a time, in order, on one thread: the connection manager's event executor ("all
 * events of a CM instance serialized on one executor"). Straight-line blocking code in handlers is
 * fine.
 *
 * <p>A platform thread, not a virtual one: every CM event wakes this thread, and waking a parked
 * virtual thread goes through the scheduler's carrier pool (a submit, a carrier wake-up, the
 * carrier's own spin and park), about twice what a platform thread's unpark costs. Measured on
 * sequential siw connection setups (2 vCPUs, steady state): 2,100/s with a virtual thread, 2,600/s
 * with a platform one, before the iw_cm events went inline.
 *
 * <p>An owner with timers ({@link Timers}) has them fired on this thread between tasks: the thread
 * waits for the next task no longer than until the owner's next deadline, so timeouts and the
 * messages they race with run in one order on one thread, and no timer thread hands expiries over.
 */
public final class SerialExecutor implements Executor, AutoCloseable {
    private static final System.Logger LOG = System.getLogger("io.jrdma.cm");

    /** The longest wait for a task while no timer is due sooner: how soon a close is noticed. */
    private static final long IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final Runnable WAKE = () -> { };

    /**
     * The timers of the executor's owner, fired on the executor's thread. The owner guards its timer
     * queue itself (the IB CM: with its lock, under which it also arms and cancels them on any thread)
     * and calls {@link #wake()} after arming one from another thread, so that the wait is cut short.
     */
    public interface Timers {
        /** Nanoseconds until the next timer is due, {@code Long.MAX_VALUE} for none: a hint, read unguarded. */
        long nanosToNext();

        /** Fires the timers that are due. */
        void fireDue();
    }

    private static final Timers NO_TIMERS = new Timers() {
        @Override
        public long nanosToNext() {
            return Long.MAX_VALUE;
        }

        @Override
        public void fireDue() {
        }
    };

    private final LinkedBlockingQueue<Runnable> queue = new LinkedBlockingQueue<>();
    private final Timers timers;
    private final Thread thread;
    private volatile boolean closed;

    /** Starts the executor's thread. */
    public SerialExecutor(String name) {
        this(name, NO_TIMERS);
    }

    /** Starts the executor's thread, which also fires {@code timers}. */
    public SerialExecutor(String name, Timers timers) {
        this.timers = Objects.requireNonNull(timers, "timers");
        thread = Thread.ofPlatform().daemon().name(name).start(this::run);
    }

    private void run() {
        while (!closed || !queue.isEmpty()) {
            Runnable r;
            try {
                long wait = Math.min(IDLE_NANOS, timers.nanosToNext());
                r = wait <= 0 ? queue.poll() : queue.poll(wait, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                if (closed) {
                    return;
                }
                continue;
            }
            if (r != null) {
                runLogged(r);
            }
            if (timers.nanosToNext() <= 0) {
                runLogged(timers::fireDue);
            }
        }
    }

    private static void runLogged(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException | Error e) {
            LOG.log(System.Logger.Level.ERROR, "connection manager task failed", e);
        }
    }

    /**
     * Cuts the thread's wait short so that it looks at the timers again: for a timer armed on another
     * thread, which may be due before the deadline the thread waits for. Nothing on the executor's own
     * thread (it looks after every task) or once closed.
     */
    public void wake() {
        if (!closed && !inExecutor()) {
            queue.add(WAKE);
        }
    }

    @Override
    public void execute(Runnable task) {
        if (closed) {
            throw new IllegalStateException("connection manager is closed");
        }
        queue.add(task);
    }

    /** Whether the caller runs on this executor. */
    public boolean inExecutor() {
        return Thread.currentThread() == thread;
    }

    /** Stops after the queued tasks; waits up to 5 s unless called from the executor itself. */
    @Override
    public void close() {
        closed = true;
        if (!inExecutor()) {
            try {
                thread.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
