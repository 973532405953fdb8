package io.jrdma.kernel;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.SharedReceiveQueue;
import io.jrdma.verbs.SrqAttr;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A protection domain ({@code struct ibv_pd}). */
@SuppressWarnings("checkstyle:IllegalCatch") // MethodHandle.invokeExact declares Throwable
final class NativePd extends NativeResource implements ProtectionDomain {
    final NativeContext context;
    final MemorySegment pd;
    final List<NativeMr> mrs = new CopyOnWriteArrayList<>();
    final List<NativeAh> ahs = new CopyOnWriteArrayList<>();
    final List<NativeQp> qps = new CopyOnWriteArrayList<>();
    final List<NativeSrq> srqs = new CopyOnWriteArrayList<>();

    private NativePd(NativeContext context, MemorySegment pd) {
        this.context = context;
        this.pd = pd;
    }

    static NativePd alloc(NativeContext c) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
            MemorySegment pd = (MemorySegment) Ibv.ALLOC_PD.invokeExact(errno, c.ctx);
            if (pd.address() == 0) {
                throw Ibv.fail("ibv_alloc_pd", Ibv.errno(errno));
            }
            return new NativePd(c, pd);
        } catch (Throwable t) {
            throw Ibv.rethrow(t);
        }
    }

    @Override
    String what() {
        return "protection domain on native:" + context.device().name();
    }

    @Override
    public Context context() {
        return context;
    }

    @Override
    public MemoryRegion registerMemory(MemorySegment segment, int access) {
        check();
        if (segment == null) {
            throw new IllegalArgumentException("segment must not be null");
        }
        if (!segment.isNative()) {
            throw new IllegalArgumentException("a heap segment cannot be registered with a kernel RDMA device: the "
                    + "device reaches memory by address, and the garbage collector moves heap memory. Allocate it "
                    + "with an Arena (Arena.ofShared().allocate(n)) or use a direct ByteBuffer");
        }
        if (!segment.scope().isAlive()) {
            throw new IllegalArgumentException("the segment's arena is already closed");
        }
        if (segment.isAccessibleBy(Thread.currentThread()) && !isShared(segment)) {
            throw new IllegalArgumentException("a segment of a confined arena cannot be registered: the device and "
                    + "the threads that post and poll its work (engine threads, other application threads) reach it "
                    + "outside its owner thread; allocate it with Arena.ofAuto() (or Arena.ofShared(), see "
                    + ALLOW_CLOSABLE + ")");
        }
        if (closable(segment) && !Boolean.getBoolean(ALLOW_CLOSABLE)) {
            throw new IllegalArgumentException("a segment of an arena that can be closed (Arena.ofShared()) is not "
                    + "registered with a kernel device: the kernel keeps writing into the pages of a region until it is"
                    + " deregistered, so closing the arena first would let the device write memory the allocator "
                    + "has reused. Use Arena.ofAuto(), Arena.global() or a direct ByteBuffer (the region keeps them "
                    + "alive), or set -D" + ALLOW_CLOSABLE + "=true if every region is closed before its arena");
        }
        if (segment.byteSize() == 0) {
            throw new IllegalArgumentException("cannot register an empty segment");
        }
        if ((access & ~io.jrdma.verbs.Access.ALL) != 0) {
            throw new IllegalArgumentException("unknown access bits 0x"
                    + Integer.toHexString(access & ~io.jrdma.verbs.Access.ALL));
        }
        int remote = io.jrdma.verbs.Access.REMOTE_WRITE | io.jrdma.verbs.Access.REMOTE_ATOMIC;
        if ((access & remote) != 0 && (access & io.jrdma.verbs.Access.LOCAL_WRITE) == 0) {
            throw new IllegalArgumentException("REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE (ibv_reg_mr: EINVAL), "
                    + "got " + io.jrdma.verbs.Access.toString(access));
        }
        if (segment.isReadOnly() && (access & io.jrdma.verbs.Access.LOCAL_WRITE) != 0) {
            throw new IllegalArgumentException("a read-only segment cannot be registered with LOCAL_WRITE");
        }
        synchronized (this) {
            check();
            NativeMr mr = NativeMr.register(this, segment, access);
            mrs.add(mr);
            live = mrs.toArray(new NativeMr[0]);
            return mr;
        }
    }

    /**
     * The system property that lets segments of closable arenas (Arena.ofShared()) be registered: the
     * program then promises to close every region before the arena (a region whose arena closes first
     * is deregistered at the next post that names it, but the device may have written into the freed
     * memory before that).
     */
    static final String ALLOW_CLOSABLE = "jrdma.native.closableArenas";

    /**
     * Whether the segment's memory can be freed while a region holds it: a shared or confined arena's
     * (an automatic arena's, the global arena's and a direct buffer's live as long as the region
     * references the segment). The JDK names no arena kind in its API; its session classes do.
     */
    static boolean closable(MemorySegment segment) {
        String kind = segment.scope().getClass().getSimpleName();
        return !(kind.equals("GlobalSession") || kind.equals("ImplicitSession") || kind.equals("HeapSession"));
    }

    /** Whether any thread may access the segment (a shared, auto or global arena's). */
    private static boolean isShared(MemorySegment segment) {
        return segment.isAccessibleBy(Thread.ofPlatform().unstarted(() -> { }));
    }

    @Override
    public MemoryRegion registerMemory(ByteBuffer buffer, int access) {
        check();
        if (buffer == null) {
            throw new IllegalArgumentException("buffer must not be null");
        }
        if (!buffer.isDirect()) {
            throw new IllegalArgumentException("a heap ByteBuffer cannot be registered with a kernel RDMA device: "
                    + "use ByteBuffer.allocateDirect or a MemorySegment from an Arena");
        }
        return registerMemory(MemorySegment.ofBuffer(buffer), access);
    }

    @Override
    public QueuePair createQp(QpInitAttr attr) {
        if (attr == null) {
            throw new IllegalArgumentException("attr must not be null");
        }
        synchronized (this) {
            check();
            NativeQp qp = NativeQp.create(this, attr);
            qps.add(qp);
            context.qps.add(qp);
            return qp;
        }
    }

    @Override
    public SharedReceiveQueue createSrq(SrqAttr attr) {
        if (attr == null) {
            throw new IllegalArgumentException("attr must not be null");
        }
        synchronized (this) {
            check();
            NativeSrq srq = NativeSrq.create(this, attr);
            srqs.add(srq);
            context.srqs.add(srq);
            return srq;
        }
    }

    @Override
    public AddressHandle createAh(AhAttr attr) {
        if (attr == null) {
            throw new IllegalArgumentException("attr must not be null");
        }
        synchronized (this) {
            check();
            try (Arena a = Arena.ofConfined()) {
                MemorySegment ah = a.allocate(Ibv.AH_ATTR_SIZE, 8);
                writeAh(ah, attr);
                MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
                MemorySegment h = (MemorySegment) Ibv.CREATE_AH.invokeExact(errno, pd, ah);
                if (h.address() == 0) {
                    int e = Ibv.errno(errno);
                    if (e == 22) {
                        throw new IllegalArgumentException("ibv_create_ah refused " + attr + " (EINVAL)");
                    }
                    throw Ibv.fail("ibv_create_ah", e);
                }
                NativeAh r = new NativeAh(this, h, attr);
                ahs.add(r);
                return r;
            } catch (Throwable t) {
                throw Ibv.rethrow(t);
            }
        }
    }

    /** Writes {@code a} as a {@code struct ibv_ah_attr} (global when the GID is not zero). */
    static void writeAh(MemorySegment s, AhAttr a) {
        MemorySegment.copy(a.dgid().raw(), 0, s, JAVA_BYTE, Ibv.AH_DGID, 16);
        s.set(JAVA_INT, Ibv.AH_FLOW_LABEL, a.flowLabel());
        s.set(JAVA_BYTE, Ibv.AH_SGID_INDEX, (byte) a.sgidIndex());
        s.set(JAVA_BYTE, Ibv.AH_HOP_LIMIT, (byte) a.hopLimit());
        s.set(JAVA_BYTE, Ibv.AH_TRAFFIC_CLASS, (byte) a.trafficClass());
        s.set(JAVA_SHORT, Ibv.AH_DLID, (short) a.dlid());
        s.set(JAVA_BYTE, Ibv.AH_SL, (byte) a.sl());
        boolean global = !a.dgid().equals(io.jrdma.verbs.Gid.ZERO);
        s.set(JAVA_BYTE, Ibv.AH_IS_GLOBAL, (byte) (global ? 1 : 0));
        s.set(JAVA_BYTE, Ibv.AH_PORT_NUM, (byte) a.portNum());
    }

    /** Reads a {@code struct ibv_ah_attr}. */
    static AhAttr readAh(MemorySegment s) {
        byte[] gid = s.asSlice(Ibv.AH_DGID, 16).toArray(JAVA_BYTE);
        int port = Byte.toUnsignedInt(s.get(JAVA_BYTE, Ibv.AH_PORT_NUM));
        return new AhAttr(new io.jrdma.verbs.Gid(gid), Byte.toUnsignedInt(s.get(JAVA_BYTE, Ibv.AH_SGID_INDEX)),
                s.get(JAVA_INT, Ibv.AH_FLOW_LABEL) & 0xFFFFF, Byte.toUnsignedInt(s.get(JAVA_BYTE, Ibv.AH_HOP_LIMIT)),
                Byte.toUnsignedInt(s.get(JAVA_BYTE, Ibv.AH_TRAFFIC_CLASS)),
                s.get(JAVA_BYTE, Ibv.AH_SL) & 0xF, Math.max(1, port), Short.toUnsignedInt(s.get(JAVA_SHORT,
                Ibv.AH_DLID)));
    }

    /** The regions, as an array the posting path scans without allocating. */
    volatile NativeMr[] live = new NativeMr[0];

    /**
     * Deregisters the region of {@code lkey} if its arena has closed, so that the device fails the work
     * request that names it (LOC_PROT_ERR) instead of reaching pages the program freed; called for every
     * SGE posted.
     */
    void reapIfFreed(int lkey) {
        NativeMr[] l = live;
        for (NativeMr m : l) {
            if (m.lkey == lkey) {
                if (!m.segment().scope().isAlive()) {
                    m.close();
                }
                return;
            }
        }
    }

    void removeMr(NativeMr mr) {
        synchronized (this) {
            mrs.remove(mr);
            live = mrs.toArray(new NativeMr[0]);
        }
    }

    /** The live region of this PD whose lkey is {@code lkey}, or null. */
    NativeMr mrByLkey(int lkey) {
        for (NativeMr m : mrs) {
            if (m.lkey == lkey) {
                return m;
            }
        }
        return null;
    }

    @Override
    void destroy() {
        if (!qps.isEmpty() || !srqs.isEmpty() || !mrs.isEmpty() || !ahs.isEmpty()) {
            throw new RdmaException(Errno.EBUSY, "the protection domain still has " + qps.size() + " QPs, "
                    + srqs.size() + " SRQs, " + mrs.size() + " regions, " + ahs.size() + " address handles");
        }
        try {
            int rc = (int) Ibv.DEALLOC_PD.invokeExact(pd);
            if (rc != 0) {
                throw Ibv.fail("ibv_dealloc_pd", rc);
            }
        } catch (Throwable t) {
            throw Ibv.rethrow(t);
        }
    }

    @Override
    void forget() {
        context.pds.remove(this);
    }

    static MemorySegment ptr(MemorySegment s, long off) {
        return s.get(ADDRESS, off);
    }
}
