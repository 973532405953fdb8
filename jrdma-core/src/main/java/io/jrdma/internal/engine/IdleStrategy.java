package io.jrdma.internal.engine;

/**
 * What an agent's thread does when a duty cycle found no work (Agrona's {@code IdleStrategy}).
 * Implementations keep their state per runner and are not shared between threads.
 */
public interface IdleStrategy {
    /**
     * Called after each duty cycle with the work count it returned.
     *
     * @param workCount work done in the last cycle; a positive count resets the back-off
     * @param parker parks the thread when the strategy decides to sleep
     */
    void idle(int workCount, Parker parker);

    /** Resets the back-off state. */
    void reset();

    /** Parks the calling thread; supplied by the runner so a doorbell can wake it. */
    interface Parker {
        /** Parks for at most {@code nanos}. */
        void park(long nanos);
    }

    /** Spins with {@link Thread#onSpinWait()}: lowest latency, one core busy (perftest's default). */
    static IdleStrategy busySpin() {
        return new IdleStrategy() {
            @Override
            public void idle(int workCount, Parker parker) {
                Thread.onSpinWait();
            }

            @Override
            public void reset() {
            }
        };
    }

    /**
     * Spins, then yields, then parks with a growing timeout up to {@code maxParkNanos}; a doorbell
     * wakes a parked thread at once.
     */
    static IdleStrategy backoff(int spins, int yields, long minParkNanos, long maxParkNanos) {
        return new BackoffIdleStrategy(spins, yields, minParkNanos, maxParkNanos);
    }

    /** The default: a short spin, a few yields, then parking for up to 1 ms. */
    static IdleStrategy defaultStrategy() {
        return backoff(200, 20, 1_000, 1_000_000);
    }
}
