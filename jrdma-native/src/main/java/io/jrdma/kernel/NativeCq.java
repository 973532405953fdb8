package io.jrdma.kernel;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.WcFlags;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A completion queue ({@code struct ibv_cq}), polled through the context's {@code ops.poll_cq} into an
 * array of {@code struct ibv_wc} allocated once, then copied into the caller's {@link WorkCompletion}s:
 * polling allocates nothing.
 *
 * <p>Each completion taken from the kernel retires its WR in its QP's {@link WrRing}. A QP's depth query, and
 * the flush a QP waits for before it is reset or destroyed, take the kernel's completions early into a queue
 * of the CQ's own ({@link #drain()}); {@link #poll} returns those first, in the order the kernel gave them.
 * That queue holds at most the CQ's capacity, so up to twice the capacity can wait in all, and a resize below
 * what it holds is EINVAL.
 */
@SuppressWarnings("checkstyle:IllegalCatch") // MethodHandle.invokeExact declares Throwable
final class NativeCq extends NativeResource implements CompletionQueue, NativeContext.Addressed {
    /** The {@code ibv_wc}s one poll_cq call fills at most. */
    static final int SLOTS = 32;

    private final NativeContext context;
    final MemorySegment cq;
    private final NativeChannel channel;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment wcs;
    private final MemorySegment pollFn;
    private final MemorySegment notifyFn;
    /** QPs and SRQs using the CQ (destroying it first is EBUSY), and whose depths its completions lower. */
    volatile NativeQp[] users = new NativeQp[0];
    volatile boolean inError;
    private int eventsReceived;
    private int eventsAcked;
    /** Completions taken from the kernel and not yet polled: a ring of {@code ibv_wc}s; guarded by this. */
    private MemorySegment held;
    private int heldCap;
    private int heldFirst;
    private int heldCount;

    private NativeCq(NativeContext context, MemorySegment cq, NativeChannel channel) {
        this.context = context;
        this.cq = cq;
        this.channel = channel;
        this.wcs = arena.allocate(Ibv.WC_SIZE * SLOTS, 8);
        this.pollFn = context.pollCqFn;
        this.notifyFn = context.reqNotifyFn;
    }

