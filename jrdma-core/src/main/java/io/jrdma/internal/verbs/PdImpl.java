package io.jrdma.internal.verbs;

import io.jrdma.verbs.Access;
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
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A protection domain: counts its users by kind so that it cannot be freed under them, and says which
 * are left when it is ({@code ibv_dealloc_pd}'s EBUSY).
 */
public final class PdImpl implements ProtectionDomain {
    private static final AtomicLong HEAP_VA = new AtomicLong(MrImpl.HEAP_VA_BASE);

    private final ContextImpl context;
    private final int handle;
    private final java.util.Set<MrImpl> regions = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final java.util.Set<QpImpl> qps = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final AtomicInteger srqs = new AtomicInteger();
    private final AtomicInteger ahs = new AtomicInteger();
    private volatile boolean closed;

    PdImpl(ContextImpl context, int handle) {
        this.context = context;
        this.handle = handle;
    }

    /** The owning context (internal type). */
    public ContextImpl contextImpl() {
        return context;
    }

    /** A number identifying the domain within its device (for logs and the pd index of captures). */
    public int handle() {
        return handle;
    }

    @Override
    public Context context() {
        return context;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("protection domain " + handle + " is closed");
        }
        context.checkOpen();
    }

    @Override
    public MemoryRegion registerMemory(MemorySegment segment, int access) {
        return register(segment, access, null);
    }

    private MemoryRegion register(MemorySegment segment, int access, ByteBuffer registered) {
        checkOpen();
        if (segment == null) {
            throw new IllegalArgumentException("segment must not be null");
        }
        if (segment.byteSize() == 0) {
            throw new IllegalArgumentException("cannot register an empty segment");
        }
        checkReachable(segment);
        if ((access & ~Access.ALL) != 0) {
            throw new IllegalArgumentException("unknown access flags 0x" + Integer.toHexString(access & ~Access.ALL));
        }
        if ((access & (Access.REMOTE_WRITE | Access.REMOTE_ATOMIC)) != 0 && (access & Access.LOCAL_WRITE) == 0) {
            throw new IllegalArgumentException(
                    "REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE (ibv_reg_mr: EINVAL), got "
                            + Access.toString(access));
        }
        if (segment.isReadOnly() && (access & Access.LOCAL_WRITE) != 0) {
            throw new IllegalArgumentException("a read-only segment cannot be registered with LOCAL_WRITE");
        }
        long max = context.deviceImpl().attributes().maxMrSize();
        if (segment.byteSize() > max) {
            throw new IllegalArgumentException("region of " + segment.byteSize() + " bytes exceeds max_mr_size " + max);
        }
        long iova;
        if (segment.isNative()) {
            iova = segment.address();
        } else {
            long size = (segment.byteSize() + 4095) & ~4095L;
            iova = HEAP_VA.getAndAdd(size + 4096);
        }
        long va = iova;
        MrImpl mr = context.deviceImpl().memoryTable()
                .register(key -> new MrImpl(this, segment, va, access, key, registered));
        regions.add(mr);
        context.deviceImpl().events().mrRegistered(mr);
        return mr;
    }

    /** A thread that owns no arena: a confined segment is accessible by its owner only, never by it. */
    private static final Thread NOT_AN_OWNER = Thread.ofPlatform().unstarted(() -> { });

    /**
     * Refuses memory the engines could not touch: they read and write registered memory on their own
     * threads, long after the call, so a confined segment would fail there (WrongThreadException on the
     * engine thread, the work request never completing), a closed one at once, and a heap segment over
     * anything but {@code byte[]} has no byte-buffer view for the socket transports.
     */
    private void checkReachable(MemorySegment segment) {
        if (!segment.scope().isAlive()) {
            throw new IllegalArgumentException("cannot register a segment whose arena is already closed: keep the"
                    + " arena open until the region is closed (deregistered)");
        }
        if (!segment.isAccessibleBy(NOT_AN_OWNER)) {
            throw new IllegalArgumentException("cannot register a segment of a confined arena (Arena.ofConfined()):"
                    + " only its owner thread may touch it, and jrdma's engine threads read and write registered"
                    + " memory; allocate it from Arena.ofShared() (or Arena.ofAuto(), Arena.global())");
        }
        if (!segment.isNative()) {
            try {
                segment.asByteBuffer(); // what the socket transports read and write through
            } catch (UnsupportedOperationException e) {
                Object base = segment.heapBase().orElse(null); // empty for a read-only view
                throw new IllegalArgumentException("cannot register a heap segment over "
                        + (base == null ? "an array other than byte[]" : base.getClass().getComponentType() + "[]")
                        + ": heap memory must be a byte[] (MemorySegment.ofArray(byte[])), or use native memory"
                        + " (Arena.ofShared().allocate)", e);
            }
            if (!context.deviceImpl().providerDevice().supportsHeapSegments()) {
                throw new IllegalArgumentException(context.deviceImpl().name() + " cannot register heap memory"
                        + " (its transport needs memory at a fixed address): allocate it from Arena.ofShared()");
            }
        }
    }

    @Override
    public MemoryRegion registerMemory(ByteBuffer buffer, int access) {
        if (buffer == null) {
            throw new IllegalArgumentException("buffer must not be null");
        }
        return register(MemorySegment.ofBuffer(buffer), access, buffer);
    }

    void deregister(MrImpl mr) {
        context.deviceImpl().memoryTable().deregister(mr);
        regions.remove(mr);
        context.deviceImpl().events().mrDeregistered(mr);
    }

    @Override
    public QueuePair createQp(QpInitAttr attr) {
        checkOpen();
        QpImpl qp = QpImpl.create(this, attr);
        qps.add(qp);
        return qp;
    }

    void qpDestroyed(QpImpl qp) {
        qps.remove(qp);
    }

    @Override
    public SharedReceiveQueue createSrq(SrqAttr attr) {
        checkOpen();
        SrqImpl srq = new SrqImpl(this, attr);
        srqs.incrementAndGet();
        return srq;
    }

    void srqDestroyed() {
        srqs.decrementAndGet();
    }

    @Override
    public AddressHandle createAh(AhAttr attr) {
        checkOpen();
        if (attr.portNum() != 1) {
            throw new IllegalArgumentException("port " + attr.portNum() + " does not exist; the device has port 1");
        }
        AhImpl ah = new AhImpl(this, attr);
        ahs.incrementAndGet();
        return ah;
    }

    void ahDestroyed() {
        ahs.decrementAndGet();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        String open = openResources();
        if (!open.isEmpty()) {
            throw new RdmaException(Errno.EBUSY, "protection domain " + handle + " is still used by " + open
                    + ": close them first");
        }
        closed = true;
        context.pdClosed(this);
    }

    /** What still uses the domain, by kind ("2 memory regions and 1 QP (0x11)"), or "" if nothing. */
    String openResources() {
        java.util.List<String> parts = new java.util.ArrayList<>();
        if (!regions.isEmpty()) {
            parts.add(Users.count(regions.size(), "memory region", "memory regions"));
        }
        if (!qps.isEmpty()) {
            parts.add(Users.qps(qps));
        }
        int n = srqs.get();
        if (n > 0) {
            parts.add(Users.count(n, "shared receive queue", "shared receive queues"));
        }
        n = ahs.get();
        if (n > 0) {
            parts.add(Users.count(n, "address handle", "address handles"));
        }
        return Users.join(parts);
    }

    /**
     * Closes the domain whatever still uses it (the context is closing: {@code ibv_close_device}); its
     * regions are deregistered, so their keys stop working and their slots are freed.
     */
    void forceClose() {
        for (MrImpl mr : new java.util.ArrayList<>(regions)) {
            mr.close();
        }
        qps.clear();
        srqs.set(0);
        ahs.set(0);
        close();
    }

    /** Whether the domain is closed. */
    public boolean isClosed() {
        return closed;
    }

    @Override
    public String toString() {
        return "ProtectionDomain[" + handle + "]";
    }
}
