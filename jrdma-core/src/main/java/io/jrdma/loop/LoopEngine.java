package io.jrdma.loop;

import io.jrdma.internal.engine.Agent;
import io.jrdma.internal.engine.AgentRunner;
import io.jrdma.internal.engine.DoorbellQueue;
import io.jrdma.internal.engine.NanoClock;
import io.jrdma.internal.engine.TimerQueue;
import io.jrdma.internal.verbs.CqImpl;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.RdmaException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * The loop fabric's engine: one duty cycle that runs every loop QP's requester and, in the same step,
 * the responder it talks to (there is no wire in between). One thread at a time runs it, whichever
 * holds the engine: its own thread, or an application thread.
 *
 * <p>Application-driven (the default; {@code jrdma.loop.appDriven=false} turns it off): the thread
 * that posts a send runs the cycle itself, so the WQE is executed, placed and completed before
 * {@code postSend} returns, and a thread that polls an empty CQ runs it when a timer is due or work
 * is queued. No thread hand-off lies between a post and its placement. If another thread holds the
 * engine, the poster leaves its doorbell to it: the holder looks at the doorbells again after it lets
 * go. The engine's own thread then only fires the timers nobody polls for and runs what the control
 * path rings (state changes); it backs off and parks when that finds nothing, so an idle engine costs
 * no CPU. Off, every post wakes the engine's thread, which runs the cycle.
 *
 * <p>Control operations that must run on the engine (reset, destroy) run on the calling thread when
 * nobody holds the engine, else as commands for whoever holds it.
 */
final class LoopEngine implements Agent, CqImpl.ProgressHook {
    /** Most WQEs one QP processes per doorbell before yielding to others. */
    static final int BATCH = 64;
    /** How long a control operation waits for the engine. */
    static final long COMMAND_TIMEOUT_SECONDS = 10;
    /** Most duty cycles one {@link #drive()} runs back to back before it leaves the rest to the engine thread. */
    static final int MAX_ROUNDS = 4;
    /** Most doorbells one duty cycle serves. */
    static final int DOORBELLS_PER_CYCLE = 1024;
    private static final VarHandle OWNER;

