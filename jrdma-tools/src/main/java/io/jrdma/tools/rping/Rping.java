package io.jrdma.tools.rping;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.tools.cli.Hosts;
import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.tools.rdma.Cleanup;
import io.jrdma.tools.rdma.CmWait;
import io.jrdma.tools.rdma.CqWaiter;
import io.jrdma.tools.rdma.ToolDevices;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;

/**
 * rping: an RC ping-pong that moves data with SEND, RDMA READ and RDMA WRITE, protocol- and
 * output-compatible with rdma-core's rping so either end can be Linux.
 *
 * <p>One ping: the client SENDs the address/rkey/length of its source buffer; the server RDMA READs
 * it and SENDs a go-ahead; the client SENDs its sink buffer; the server RDMA WRITEs the data back
 * (string length + 1 bytes) and SENDs a go-ahead. The client checks and prints what came back.
 * Output lines as rping prints them: {@code ping data: ...} and {@code server ping data: ...} on
 * stdout with {@code -v}; {@code client DISCONNECT EVENT...} / {@code server DISCONNECT EVENT...}
 * on stderr, and the server's {@code wait for RDMA_READ_ADV state 10} when its client leaves.
 *
 * <p>Behaviour ported from rdma-core {@code librdmacm/examples/rping.c} (not its code): buffer
 * sizes and access flags, RPING_SQ_DEPTH, the connection parameters (IRD/ORD 1, retry 7, RNR
 * retry 7), the ping text {@code "rdma-ping-%d: "} followed by a rotating run of the characters
 * 65..122, the server's listen backlog of 3. jrdma polls its CQ instead of rping's CQ thread, and
 * bounds every wait ({@link RpingOptions#timeout()}).
 */
public final class Rping {

    /** rping's {@code DISCONNECTED} test_state value, printed in its state messages. */
    public static final int STATE_DISCONNECTED = 10;

    /** The listen backlog rping uses. */
    public static final int BACKLOG = 3;

    /** How long a client waits for its own DISCONNECTED event after disconnecting. */
    public static final Duration DISCONNECT_WAIT = Duration.ofSeconds(2);

    private static final long WR_SEND = 1;
    private static final long WR_RDMA = 2;
    private static final long WR_RECV = 3;
    private static final int FIRST_CHAR = 65;
    private static final int LAST_CHAR = 122;
    private static final Duration ACCEPT_POLL = Duration.ofMillis(200);

    private final RpingOptions options;
    private final PrintStream out;
    private final PrintStream err;
    private final AtomicInteger connections = new AtomicInteger();
    private volatile boolean stopped;
    private volatile int boundPort = -1;

    /**
     * Creates a run.
     *
     * @param options the flags
     * @param out where ping data and debug lines go (rping's stdout)
     * @param err where events and errors go (rping's stderr)
     */
    public Rping(RpingOptions options, PrintStream out, PrintStream err) {
        this.options = options;
        this.out = out;
        this.err = err;
    }

    /**
     * Runs the server or the client to completion.
     *
     * @return the number of pings completed (client), or of connections served (server)
     * @throws ToolFailure when the peer cannot be reached, rejects, fails or goes silent, or when a
     *     validation fails
     */
    public int run() {
        return options.server() ? serve() : ping();
    }

    /** Makes a server stop accepting (for in-process use; a persistent server otherwise runs for ever). */
    public void stop() {
        stopped = true;
    }

    /**
     * The port the server listens on, once it does.
     *
     * @return the port, or -1 before the listener is up
     */
    public int boundPort() {
        return boundPort;
    }

    // ---------------------------------------------------------------- client

