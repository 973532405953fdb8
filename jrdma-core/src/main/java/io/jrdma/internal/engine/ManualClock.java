package io.jrdma.internal.engine;

/** A clock that moves only when told to: agents under test see timeouts fire deterministically. */
public final class ManualClock implements NanoClock {
    private volatile long now;

    /** A clock at {@code start} nanoseconds. */
    public ManualClock(long start) {
        this.now = start;
    }

    @Override
    public long nanoTime() {
        return now;
    }

    /** Moves the clock forward. */
    public void advance(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("time only moves forward: " + nanos);
        }
        now += nanos;
    }
}
