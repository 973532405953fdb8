package io.jrdma.endpoint;

import io.jrdma.cm.RdmaCm;
import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.WorkCompletion;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Completions shared by several endpoints: one completion queue per device context that the
 * endpoints' QPs all complete into, and one way of delivering them — a thread of the group's own
 * ({@link #threaded()}: a virtual thread per context waits on the queue's completion channel) or the
 * application's ({@link #polled()}: nothing happens until a thread calls {@link #poll()}, the
 * busy-polling shape of perftest). An endpoint joins a group through
 * {@link EndpointOptions#withCompletions}; without one it has completions of its own, delivered by
 * a thread of its own.
 *
 * <p>Delivering a completion means: a received message goes to the endpoint's
 * {@link MessageHandler} (run on the delivering thread) or into the queue its
 * {@link Endpoint#receive} takes from; a finished send frees its buffer; a one-sided operation
 * completes its future. Deliveries of one group run one at a time per device context.
 *
 * <p>Closing the group closes every endpoint that uses it first, then its queues; an endpoint closed
 * on its own simply leaves. Thread-safe.
 */
public final class CompletionGroup implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(CompletionGroup.class.getName());
    private static final AtomicInteger NEXT = new AtomicInteger();
    /** Completions taken from the queue per poll. */
    static final int BATCH = 16;
    /** How often a waiting delivery thread checks that its queue still exists. */
    static final java.time.Duration QUEUE_CHECK = java.time.Duration.ofSeconds(1);
    /** How long closing waits for the delivering thread to finish its current delivery. */
    static final long STOP_WAIT_MILLIS = 5_000;

    private final boolean threaded;
    private final boolean owned;
    private final String name;
    private final Map<Context, Hub> hubs = new IdentityHashMap<>();
    private volatile boolean closed;

    private CompletionGroup(boolean threaded, boolean owned) {
        this.threaded = threaded;
        this.owned = owned;
        this.name = "jrdma-completions-" + NEXT.incrementAndGet();
    }

    /** A group whose completions a virtual thread of its own delivers (one per device context). */
    public static CompletionGroup threaded() {
        return new CompletionGroup(true, false);
    }

    /** A group whose completions are delivered only when the application calls {@link #poll()}. */
    public static CompletionGroup polled() {
        return new CompletionGroup(false, false);
    }

    /** The completions of one endpoint, closed with it. */
    static CompletionGroup own() {
        return new CompletionGroup(true, true);
    }

    /** Whether a thread of the group delivers ({@code false}: {@link #poll()} does). */
    public boolean isThreaded() {
        return threaded;
    }

    /** Whether the calling thread is one of the group's delivering threads. */
    synchronized boolean isDeliveringThread() {
        Thread me = Thread.currentThread();
        for (Hub h : hubs.values()) {
            if (h.thread == me) {
                return true;
            }
        }
        return false;
    }

    /** Whether the group belongs to one endpoint (its default completions). */
    boolean isOwned() {
        return owned;
    }

    /** The number of endpoints using the group. */
    public synchronized int endpointCount() {
        int n = 0;
        for (Hub h : hubs.values()) {
            n += h.members.size();
        }
        return n;
    }

    /**
     * Delivers the completions waiting in the group's queues ({@link #polled()} groups); returns how
     * many. Never blocks but for another thread's delivery on the same queue; allocation-free when there is
     * nothing to deliver.
     *
     * @return the number of completions delivered
     * @throws IllegalStateException if the group is threaded (its thread delivers) or closed
     */
    public int poll() {
        if (threaded) {
            throw new IllegalStateException(name + " delivers on its own thread; poll() is for polled groups");
        }
        if (closed) {
            throw new IllegalStateException(name + " is closed");
        }
        Hub[] hs;
        synchronized (this) {
            hs = hubs.values().toArray(new Hub[0]);
        }
        int n = 0;
        for (Hub h : hs) {
            n += h.drain();
        }
        return n;
    }

    /**
     * Adds {@code ep}, whose QP completes into the returned queue: the group's queue on {@code context},
     * made (and tied to {@code cm}) on first use and grown by {@code entries}.
     */
    synchronized CompletionQueue join(Endpoint ep, RdmaCm cm, Context context, int entries) {
        if (closed) {
            throw new IllegalStateException(name + " is closed");
        }
        Hub h = hubs.get(context);
        if (h == null) {
            h = new Hub(cm, context, entries);
            hubs.put(context, h);
            cm.addDependent(h);
        } else {
            h.grow(entries);
        }
        return h.cq;
    }

    /** Makes {@code ep}'s completions on {@code cq} deliverable (its QP number is known now). */
    void member(Endpoint ep, CompletionQueue cq, int qpNum) {
        Hub h = hubFor(cq);
        if (h != null) {
            h.members.put(qpNum, ep);
        }
    }

    /** Removes {@code ep} (its QP is destroyed); an endpoint's own group closes with it. */
    void leave(Endpoint ep, CompletionQueue cq, int qpNum, int entries) {
        Hub h = hubFor(cq);
        if (h != null) {
            h.members.remove(qpNum, ep);
            h.entries.addAndGet(-entries);
        }
        if (owned) {
            close();
        }
    }

    private synchronized Hub hubFor(CompletionQueue cq) {
        for (Hub h : hubs.values()) {
            if (h.cq == cq) {
                return h;
            }
        }
        return null;
    }

    /** Closes every endpoint still using the group, then its queues and threads; idempotent. */
    @Override
    public void close() {
        List<Hub> hs;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            hs = new ArrayList<>(hubs.values());
        }
        for (Hub h : hs) {
            h.close();
        }
    }

    @Override
    public String toString() {
        return name + (threaded ? "[threaded]" : "[polled]");
    }

    /** The group's queue on one device context, and its delivering thread. */
    private final class Hub implements AutoCloseable {
        final RdmaCm cm;
        final CompletionChannel channel;
        final CompletionQueue cq;
        final Map<Integer, Endpoint> members = new ConcurrentHashMap<>();
        final AtomicInteger entries = new AtomicInteger();
        final WorkCompletion[] wc = new WorkCompletion[BATCH];
        final Object pollLock = new Object();
        final Thread thread;
        volatile boolean running = true;
        private boolean queuesClosed;

        Hub(RdmaCm cm, Context context, int size) {
            this.cm = cm;
            for (int i = 0; i < wc.length; i++) {
                wc[i] = new WorkCompletion();
            }
            this.entries.set(size);
            this.channel = threaded ? context.createCompletionChannel() : null;
            try {
                this.cq = context.createCq(size, channel, 0);
            } catch (RuntimeException e) {
                if (channel != null) {
                    channel.close();
                }
                throw e;
            }
            this.thread = threaded ? Thread.ofVirtual().name(name + "-" + context.device().name()).start(this::run)
                    : null;
        }

        void grow(int more) {
            int total = entries.addAndGet(more);
            if (total > cq.capacity()) {
                cq.resize(total);
            }
        }

        /** Polls and delivers one batch; returns how many. */
        int drain() {
            synchronized (pollLock) {
                if (queuesClosed) {
                    return 0;
                }
                int n = cq.poll(wc);
                for (int i = 0; i < n; i++) {
                    Endpoint ep = members.get(wc[i].qpNum());
                    if (ep != null) {
                        ep.onCompletion(wc[i]);
                    }
                }
                return n;
            }
        }

        private void run() {
            try {
                while (running) {
                    if (drain() > 0) {
                        continue;
                    }
                    cq.requestNotify(false);
                    if (drain() > 0) {
                        continue;
                    }
                    // Bounded, so that a queue closed under the group (its device was closed) is noticed:
                    // arming a closed queue throws.
                    CompletionQueue signalled = channel.getEvent(QUEUE_CHECK);
                    if (signalled != null) {
                        channel.ackEvents(signalled, 1);
                    }
                }
            } catch (InterruptedException e) {
                // stopped
            } catch (RuntimeException e) {
                if (running) {
                    // The queue or its context was closed under the group: its device is gone.
                    for (Endpoint ep : members.values()) {
                        ep.lost(e);
                    }
                }
            }
        }

        @Override
        public void close() {
            for (Endpoint ep : new ArrayList<>(members.values())) {
                ep.close();
            }
            running = false;
            if (thread != null && thread != Thread.currentThread()) {
                thread.interrupt();
                try {
                    thread.join(TimeUnit.MILLISECONDS.toMillis(STOP_WAIT_MILLIS));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            synchronized (pollLock) {
                if (queuesClosed) {
                    return;
                }
                queuesClosed = true;
            }
            try {
                cq.close();
                if (channel != null) {
                    channel.close();
                }
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, name + ": queues closed with their context: " + e);
            }
            cm.removeDependent(this);
            synchronized (CompletionGroup.this) {
                hubs.values().remove(this);
            }
        }

        @Override
        public String toString() {
            return name + " on " + cq;
        }
    }
}
