package io.jrdma.spi;

import io.jrdma.verbs.Counter;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Counters with one writer: a queue pair's (written by the engine that owns the QP) or an engine's
 * device-level ones. The writer reads its own last value plainly and publishes the new one with an
 * opaque store, so an increment is a load, an add and a store: no lock, no compare-and-set, no
 * allocation. Readers on other threads see every value whole (opaque access is atomic for
 * {@code long}) and, eventually, the latest.
 *
 * <p>Several threads may take turns as the writer only if each hand-over is ordered by a
 * happens-before edge (siw's application-driven engines pass ownership through an atomic flag).
 * Counters written from arbitrary threads belong in a {@link SharedCounterSet}.
 */
public final class CounterSet {
    private static final VarHandle VALUES = MethodHandles.arrayElementVarHandle(long[].class);
    /** How many counters there are. */
    static final int SIZE = Counter.all().size();

    private final long[] values = new long[SIZE];

    /** A set of zero counters. */
    public CounterSet() {
    }

    /**
     * Adds one. Owner thread only; allocation-free.
     *
     * @param c the counter
     */
    public void inc(Counter c) {
        int i = c.ordinal();
        VALUES.setOpaque(values, i, values[i] + 1);
    }

    /**
     * Adds {@code n} (not negative). Owner thread only; allocation-free.
     *
     * @param c the counter
     * @param n the amount
     */
    public void add(Counter c, long n) {
        int i = c.ordinal();
        VALUES.setOpaque(values, i, values[i] + n);
    }

    /**
     * The current value. Any thread.
     *
     * @param c the counter
     * @return the value
     */
    public long get(Counter c) {
        return (long) VALUES.getOpaque(values, c.ordinal());
    }

    /** Adds every value into {@code sum} (indexed by ordinal). Any thread. */
    void addTo(long[] sum) {
        for (int i = 0; i < SIZE; i++) {
            sum[i] += (long) VALUES.getOpaque(values, i);
        }
    }
}
