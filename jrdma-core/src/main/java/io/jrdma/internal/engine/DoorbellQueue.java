package io.jrdma.internal.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The queue of rung doorbells an agent drains: many producers, one consumer, intrusive, so ringing
 * allocates nothing (Dmitry Vyukov's non-intrusive MPSC queue made intrusive with a stub node).
 * A doorbell is in the queue at most once; the consumer clears it before handling its owner so that
 * a ring during handling schedules the owner again.
 *
 * @param <T> the owner type
 */
public final class DoorbellQueue<T> {
    private static final VarHandle TAIL;

    static {
        try {
            TAIL = MethodHandles.lookup().findVarHandle(DoorbellQueue.class, "tail", Doorbell.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Doorbell<T> stub = new Doorbell<>(null);
    private Doorbell<T> head = stub;
    @SuppressWarnings("unused") // accessed through TAIL
    private volatile Doorbell<T> tail = stub;
    private final Runnable wakeup;

    /** A queue that calls {@code wakeup} after a doorbell is newly rung (e.g. {@link AgentRunner#wakeup}). */
    public DoorbellQueue(Runnable wakeup) {
        this.wakeup = wakeup;
    }

    /** Rings {@code bell}: schedules its owner unless it is already scheduled. Any thread. */
    public void ring(Doorbell<T> bell) {
        if (bell.tryRing()) {
            push(bell);
            wakeup.run();
        }
    }

    /**
     * Rings {@code bell} without waking the consumer: for a producer that runs the consumer's duty
     * cycle itself right after (application-driven progress). Any thread.
     */
    public void ringQuietly(Doorbell<T> bell) {
        if (bell.tryRing()) {
            push(bell);
        }
    }

    @SuppressWarnings("unchecked")
    private void push(Doorbell<T> node) {
        node.lazyNext(null);
        Doorbell<T> prev = (Doorbell<T>) TAIL.getAndSet(this, node);
        prev.lazyNext(node);
    }

    /** Whether anything is queued (racy; for the park check). */
    public boolean isEmpty() {
        return head.next() == null && head == stub && TAIL.getVolatile(this) == stub;
    }

    /**
     * Takes the next scheduled owner, clearing its doorbell, or returns {@code null} if none is
     * ready. Consumer thread only.
     */
    public T poll() {
        Doorbell<T> h = head;
        Doorbell<T> next = h.next();
        if (h == stub) {
            if (next == null) {
                return null;
            }
            head = next;
            h = next;
            next = next.next();
        }
        if (next != null) {
            head = next;
            return take(h);
        }
        if (h != TAIL.getVolatile(this)) {
            return null; // a producer is between getAndSet and linking; try again next cycle
        }
        push(stub);
        next = h.next();
        if (next != null) {
            head = next;
            return take(h);
        }
        return null;
    }

    private T take(Doorbell<T> bell) {
        bell.clearRung();
        return bell.owner;
    }
}
