package io.jrdma.kernel;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.jrdma.verbs.AsyncEvent;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.AtomicCap;
import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Counters;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.DeviceAttributes;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.LinkLayer;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.PacketCapture;
import io.jrdma.verbs.PortAttributes;
import io.jrdma.verbs.PortState;
import io.jrdma.verbs.ProtectionDomain;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * An open kernel device ({@code struct ibv_context}). It keeps the ops-table function pointers the
 * inline verbs call, and every object made on it, so that closing it closes them children first and
 * so that asynchronous events and completion events name the Java objects.
 */
@SuppressWarnings("checkstyle:IllegalCatch") // MethodHandle.invokeExact declares Throwable
final class NativeContext extends NativeResource implements Context {
    private final NativeDevice device;
    final MemorySegment ctx;
    final MemorySegment postSendFn;
    final MemorySegment postRecvFn;
    final MemorySegment postSrqRecvFn;
    final MemorySegment pollCqFn;
    final MemorySegment reqNotifyFn;
    private final int asyncFd;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment asyncScratch;
    private final Object asyncLock = new Object();
    private volatile DeviceAttributes attrs;
    /** The thread probing the inline size, and the attributes it sees meanwhile. */
    private volatile Thread prober;
    private volatile DeviceAttributes probeAttrs;

    final List<NativeQp> qps = new CopyOnWriteArrayList<>();
    final List<NativeSrq> srqs = new CopyOnWriteArrayList<>();
    final List<NativeCq> cqs = new CopyOnWriteArrayList<>();
    final List<NativeChannel> channels = new CopyOnWriteArrayList<>();
    final List<NativePd> pds = new CopyOnWriteArrayList<>();
    private volatile Thread asyncThread;
    private volatile Consumer<AsyncEvent> asyncHandler;

    private NativeContext(NativeDevice device, MemorySegment ctx) {
        this.device = device;
        this.ctx = ctx;
        this.postSendFn = ctx.get(ADDRESS, Ibv.OPS_POST_SEND);
        this.postRecvFn = ctx.get(ADDRESS, Ibv.OPS_POST_RECV);
        this.postSrqRecvFn = ctx.get(ADDRESS, Ibv.OPS_POST_SRQ_RECV);
        this.pollCqFn = ctx.get(ADDRESS, Ibv.OPS_POLL_CQ);
        this.reqNotifyFn = ctx.get(ADDRESS, Ibv.OPS_REQ_NOTIFY_CQ);
        this.asyncFd = ctx.get(JAVA_INT, Ibv.CTX_ASYNC_FD);
        this.asyncScratch = arena.allocate(Ibv.ASYNC_EVENT_SIZE + Ibv.ERRNO_SIZE + 8, 8);
        Fds.nonBlocking(asyncFd);
    }

