package io.jrdma.internal.engine;

/**
 * A timer owned by one object (a QP's retransmit timer, an RNR wait, a CM retry), scheduled on the
 * owning agent's {@link TimerQueue}. Allocated once with its owner and re-armed freely.
 */
public final class Timer {
    final Runnable action;
    long deadline;
    int index = -1;

    /** A timer that runs {@code action} on the agent thread when it expires. */
    public Timer(Runnable action) {
        this.action = action;
    }

    /** Whether the timer is armed. */
    public boolean isArmed() {
        return index >= 0;
    }

    /** The deadline in the queue's clock, valid while armed. */
    public long deadline() {
        return deadline;
    }
}
