package io.jrdma.internal.verbs;

import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SharedReceiveQueue;
import io.jrdma.verbs.SrqAttr;

/**
 * A shared receive queue. Several QPs, possibly on several engines, take from it, so taking is
 * under the queue's monitor (as siw and rxe take the SRQ's spinlock). The limit event fires once
 * per arming when the posted count drops below the limit.
 */
public final class SrqImpl implements SharedReceiveQueue {
    private final PdImpl pd;
    private final int maxWr;
    private final int maxSge;
    private final RecvWqe[] slots;
    private final int mask;
    private long produced;
    private long consumed;
    private int limit;
    /** The QPs that take receives from this SRQ. */
    final java.util.Set<QpImpl> users = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    SrqImpl(PdImpl pd, SrqAttr attr) {
        var dev = pd.contextImpl().deviceImpl().attributes();
        if (attr.maxWr() > dev.maxSrqWr() || attr.maxSge() > dev.maxSrqSge()) {
            throw new IllegalArgumentException("SRQ " + attr + " exceeds the device's max_srq_wr " + dev.maxSrqWr()
                    + " / max_srq_sge " + dev.maxSrqSge());
        }
        if (attr.srqLimit() > attr.maxWr()) {
            throw new IllegalArgumentException("SRQ limit " + attr.srqLimit() + " exceeds max_wr " + attr.maxWr());
        }
        pd.contextImpl().deviceImpl().reserve(DeviceImpl.Resource.SRQ);
        this.pd = pd;
        this.maxWr = attr.maxWr();
        this.maxSge = attr.maxSge();
        int size = Integer.highestOneBit(Math.max(1, maxWr - 1)) << 1;
        this.slots = new RecvWqe[size];
        for (int i = 0; i < size; i++) {
            slots[i] = new RecvWqe(maxSge);
        }
        this.mask = size - 1;
        this.limit = attr.srqLimit();
    }

    /** The most SGEs per receive. */
    public int maxSge() {
        return maxSge;
    }

    /** The owning domain. */
    public PdImpl pdImpl() {
        return pd;
    }

    @Override
    public int postRecv(RecvWr wr) {
        if (closed) {
            throw new IllegalStateException("shared receive queue is closed");
        }
        int posted = 0;
        synchronized (this) {
            for (RecvWr w = wr; w != null; w = w.next()) {
                if (w.numSge() > maxSge) {
                    throw new IllegalArgumentException("receive WR " + w.wrId() + " has " + w.numSge()
                            + " SGEs; the SRQ allows " + maxSge + " (" + posted + " earlier WRs were posted)");
                }
                if (produced - consumed >= maxWr) {
                    return posted;
                }
                slots[(int) produced & mask].copyFrom(w);
                produced++;
                posted++;
            }
        }
        return posted;
    }

    /**
     * Takes the oldest posted receive into {@code into}; returns {@code false} if none is posted.
     * Engine threads.
     */
    public boolean take(RecvWqe into) {
        boolean fire = false;
        synchronized (this) {
            if (produced == consumed) {
                return false;
            }
            into.copyFrom(slots[(int) consumed & mask]);
            consumed++;
            if (limit > 0 && produced - consumed < limit) {
                limit = 0;
                fire = true;
            }
        }
        if (fire) {
            pd.contextImpl().asyncEvent(AsyncEventType.SRQ_LIMIT_REACHED, null, null, this,
                    "fewer than the armed limit of receives are posted");
        }
        return true;
    }

    @Override
    public synchronized void armLimit(int l) {
        if (l < 0 || l > maxWr) {
            throw new IllegalArgumentException("SRQ limit " + l + " outside 0.." + maxWr);
        }
        limit = l;
    }

    @Override
    public synchronized SrqAttr query() {
        return new SrqAttr(maxWr, maxSge, limit);
    }

    @Override
    public synchronized int posted() {
        return (int) (produced - consumed);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (!users.isEmpty()) {
            throw new RdmaException(Errno.EBUSY, "shared receive queue is still used by " + Users.qps(users)
                    + ": destroy the QPs first");
        }
        closed = true;
        pd.contextImpl().deviceImpl().release(DeviceImpl.Resource.SRQ);
        pd.srqDestroyed();
    }
}
