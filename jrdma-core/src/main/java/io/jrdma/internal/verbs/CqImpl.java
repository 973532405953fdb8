package io.jrdma.internal.verbs;

import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A completion queue: a bounded multi-producer ring of completion records stored in one primitive
 * array (Vyukov's bounded queue with per-slot sequence numbers), so engines of several QPs can
 * complete into it without a lock and polling copies fields into caller-owned
 * {@link WorkCompletion}s without allocating. A record's fields and its sequence number lie side by
 * side (48 bytes), so a completion written on one CPU and polled on another moves one or two cache
 * lines, not one per field.
 *
 * <p>Overflow (IBTA Class G) sets the CQ in error and raises {@link AsyncEventType#CQ_ERR} once; the
 * completion that did not fit is lost, as on hardware. Resizing quiesces producers briefly.
 */
public final class CqImpl implements CompletionQueue {
    private static final VarHandle ARMED;
    private static final VarHandle ENQ;
    static final int ARM_NONE = 0;
    static final int ARM_NEXT = 1;
    static final int ARM_SOLICITED = 2;
    private static final WcOpcode[] OPCODES = WcOpcode.values();
    private static final WcStatus[] STATUSES = WcStatus.values();

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            ARMED = l.findVarHandle(CqImpl.class, "armed", int.class);
            ENQ = l.findVarHandle(CqImpl.class, "enqueuePos", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Longs per slot: sequence, wr_id, meta and byte_len, imm and qp_num, src_qp and extra, slid. */
    private static final int STRIDE = 6;
    private static final int SEQ = 0;
    private static final int WR_ID = 1;
    /** Status | opcode index << 8 | wcFlags << 16 in the low half, byte_len in the high half. */
    private static final int META_LEN = 2;
    /** imm_data (or the invalidated rkey) in the low half, qp_num in the high half. */
    private static final int IMM_QPN = 3;
    /** src_qp in the low half; pkeyIndex | sl << 16 | vendorErr << 24 in the high half. */
    private static final int SRC_EXTRA = 4;
    private static final int SLID = 5;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);

    /** The slots of one ring size, {@link #STRIDE} longs each. */
    private static final class Ring {
        final int mask;
        final long[] slots;

        Ring(int size) {
            mask = size - 1;
            slots = new long[size * STRIDE];
        }

        long seq(int idx) {
            return (long) SLOT.getAcquire(slots, idx * STRIDE + SEQ);
        }

        void seq(int idx, long value) {
            SLOT.setRelease(slots, idx * STRIDE + SEQ, value);
        }
    }

    private static long pack(int low, int high) {
        return (low & 0xFFFF_FFFFL) | (long) high << 32;
    }

    private final ContextImpl context;
    private final CompletionChannelImpl channel;
    private volatile Ring ring;
    @SuppressWarnings("unused") // accessed through ENQ
    private volatile long enqueuePos;
    private long dequeuePos;
    private final Object pollLock = new Object();
    @SuppressWarnings("unused") // accessed through ARMED
    private volatile int armed;
    private volatile boolean resizing;
    private final AtomicInteger producers = new AtomicInteger();
    private volatile boolean inError;
    /** The QPs that complete into this CQ, each once however many of its queues do (ibv_destroy_cq's EBUSY). */
    final java.util.Set<QpImpl> users = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    /** Events delivered to the channel and not yet acknowledged. */
    final AtomicInteger unackedEvents = new AtomicInteger();

    CqImpl(ContextImpl context, int cqe, CompletionChannelImpl channel) {
        this.context = context;
        this.channel = channel;
        this.ring = new Ring(sizeFor(cqe));
        for (int i = 0; i <= ring.mask; i++) {
            ring.seq(i, i);
        }
    }

    private static int sizeFor(int cqe) {
        return Integer.highestOneBit(Math.max(1, cqe - 1)) << 1;
    }

    /** The owning context (internal type). */
    public ContextImpl contextImpl() {
        return context;
    }

    /**
     * Adds a completion; any thread. Returns {@code false} on overflow (the CQ is then in error).
     * Allocation-free.
     */
    public boolean push(long wrId, WcStatus status, WcOpcode opcode, int byteLen, int immOrInv, int qpNum, int srcQp,
            int wcFlags, boolean solicited) {
        if (inError || closed) {
            return false;
        }
        producers.incrementAndGet();
        try {
            while (resizing) {
                producers.decrementAndGet();
                while (resizing) {
                    Thread.onSpinWait();
                }
                producers.incrementAndGet();
            }
            Ring r = ring;
            long pos = (long) ENQ.getVolatile(this);
            for (;;) {
                int idx = (int) pos & r.mask;
                long s = r.seq(idx);
                long dif = s - pos;
                if (dif == 0) {
                    if (ENQ.compareAndSet(this, pos, pos + 1)) {
                        long[] a = r.slots;
                        int b = idx * STRIDE;
                        a[b + WR_ID] = wrId;
                        a[b + META_LEN] = pack(status.ordinal() | opcode.ordinal() << 8 | (wcFlags & 0xFF) << 16,
                                byteLen);
                        a[b + IMM_QPN] = pack(immOrInv, qpNum);
                        a[b + SRC_EXTRA] = pack(srcQp, 0);
                        a[b + SLID] = 0;
                        r.seq(idx, pos + 1);
                        break;
                    }
                    pos = (long) ENQ.getVolatile(this);
                } else if (dif < 0) {
                    overflow();
                    return false;
                } else {
                    pos = (long) ENQ.getVolatile(this);
                }
            }
        } finally {
            producers.decrementAndGet();
        }
        notifyIfArmed(solicited || status != WcStatus.SUCCESS);
        return true;
    }

    private void notifyIfArmed(boolean solicitedOrError) {
        int a = (int) ARMED.getVolatile(this);
        if (a == ARM_NONE || (a == ARM_SOLICITED && !solicitedOrError)) {
            return;
        }
        if (ARMED.compareAndSet(this, a, ARM_NONE) && channel != null) {
            channel.signal(this);
        }
    }

    private void overflow() {
        if (!inError) {
            inError = true;
            context.asyncEvent(AsyncEventType.CQ_ERR, null, this, null, "completion queue overflow (" + capacity()
                    + " entries)");
        }
    }

    /**
     * Work a transport lets the polling thread do when the CQ is empty: in application-driven
     * threading the engine's duty cycle runs here, so no extra thread spins beside the poller.
     */
    public interface ProgressHook {
        /** Runs one duty cycle if no other thread is running it; returns the work done. */
        int progress();

        /**
         * The polling thread is about to wait for a completion event instead of polling again (it armed
         * the CQ): the transport's own thread takes the engine back at once rather than leaving it to
         * polls that will not come. Default: nothing to hand back.
         */
        default void handBack() {
        }
    }

    private volatile ProgressHook[] hooks = new ProgressHook[0];

    /** Adds a progress hook (once per hook). */
    public synchronized void addProgressHook(ProgressHook h) {
        for (ProgressHook x : hooks) {
            if (x == h) {
                return;
            }
        }
        ProgressHook[] n = java.util.Arrays.copyOf(hooks, hooks.length + 1);
        n[hooks.length] = h;
        hooks = n;
    }

    @Override
    public int poll(WorkCompletion[] wc, int offset, int max) {
        if (max < 0 || offset < 0 || offset + max > wc.length) {
            throw new IllegalArgumentException("poll range [" + offset + ", +" + max + ") outside array of "
                    + wc.length);
        }
        int n = drain(wc, offset, max);
        if (n == 0) {
            ProgressHook[] hs = hooks;
            if (hs.length > 0) {
                // An armed CQ is polled once more before its thread waits for the event: that poll runs a
                // cycle, but must not keep the engine from its own thread while the poller sleeps.
                boolean armed = (int) ARMED.getVolatile(this) != ARM_NONE;
                for (ProgressHook h : hs) {
                    h.progress();
                    if (armed) {
                        h.handBack();
                    }
                }
                n = drain(wc, offset, max);
            }
        }
        return n;
    }

    private int drain(WorkCompletion[] wc, int offset, int max) {
        synchronized (pollLock) {
            Ring r = ring;
            int n = 0;
            while (n < max) {
                long pos = dequeuePos;
                int idx = (int) pos & r.mask;
                long s = r.seq(idx);
                if (s != pos + 1) {
                    break;
                }
                long[] a = r.slots;
                int b = idx * STRIDE;
                long metaLen = a[b + META_LEN];
                long immQpn = a[b + IMM_QPN];
                long srcExtra = a[b + SRC_EXTRA];
                int meta = (int) metaLen;
                int extra = (int) (srcExtra >>> 32);
                WorkCompletion w = wc[offset + n];
                if (w == null) {
                    w = new WorkCompletion(); // only when the caller left a hole; documented as allowed
                    wc[offset + n] = w;
                }
                w.fill(a[b + WR_ID], STATUSES[meta & 0xFF], OPCODES[(meta >>> 8) & 0xFF], (extra >>> 24) & 0xFF,
                        (int) (metaLen >>> 32), (int) immQpn, (int) (immQpn >>> 32), (int) srcExtra,
                        (meta >>> 16) & 0xFF, extra & 0xFFFF, (int) a[b + SLID], (extra >>> 16) & 0xFF);
                r.seq(idx, pos + r.mask + 1);
                dequeuePos = pos + 1;
                n++;
            }
            return n;
        }
    }

    /** The number of completions waiting to be polled (racy). */
    public int pending() {
        return (int) ((long) ENQ.getVolatile(this) - dequeuePos);
    }

    @Override
    public void requestNotify(boolean solicitedOnly) {
        if (channel == null) {
            throw new IllegalStateException("the CQ has no completion channel; create it with one to be notified");
        }
        checkOpen();
        ARMED.setVolatile(this, solicitedOnly ? ARM_SOLICITED : ARM_NEXT);
        // An application that arms the CQ is about to wait: a provider whose engine the polling threads
        // drive finishes what its posts left to do (siw writes a transmit tail kept for the next post).
        for (ProgressHook h : hooks) {
            h.progress();
            h.handBack();
        }
    }

    @Override
    public void resize(int cqe) {
        checkOpen();
        int max = context.deviceImpl().attributes().maxCqe();
        if (cqe < 1 || cqe > max) {
            throw new IllegalArgumentException("cqe " + cqe + " outside 1.." + max);
        }
        synchronized (pollLock) {
            resizing = true;
            try {
                while (producers.get() != 0) {
                    Thread.onSpinWait();
                }
                Ring old = ring;
                long head = dequeuePos;
                long tail = (long) ENQ.getVolatile(this);
                int count = (int) (tail - head);
                // rxe_cq_chk_attr (drivers/infiniband/sw/rxe/rxe_cq.c): fewer entries than the queue
                // holds is EINVAL, and the CQ stays as it was.
                if (cqe < count) {
                    throw new RdmaException(Errno.EINVAL, "cannot resize to " + cqe + " entries below the " + count
                            + " waiting completions");
                }
                int size = sizeFor(cqe);
                Ring n = new Ring(size);
                for (int i = 0; i < size; i++) {
                    n.seq(i, i);
                }
                for (int i = 0; i < count; i++) {
                    int from = (int) (head + i) & old.mask;
                    System.arraycopy(old.slots, from * STRIDE, n.slots, i * STRIDE, STRIDE);
                    n.seq(i, i + 1);
                }
                ring = n;
                dequeuePos = 0;
                ENQ.setVolatile(this, (long) count);
            } finally {
                resizing = false;
            }
        }
    }

    @Override
    public int capacity() {
        return ring.mask + 1;
    }

    @Override
    public CompletionChannel channel() {
        return channel;
    }

    /** The channel (internal type), or {@code null}. */
    public CompletionChannelImpl channelImpl() {
        return channel;
    }

    @Override
    public boolean isInError() {
        return inError;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("completion queue is closed");
        }
    }

    /** Whether the CQ is closed. */
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (!users.isEmpty()) {
            throw new RdmaException(Errno.EBUSY, "completion queue is still used by " + Users.qps(users)
                    + ": destroy the QPs first");
        }
        closed = true;
        if (channel != null) {
            channel.cqClosed(this);
        }
        context.cqClosed(this);
    }
}
