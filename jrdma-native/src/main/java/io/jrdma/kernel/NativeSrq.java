package io.jrdma.kernel;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jrdma.verbs.Errno;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SharedReceiveQueue;
import io.jrdma.verbs.SrqAttr;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** A shared receive queue ({@code struct ibv_srq}), posted through the context's {@code ops.post_srq_recv}. */
@SuppressWarnings("checkstyle:IllegalCatch") // MethodHandle.invokeExact declares Throwable
final class NativeSrq extends NativeResource implements SharedReceiveQueue, NativeContext.Addressed {
    /** The {@code ibv_srq_attr_mask} bit of srq_limit. */
    private static final int IBV_SRQ_LIMIT = 2;

    final NativePd pd;
    final MemorySegment srq;
    private final int sgeCap;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment wrs;
    private final MemorySegment sges;
    private final MemorySegment badWr;
    private final Object postLock = new Object();
    private volatile int posted;
    /** QPs receiving from it; written under the PD's lock. */
    volatile int users;

    private NativeSrq(NativePd pd, MemorySegment srq, int sgeCap) {
        this.pd = pd;
        this.srq = srq;
        this.sgeCap = sgeCap;
        this.wrs = arena.allocate(Ibv.RECV_WR_SIZE * NativeQp.SLOTS, 8);
        this.sges = arena.allocate(Ibv.SGE_SIZE * NativeQp.SLOTS * sgeCap, 8);
        this.badWr = arena.allocate(8, 8);
    }

    static NativeSrq create(NativePd pd, SrqAttr attr) {
        io.jrdma.verbs.DeviceAttributes da = pd.context.attrs();
        if (attr.maxWr() > da.maxSrqWr() || attr.maxSge() > da.maxSrqSge()) {
            throw new IllegalArgumentException("SRQ " + attr + " exceeds the device's max_srq_wr " + da.maxSrqWr()
                    + " / max_srq_sge " + da.maxSrqSge());
        }
        if (attr.srqLimit() > attr.maxWr()) {
            // Linux rxe takes any limit at creation; the limit is a number of receives the SRQ holds
            throw new IllegalArgumentException("SRQ " + attr + ": srq_limit " + attr.srqLimit() + " exceeds max_wr "
                    + attr.maxWr());
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ia = a.allocate(Ibv.SRQ_INIT_ATTR_SIZE, 8);
            ia.set(JAVA_INT, 8 + Ibv.SRQA_MAX_WR, attr.maxWr());
            ia.set(JAVA_INT, 8 + Ibv.SRQA_MAX_SGE, attr.maxSge());
            ia.set(JAVA_INT, 8 + Ibv.SRQA_LIMIT, attr.srqLimit());
            MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
            MemorySegment s = (MemorySegment) Ibv.CREATE_SRQ.invokeExact(errno, pd.pd, ia);
            if (s.address() == 0) {
                int e = Ibv.errno(errno);
                if (e == 22) {
                    throw new IllegalArgumentException("ibv_create_srq refused " + attr + " (EINVAL)");
                }
                throw Ibv.fail("ibv_create_srq", e);
            }
            return new NativeSrq(pd, s, Math.max(1, ia.get(JAVA_INT, 8 + Ibv.SRQA_MAX_SGE)));
        } catch (Throwable t) {
            throw Ibv.rethrow(t);
        }
    }

    @Override
    String what() {
        return "shared receive queue";
    }

    @Override
    public long address() {
        return srq.address();
    }

    @Override
    public int postRecv(RecvWr wr) {
        if (wr == null) {
            throw new IllegalArgumentException("wr must not be null");
        }
        synchronized (postLock) {
            check();
            int done = 0;
            RecvWr w = wr;
            try {
                while (w != null) {
                    int n = 0;
                    while (w != null && n < NativeQp.SLOTS) {
                        NativeQp.writeRecv(pd, wrs, sges, sgeCap, n, w, n + 1 < NativeQp.SLOTS && w.next() != null);
                        n++;
                        w = w.next();
                    }
                    int rc = (int) Ibv.OP_POST_RECV.invokeExact(pd.context.postSrqRecvFn, srq, wrs, badWr);
                    if (rc == 0) {
                        done += n;
                        posted += n;
                        continue;
                    }
                    int ok = (int) ((badWr.get(JAVA_LONG, 0) - wrs.address()) / Ibv.RECV_WR_SIZE);
                    ok = ok < 0 || ok > n ? 0 : ok;
                    done += ok;
                    posted += ok;
                    if (rc == 12) {
                        return done;
                    }
                    if (rc == 22) {
                        throw new IllegalArgumentException("ibv_post_srq_recv: WR " + done + " refused (EINVAL)");
                    }
                    throw Ibv.fail("ibv_post_srq_recv", rc);
                }
            } catch (Throwable t) {
                throw Ibv.rethrow(t);
            }
            return done;
        }
    }

    @Override
    public void armLimit(int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("negative SRQ limit " + limit);
        }
        synchronized (this) {
            check();
            try (Arena a = Arena.ofConfined()) {
                MemorySegment at = a.allocate(12, 4);
                at.set(JAVA_INT, Ibv.SRQA_LIMIT, limit);
                int rc = (int) Ibv.MODIFY_SRQ.invokeExact(srq, at, IBV_SRQ_LIMIT);
                if (rc == 22) {
                    throw new IllegalArgumentException("ibv_modify_srq refused limit " + limit + " (EINVAL)");
                }
                if (rc != 0) {
                    throw Ibv.fail("ibv_modify_srq", rc);
                }
            } catch (Throwable t) {
                throw Ibv.rethrow(t);
            }
        }
    }

    @Override
    public SrqAttr query() {
        synchronized (this) {
            check();
            try (Arena a = Arena.ofConfined()) {
                MemorySegment at = a.allocate(12, 4);
                int rc = (int) Ibv.QUERY_SRQ.invokeExact(srq, at);
                if (rc != 0) {
                    throw Ibv.fail("ibv_query_srq", rc);
                }
                return new SrqAttr(at.get(JAVA_INT, Ibv.SRQA_MAX_WR), at.get(JAVA_INT, Ibv.SRQA_MAX_SGE),
                        at.get(JAVA_INT, Ibv.SRQA_LIMIT));
            } catch (Throwable t) {
                throw Ibv.rethrow(t);
            }
        }
    }

    /**
     * Receives posted and not yet consumed: posts minus the receive completions polled for QPs that use
     * it (the kernel reports no depth).
     */
    @Override
    public int posted() {
        return posted;
    }

    void consumed() {
        if (posted > 0) {
            posted--;
        }
    }

    @Override
    void destroy() {
        if (users > 0) {
            throw new RdmaException(Errno.EBUSY, "the SRQ is still used by " + users + " QPs");
        }
        synchronized (postLock) {
            try {
                int rc = (int) Ibv.DESTROY_SRQ.invokeExact(srq);
                if (rc != 0) {
                    throw Ibv.fail("ibv_destroy_srq", rc);
                }
            } catch (Throwable t) {
                throw Ibv.rethrow(t);
            }
            closed = true;
            arena.close();
        }
    }

    @Override
    void forget() {
        pd.srqs.remove(this);
        pd.context.srqs.remove(this);
    }
}
