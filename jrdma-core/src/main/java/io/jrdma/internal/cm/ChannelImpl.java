package io.jrdma.internal.cm;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.RdmaException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;

/**
 * A librdmacm event channel built on the kernel-style handlers: each id of the channel has a handler
 * that queues its events here. A retrieved event counts against its id (the listener, for
 * CONNECT_REQUEST, as ucma counts it) until acknowledged; destroying an id waits for that count to
 * reach zero.
 */
public final class ChannelImpl implements EventChannel {
    private final CmHost core;
    private final LinkedBlockingDeque<CmEvent> queue = new LinkedBlockingDeque<>();
    private final Map<CmIdImpl, int[]> unacked = new IdentityHashMap<>();
    private final List<CmIdImpl> ids = new ArrayList<>();
    private volatile boolean closed;

    ChannelImpl(CmHost core) {
        this.core = core;
    }

    synchronized void attach(CmIdImpl id) {
        ids.add(id);
        unacked.putIfAbsent(id, new int[1]);
    }

    void detach(CmIdImpl id) {
        List<CmIdImpl> orphans = new ArrayList<>();
        synchronized (this) {
            ids.remove(id);
            queue.removeIf(e -> {
                if (e.listenId() == id && e.type() == CmEventType.CONNECT_REQUEST) {
                    orphans.add((CmIdImpl) e.id()); // a request the destroyed listener never saw
                    return true;
                }
                return e.id() == id;
            });
            int[] n = unacked.get(id);
            if (n != null && n[0] == 0) {
                unacked.remove(id);
            }
            notifyAll();
        }
        // Destroying a listener with pending requests rejects them (ucma_cleanup_ctx_events).
        for (CmIdImpl child : orphans) {
            child.destroy();
        }
    }

    void enqueue(CmEvent e) {
        queue.add(e);
    }

    private static CmIdImpl owner(CmEvent e) {
        return (CmIdImpl) (e.type() == CmEventType.CONNECT_REQUEST && e.listenId() != null ? e.listenId() : e.id());
    }

    private CmEvent retrieved(CmEvent e) {
        if (e == null) {
            return null;
        }
        synchronized (this) {
            unacked.computeIfAbsent(owner(e), k -> new int[1])[0]++;
        }
        ((CmIdImpl) e.id()).retrieved(e);
        return e;
    }

    @Override
    public CmId createId(Object context, PortSpace portSpace, QpType qpType) {
        checkOpen();
        return core.createChannelId(this, context, portSpace, qpType, false);
    }

    @Override
    public CmEvent getEvent() throws InterruptedException {
        checkOpen();
        return retrieved(queue.take());
    }

    @Override
    public CmEvent getEvent(Duration timeout) throws InterruptedException {
        checkOpen();
        return retrieved(queue.poll(timeout.toNanos(), TimeUnit.NANOSECONDS));
    }

    @Override
    public CmEvent pollEvent() {
        checkOpen();
        return retrieved(queue.poll());
    }

    @Override
    public synchronized void ackEvent(CmEvent event) {
        if (event == null) {
            throw new IllegalArgumentException("event must not be null");
        }
        int[] n = unacked.get(owner(event));
        if (n == null || n[0] == 0) {
            throw new IllegalArgumentException("event " + event.type().str() + " was not retrieved from this"
                    + " channel or is already acknowledged");
        }
        n[0]--;
        notifyAll();
    }

    /** Waits until every retrieved event of {@code id} is acknowledged (rdma_destroy_id's wait). */
    synchronized void awaitAcks(CmIdImpl id) {
        boolean interrupted = false;
        int[] n = unacked.get(id);
        while (n != null && n[0] > 0) {
            try {
                wait();
            } catch (InterruptedException e) {
                interrupted = true;
            }
            n = unacked.get(id);
        }
        unacked.remove(id);
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Retrieved and unacknowledged events of an id (tests). */
    public synchronized int unacknowledged(CmId id) {
        int[] n = unacked.get((CmIdImpl) id);
        return n == null ? 0 : n[0];
    }

    @Override
    public void migrateId(CmId id) {
        checkOpen();
        if (!(id instanceof CmIdImpl c) || c.mode != CmIdImpl.Mode.CHANNEL) {
            throw new IllegalArgumentException("only ids of an event channel can be migrated");
        }
        ChannelImpl old = c.channel;
        if (old == this) {
            return;
        }
        // librdmacm's rdma_migrate_id blocks while events of the id retrieved from its current
        // channel are unacknowledged, so that none is processed on the old channel after the id moved
        // (an ack there would find no count to decrement). The caller must not poll the old channel
        // for this id meanwhile (rdma_migrate_id(3)).
        old.awaitAcks(c);
        List<CmEvent> moved = new ArrayList<>();
        synchronized (old) {
            old.queue.removeIf(e -> {
                if (owner(e) == c || e.id() == c) {
                    moved.add(e);
                    return true;
                }
                return false;
            });
            old.ids.remove(c);
            int[] n = old.unacked.remove(c);
            synchronized (this) {
                ids.add(c);
                unacked.put(c, n == null ? new int[1] : n);
            }
            c.channel = this;
        }
        queue.addAll(moved);
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("event channel is closed");
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        if (!ids.isEmpty()) {
            throw new RdmaException(Errno.EBUSY, "event channel still has " + ids.size() + " ids");
        }
        closed = true;
        core.channelClosed(this);
    }
}
