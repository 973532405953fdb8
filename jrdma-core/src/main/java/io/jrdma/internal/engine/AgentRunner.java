package io.jrdma.internal.engine;

import java.util.concurrent.TimeUnit;

/**
 * Runs an {@link Agent} on its own platform thread until closed (Agrona's {@code AgentRunner}).
 * {@link #wakeup()} is the doorbell's way to end a park early; it costs a volatile read when the
 * thread is busy.
 */
public final class AgentRunner implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(AgentRunner.class.getName());

    private final Agent agent;
    private final IdleStrategy idle;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile boolean parked;
    private final IdleStrategy.Parker parker = this::park;
    /** Failures of the idle step (runner thread only). */
    private long idleFailures;

    /** Creates and starts a runner on a daemon thread named after the agent. */
    public AgentRunner(Agent agent, IdleStrategy idle) {
        this.agent = agent;
        this.idle = idle;
        this.thread = Thread.ofPlatform().daemon().name("jrdma-" + agent.roleName()).unstarted(this::run);
        thread.start();
    }

    private void park(long nanos) {
        parked = true;
        try {
            if (running && !agent.hasPendingWork()) {
                agent.park(nanos);
            }
        } finally {
            parked = false;
        }
    }

    private void run() {
        try {
            agent.onStart();
            while (running) {
                int work;
                try {
                    work = agent.doWork();
                } catch (RuntimeException e) {
                    // An agent must not throw; if it does, keep the engine alive and say so.
                    LOG.log(System.Logger.Level.ERROR, "[" + agent.roleName() + "] duty cycle failed", e);
                    work = 1;
                }
                try {
                    idle.idle(work, parker);
                } catch (RuntimeException e) {
                    // Parking asks the agent (pending work, next timer); a failure there must not end the
                    // thread either: every QP of the engine would stall. Say so, and run another cycle.
                    if (idleFailures++ % 10_000 == 0) {
                        LOG.log(System.Logger.Level.ERROR, "[" + agent.roleName() + "] idle failed ("
                                + idleFailures + " so far)", e);
                    }
                }
            }
        } finally {
            agent.onClose();
        }
    }

    /** Wakes the thread if it is parked. */
    public void wakeup() {
        if (parked) {
            agent.unpark(thread);
        }
    }

    /** The thread running the agent. */
    public Thread thread() {
        return thread;
    }

    /** Whether the calling thread is the agent's thread. */
    public boolean isAgentThread() {
        return Thread.currentThread() == thread;
    }

    /** Stops the agent and waits up to 5 s for its thread to end. */
    @Override
    public void close() {
        running = false;
        agent.unpark(thread);
        if (Thread.currentThread() != thread) {
            try {
                thread.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
