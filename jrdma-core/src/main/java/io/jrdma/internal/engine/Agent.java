package io.jrdma.internal.engine;

/**
 * A unit of data-path work run by an {@link AgentRunner} thread or, in tests, by an
 * {@link AgentInvoker} on the calling thread (Aeron/Agrona's {@code Agent}). {@link #doWork()} must
 * never block: it does what it can now and returns how much that was.
 */
public interface Agent {
    /**
     * Does a bounded amount of work.
     *
     * @return the amount of work done; 0 lets the idle strategy back off
     */
    int doWork();

    /** Called once on the agent's thread before the first {@link #doWork()}. */
    default void onStart() {
    }

    /** Called once on the agent's thread after the last {@link #doWork()}. */
    default void onClose() {
    }

    /**
     * Parks the agent's thread for at most {@code nanos}, returning early on {@link #unpark()}.
     * Agents that own a selector override this with {@code select(timeout)}.
     */
    default void park(long nanos) {
        java.util.concurrent.locks.LockSupport.parkNanos(this, nanos);
    }

    /** Wakes a thread parked in {@link #park(long)}; the runner supplies the thread by default. */
    default void unpark(Thread thread) {
        java.util.concurrent.locks.LockSupport.unpark(thread);
    }

    /**
     * Whether work is waiting (a doorbell rang) that the next {@link #doWork()} would take. The
     * runner checks it after announcing that it parks, so a doorbell is never missed.
     */
    default boolean hasPendingWork() {
        return false;
    }

    /** A name for the thread and for logs. */
    String roleName();
}
