package io.jrdma.testkit;

import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.SharedReceiveQueue;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;

/**
 * One side of a test connection, as a {@link VerbsFixture} built it: the device context, protection
 * domain, completion queue (serving both queues), optional completion channel and SRQ, and the QP.
 * For UD endpoints it also knows how to reach its peer: an address handle in its own PD, the peer's
 * QPN and Q_Key.
 *
 * <p>Closing it runs the fixture's teardown first (so no engine touches the QP any more), then the
 * cleanups registered with {@link #onClose(AutoCloseable)}, last first: the regions and buffers a
 * test made, whose memory may only be freed once nothing can reach it.
 */
public final class Endpoint implements AutoCloseable {
    private final Context context;
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final CompletionChannel channel;
    private final SharedReceiveQueue srq;
    private final QueuePair qp;
    private final AutoCloseable teardown;
    private final Deque<AutoCloseable> cleanups = new ArrayDeque<>();
    private AddressHandle ahToPeer;
    private int peerQpn;
    private int peerQkey;
    private boolean closed;

    /**
     * An endpoint over resources a fixture made.
     *
     * @param teardown what the fixture does to release them (close the QP, the CQ, the context, a CM
     *     id...); run once by {@link #close()}
     */
    public Endpoint(Context context, ProtectionDomain pd, CompletionQueue cq, CompletionChannel channel,
            SharedReceiveQueue srq, QueuePair qp, AutoCloseable teardown) {
        this.context = Objects.requireNonNull(context, "context");
        this.pd = Objects.requireNonNull(pd, "pd");
        this.cq = Objects.requireNonNull(cq, "cq");
        this.channel = channel;
        this.srq = srq;
        this.qp = Objects.requireNonNull(qp, "qp");
        this.teardown = Objects.requireNonNull(teardown, "teardown");
    }

    /** The device context. */
    public Context context() {
        return context;
    }

    /** The protection domain of the QP. */
    public ProtectionDomain pd() {
        return pd;
    }

    /** The completion queue of both the send and the receive queue. */
    public CompletionQueue cq() {
        return cq;
    }

    /** The completion channel of the CQ, or {@code null}. */
    public CompletionChannel channel() {
        return channel;
    }

    /** The shared receive queue, or {@code null}. */
    public SharedReceiveQueue srq() {
        return srq;
    }

    /** The queue pair. */
    public QueuePair qp() {
        return qp;
    }

    /** UD: an address handle (in this endpoint's PD) to the peer, or {@code null}. */
    public AddressHandle ahToPeer() {
        return ahToPeer;
    }

    /** UD: the peer's QP number. */
    public int peerQpn() {
        return peerQpn;
    }

    /** UD: the peer's Q_Key. */
    public int peerQkey() {
        return peerQkey;
    }

    /** UD: records how to reach the peer (fixtures call this). */
    public Endpoint udPeer(AddressHandle ah, int qpn, int qkey) {
        this.ahToPeer = ah;
        this.peerQpn = qpn;
        this.peerQkey = qkey;
        return this;
    }

    /** Registers something to close after the fixture's teardown (last registered, first closed). */
    public <T extends AutoCloseable> T onClose(T resource) {
        cleanups.push(resource);
        return resource;
    }

    /**
     * Runs the teardown, then the cleanups; every one runs even if an earlier one fails, and the first
     * failure is rethrown (checked ones wrapped in {@link IllegalStateException}).
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        Exception first = null;
        try {
            teardown.close();
        } catch (Exception e) {
            first = e;
        }
        while (!cleanups.isEmpty()) {
            try {
                cleanups.pop().close();
            } catch (Exception e) {
                first = first == null ? e : first;
            }
        }
        if (first instanceof RuntimeException re) {
            throw re;
        }
        if (first != null) {
            throw new IllegalStateException("closing " + this + " failed", first);
        }
    }

    @Override
    public String toString() {
        return "Endpoint[" + qp + "]";
    }
}
