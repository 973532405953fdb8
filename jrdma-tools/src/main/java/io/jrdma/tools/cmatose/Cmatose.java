package io.jrdma.tools.cmatose;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.tools.rdma.Cleanup;
import io.jrdma.tools.rdma.CmWait;
import io.jrdma.tools.rdma.ToolDevices;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;

/**
 * ucmatose: opens {@code -c} RC connections through rdma_cm, exchanges {@code -C} SENDs of
 * {@code -S} bytes on each (the server sends first, the client replies) and disconnects, printing
 * ucmatose's progress lines. With {@code --timings} (jrdma) it adds how long connecting,
 * accepting and disconnecting took.
 *
 * <p>Behaviour from rdma-core {@code librdmacm/examples/cmatose.c}: listen backlog 0, CQs and QP
 * depths of the message count, {@code sq_sig_all}, the client's connection parameters (IRD/ORD 1,
 * retry 5), the server accepting with librdmacm's defaults, the server disconnecting and the client
 * answering each DISCONNECTED with its own disconnect. Unlike ucmatose, jrdma checks completion
 * statuses and bounds every wait.
 */
public final class Cmatose {

    private final CmatoseOptions o;
    private final PrintStream out;
    private final List<Node> nodes = new ArrayList<>();
    private long connectNanos;
    private long transferNanos;
    private long disconnectNanos;

    /**
     * Creates a run.
     *
     * @param options the flags
     * @param out where ucmatose's lines go
     */
    public Cmatose(CmatoseOptions options, PrintStream out) {
        this.o = options;
        this.out = out;
    }

    /** One connection's resources ({@code struct cmatest_node}). */
    private static final class Node {
        final int index;
        CmId id;
        boolean connected;
        CompletionQueue sendCq;
        CompletionQueue recvCq;
        MemoryRegion mr;
        RecvWr recvWr;
        SendWr sendWr;

        Node(int index) {
            this.index = index;
        }
    }

    /**
     * Runs the server or the client.
     *
     * @return 0 ("return status 0")
     * @throws ToolFailure when a connection fails, a completion fails or a step times out
     */
    public int run() {
        try (Cleanup c = new Cleanup()) {
            RdmaCm cm = c.add(ToolDevices.openCm(o.device()));
            EventChannel ch = c.add(cm.createEventChannel());
            Arena arena = c.add(Arena.ofShared());
            int rc = o.server() ? server(ch, arena, c) : client(ch, arena, c);
            out.println("test complete");
            out.println("return status " + rc);
            if (o.timings()) {
                printTimings();
            }
            return rc;
        }
    }

    private int server(EventChannel ch, Arena arena, Cleanup c) {
        CmId listener = ch.createId(null, PortSpace.TCP);
        c.onClose(listener::destroy);
        try {
            listener.bind(o.bindAddress());
            listener.listen(0);
        } catch (RdmaException e) {
            throw CmWait.callFailed("rdma_bind_addr", e, o.peer());
        }
        // ucmatose prints this before binding; printed once listening, the output is the same and a
        // caller that waits for it knows the server is ready.
        out.println("cmatose: starting server");
        long start = System.nanoTime();
        int left = o.connections();
        boolean first = true;
        while (left > 0) {
            CmEvent e = CmWait.next(ch, first ? Duration.ofDays(1) : o.timeout(), "connection request");
            ch.ackEvent(e);
            switch (e.type()) {
                case CONNECT_REQUEST -> {
                    if (first) {
                        start = System.nanoTime();
                        first = false;
                    }
                    Node n = new Node(nodes.size());
                    nodes.add(n);
                    n.id = e.id();
                    c.onClose(n.id::destroy);
                    initNode(n, arena, c);
                    postRecvs(n);
                    try {
                        n.id.accept(ConnParam.defaults());
                    } catch (RdmaException ex) {
                        throw CmWait.callFailed("rdma_accept", ex, o.peer());
                    }
                }
                case ESTABLISHED -> {
                    Node n = node(e.id());
                    if (n != null) {
                        n.connected = true;
                        left--;
                    }
                }
                case DISCONNECTED -> throw new ToolFailure("a client disconnected before every connection was up");
                default -> throw new ToolFailure(CmWait.describe(e, o.peer(), CmEventType.ESTABLISHED));
            }
        }
        connectNanos = System.nanoTime() - start;
        long t = System.nanoTime();
        if (o.messages() > 0) {
            out.println("initiating data transfers");
            for (Node n : nodes) {
                postSends(n);
            }
            out.println("completing sends");
            pollCqs(false);
            out.println("receiving data transfers");
            pollCqs(true);
            out.println("data transfers complete");
        }
        transferNanos = System.nanoTime() - t;
        out.println("cmatose: disconnecting");
        t = System.nanoTime();
        for (Node n : nodes) {
            if (n.connected) {
                n.connected = false;
                n.id.disconnect();
            }
        }
        awaitDisconnects(ch, false);
        disconnectNanos = System.nanoTime() - t;
        out.println("disconnected");
        return 0;
    }

