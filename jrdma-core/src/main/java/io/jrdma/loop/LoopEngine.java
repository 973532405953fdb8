package io.jrdma.loop;

import io.jrdma.internal.engine.Agent;
import io.jrdma.internal.engine.AgentRunner;
import io.jrdma.internal.engine.DoorbellQueue;
import io.jrdma.internal.engine.NanoClock;
import io.jrdma.internal.engine.TimerQueue;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.RdmaException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * The loop fabric's engine: one agent that runs every loop QP's requester and, in the same step,
 * the responder it talks to (there is no wire in between). Control operations that must finish on
 * the engine thread (reset, destroy) arrive as commands.
 */
final class LoopEngine implements Agent {
    /** Most WQEs one QP processes per doorbell before yielding to others. */
    static final int BATCH = 64;
    /** How long a control operation waits for the engine. */
    static final long COMMAND_TIMEOUT_SECONDS = 10;

    private volatile AgentRunner runner;
    final DoorbellQueue<LoopQp> doorbells = new DoorbellQueue<>(this::wake);
    final TimerQueue timers;
    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    final LoopTransfer transfer = new LoopTransfer(this);

    /** An engine on the system clock, for an {@link AgentRunner}. */
    LoopEngine() {
        this(NanoClock.SYSTEM);
    }

    /**
     * An engine reading time from {@code clock}. Without a runner (INVOKER mode) the thread that calls
     * {@code doWork()} through an {@code AgentInvoker} is the engine thread, and commands run inline.
     */
    LoopEngine(NanoClock clock) {
        this.timers = new TimerQueue(clock);
    }

    void runner(AgentRunner r) {
        this.runner = r;
    }

    private void wake() {
        AgentRunner r = runner;
        if (r != null) {
            r.wakeup();
        }
    }

    boolean onEngineThread() {
        AgentRunner r = runner;
        return r != null && r.isAgentThread();
    }

    void ring(LoopQp qp) {
        doorbells.ring(qp.bell);
    }

    /**
     * Runs {@code r} on the engine thread and waits for it (inline when already there, or when no
     * runner owns the engine: in INVOKER mode the caller drives the engine).
     */
    void runSync(Runnable r) {
        if (runner == null || onEngineThread()) {
            r.run();
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
        wake();
        try {
            done.get(COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RdmaException(Errno.EINTR, "interrupted while waiting for the loop engine", e);
        } catch (ExecutionException e) {
            throw new RdmaException(Errno.EIO, "loop engine command failed", e.getCause());
        } catch (TimeoutException e) {
            throw new RdmaException(Errno.ETIMEDOUT, "loop engine did not answer in " + COMMAND_TIMEOUT_SECONDS
                    + " s", e);
        }
    }

    @Override
    public int doWork() {
        int work = timers.poll();
        Runnable c;
        while ((c = commands.poll()) != null) {
            c.run();
            work++;
        }
        for (int i = 0; i < 1024; i++) {
            LoopQp q = doorbells.poll();
            if (q == null) {
                break;
            }
            work += 1 + q.process();
        }
        return work;
    }

    @Override
    public boolean hasPendingWork() {
        return !doorbells.isEmpty() || !commands.isEmpty() || timers.nanosToNext() == 0;
    }

    @Override
    public void park(long nanos) {
        LockSupport.parkNanos(this, Math.min(nanos, Math.max(1, timers.nanosToNext())));
    }

    @Override
    public String roleName() {
        return "loop-engine";
    }
}