    private int ping() {
        String peer = options.peer();
        try (Cleanup c = new Cleanup()) {
            RdmaCm cm = c.add(ToolDevices.openCm(options.device()));
            EventChannel ch = c.add(cm.createEventChannel());
            CmId id = ch.createId(null, PortSpace.TCP);
            c.onClose(id::destroy);
            try {
                id.resolveAddr(options.source(), options.address(), Duration.ofMillis(2000));
            } catch (RdmaException e) {
                throw CmWait.callFailed("rdma_resolve_addr", e, peer);
            }
            debugEvent(CmWait.expect(ch, CmEventType.ADDR_RESOLVED, options.timeout(), peer), "parent");
            id.resolveRoute(Duration.ofMillis(2000));
            debugEvent(CmWait.expect(ch, CmEventType.ROUTE_RESOLVED, options.timeout(), peer), "parent");
            io.jrdma.verbs.Device dev = id.device();
            debug("rdma_resolve_addr - rdma_resolve_route successful" + (dev == null ? ""
                    : " (device " + dev.provider() + ":" + dev.name() + ")"));
            Arena arena = c.add(Arena.ofShared());
            Endpoint ep = new Endpoint(id, arena, false, c);
            ep.postRecv();
            try {
                id.connect(new ConnParam(null, 1, 1, false, 7, 7, false, 0));
            } catch (RdmaException e) {
                throw CmWait.callFailed("rdma_connect", e, peer);
            }
            debugEvent(CmWait.expect(ch, CmEventType.ESTABLISHED, options.timeout(), peer), "parent");
            debug("rdma_connect successful");
            CqWaiter waiter = new CqWaiter(ep.cq, ch);
            int done = clientLoop(ep, waiter);
            id.disconnect();
            awaitOwnDisconnect(ch, waiter, "client");
            return done;
        }
    }

    private int clientLoop(Endpoint ep, CqWaiter waiter) {
        int start = FIRST_CHAR;
        int size = options.size();
        for (int ping = 0; options.count() == 0 || ping < options.count(); ping++) {
            byte[] head = ("rdma-ping-" + ping + ": ").getBytes(StandardCharsets.US_ASCII);
            int cc = Math.min(head.length, size);
            MemorySegment.copy(head, 0, ep.start, ValueLayout.JAVA_BYTE, 0, cc);
            int ch = start;
            for (int i = cc; i < size; i++) {
                ep.start.set(ValueLayout.JAVA_BYTE, i, (byte) ch);
                ch = ch == LAST_CHAR ? FIRST_CHAR : ch + 1;
            }
            start = start == LAST_CHAR ? FIRST_CHAR : start + 1;
            ep.start.set(ValueLayout.JAVA_BYTE, size - 1, (byte) 0);

            ep.advertise(ep.startMr, size);
            ep.postSend();
            if (!awaitRecv(ep, waiter, "RDMA_WRITE_ADV", ping)) {
                return ping;
            }
            ep.advertise(ep.rdmaMr, size);
            ep.postSend();
            if (!awaitRecv(ep, waiter, "RDMA_WRITE_COMPLETE", ping)) {
                return ping;
            }
            if (options.validate() && ep.start.asSlice(0, size).mismatch(ep.rdma.asSlice(0, size)) != -1) {
                err.println("data mismatch!");
                throw new ToolFailure("ping " + ping + ": data mismatch (the echoed data differs from what was sent)");
            }
            if (options.verbose()) {
                out.println("ping data: " + cString(ep.rdma, size));
            }
        }
        return options.count();
    }

    // ---------------------------------------------------------------- server

