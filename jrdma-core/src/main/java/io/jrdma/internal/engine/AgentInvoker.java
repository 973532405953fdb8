package io.jrdma.internal.engine;

/**
 * Runs an {@link Agent} on the caller's thread: tests call {@link #invoke()} and see every effect
 * deterministically, usually with a {@link ManualClock} (Agrona's {@code AgentInvoker}).
 */
public final class AgentInvoker implements AutoCloseable {
    private final Agent agent;
    private boolean started;

    /** An invoker for {@code agent}; it is started on the first {@link #invoke()}. */
    public AgentInvoker(Agent agent) {
        this.agent = agent;
    }

    /** Runs one duty cycle; returns its work count. */
    public int invoke() {
        if (!started) {
            started = true;
            agent.onStart();
        }
        return agent.doWork();
    }

    /** Runs duty cycles until one does no work, at most {@code maxCycles}; returns the total work. */
    public int invokeUntilIdle(int maxCycles) {
        int total = 0;
        for (int i = 0; i < maxCycles; i++) {
            int w = invoke();
            if (w == 0) {
                break;
            }
            total += w;
        }
        return total;
    }

    @Override
    public void close() {
        if (started) {
            agent.onClose();
        }
    }
}