    static {
        try {
            OWNER = MethodHandles.lookup().findVarHandle(OwnerField.class, "owner", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile AgentRunner runner;
    final DoorbellQueue<LoopQp> doorbells = new DoorbellQueue<>(this::wake);
    final TimerQueue timers;
    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    final LoopTransfer transfer = new LoopTransfer(this);
    private final boolean appDriven;
    /** Who runs the duty cycle. */
    private final OwnerCell cell = new OwnerCell();

    /** An engine on the system clock, for an {@link AgentRunner}. */
    LoopEngine() {
        this(NanoClock.SYSTEM, !"false".equals(System.getProperty("jrdma.loop.appDriven")));
    }

    /**
     * An engine reading time from {@code clock}, application-driven. Without a runner (INVOKER mode)
     * the threads that call {@code doWork()} through an {@code AgentInvoker}, post or poll run it.
     */
    LoopEngine(NanoClock clock) {
        this(clock, true);
    }

    /** An engine reading time from {@code clock}; {@code appDriven}: posting and polling threads run it. */
    LoopEngine(NanoClock clock, boolean appDriven) {
        this.timers = new TimerQueue(clock);
        this.appDriven = appDriven;
    }

    void runner(AgentRunner r) {
        this.runner = r;
    }

    /** Whether posting and polling threads run the duty cycle. */
    boolean applicationDriven() {
        return appDriven;
    }

    private void wake() {
        AgentRunner r = runner;
        if (r != null) {
            r.wakeup();
        }
    }

    /** Whether the calling thread runs the duty cycle right now. */
    boolean onEngineThread() {
        return cell.owner == Thread.currentThread();
    }

    /**
     * Schedules {@code qp} (any thread). From the thread that runs the duty cycle the doorbell is
     * served before that thread lets go of the engine, so nobody is woken; from another thread it
     * wakes the engine's thread.
     */
    void ring(LoopQp qp) {
        if (onEngineThread()) {
            doorbells.ringQuietly(qp.bell);
        } else {
            doorbells.ring(qp.bell);
        }
    }

    /**
     * An application thread posted sends to {@code qp}: application-driven, it runs the duty cycle
     * now (unless another thread does, which then serves the doorbell), else it wakes the engine.
     */
    void post(LoopQp qp) {
        if (!appDriven) {
            ring(qp);
            return;
        }
        if (tryOwn()) {
            // The engine was free: serve this QP straight away, then whatever else is queued. Its doorbell
            // may be rung too (by an earlier post); serving it again later finds its send queue done.
            try {
                cycle(qp);
            } finally {
                release();
            }
            if (hasQueuedWork()) {
                drive();
            } else {
                timerArmed();
            }
            return;
        }
        doorbells.ringQuietly(qp.bell);
        drive(); // the holder may have let go before the ring; if not, it serves the doorbell
    }

    /**
     * A poll found its CQ empty (application-driven): runs the duty cycle if a timer is due (an RNR or
     * transport retry) or a command waits. Doorbells need no poller: a post serves its own, and a ring
     * from elsewhere wakes the engine's thread. A poll with nothing to do reads two fields that the data
     * path does not write, so threads spinning on CQs cost the posting threads nothing.
     */
    @Override
    public int progress() {
        if (!appDriven || (timers.nanosToNext() != 0 && commands.isEmpty())) {
            return 0;
        }
        return drive();
    }

    /** Work the next duty cycle would take (racy when read by a thread that does not hold the engine). */
    private boolean hasQueuedWork() {
        return !doorbells.isEmpty() || !commands.isEmpty() || timers.nanosToNext() == 0;
    }

    private boolean tryOwn() {
        return cell.owner == null && OWNER.compareAndSet(cell, (Thread) null, Thread.currentThread());
    }

    private void release() {
        OWNER.setVolatile(cell, (Thread) null); // then look at the queues again: a store-load pair with a ring
    }

    /**
     * Runs duty cycles while this thread can take the engine and work remains. A thread that rings a
     * doorbell and then fails to take the engine leaves the doorbell to the holder: the holder looks at
     * the queues again after letting go (the ring, then the failed take; the release, then the look),
     * so no doorbell is left behind. After {@link #MAX_ROUNDS} cycles the engine's thread takes over.
     */
    private int drive() {
        int work = 0;
        for (int round = 0; round < MAX_ROUNDS; round++) {
            if (!tryOwn()) {
                return work;
            }
            try {
                work += cycle(null);
            } finally {
                release();
            }
            if (!hasQueuedWork()) {
                timerArmed();
                return work;
            }
        }
        wake();
        return work;
    }

    /**
     * After a cycle run by an application thread: if a timer is armed (an RNR or retry wait that cycle may
     * have started), the engine's thread, which may be parked for longer, wakes to bound its park by it;
     * the timer then fires on time even if nobody polls. Costs a volatile read when no timer is armed.
     */
    private void timerArmed() {
        if (timers.size() > 0) {
            wake();
        }
    }

    /**
     * Runs {@code r} on the engine and waits for it: on the calling thread when it runs the engine or
     * nobody does (queued commands first), else as a command for the thread that does.
     */
    void runSync(Runnable r) {
        if (onEngineThread()) {
            r.run();
            return;
        }
        if (tryOwn()) {
            try {
                runCommands();
                r.run();
            } finally {
                release();
                if (hasQueuedWork()) {
                    if (appDriven) {
                        drive();
                    } else {
                        wake();
                    }
                }
            }
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
        if (appDriven) {
            drive(); // the holder may have let go meanwhile
        }
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

    private int runCommands() {
        int work = 0;
        Runnable c;
        while ((c = commands.poll()) != null) {
            c.run();
            work++;
        }
        return work;
    }

    /** One duty cycle: due timers, commands, {@code first} if not null, then the rung doorbells. Holder only. */
    private int cycle(LoopQp first) {
        int work = timers.size() > 0 ? timers.poll() : 0;
        if (!commands.isEmpty()) {
            work += runCommands();
        }
        if (first != null) {
            work += 1 + first.process();
        }
        for (int i = 0; i < DOORBELLS_PER_CYCLE; i++) {
            LoopQp q = doorbells.poll();
            if (q == null) {
                break;
            }
            work += 1 + q.process();
        }
        return work;
    }

    @Override
    public int doWork() {
        return drive();
    }

    /**
     * Whether the engine's thread should run another cycle instead of parking: not while another thread
     * holds the engine (it serves what is queued before it lets go, or wakes this thread).
     */
    @Override
    public boolean hasPendingWork() {
        return cell.owner == null && hasQueuedWork();
    }

    @Override
    public void park(long nanos) {
        LockSupport.parkNanos(this, Math.min(nanos, Math.max(1, timers.nanosToNext())));
    }

    @Override
    public String roleName() {
        return "loop-engine";
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

    /** The thread that runs the duty cycle, or {@code null} (accessed through {@link #OWNER}). */
    private static class OwnerField extends OwnerPadBefore {
        volatile Thread owner;
    }

    /**
     * The engine's ownership in a cache line of its own: every post writes it twice, and threads that poll
     * read the engine's other fields, which would otherwise share the line and bounce between the cores.
     */
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