    static NativeContext open(NativeDevice device, MemorySegment dev) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
            MemorySegment ctx = (MemorySegment) Ibv.OPEN_DEVICE.invokeExact(errno, dev);
            if (ctx.address() == 0) {
                throw Ibv.fail("ibv_open_device(" + device.name() + ")", Ibv.errno(errno));
            }
            return new NativeContext(device, ctx.reinterpret(Ibv.CTX_SIZE));
        } catch (Throwable t) {
            throw Ibv.rethrow(t);
        }
    }

    @Override
    String what() {
        return "context of native:" + device.name();
    }

    @Override
    public Device device() {
        return device;
    }

    /** The device, as this provider's. */
    NativeDevice nativeDevice() {
        return device;
    }

    @Override
    public DeviceAttributes queryDevice() {
        check();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment d = a.allocate(Ibv.DEVICE_ATTR);
            int rc;
            synchronized (this) {
                check();
                rc = (int) Ibv.QUERY_DEVICE.invokeExact(ctx, d);
            }
            if (rc != 0) {
                throw Ibv.fail("ibv_query_device", rc);
            }
            int inline = device.maxInline;
            if (inline < 0) {
                // the probe's QPs are checked against the other limits; their inline size is the kernel's to refuse
                probeAttrs = attributes(d, Integer.MAX_VALUE);
                prober = Thread.currentThread();
                try {
                    inline = maxInline();
                } finally {
                    prober = null;
                    probeAttrs = null;
                }
            }
            DeviceAttributes r = attributes(d, inline);
            attrs = r;
            return r;
        } catch (Throwable t) {
            throw Ibv.rethrow(t);
        }
    }

    /** The attributes in {@code struct ibv_device_attr} {@code d}, with {@code inline} as the inline limit. */
    private static DeviceAttributes attributes(MemorySegment d, int inline) {
        return new DeviceAttributes(d.getString(0), Long.reverseBytes(d.get(JAVA_LONG, 64)),
                Long.reverseBytes(d.get(JAVA_LONG, 72)), maxMrSize(d.get(JAVA_LONG, 80)), d.get(JAVA_INT, 96),
                d.get(JAVA_INT, 100), d.get(JAVA_INT, 108), d.get(JAVA_INT, 112), d.get(JAVA_INT, 120),
                d.get(JAVA_INT, 124), d.get(JAVA_INT, 128), d.get(JAVA_INT, 132), d.get(JAVA_INT, 136),
                d.get(JAVA_INT, 140), d.get(JAVA_INT, 144), d.get(JAVA_INT, 156),
                AtomicCap.values()[Math.min(2, Math.max(0, d.get(JAVA_INT, 164)))], d.get(JAVA_INT, 212),
                d.get(JAVA_INT, 216), d.get(JAVA_INT, 220), d.get(JAVA_INT, 200), inline,
                Byte.toUnsignedInt(d.get(JAVA_BYTE, 227)), d.get(JAVA_INT, 188), d.get(JAVA_INT, 192),
                d.get(JAVA_INT, 196));
    }

    /** max_mr_size is a uint64_t; all ones (rxe) means no limit. */
    private static long maxMrSize(long v) {
        return v < 0 ? Long.MAX_VALUE : v;
    }

    /**
     * The largest inline payload an RC QP of the device is created with (ibv_device_attr has no
     * max_inline_data): probed once per device with 1024, 512, 256, 128, 104 (siw), 64, 32 bytes.
     */
    private int maxInline() {
        int known = device.maxInline;
        if (known >= 0) {
            return known;
        }
        int found = 0;
        NativePd pd = NativePd.alloc(this);
        pds.add(pd);
        NativeCq cq = NativeCq.create(this, 4, null, 0);
        cqs.add(cq);
        try {
            for (int n : new int[] {1024, 512, 256, 128, 104, 64, 32}) {
                try {
                    pd.createQp(io.jrdma.verbs.QpInitAttr.rc(cq, new io.jrdma.verbs.QpCap(1, 1, 1, 1, n))).close();
                    found = n;
                    break;
                } catch (RuntimeException e) {
                    // smaller
                }
            }
        } finally {
            cq.close();
            pd.close();
        }
        device.maxInline = found;
        return found;
    }

    /** The device attributes, queried once (while the inline size is probed, its thread sees them without it). */
    DeviceAttributes attrs() {
        DeviceAttributes a = attrs;
        if (a != null) {
            return a;
        }
        return prober == Thread.currentThread() ? probeAttrs : queryDevice();
    }

    private void checkPort(int port) {
        int n = attrs().physPortCnt();
        if (port < 1 || port > n) {
            throw new IllegalArgumentException("port " + port + " does not exist: native:" + device.name() + " has "
                    + "ports 1.." + n);
        }
    }

    @Override
    public PortAttributes queryPort(int port) {
        check();
        checkPort(port);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(Ibv.PORT_ATTR_SIZE, 8);
            int rc;
            synchronized (this) {
                check();
                rc = (int) Ibv.QUERY_PORT.invokeExact(ctx, (byte) port, p);
            }
            if (rc != 0) {
                throw Ibv.fail("ibv_query_port(" + port + ")", rc);
            }
            int ll = Byte.toUnsignedInt(p.get(JAVA_BYTE, Ibv.PORT_LINK_LAYER));
            return new PortAttributes(PortState.values()[Math.min(5, p.get(JAVA_INT, Ibv.PORT_STATE))],
                    mtu(p.get(JAVA_INT, Ibv.PORT_MAX_MTU)), mtu(p.get(JAVA_INT, Ibv.PORT_ACTIVE_MTU)),
                    p.get(JAVA_INT, Ibv.PORT_GID_TBL_LEN), ll == 1 ? LinkLayer.INFINIBAND : LinkLayer.ETHERNET,
                    Short.toUnsignedInt(p.get(JAVA_SHORT, Ibv.PORT_LID)),
                    Integer.toUnsignedLong(p.get(JAVA_INT, Ibv.PORT_MAX_MSG_SZ)),
                    Byte.toUnsignedInt(p.get(JAVA_BYTE, Ibv.PORT_ACTIVE_SPEED)),
                    Byte.toUnsignedInt(p.get(JAVA_BYTE, Ibv.PORT_ACTIVE_WIDTH)));
        } catch (Throwable t) {
            throw Ibv.rethrow(t);
        }
    }

    private static Mtu mtu(int v) {
        return v >= 1 && v <= 5 ? Mtu.ofValue(v) : Mtu.MTU_1024;
    }

    @Override
    public Gid queryGid(int port, int index) {
        check();
        checkPort(port);
        if (index < 0) {
            throw new IllegalArgumentException("negative GID index " + index);
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment g = a.allocate(16, 8);
            int rc;
            synchronized (this) {
                check();
                rc = (int) Ibv.QUERY_GID.invokeExact(ctx, (byte) port, index, g);
            }
            if (rc != 0) {
                throw new IllegalArgumentException("GID index " + index + " is not in port " + port
                        + "'s GID table (ibv_query_gid: " + rc + ")");
            }
            return new Gid(g.toArray(JAVA_BYTE));
        } catch (Throwable t) {
            throw Ibv.rethrow(t);
        }
    }

    /** The kernel's counters of port 1 ({@link NativeDevice#queryCounters()}). */
    @Override
    public Counters queryCounters() {
        check();
        return device.queryCounters();
    }

    @Override
    public PacketCapture startCapture(Path file) {
        throw new UnsupportedOperationException("native:" + device.name() + " is the kernel's device: capture its "
                + "traffic with tcpdump on its netdev (RoCE, iWARP) or ibdump");
    }

    @Override
    public ProtectionDomain allocPd() {
        synchronized (this) {
            check();
            NativePd pd = NativePd.alloc(this);
            pds.add(pd);
            return pd;
        }
    }

    @Override
    public CompletionChannel createCompletionChannel() {
        synchronized (this) {
            check();
            NativeChannel ch = NativeChannel.create(this);
            channels.add(ch);
            return ch;
        }
    }

    @Override
    public CompletionQueue createCq(int cqe, CompletionChannel channel, int compVector) {
        if (cqe < 1) {
            throw new IllegalArgumentException("a CQ needs at least 1 entry: " + cqe);
        }
        NativeChannel ch = null;
        if (channel != null) {
            if (!(channel instanceof NativeChannel nc) || nc.context != this) {
                throw new IllegalArgumentException("the completion channel is not one of this context's");
            }
            ch = nc;
            ch.check();
        }
        synchronized (this) {
            check();
            NativeCq cq = NativeCq.create(this, cqe, ch, compVector);
            cqs.add(cq);
            return cq;
        }
    }

    @Override
    public void setAsyncEventHandler(Consumer<AsyncEvent> handler) {
        check();
        synchronized (asyncLock) {
            asyncHandler = handler;
            if (handler != null && asyncThread == null) {
                Thread t = Thread.ofPlatform().daemon().name("jrdma-native-async-" + device.name()).unstarted(
                        this::deliverAsync);
                asyncThread = t;
                t.start();
            }
        }
    }

    private void deliverAsync() {
        while (!closed && asyncHandler != null) {
            try {
                AsyncEvent e = nextAsyncEvent(Duration.ofMillis(100), false);
                Consumer<AsyncEvent> h = asyncHandler;
                if (e != null && h != null) {
                    h.accept(e);
                }
            } catch (InterruptedException ie) {
                return;
            } catch (RuntimeException ex) {
                if (closed) {
                    return;
                }
                System.getLogger("io.jrdma.kernel").log(System.Logger.Level.WARNING, "async event handler: " + ex);
            }
        }
        synchronized (asyncLock) {
            asyncThread = null;
        }
    }

    @Override
    public AsyncEvent getAsyncEvent(Duration timeout) throws InterruptedException {
        return nextAsyncEvent(timeout, true);
    }

    private AsyncEvent nextAsyncEvent(Duration timeout, boolean caller) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            check();
            synchronized (asyncLock) {
                check();
                if (caller && asyncHandler != null) {
                    throw new IllegalStateException("native:" + device.name() + " delivers its asynchronous events to"
                            + " the handler that was set; clear it to poll them");
                }
                AsyncEvent e = readAsync();
                if (e != null) {
                    return e;
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            Fds.waitReadable(asyncFd, Math.min(100, Math.max(1, left / 1_000_000)));
        }
    }

    /** One ibv_get_async_event on the non-blocking fd: the event, acknowledged, or null. */
    private AsyncEvent readAsync() {
        try {
            MemorySegment ev = asyncScratch.asSlice(0, Ibv.ASYNC_EVENT_SIZE);
            MemorySegment errno = asyncScratch.asSlice(Ibv.ASYNC_EVENT_SIZE, Ibv.ERRNO_SIZE);
            int rc = (int) Ibv.GET_ASYNC_EVENT.invokeExact(errno, ctx, ev);
            if (rc != 0) {
                return null;
            }
            int type = ev.get(JAVA_INT, Ibv.ASYNC_EVENT_TYPE);
            long element = ev.get(JAVA_LONG, 0);
            int port = ev.get(JAVA_INT, 0);
            Ibv.ACK_ASYNC_EVENT.invokeExact(ev);
            AsyncEventType t = type >= 0 && type < AsyncEventType.values().length ? AsyncEventType.values()[type]
                    : AsyncEventType.DEVICE_FATAL;
            return switch (t) {
                case CQ_ERR -> {
                    NativeCq cq = find(cqs, element);
                    if (cq != null) {
                        cq.inError = true;
                    }
                    yield new AsyncEvent(t, null, cq, null, 0, "");
                }
                case QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, COMM_EST, SQ_DRAINED, PATH_MIG, PATH_MIG_ERR,
                        QP_LAST_WQE_REACHED -> new AsyncEvent(t, find(qps, element), null, null, 0, "");
                case SRQ_ERR, SRQ_LIMIT_REACHED -> new AsyncEvent(t, null, null, find(srqs, element), 0, "");
                case DEVICE_FATAL -> new AsyncEvent(t, null, null, null, 0, type == 8 ? "" : "ibv event " + type);
                default -> new AsyncEvent(t, null, null, null, port, "");
            };
        } catch (Throwable t) {
            throw Ibv.rethrow(t);
        }
    }

    private static <T extends Addressed> T find(List<T> list, long address) {
        for (T t : list) {
            if (t.address() == address) {
                return t;
            }
        }
        return null;
    }

    /** The CQ whose {@code struct ibv_cq} is at {@code address}, or null. */
    NativeCq cqAt(long address) {
        return find(cqs, address);
    }

    /** A native object known by the address of its struct. */
    interface Addressed {
        long address();
    }

    @Override
    void destroy() {
        RuntimeException first = null;
        for (List<? extends NativeResource> kids : List.of(qps, srqs, pdsChildren(), cqs, channels, pds)) {
            for (NativeResource r : new ArrayList<>(kids)) {
                try {
                    r.close();
                } catch (RuntimeException e) {
                    first = first == null ? e : first;
                }
            }
        }
        try {
            int rc = (int) Ibv.CLOSE_DEVICE.invokeExact(ctx);
            if (rc != 0 && first == null) {
                first = Ibv.fail("ibv_close_device", rc);
            }
        } catch (Throwable t) {
            throw Ibv.rethrow(t);
        }
        closed = true;
        arena.close();
        if (first != null) {
            throw first;
        }
    }

    /** The regions and address handles of every PD (closed before the CQs and PDs). */
    private List<NativeResource> pdsChildren() {
        List<NativeResource> l = new ArrayList<>();
        for (NativePd pd : pds) {
            l.addAll(pd.ahs);
            l.addAll(pd.mrs);
        }
        return l;
    }

    @Override
    public String toString() {
        return what();
    }
}