    private int client(EventChannel ch, Arena arena, Cleanup c) {
        out.println("cmatose: starting client");
        out.println("cmatose: connecting");
        long start = System.nanoTime();
        for (int i = 0; i < o.connections(); i++) {
            Node n = new Node(i);
            nodes.add(n);
            n.id = ch.createId(n, PortSpace.TCP);
            c.onClose(n.id::destroy);
            try {
                n.id.resolveAddr(o.bindAddress(), o.serverAddress(), Duration.ofMillis(2000));
            } catch (RdmaException e) {
                throw CmWait.callFailed("rdma_resolve_addr", e, o.peer());
            }
        }
        int left = o.connections();
        while (left > 0) {
            CmEvent e = CmWait.next(ch, o.timeout(), "connection event");
            ch.ackEvent(e);
            Node n = node(e.id());
            if (n == null) {
                continue;
            }
            switch (e.type()) {
                case ADDR_RESOLVED -> {
                    if (o.tos() >= 0) {
                        n.id.setTos(o.tos());
                    }
                    n.id.resolveRoute(Duration.ofMillis(2000));
                }
                case ROUTE_RESOLVED -> {
                    initNode(n, arena, c);
                    postRecvs(n);
                    try {
                        n.id.connect(new ConnParam(null, 1, 1, false, 5, 0, false, 0));
                    } catch (RdmaException ex) {
                        throw CmWait.callFailed("rdma_connect", ex, o.peer());
                    }
                }
                case ESTABLISHED -> {
                    n.connected = true;
                    left--;
                }
                default -> {
                    out.println("cmatose: event: " + e.type().str() + ", error: " + e.status());
                    throw new ToolFailure(CmWait.describe(e, o.peer(), CmEventType.ESTABLISHED));
                }
            }
        }
        connectNanos = System.nanoTime() - start;
        long t = System.nanoTime();
        if (o.messages() > 0) {
            out.println("receiving data transfers");
            pollCqs(true);
            out.println("sending replies");
            for (Node n : nodes) {
                postSends(n);
            }
            out.println("data transfers complete");
        }
        transferNanos = System.nanoTime() - t;
        t = System.nanoTime();
        awaitDisconnects(ch, true);
        disconnectNanos = System.nanoTime() - t;
        return 0;
    }

    private Node node(CmId id) {
        for (Node n : nodes) {
            if (n.id == id) {
                return n;
            }
        }
        return null;
    }

