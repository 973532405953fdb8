package io.jrdma.internal.engine;

import io.jrdma.verbs.Errno;
import io.jrdma.verbs.RdmaException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Who runs an engine's duty cycle right now, and the commands waiting for whoever runs it next: the part
 * the loop, siw and rxe engines share. One thread at a time holds the engine: its own thread, or an
 * application thread that posts or polls (application-driven mode) or runs a control operation inline.
 * Control operations that must run on the engine (register a socket, reset or destroy a QP) are queued
 * here and run by the holder at the start of its next cycle, or run inline by a caller that can take the
 * engine.
 *
 * <p>The holder is a thread reference in a cache line of its own: every post writes it twice, and
 * threads that poll read the engine's other fields, which would otherwise share the line with it.
 *
 * <p>A failing queued command is logged and does not stop the holder's cycle; {@link #runSync} hands the
 * failure of its own command to its caller as it was thrown (an {@link RdmaException} stays one).
 */
public final class EngineHolder {
    /** How long {@link #runSync} waits for the holder to run a queued command. */
    public static final long COMMAND_TIMEOUT_SECONDS = 10;
    private static final System.Logger LOG = System.getLogger(EngineHolder.class.getName());
    private static final VarHandle OWNER;

    static {
        try {
            OWNER = MethodHandles.lookup().findVarHandle(OwnerField.class, "owner", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String name;
    private final long timeoutNanos;
    private final OwnerCell cell = new OwnerCell();
    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();

    /**
     * A free engine.
     *
     * @param name the engine's name in log lines and exception messages (e.g. {@code siw engine siw0})
     */
    public EngineHolder(String name) {
        this(name, TimeUnit.SECONDS.toNanos(COMMAND_TIMEOUT_SECONDS));
    }

    /**
     * A free engine whose {@link #runSync} waits up to {@code timeoutNanos} for a queued command.
     *
     * @param name the engine's name in log lines and exception messages
     * @param timeoutNanos how long {@link #runSync} waits for the holder, more than 0
     */
    public EngineHolder(String name, long timeoutNanos) {
        this.name = Objects.requireNonNull(name, "name");
        if (timeoutNanos <= 0) {
            throw new IllegalArgumentException("timeoutNanos must be more than 0, got " + timeoutNanos);
        }
        this.timeoutNanos = timeoutNanos;
    }

    /**
     * Takes the engine for the calling thread if nobody holds it.
     *
     * @return whether the caller now holds it (false also when it already did)
     */
    public boolean tryHold() {
        return cell.owner == null && OWNER.compareAndSet(cell, (Thread) null, Thread.currentThread());
    }

    /**
     * Lets go of the engine (holder only). A volatile store: a thread that rang a doorbell and then failed
     * to take the engine relies on the holder looking at its queues again after this.
     */
    public void release() {
        OWNER.setVolatile(cell, (Thread) null);
    }

    /**
     * Whether the calling thread holds the engine.
     *
     * @return true if it does
     */
    public boolean heldByCaller() {
        return cell.owner == Thread.currentThread();
    }

    /**
     * Whether some thread holds the engine (racy unless read by the holder).
     *
     * @return true if one does
     */
    public boolean isHeld() {
        return cell.owner != null;
    }

    /**
     * Queues {@code command} for the next holder (any thread); the caller wakes the engine as it needs.
     *
     * @param command what to run on the engine
     */
    public void add(Runnable command) {
        commands.add(Objects.requireNonNull(command, "command"));
    }

    /**
     * Whether commands wait (racy unless read by the holder).
     *
     * @return true if any does
     */
    public boolean hasCommands() {
        return !commands.isEmpty();
    }

    /**
     * Runs the queued commands (holder only); one that throws is logged and the others still run.
     *
     * @return how many ran
     */
    public int runCommands() {
        int work = 0;
        Runnable c;
        while ((c = commands.poll()) != null) {
            try {
                c.run();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "[" + name + "] engine command failed", e);
            }
            work++;
        }
        return work;
    }

    /**
     * Takes the engine if nobody holds it and runs the queued commands, then {@code r}, on the calling
     * thread; then lets go and runs {@code afterRelease} (e.g. wake the engine's thread: {@code r} may have
     * registered a channel its next select must see), also when {@code r} throws. {@code r}'s exception
     * reaches the caller.
     *
     * @param r what to run
     * @param afterRelease what to run once the engine is free again
     * @return whether it ran {@code r} (false: another thread holds the engine)
     */
    public boolean tryRunInline(Runnable r, Runnable afterRelease) {
        if (!tryHold()) {
            return false;
        }
        try {
            runCommands();
            r.run();
        } finally {
            release();
            afterRelease.run();
        }
        return true;
    }

    /**
     * Runs {@code r} on the engine and waits for it: at once when the caller holds the engine; inline when
     * {@code inline} and the engine is free ({@link #tryRunInline}); else queued for the holder, after
     * which {@code kick} runs (wake the engine's thread, or drive the engine).
     *
     * @param r what to run
     * @param inline whether the caller may take a free engine to run {@code r} itself
     * @param afterInline what {@link #tryRunInline} runs after an inline run
     * @param kick what makes the holder run the queued command
     * @throws RdmaException {@code ETIMEDOUT} when the engine did not run it within
     *     the timeout ({@link #COMMAND_TIMEOUT_SECONDS} by default), {@code EINTR} when interrupted;
     *     a {@link RuntimeException} of {@code r} as thrown
     */
    public void runSync(Runnable r, boolean inline, Runnable afterInline, Runnable kick) {
        if (heldByCaller()) {
            r.run();
            return;
        }
        if (inline && tryRunInline(r, afterInline)) {
            return;
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        commands.add(() -> {
            try {
                r.run();
                done.complete(null);
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
            }
        });
        kick.run();
        try {
            done.get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RdmaException(Errno.EINTR, "interrupted while waiting for the " + name, e);
        } catch (ExecutionException e) {
            throw (RuntimeException) e.getCause(); // the only failure the queued wrapper records
        } catch (TimeoutException e) {
            throw new RdmaException(Errno.ETIMEDOUT, name + " did not answer in "
                    + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms", e);
        }
    }

    @Override
    public String toString() {
        Thread t = cell.owner;
        return name + (t == null ? " (free)" : " (held by " + t.getName() + ")");
    }

    /** Padding before {@link OwnerField#owner}: a cache line that nothing else in the JVM writes. */
    @SuppressWarnings("unused")
    private static class OwnerPadBefore {
        long p0;
        long p1;
        long p2;
        long p3;
        long p4;
        long p5;
        long p6;
        long p7;
    }

    /** The thread that holds the engine, or {@code null} (accessed through {@link #OWNER}). */
    private static class OwnerField extends OwnerPadBefore {
        volatile Thread owner;
    }

    /** {@link OwnerField} with padding after it. */
    @SuppressWarnings("unused")
    private static final class OwnerCell extends OwnerField {
        long q0;
        long q1;
        long q2;
        long q3;
        long q4;
        long q5;
        long q6;
        long q7;
    }
}