    private int serve() {
        try (Cleanup c = new Cleanup()) {
            RdmaCm cm = c.add(ToolDevices.openCm(options.device()));
            EventChannel ch = c.add(cm.createEventChannel());
            CmId listener = ch.createId(null, PortSpace.TCP);
            c.onClose(listener::destroy);
            InetSocketAddress at = options.address() != null ? options.address()
                    : new InetSocketAddress("0.0.0.0", RpingOptions.DEFAULT_PORT);
            try {
                listener.bind(at);
                listener.listen(BACKLOG);
            } catch (RdmaException e) {
                throw CmWait.callFailed("rdma_bind_addr", e, at.getHostString() + ":" + at.getPort());
            }
            boundPort = listener.localPort();
            debug("rdma_bind_addr successful");
            debug("rdma_listen");
            if (!options.persistent()) {
                CmEvent req = awaitRequest(ch);
                if (req == null) {
                    return 0;
                }
                serveOne(cm, req);
                return 1;
            }
            List<Thread> served = new ArrayList<>();
            while (!stopped) {
                CmEvent req;
                try {
                    req = awaitRequest(ch);
                } catch (ToolFailure f) {
                    if (served.isEmpty()) {
                        throw f;
                    }
                    break; // --accept-timeout after serving: a persistent server's way to end
                }
                if (req == null) {
                    break;
                }
                served.add(Thread.ofVirtual().name("rping-conn-" + served.size()).start(() -> {
                    try {
                        serveOne(cm, req);
                    } catch (ToolFailure f) {
                        err.println("rping: " + f.getMessage());
                    }
                }));
            }
            for (Thread t : served) {
                try {
                    t.join(options.timeout().toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            return connections.get();
        }
    }

    /** Waits for the next CONNECT_REQUEST; null when stopped or the accept timeout passed. */
    private CmEvent awaitRequest(EventChannel ch) {
        long deadline = options.acceptTimeout().isZero() ? Long.MAX_VALUE
                : System.nanoTime() + options.acceptTimeout().toNanos();
        while (!stopped) {
            CmEvent e;
            try {
                e = ch.getEvent(ACCEPT_POLL);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                throw new ToolFailure("interrupted while waiting for a client", ie);
            }
            if (e == null) {
                if (System.nanoTime() - deadline > 0) {
                    throw new ToolFailure("no client connected within " + options.acceptTimeout().toSeconds() + " s");
                }
                continue;
            }
            debugEvent(e, e.type() == CmEventType.CONNECT_REQUEST ? "child" : "parent");
            ch.ackEvent(e);
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                return e;
            }
        }
        return null;
    }

    private void serveOne(RdmaCm cm, CmEvent req) {
        CmId child = req.id();
        String peer = child.peerAddress() == null ? "client" : Hosts.endpoint(child.peerAddress());
        try (Cleanup c = new Cleanup()) {
            EventChannel ch = c.add(cm.createEventChannel());
            // The connection gets its own channel (rdma_migrate_id), so its events reach only this thread.
            ch.migrateId(child);
            c.onClose(child::destroy);
            ConnParam offered = req.param();
            // librdmacm's rdma_accept(id, NULL) answers with the depths the request carried.
            ConnParam answer = new ConnParam(null, offered == null ? 1 : Math.max(1, offered.responderResources()),
                    offered == null ? 1 : Math.max(1, offered.initiatorDepth()), false, 7, 7, false, 0);
            Arena arena = c.add(Arena.ofShared());
            Endpoint ep;
            try {
                ep = new Endpoint(child, arena, true, c);
                ep.postRecv();
                debug("accepting client connection request");
                child.accept(answer);
            } catch (RdmaException e) {
                throw CmWait.callFailed("rdma_accept", e, peer);
            }
            connections.incrementAndGet();
            debugEvent(CmWait.expect(ch, CmEventType.ESTABLISHED, options.timeout(), peer), "child");
            CqWaiter waiter = new CqWaiter(ep.cq, ch);
            serverLoop(ep, waiter);
            child.disconnect();
        }
    }

    private void serverLoop(Endpoint ep, CqWaiter waiter) {
        RpingRdmaInfo info = new RpingRdmaInfo().wrap(ep.recv, 0);
        while (true) {
            if (!awaitRecv(ep, waiter, "RDMA_READ_ADV", -1)) {
                return;
            }
            int len = info.size();
            debug("server received sink adv");
            if (len < 0 || len > options.size()) {
                throw new ToolFailure("the client advertised " + Integer.toUnsignedString(len)
                        + " bytes, more than this server's buffer of " + options.size() + " (-S)");
            }
            ep.rdmaOp(WrOpcode.RDMA_READ, len, info.buf(), info.rkey());
            debug("server posted rdma read req ");
            awaitOp(ep, waiter, WcOpcode.RDMA_READ, "RDMA_READ_COMPLETE");
            debug("server received read complete");
            if (options.verbose()) {
                out.println("server ping data: " + cString(ep.rdma, options.size()));
            }
            ep.postSend();
            debug("server posted go ahead");
            if (!awaitRecv(ep, waiter, "RDMA_WRITE_ADV", -1)) {
                return;
            }
            debug("server received sink adv");
            int n = cStringLength(ep.rdma, options.size()) + 1;
            debug(String.format("rdma write from lkey %x laddr %x len %d", ep.rdmaMr.lkey(), ep.rdmaMr.address(), n));
            ep.rdmaOp(WrOpcode.RDMA_WRITE, n, info.buf(), info.rkey());
            awaitOp(ep, waiter, WcOpcode.RDMA_WRITE, "RDMA_WRITE_COMPLETE");
            debug("server rdma write complete ");
            ep.postSend();
            debug("server posted go ahead");
        }
    }

    // ---------------------------------------------------------------- waits

    /**
     * Waits for the next RECV (reposting the receive). Returns false when the peer disconnected,
     * after printing rping's lines for it.
     */
    private boolean awaitRecv(Endpoint ep, CqWaiter waiter, String state, int ping) {
        while (true) {
            WorkCompletion wc = waiter.next(options.timeout(), state.toLowerCase() + " (a SEND from the peer)");
            if (wc == null) {
                if (handleEvent(waiter, state, ping)) {
                    return false;
                }
                continue;
            }
            if (wc.status() == WcStatus.WR_FLUSH_ERR) {
                continue; // the QP went to ERROR: the DISCONNECTED event follows
            }
            if (wc.status() != WcStatus.SUCCESS) {
                throw new ToolFailure("cq completion failed status " + wc.status().ordinal() + " (" + wc.status()
                        + ")");
            }
            if (wc.opcode() == WcOpcode.RECV) {
                if (wc.byteLen() != RpingRdmaInfo.LENGTH) {
                    throw new ToolFailure("Received bogus data, size " + wc.byteLen());
                }
                if (options.server()) {
                    RpingRdmaInfo info = new RpingRdmaInfo().wrap(ep.recv, 0);
                    debug(String.format("Received rkey %x addr %x len %d from peer", info.rkey(), info.buf(),
                            info.size()));
                }
                ep.postRecv();
                return true;
            }
        }
    }

    private void awaitOp(Endpoint ep, CqWaiter waiter, WcOpcode op, String state) {
        while (true) {
            WorkCompletion wc = waiter.next(options.timeout(), state.toLowerCase());
            if (wc == null) {
                if (handleEvent(waiter, state, -1)) {
                    throw new ToolFailure("the peer disconnected while waiting for " + state);
                }
                continue;
            }
            if (wc.status() != WcStatus.SUCCESS) {
                throw new ToolFailure("cq completion failed status " + wc.status().ordinal() + " (" + wc.status()
                        + ") on " + op);
            }
            if (wc.opcode() == op) {
                return;
            }
        }
    }

    /** Handles a CM event that ended a wait; true when it was the peer's disconnect. */
    private boolean handleEvent(CqWaiter waiter, String state, int ping) {
        CmEvent e = waiter.takeEvent();
        waiter.channel().ackEvent(e);
        debugEvent(e, options.server() ? "child" : "parent");
        if (e.type() == CmEventType.DISCONNECTED) {
            err.println((options.server() ? "server" : "client") + " DISCONNECT EVENT...");
            if (options.server() || options.count() == 0) {
                err.println("wait for " + state + " state " + STATE_DISCONNECTED);
                return true;
            }
            throw new ToolFailure("the server disconnected after " + ping + " of " + options.count() + " pings");
        }
        if (e.type() == CmEventType.DEVICE_REMOVAL) {
            err.println("cma detected device removal!!!!");
            throw new ToolFailure("cma detected device removal");
        }
        err.println("unhandled event: " + e.type().str() + ", ignoring");
        return false;
    }

    private void awaitOwnDisconnect(EventChannel ch, CqWaiter waiter, String side) {
        long deadline = System.nanoTime() + DISCONNECT_WAIT.toNanos();
        while (System.nanoTime() - deadline < 0) {
            CmEvent e;
            try {
                e = ch.getEvent(Duration.ofMillis(50));
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                return;
            }
            if (e != null) {
                ch.ackEvent(e);
                if (e.type() == CmEventType.DISCONNECTED) {
                    err.println(side + " DISCONNECT EVENT...");
                    return;
                }
            }
        }
    }

    // ---------------------------------------------------------------- output helpers

    private void debug(String line) {
        if (options.debug()) {
            out.println(line);
        }
    }

    private void debugEvent(CmEvent e, String which) {
        if (options.debug() && e != null) {
            out.println("cma_event type " + e.type().str() + " cma_id 0x"
                    + Integer.toHexString(System.identityHashCode(e.id())) + " (" + which + ")");
        }
    }

    static String cString(MemorySegment s, int max) {
        int n = cStringLength(s, max);
        byte[] b = new byte[n];
        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, 0, b, 0, n);
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    static int cStringLength(MemorySegment s, int max) {
        for (int i = 0; i < max; i++) {
            if (s.get(ValueLayout.JAVA_BYTE, i) == 0) {
                return i;
            }
        }
        return max;
    }

    // ---------------------------------------------------------------- resources

    /** One connection's verbs resources, as {@code rping_setup_qp} and {@code rping_setup_buffers}. */
    private final class Endpoint {
        final CompletionQueue cq;
        final QueuePair qp;
        final MemorySegment recv;
        final MemorySegment send;
        final MemorySegment rdma;
        final MemorySegment start;
        final MemoryRegion recvMr;
        final MemoryRegion sendMr;
        final MemoryRegion rdmaMr;
        final MemoryRegion startMr;
        final RecvWr recvWr;
        final SendWr sendWr;
        final SendWr rdmaWr = new SendWr();
        final RpingRdmaInfo sendInfo = new RpingRdmaInfo();

        Endpoint(CmId id, Arena arena, boolean server, Cleanup c) {
            ProtectionDomain pd = c.add(id.verbs().allocPd());
            debug("created pd");
            cq = c.add(id.verbs().createCq(RpingOptions.SQ_DEPTH * 2));
            debug("created cq");
            qp = id.createQp(pd, QpInitAttr.rc(cq, new QpCap(RpingOptions.SQ_DEPTH, 2, 1, 1, 0)));
            c.onClose(id::destroyQp);
            debug("created qp");
            int size = options.size();
            recv = arena.allocate(RpingRdmaInfo.LENGTH, 8);
            send = arena.allocate(RpingRdmaInfo.LENGTH, 8);
            recvMr = c.add(pd.registerMemory(recv, Access.LOCAL_WRITE));
            sendMr = c.add(pd.registerMemory(send, 0));
            int rw = Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE;
            // The ping buffers are direct ByteBuffers (rping mallocs them): siw sends their large
            // payloads, the READ responses and the WRITE back, straight from them.
            ByteBuffer rdmaBuf = direct(size);
            rdma = MemorySegment.ofBuffer(rdmaBuf);
            rdmaMr = c.add(pd.registerMemory(rdmaBuf, rw));
            if (server) {
                start = null;
                startMr = null;
            } else {
                ByteBuffer startBuf = direct(size);
                start = MemorySegment.ofBuffer(startBuf);
                startMr = c.add(pd.registerMemory(startBuf, rw));
            }
            debug("allocated & registered buffers...");
            recvWr = new RecvWr().wrId(WR_RECV).sg(recvMr, 0, RpingRdmaInfo.LENGTH);
            sendWr = new SendWr().wrId(WR_SEND).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
                    .sg(sendMr, 0, RpingRdmaInfo.LENGTH);
            sendInfo.wrap(send, 0);
        }

        /** A 64-byte aligned direct buffer of {@code size} bytes. */
        private static ByteBuffer direct(int size) {
            return ByteBuffer.allocateDirect(size + 127).alignedSlice(64).limit(size);
        }

        void postRecv() {
            if (qp.postRecv(recvWr) != 1) {
                throw new ToolFailure("post recv error: receive queue full");
            }
        }

        void postSend() {
            if (qp.postSend(sendWr) != 1) {
                throw new ToolFailure("post send error: send queue full");
            }
        }

        void advertise(MemoryRegion mr, int size) {
            sendInfo.set(mr.address(), mr.rkey(), size);
            debug(String.format("RDMA addr %x rkey %x len %d", mr.address(), mr.rkey(), size));
        }

        void rdmaOp(WrOpcode op, int length, long remoteAddr, int rkey) {
            rdmaWr.reset().wrId(WR_RDMA).opcode(op).flags(SendFlags.SIGNALED).sg(rdmaMr, 0, length)
                    .rdma(remoteAddr, rkey);
            if (qp.postSend(rdmaWr) != 1) {
                throw new ToolFailure("post send error: send queue full");
            }
        }
    }
}