    static NativeCq create(NativeContext c, int cqe, NativeChannel ch, int vector) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
            MemorySegment chan = ch == null ? MemorySegment.NULL : ch.channel;
            MemorySegment cq = (MemorySegment) Ibv.CREATE_CQ.invokeExact(errno, c.ctx, cqe, MemorySegment.NULL, chan,
                    vector);
            if (cq.address() == 0) {
                int e = Ibv.errno(errno);
                if (e == 22) {
                    throw new IllegalArgumentException("ibv_create_cq refused " + cqe + " entries (EINVAL; max_cqe "
                            + c.attrs().maxCqe() + ")");
                }
                throw Ibv.fail("ibv_create_cq(" + cqe + ")", e, c.nativeDevice().queueCreationHint());
            }
            NativeCq r = new NativeCq(c, cq.reinterpret(Ibv.CQ_SIZE), ch);
            if (ch != null) {
                ch.cqs.add(r);
            }
            return r;
        } catch (Throwable t) {
            throw Ibv.rethrow(t);
        }
    }

    @Override
    String what() {
        return "completion queue";
    }

    /** The context the CQ was created in. */
    NativeContext owner() {
        return context;
    }

    @Override
    public long address() {
        return cq.address();
    }

    @Override
    public int poll(WorkCompletion[] wc, int offset, int max) {
        if (wc == null) {
            throw new IllegalArgumentException("wc must not be null");
        }
        if (offset < 0 || max < 0 || offset > wc.length - max) {
            throw new IllegalArgumentException("range [" + offset + ", " + offset + " + " + max
                    + ") is outside the array of " + wc.length);
        }
        synchronized (this) {
            check();
            int done = 0;
            while (done < max && heldCount > 0) {
                fill(wc[offset + done++], held, (long) heldFirst * Ibv.WC_SIZE);
                heldFirst = heldFirst + 1 == heldCap ? 0 : heldFirst + 1;
                heldCount--;
            }
            while (done < max) {
                int n = Math.min(max - done, SLOTS);
                int r = pollKernel(n);
                for (int i = 0; i < r; i++) {
                    if (account(i)) {
                        fill(wc[offset + done++], wcs, i * Ibv.WC_SIZE);
                    }
                }
                if (r < n) {
                    break;
                }
            }
            return done;
        }
    }

    /**
     * Takes the completions waiting in the kernel into this CQ's own queue (as far as it has room), retiring
     * their WRs: a QP's depth then counts what the device has finished, polled or not.
     */
    void drain() {
        synchronized (this) {
            if (closed) {
                return;
            }
            if (held == null) {
                heldCap = Math.max(1, capacity());
                held = MemorySegment.ofArray(new long[(int) (heldCap * Ibv.WC_SIZE / 8)]);
            }
            while (heldCount < heldCap) {
                int n = Math.min(SLOTS, heldCap - heldCount);
                int r = pollKernel(n);
                for (int i = 0; i < r; i++) {
                    if (account(i)) {
                        int slot = (heldFirst + heldCount) % heldCap;
                        MemorySegment.copy(wcs, i * Ibv.WC_SIZE, held, slot * Ibv.WC_SIZE, Ibv.WC_SIZE);
                        heldCount++;
                    }
                }
                if (r < n) {
                    break;
                }
            }
        }
    }

    /** One {@code poll_cq} of up to {@code n} completions into {@link #wcs}; the caller holds the lock. */
    private int pollKernel(int n) {
        try {
            int r = (int) Ibv.OP_POLL_CQ.invokeExact(pollFn, cq, n, wcs);
            if (r < 0) {
                throw new RdmaException(Errno.EIO, "poll_cq failed: " + r);
            }
            return r;
        } catch (Throwable t) {
            throw Ibv.rethrow(t);
        }
    }

    /** Retires the WR of the kernel's completion {@code i} in its QP; false for a QP's own marker WR. */
    private boolean account(int i) {
        long o = i * Ibv.WC_SIZE;
        int qpNum = wcs.get(JAVA_INT, o + 28);
        NativeQp[] us = users;
        for (NativeQp q : us) {
            if (q.qpNum == qpNum) {
                return q.account(this, wcs.get(JAVA_LONG, o), wcs.get(JAVA_INT, o + 8), wcs.get(JAVA_INT, o + 12));
            }
        }
        return true;
    }

    private static void fill(WorkCompletion w, MemorySegment wcs, long o) {
        int status = wcs.get(JAVA_INT, o + 8);
        int opcode = wcs.get(JAVA_INT, o + 12);
        int flags = wcs.get(JAVA_INT, o + 36);
        int imm = wcs.get(JAVA_INT, o + 24);
        if ((flags & WcFlags.WITH_IMM) != 0) {
            imm = Integer.reverseBytes(imm);
        }
        int qpNum = wcs.get(JAVA_INT, o + 28);
        w.fill(wcs.get(JAVA_LONG, o), status >= 0 && status <= 21 ? WcStatus.ofValue(status) : WcStatus.GENERAL_ERR,
                opcode(opcode), wcs.get(JAVA_INT, o + 16), wcs.get(JAVA_INT, o + 20), imm, qpNum,
                wcs.get(JAVA_INT, o + 32), flags, Short.toUnsignedInt(wcs.get(JAVA_SHORT, o + 40)),
                Short.toUnsignedInt(wcs.get(JAVA_SHORT, o + 42)), Byte.toUnsignedInt(wcs.get(JAVA_BYTE, o + 44)));
    }

    private static WcOpcode opcode(int v) {
        return switch (v) {
            case 0 -> WcOpcode.SEND;
            case 1 -> WcOpcode.RDMA_WRITE;
            case 2 -> WcOpcode.RDMA_READ;
            case 3 -> WcOpcode.COMP_SWAP;
            case 4 -> WcOpcode.FETCH_ADD;
            case 6 -> WcOpcode.LOCAL_INV;
            case 129 -> WcOpcode.RECV_RDMA_WITH_IMM;
            default -> v >= 128 ? WcOpcode.RECV : WcOpcode.SEND;
        };
    }

    @Override
    public void requestNotify(boolean solicitedOnly) {
        synchronized (this) {
            check();
            if (channel() == null) {
                throw new IllegalStateException("the completion queue has no completion channel to notify");
            }
            try {
                int rc = (int) Ibv.OP_REQ_NOTIFY_CQ.invokeExact(notifyFn, cq, solicitedOnly ? 1 : 0);
                if (rc != 0) {
                    throw Ibv.fail("ibv_req_notify_cq", rc);
                }
            } catch (Throwable t) {
                throw Ibv.rethrow(t);
            }
        }
    }

    @Override
    public void resize(int cqe) {
        if (cqe < 1) {
            throw new IllegalArgumentException("a CQ needs at least 1 entry: " + cqe);
        }
        synchronized (this) {
            check();
            int max = context.attrs().maxCqe();
            if (cqe > max) {
                // named here: a device without resize (siw: EOPNOTSUPP) would not say which limit it is
                throw new IllegalArgumentException("ibv_resize_cq: " + cqe + " entries exceed the device's max_cqe "
                        + max);
            }
            if (cqe < heldCount) {
                throw new RdmaException(Errno.EINVAL, "ibv_resize_cq: " + cqe + " entries are fewer than the "
                        + heldCount + " completions waiting");
            }
            try {
                int rc = (int) Ibv.RESIZE_CQ.invokeExact(cq, cqe);
                if (rc == 22) {
                    // within the device's limits the kernel refuses only a size below the completions waiting
                    throw new RdmaException(Errno.EINVAL, "ibv_resize_cq refused " + cqe + " entries (EINVAL: fewer"
                            + " than the completions waiting)");
                }
                if (rc != 0) {
                    throw Ibv.fail("ibv_resize_cq(" + cqe + ")", rc);
                }
            } catch (Throwable t) {
                throw Ibv.rethrow(t);
            }
            growHeld();
        }
    }

    /** Makes this CQ's own queue as large as the resized CQ, keeping what it holds in order. */
    private void growHeld() {
        int cap = capacity();
        if (held == null || cap <= heldCap) {
            return;
        }
        MemorySegment bigger = MemorySegment.ofArray(new long[(int) (cap * Ibv.WC_SIZE / 8)]);
        for (int i = 0; i < heldCount; i++) {
            MemorySegment.copy(held, (long) ((heldFirst + i) % heldCap) * Ibv.WC_SIZE, bigger, i * Ibv.WC_SIZE,
                    Ibv.WC_SIZE);
        }
        held = bigger;
        heldCap = cap;
        heldFirst = 0;
    }

    @Override
    public int capacity() {
        check();
        return cq.get(JAVA_INT, Ibv.CQ_CQE);
    }

    @Override
    public CompletionChannel channel() {
        return channel;
    }

    @Override
    public boolean isInError() {
        return inError;
    }

    synchronized void eventReceived() {
        eventsReceived++;
    }

    synchronized void ack(int n) {
        check();
        if (n < 0 || n > eventsReceived - eventsAcked) {
            throw new IllegalArgumentException("cannot acknowledge " + n + " events: " + (eventsReceived - eventsAcked)
                    + " are unacknowledged");
        }
        try {
            Ibv.ACK_CQ_EVENTS.invokeExact(cq, n);
        } catch (Throwable t) {
            throw Ibv.rethrow(t);
        }
        eventsAcked += n;
    }

    synchronized void addUser(NativeQp qp) {
        NativeQp[] u = java.util.Arrays.copyOf(users, users.length + 1);
        u[u.length - 1] = qp;
        users = u;
    }

    synchronized void removeUser(NativeQp qp) {
        NativeQp[] u = users;
        for (int i = 0; i < u.length; i++) {
            if (u[i] == qp) {
                NativeQp[] n = new NativeQp[u.length - 1];
                System.arraycopy(u, 0, n, 0, i);
                System.arraycopy(u, i + 1, n, i, u.length - i - 1);
                users = n;
                return;
            }
        }
    }

    @Override
    void destroy() {
        if (users.length > 0) {
            throw new RdmaException(Errno.EBUSY, "completion queue is still used by " + users.length
                    + " QPs: destroy them first");
        }
        try {
            // ibv_destroy_cq waits until every event it delivered is acknowledged: acknowledge the rest
            int unacked = eventsReceived - eventsAcked;
            if (unacked > 0) {
                Ibv.ACK_CQ_EVENTS.invokeExact(cq, unacked);
                eventsAcked += unacked;
            }
            int rc = (int) Ibv.DESTROY_CQ.invokeExact(cq);
            if (rc != 0) {
                throw Ibv.fail("ibv_destroy_cq", rc);
            }
        } catch (Throwable t) {
            throw Ibv.rethrow(t);
        }
        closed = true;
        arena.close();
    }

    @Override
    void forget() {
        context.cqs.remove(this);
        if (channel != null) {
            channel.cqs.remove(this);
        }
    }
}
