package io.jrdma.loop;

import io.jrdma.internal.engine.Agent;
import io.jrdma.internal.engine.AgentRunner;
import io.jrdma.internal.engine.DoorbellQueue;
import io.jrdma.internal.engine.EngineHolder;
import io.jrdma.internal.engine.NanoClock;
import io.jrdma.internal.engine.TimerQueue;
import io.jrdma.internal.verbs.CqImpl;
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
    /** Most duty cycles one {@link #drive()} runs back to back before it leaves the rest to the engine thread. */
    static final int MAX_ROUNDS = 4;
    /** Most doorbells one duty cycle serves. */
    static final int DOORBELLS_PER_CYCLE = 1024;
    private volatile AgentRunner runner;
    final DoorbellQueue<LoopQp> doorbells = new DoorbellQueue<>(this::wake);
    final TimerQueue timers;
    final LoopTransfer transfer = new LoopTransfer(this);
    private final boolean appDriven;
    /** Who runs the duty cycle, and the commands waiting for it. */
    private final EngineHolder holder = new EngineHolder("loop engine");

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
        return holder.heldByCaller();
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
        if (!appDriven || (timers.nanosToNext() != 0 && !holder.hasCommands())) {
            return 0;
        }
        return drive();
    }

    /** Work the next duty cycle would take (racy when read by a thread that does not hold the engine). */
    private boolean hasQueuedWork() {
        return !doorbells.isEmpty() || holder.hasCommands() || timers.nanosToNext() == 0;
    }

    private boolean tryOwn() {
        return holder.tryHold();
    }

    private void release() {
        holder.release(); // then look at the queues again: a store-load pair with a ring
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
        holder.runSync(r, true, () -> {
            if (hasQueuedWork()) {
                if (appDriven) {
                    drive();
                } else {
                    wake();
                }
            }
        }, () -> {
            if (appDriven) {
                drive(); // the holder may have let go meanwhile
            }
            wake();
        });
    }

    /** One duty cycle: due timers, commands, {@code first} if not null, then the rung doorbells. Holder only. */
    private int cycle(LoopQp first) {
        int work = timers.size() > 0 ? timers.poll() : 0;
        if (holder.hasCommands()) {
            work += holder.runCommands();
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
        return !holder.isHeld() && hasQueuedWork();
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
