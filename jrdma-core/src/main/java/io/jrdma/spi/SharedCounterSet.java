package io.jrdma.spi;

import io.jrdma.verbs.Counter;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Device counters written by any thread of the control plane (CM handshakes, CM datagram senders),
 * where an atomic add is cheap next to the work around it. The data path uses {@link CounterSet}.
 */
public final class SharedCounterSet {
    private final AtomicLongArray values = new AtomicLongArray(CounterSet.SIZE);

    /** A set of zero counters. */
    public SharedCounterSet() {
    }

    /**
     * Adds one. Any thread.
     *
     * @param c the counter
     */
    public void inc(Counter c) {
        values.getAndIncrement(c.ordinal());
    }

    /**
     * The current value. Any thread.
     *
     * @param c the counter
     * @return the value
     */
    public long get(Counter c) {
        return values.get(c.ordinal());
    }

    void addTo(long[] sum) {
        for (int i = 0; i < CounterSet.SIZE; i++) {
            sum[i] += values.get(i);
        }
    }
}
