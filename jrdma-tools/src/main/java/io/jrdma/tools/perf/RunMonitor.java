package io.jrdma.tools.perf;

import java.io.PrintStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Watches a measurement from a side thread: prints a progress line on stderr when stderr's
 * process is attached to a terminal and a run lasts longer than {@link #PROGRESS_AFTER_NANOS},
 * and calls a stall action when the count stops moving for the stall timeout (so a tool blocked on
 * a silent peer ends with an error instead of hanging).
 *
 * <p>The measuring thread only calls {@link #progress(long)}: one opaque store, no allocation, no
 * lock. Everything else happens on the monitor thread, four times a second.
 */
public final class RunMonitor implements AutoCloseable {

    /** Runs shorter than this print no progress line (2 s). */
    public static final long PROGRESS_AFTER_NANOS = TimeUnit.SECONDS.toNanos(2);

    /** How often the monitor thread looks (250 ms). */
    public static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    private static final VarHandle DONE;

    static {
        try {
            DONE = MethodHandles.lookup().findVarHandle(RunMonitor.class, "done", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // accessed through DONE
    private long done;
    private volatile boolean closed;
    private volatile boolean stalled;
    private volatile long ticks;
    private final String label;
    private final long target;
    private final PrintStream err;
    private final boolean showProgress;
    private final long stallNanos;
    private final Runnable onStall;
    private final Thread thread;
    private final long progressAfterNanos;
    private boolean printed;

    /**
     * Starts watching a run.
     *
     * @param label what is running, e.g. {@code "tcp-bw 65536 B"}
     * @param target the expected count, or 0 when unknown (duration runs)
     * @param err where the progress line goes
     * @param showProgress whether a progress line may be printed (stderr is a terminal)
     * @param stallNanos how long the count may stand still before {@code onStall} runs; 0 = never
     * @param onStall what to do on a stall, e.g. close the channels; may be null
     */
    public RunMonitor(String label, long target, PrintStream err, boolean showProgress, long stallNanos,
            Runnable onStall) {
        this(label, target, err, showProgress, stallNanos, onStall, PROGRESS_AFTER_NANOS);
    }

    RunMonitor(String label, long target, PrintStream err, boolean showProgress, long stallNanos, Runnable onStall,
            long progressAfterNanos) {
        this.progressAfterNanos = progressAfterNanos;
        this.label = label;
        this.target = target;
        this.err = err;
        this.showProgress = showProgress && err != null;
        this.stallNanos = stallNanos;
        this.onStall = onStall;
        this.thread = Thread.ofPlatform().daemon().name("jrdma-monitor").unstarted(this::watch);
        thread.start();
    }

    /**
     * Records progress; called by the measuring thread, cheap enough for every iteration.
     *
     * @param count iterations done so far
     */
    public void progress(long count) {
        DONE.setOpaque(this, count);
    }

    /**
     * Whether the stall action ran.
     *
     * @return true if the run stalled
     */
    public boolean stalled() {
        return stalled;
    }

    /** How many looks the monitor thread has finished (each after its stall check and progress line); for tests. */
    long ticks() {
        return ticks;
    }

    private void watch() {
        long start = System.nanoTime();
        long lastCount = -1;
        long lastChange = start;
        while (!closed) {
            LockSupport.parkNanos(TICK_NANOS);
            if (closed) {
                break;
            }
            long now = System.nanoTime();
            long count = (long) DONE.getOpaque(this);
            if (count != lastCount) {
                lastCount = count;
                lastChange = now;
            } else if (stallNanos > 0 && now - lastChange > stallNanos && !stalled) {
                stalled = true;
                if (onStall != null) {
                    onStall.run();
                }
            }
            if (showProgress && now - start > progressAfterNanos) {
                printProgress(count, now - start);
            }
            ticks++;
        }
    }

    private synchronized void printProgress(long count, long elapsed) {
        if (closed) {
            return;
        }
        String of = target > 0 ? String.format(Locale.ROOT, "%d/%d (%.0f%%)", count, target, 100.0 * count / target)
                : Long.toString(count);
        err.print("\r " + label + ": " + of + " iterations, " + TimeUnit.NANOSECONDS.toSeconds(elapsed) + " s\033[K");
        err.flush();
        printed = true;
    }

    /** Stops watching and clears the progress line if one was printed. */
    @Override
    public void close() {
        closed = true;
        thread.interrupt();
        try {
            thread.join(TimeUnit.NANOSECONDS.toMillis(TICK_NANOS) * 4);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (this) {
            if (printed) {
                err.print("\r\033[K");
                err.flush();
                printed = false;
            }
        }
    }
}
