package io.jrdma.siw.transport;

import io.jrdma.cm.IwConnParam;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.siw.SiwConfig;
import io.jrdma.siw.SiwDevice;
import io.jrdma.siw.cm.SiwCm;
import io.jrdma.spi.IwCmProvider;
import io.jrdma.testkit.Await;
import io.jrdma.testkit.Completion;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AsyncEvent;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * jrdma's side of a transport test: siw0's context, a PD and a CQ, QPs in INIT with remote read and
 * write (as the iw_cm leaves them before connect/accept), registered buffers, and a {@link SiwCm} with
 * the configuration under test driven directly (the iw_cm provider API), so MPA and the data path are
 * exercised without core's CM in between.
 */
public final class Testbed implements AutoCloseable {
    /** Everything a region may allow. */
    public static final int ALL = Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE;

    private final Deque<AutoCloseable> closeables = new ArrayDeque<>();
    /** The device. */
    public final DeviceImpl device;
    /** The siw device behind it. */
    public final SiwDevice siw;
    /** A context on it. */
    public final Context ctx;
    /** A protection domain. */
    public final ProtectionDomain pd;
    /** The completion channel of {@link #cq}. */
    public final CompletionChannel channel;
    /** The CQ every QP of the testbed completes into. */
    public final CompletionQueue cq;
    private final Arena arena = Arena.ofShared();

    /** Opens siw0. */
    public Testbed() {
        this.device = (DeviceImpl) Rdma.device("siw0");
        this.siw = (SiwDevice) device.providerDevice();
        this.ctx = device.open();
        this.pd = ctx.allocPd();
        this.channel = ctx.createCompletionChannel();
        this.cq = ctx.createCq(1024, channel, 0);
    }

    /** Closes {@code c} when the testbed closes (before what was registered earlier); returns it. */
    public <T extends AutoCloseable> T closeLater(T c) {
        closeables.push(c);
        return c;
    }

    /** A CM on siw0 with {@code config}. */
    public SiwCm cm(SiwConfig config) {
        return new SiwCm(siw.cmContext(), config);
    }

    /** An RC QP in INIT with 64 send and receive WRs, 6 SGEs and 80 inline bytes. */
    public QpImpl qp() {
        QpImpl qp = (QpImpl) pd.createQp(QpInitAttr.rc(cq, new QpCap(64, 64, 6, 6, SiwDevice.MAX_INLINE)));
        qp.modify(new QpAttr().qpState(QpState.INIT).qpAccessFlags(Access.REMOTE_READ | Access.REMOTE_WRITE));
        closeables.push(qp);
        return qp;
    }

    /**
     * A registered buffer.
     *
     * @param segment its memory (zeroed)
     * @param mr its registration
     */
    public record Buffer(MemorySegment segment, MemoryRegion mr) {
        /** The address of byte {@code off}. */
        public long addr(long off) {
            return mr.address() + off;
        }
    }

    /** A native buffer of {@code size} bytes registered with {@code access}. */
    public Buffer buffer(int size, int access) {
        MemorySegment s = arena.allocate(size, 4096);
        MemoryRegion mr = pd.registerMemory(s, access);
        closeables.push(mr);
        return new Buffer(s, mr);
    }

    /**
     * A page-aligned direct {@link java.nio.ByteBuffer} of {@code size} bytes registered with
     * {@code access} as a buffer: siw sends its large payloads without a copy.
     */
    public Buffer directBuffer(int size, int access) {
        java.nio.ByteBuffer bb = java.nio.ByteBuffer.allocateDirect(size + 8191).alignedSlice(4096).limit(size);
        MemoryRegion mr = pd.registerMemory(bb, access);
        closeables.push(mr);
        return new Buffer(MemorySegment.ofBuffer(bb), mr);
    }

    /** A buffer of either kind: {@link #directBuffer} when {@code direct}, else {@link #buffer}. */
    public Buffer buffer(int size, int access, boolean direct) {
        return direct ? directBuffer(size, access) : buffer(size, access);
    }

    /** Listens on an ephemeral port of 127.0.0.1 with {@code cm}. */
    public IwCmProvider.Listener listen(SiwCm cm, Upcalls up) {
        IwCmProvider.Listener l = cm.listen(new InetSocketAddress("127.0.0.1", 0), 8, up);
        closeables.push(l::close);
        return l;
    }

