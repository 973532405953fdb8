package io.jrdma.internal.engine;

/** A source of monotonic nanoseconds; tests substitute a {@link ManualClock}. */
public interface NanoClock {
    /** The system clock ({@link System#nanoTime()}). */
    NanoClock SYSTEM = System::nanoTime;

    /** Monotonic nanoseconds. */
    long nanoTime();
}