    /** {@code init_node}: PD, send and receive CQs, the QP ({@code sq_sig_all}) and the message buffer. */
    private void initNode(Node n, Arena arena, Cleanup c) {
        ProtectionDomain pd = c.add(n.id.verbs().allocPd());
        int cqe = o.messages() > 0 ? o.messages() : 1;
        n.sendCq = c.add(n.id.verbs().createCq(cqe));
        n.recvCq = c.add(n.id.verbs().createCq(cqe));
        QpInitAttr attr = new QpInitAttr(QpType.RC, n.sendCq, n.recvCq, null, new QpCap(cqe, cqe, 1, 1, 0), true);
        n.id.createQp(pd, attr);
        c.onClose(n.id::destroyQp);
        if (o.messages() > 0) {
            MemorySegment mem = arena.allocate(o.messageSize(), 64);
            n.mr = c.add(pd.registerMemory(mem, Access.LOCAL_WRITE));
            n.recvWr = new RecvWr().wrId(n.index).sg(n.mr, 0, o.messageSize());
            n.sendWr = new SendWr().wrId(n.index).opcode(WrOpcode.SEND).flags(0).sg(n.mr, 0, o.messageSize());
        }
    }

    private void postRecvs(Node n) {
        for (int i = 0; i < o.messages(); i++) {
            if (n.id.qp().postRecv(n.recvWr) != 1) {
                throw new ToolFailure("failed to post receives: receive queue full");
            }
        }
    }

    private void postSends(Node n) {
        if (!n.connected) {
            return;
        }
        for (int i = 0; i < o.messages(); i++) {
            if (n.id.qp().postSend(n.sendWr) != 1) {
                throw new ToolFailure("failed to post sends: send queue full");
            }
        }
    }

    /** {@code poll_cqs}: every connected node's CQ yields the message count. */
    private void pollCqs(boolean recv) {
        WorkCompletion[] wc = new WorkCompletion[8];
        for (int i = 0; i < wc.length; i++) {
            wc[i] = new WorkCompletion();
        }
        for (Node n : nodes) {
            if (!n.connected) {
                continue;
            }
            CompletionQueue cq = recv ? n.recvCq : n.sendCq;
            long deadline = System.nanoTime() + o.timeout().toNanos();
            for (int done = 0; done < o.messages();) {
                int got = cq.poll(wc, 0, Math.min(wc.length, o.messages() - done));
                for (int k = 0; k < got; k++) {
                    if (wc[k].status() != WcStatus.SUCCESS) {
                        throw new ToolFailure("cmatose: completion failed with status " + wc[k].status() + " on "
                                + (recv ? "receive" : "send") + " " + (done + k + 1) + " of connection " + n.index);
                    }
                }
                done += got;
                if (got == 0) {
                    if (System.nanoTime() - deadline > 0) {
                        throw new ToolFailure("cmatose: " + (recv ? "received" : "completed") + " " + done + " of "
                                + o.messages() + " messages on connection " + n.index + " before the timeout");
                    }
                    Thread.onSpinWait();
                }
            }
        }
    }

    /**
     * {@code disconnect_events}: the server waits for the DISCONNECTED of what it disconnected; the
     * client answers each DISCONNECTED with its own disconnect.
     */
    private void awaitDisconnects(EventChannel ch, boolean answer) {
        int left = 0;
        for (Node n : nodes) {
            if (answer ? n.connected : true) {
                left++;
            }
        }
        while (left > 0) {
            CmEvent e = CmWait.next(ch, answer ? Duration.ofDays(1) : o.timeout(), "DISCONNECTED event");
            ch.ackEvent(e);
            if (e.type() == CmEventType.DISCONNECTED) {
                if (answer) {
                    try {
                        e.id().disconnect();
                    } catch (RuntimeException ex) {
                        // already down
                    }
                }
                left--;
            }
        }
    }

    private void printTimings() {
        int n = o.connections();
        out.printf(Locale.ROOT, "%s: %d connection%s in %.3f ms (%.1f us each)%n",
                o.server() ? "accept" : "connect", n, n == 1 ? "" : "s", connectNanos / 1e6, connectNanos / 1e3 / n);
        out.printf(Locale.ROOT, "transfer: %d x %d messages of %d B in %.3f ms%n", n, o.messages(), o.messageSize(),
                transferNanos / 1e6);
        out.printf(Locale.ROOT, "disconnect: %d connection%s in %.3f ms (%.1f us each)%n", n, n == 1 ? "" : "s",
                disconnectNanos / 1e6, disconnectNanos / 1e3 / n);
    }
}