    /** Connects {@code qp} to {@code server} with {@code cm}; the outcome arrives as an upcall. */
    public IwCmProvider.Connection connect(SiwCm cm, QpImpl qp, ServerSocket server, IwConnParam param, Upcalls up) {
        IwCmProvider.Connection c = cm.connect(qp, new InetSocketAddress("127.0.0.1", 0),
                (InetSocketAddress) server.getLocalSocketAddress(), param, up);
        closeables.push(c::close);
        return c;
    }

    /**
     * Two QPs of this testbed connected through {@code cm}: a listener on 127.0.0.1, a connect from
     * 127.0.0.1 with IRD/ORD {@code irdOrd}, the request accepted with the same, both sides established.
     *
     * @param active the connecting QP
     * @param passive the accepting QP
     * @param activeConn the connecting QP's connection
     * @param passiveConn the accepting QP's connection
     * @param listener the listener, still open (the testbed closes it)
     */
    public record Connected(QpImpl active, QpImpl passive, IwCmProvider.Connection activeConn,
            IwCmProvider.Connection passiveConn, IwCmProvider.Listener listener) {
    }

    /** Connects two new QPs through {@code cm} (see {@link Connected}); fails if either side is not up. */
    public Connected connected(SiwCm cm, int irdOrd) {
        Upcalls server = new Upcalls();
        IwCmProvider.Listener l = listen(cm, server);
        QpImpl a = qp();
        Upcalls client = new Upcalls();
        IwCmProvider.Connection c = cm.connect(a, new InetSocketAddress("127.0.0.1", 0), l.localAddress(),
                param(irdOrd, irdOrd), client);
        Upcalls.Up req = server.next("connectRequest");
        QpImpl b = qp();
        req.conn().setUpcalls(server);
        req.conn().accept(b, param(irdOrd, irdOrd));
        server.next("established");
        Upcalls.Up reply = client.next("connectReply");
        if (reply.status() != 0) {
            throw new AssertionError("connect failed: " + reply);
        }
        return new Connected(a, b, c, req.conn(), l);
    }

    /** Connection parameters with IRD/ORD and no private data. */
    public static IwConnParam param(int ird, int ord) {
        return new IwConnParam(new byte[0], ord, ird, 0);
    }

    /** Posts a receive of {@code len} bytes at {@code off} of {@code b}. */
    public static void recv(QpImpl qp, long id, Buffer b, long off, int len) {
        if (qp.postRecv(new RecvWr().wrId(id).sg(b.mr(), off, len)) != 1) {
            throw new AssertionError("receive " + id + " not posted");
        }
    }

    /** Posts a signaled send WR and checks it was queued. */
    public static void post(QpImpl qp, SendWr wr) {
        if (qp.postSend(wr) != 1) {
            throw new AssertionError("send WR " + wr.wrId() + " not posted");
        }
    }

    /** A signaled SEND of {@code len} bytes of {@code b} at {@code off}. */
    public static SendWr send(long id, Buffer b, long off, int len) {
        return new SendWr().wrId(id).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(b.mr(), off, len);
    }

    /** A signaled RDMA WRITE of {@code len} bytes of {@code b} to {@code rkey} at {@code remote}. */
    public static SendWr write(long id, Buffer b, long off, int len, int rkey, long remote) {
        return new SendWr().wrId(id).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sg(b.mr(), off, len)
                .rdma(remote, rkey);
    }

    /** A signaled RDMA READ of {@code len} bytes from {@code rkey} at {@code remote} into {@code b}. */
    public static SendWr read(long id, Buffer b, long off, int len, int rkey, long remote) {
        return new SendWr().wrId(id).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED).sg(b.mr(), off, len)
                .rdma(remote, rkey);
    }

    /** The next completion of the testbed's CQ. */
    public Completion completion() {
        return Await.completion(cq);
    }

    /** The next async event of {@code type}. */
    public AsyncEvent event(AsyncEventType type) {
        return Await.event(ctx, type);
    }

    @Override
    public void close() {
        while (!closeables.isEmpty()) {
            try {
                closeables.pop().close();
            } catch (Exception e) {
                // best effort: the next test gets a fresh testbed
            }
        }
        try {
            cq.close();
        } catch (RuntimeException e) {
            // still referenced: released with the context
        }
        try {
            channel.close();
        } catch (RuntimeException e) {
            // still referenced: released with the context
        }
        try {
            pd.close();
        } catch (RuntimeException e) {
            // still referenced: released with the context
        }
        // Events nobody took still name their QPs; the closed context must not keep them reachable.
        try {
            while (ctx.getAsyncEvent(java.time.Duration.ZERO) != null) {
                // dropped
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        ctx.close();
        arena.close();
    }
}
