package io.jrdma.internal.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A doorbell: one per schedulable object (a QP), rung by any thread, drained by the owning agent
 * through a {@link DoorbellQueue}. Ringing an already rung doorbell is one volatile read, and
 * nothing is ever allocated (an intrusive MPSC queue node, Vyukov style).
 *
 * @param <T> the owner type
 */
public final class Doorbell<T> {
    private static final VarHandle RUNG;
    private static final VarHandle NEXT;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            RUNG = l.findVarHandle(Doorbell.class, "rung", int.class);
            NEXT = l.findVarHandle(Doorbell.class, "next", Doorbell.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final T owner;
    @SuppressWarnings("unused") // accessed through RUNG
    private volatile int rung;
    @SuppressWarnings("unused") // accessed through NEXT
    private volatile Doorbell<T> next;

    /** A doorbell for {@code owner}. */
    public Doorbell(T owner) {
        this.owner = owner;
    }

    /** The object this doorbell schedules. */
    public T owner() {
        return owner;
    }

    boolean tryRing() {
        return (int) RUNG.getVolatile(this) == 0 && RUNG.compareAndSet(this, 0, 1);
    }

    void clearRung() {
        RUNG.setVolatile(this, 0);
    }

    @SuppressWarnings("unchecked")
    Doorbell<T> next() {
        return (Doorbell<T>) NEXT.getAcquire(this);
    }

    void lazyNext(Doorbell<T> n) {
        NEXT.setRelease(this, n);
    }
}
