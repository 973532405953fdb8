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
import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.PortAttributes;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;

/**
 * udaddy: UD "connections" over rdma_cm's UDP port space (SIDR on IB/RoCE and loop): the client
 * learns the server's QPN and Q_Key from ESTABLISHED, sends {@code -C} messages (SEND with its own
 * QPN as immediate data), and the server answers each connection with as many, addressed from the
 * first message it received. Needs a UD-capable transport: loop0 (or rxe once it lands); iWARP has
 * no UD.
 *
 * <p>Behaviour from rdma-core {@code librdmacm/examples/udaddy.c}: messages no larger than the
 * active MTU, 40 bytes of GRH room before each received payload, the server accepting with its
 * QPN, the client's sends unsignaled and the server's signaled.
 */
public final class Udaddy {

    /** The room a UD receive needs before the payload ({@code sizeof(struct ibv_grh)}). */
    public static final int GRH_LENGTH = 40;

    private final CmatoseOptions o;
    private final PrintStream out;
    private final List<Node> nodes = new ArrayList<>();
    private long connectNanos;

    /**
     * Creates a run.
     *
     * @param options the flags
     * @param out where udaddy's lines go
     */
    public Udaddy(CmatoseOptions options, PrintStream out) {
        this.o = options;
        this.out = out;
    }

    private static final class Node {
        final int index;
        CmId id;
        boolean connected;
        ProtectionDomain pd;
        CompletionQueue cq;
        MemoryRegion mr;
        RecvWr recvWr;
        SendWr sendWr;
        AddressHandle ah;
        int remoteQpn;
        int remoteQkey;
        AhAttr requestAh;

        Node(int index) {
            this.index = index;
        }
    }

    /**
     * Runs the server or the client.
     *
     * @return 0 ("return status 0")
     * @throws ToolFailure when a connection or completion fails or a step times out
     */
    public int run() {
        try (Cleanup c = new Cleanup()) {
            RdmaCm cm = c.add(ToolDevices.openUdCm(o.device()));
            EventChannel ch = c.add(cm.createEventChannel());
            Arena arena = c.add(Arena.ofShared());
            int rc = o.server() ? server(ch, arena, c) : client(ch, arena, c);
            out.println("test complete");
            out.println("return status " + rc);
            if (o.timings()) {
                out.printf(Locale.ROOT, "%s: %d connection%s in %.3f ms%n", o.server() ? "accept" : "connect",
                        o.connections(), o.connections() == 1 ? "" : "s", connectNanos / 1e6);
            }
            return rc;
        }
    }

    private int server(EventChannel ch, Arena arena, Cleanup c) {
        CmId listener = ch.createId(null, PortSpace.UDP, QpType.UD);
        c.onClose(listener::destroy);
        try {
            listener.bind(o.bindAddress());
            listener.listen(0);
        } catch (RdmaException e) {
            throw CmWait.callFailed("rdma_bind_addr", e, o.peer());
        }
        // ucmatose prints this before binding; printed once listening, the output is the same and a
        // caller that waits for it knows the server is ready.
        out.println("udaddy: starting server");
        long start = 0;
        while (nodes.size() < o.connections()) {
            CmEvent e = CmWait.next(ch, nodes.isEmpty() ? Duration.ofDays(1) : o.timeout(), "connection request");
            ch.ackEvent(e);
            if (e.type() != CmEventType.CONNECT_REQUEST) {
                continue;
            }
            if (nodes.isEmpty()) {
                start = System.nanoTime();
            }
            Node n = new Node(nodes.size());
            nodes.add(n);
            n.id = e.id();
            c.onClose(n.id::destroy);
            n.requestAh = e.ud() != null && e.ud().ahAttr() != null ? e.ud().ahAttr() : replyAh(n.id);
            initNode(n, arena, c);
            postRecvs(n);
            try {
                n.id.accept(new ConnParam(null, 0, 0, false, 0, 0, false, n.id.qp().qpNum()));
            } catch (RdmaException ex) {
                throw CmWait.callFailed("rdma_accept", ex, o.peer());
            }
            n.connected = true;
        }
        connectNanos = System.nanoTime() - start;
        if (o.messages() > 0) {
            out.println("receiving data transfers");
            pollCqs(c);
            out.println("sending replies");
            for (Node n : nodes) {
                postSends(n, SendFlags.SIGNALED);
            }
            pollCqs(c);
            out.println("data transfers complete");
        }
        return 0;
    }

    private int client(EventChannel ch, Arena arena, Cleanup c) {
        out.println("udaddy: starting client");
        out.println("udaddy: connecting");
        long start = System.nanoTime();
        for (int i = 0; i < o.connections(); i++) {
            Node n = new Node(i);
            nodes.add(n);
            n.id = ch.createId(n, PortSpace.UDP, QpType.UD);
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
            Node n = null;
            for (Node x : nodes) {
                if (x.id == e.id()) {
                    n = x;
                }
            }
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
                        n.id.connect(new ConnParam(null, 0, 0, false, 0, 0, false, 0));
                    } catch (RdmaException ex) {
                        throw CmWait.callFailed("rdma_connect", ex, o.peer());
                    }
                }
                case ESTABLISHED -> {
                    n.remoteQpn = e.ud().qpNum();
                    n.remoteQkey = e.ud().qkey();
                    n.ah = c.add(n.pd.createAh(e.ud().ahAttr()));
                    n.connected = true;
                    left--;
                }
                default -> {
                    out.println("udaddy: event: " + e.type().str() + ", error: " + e.status());
                    throw new ToolFailure(CmWait.describe(e, o.peer(), CmEventType.ESTABLISHED));
                }
            }
        }
        connectNanos = System.nanoTime() - start;
        if (o.messages() > 0) {
            out.println("initiating data transfers");
            for (Node n : nodes) {
                postSends(n, 0);
            }
            out.println("receiving data transfers");
            pollCqs(c);
            out.println("data transfers complete");
        }
        return 0;
    }

    /** {@code verify_test_params} and {@code init_node}. */
    private void initNode(Node n, Arena arena, Cleanup c) {
        PortAttributes port = n.id.verbs().queryPort(1);
        if (o.messages() > 0 && o.messageSize() > port.activeMtu().bytes()) {
            throw new ToolFailure("udaddy: message_size " + o.messageSize() + " is larger than active mtu "
                    + port.activeMtu().bytes());
        }
        n.pd = c.add(n.id.verbs().allocPd());
        int cqe = o.messages() > 0 ? o.messages() * 2 : 2;
        n.cq = c.add(n.id.verbs().createCq(cqe));
        int wr = o.messages() > 0 ? o.messages() : 1;
        n.id.createQp(n.pd, new QpInitAttr(QpType.UD, n.cq, n.cq, null, new QpCap(wr, wr, 1, 1, 0), false));
        c.onClose(n.id::destroyQp);
        if (o.messages() > 0) {
            MemorySegment mem = arena.allocate(o.messageSize() + GRH_LENGTH, 64);
            n.mr = c.add(n.pd.registerMemory(mem, Access.LOCAL_WRITE));
            n.recvWr = new RecvWr().wrId(n.index).sg(n.mr, 0, o.messageSize() + GRH_LENGTH);
        }
    }

    /**
     * The address vector back to a SIDR requester when the request carried none (the kernel's rdma_cm gives
     * none): to the peer's address, from the GID of the id's own address. Linux udaddy derives it from the first
     * datagram's GRH ({@code ibv_create_ah_from_wc}), which names the same two GIDs; GID index 0 is not that GID
     * on a RoCE device whose first entry is the netdev's IPv6 link-local address (Linux rxe, mlx5).
     */
    static AhAttr replyAh(CmId id) {
        Gid local = Gid.of(id.localAddress().getAddress());
        int index = 0;
        int len = id.verbs().queryPort(1).gidTableLength();
        for (int i = 0; i < len; i++) {
            try {
                if (id.verbs().queryGid(1, i).equals(local)) {
                    index = i;
                    break;
                }
            } catch (RuntimeException emptyEntry) {
                // an unused entry of the table
            }
        }
        AhAttr to = AhAttr.to(id.peerAddress().getAddress());
        return new AhAttr(to.dgid(), index, to.flowLabel(), to.hopLimit(), to.trafficClass(), to.sl(), to.portNum(),
                to.dlid());
    }

    private void postRecvs(Node n) {
        for (int i = 0; i < o.messages(); i++) {
            if (n.id.qp().postRecv(n.recvWr) != 1) {
                throw new ToolFailure("failed to post receives: receive queue full");
            }
        }
    }

    private void postSends(Node n, int flags) {
        if (!n.connected || o.messages() == 0) {
            return;
        }
        SendWr w = new SendWr().wrId(n.index).opcode(WrOpcode.SEND_WITH_IMM).flags(flags)
                .sg(n.mr, 0, o.messageSize()).immData(n.id.qp().qpNum()).ud(n.ah, n.remoteQpn, n.remoteQkey);
        for (int i = 0; i < o.messages(); i++) {
            if (n.id.qp().postSend(w) != 1) {
                throw new ToolFailure("failed to post sends: send queue full");
            }
        }
    }

    /** {@code poll_cqs}: the message count per node; the first receive gives the server its reply AH. */
    private void pollCqs(Cleanup c) {
        WorkCompletion[] wc = new WorkCompletion[8];
        for (int i = 0; i < wc.length; i++) {
            wc[i] = new WorkCompletion();
        }
        for (Node n : nodes) {
            if (!n.connected) {
                continue;
            }
            long deadline = System.nanoTime() + o.timeout().toNanos();
            for (int done = 0; done < o.messages();) {
                int got = n.cq.poll(wc, 0, Math.min(wc.length, o.messages() - done));
                for (int k = 0; k < got; k++) {
                    if (wc[k].status() != WcStatus.SUCCESS) {
                        throw new ToolFailure("udaddy: completion failed with status " + wc[k].status()
                                + " on connection " + n.index);
                    }
                }
                if (got > 0 && n.ah == null) {
                    // create_reply_ah: the peer's QPN came as immediate data; the Q_Key is the one rdma_cm gave
                    // both QPs of the UDP port space.
                    n.ah = c.add(n.pd.createAh(n.requestAh));
                    n.remoteQpn = wc[0].immData();
                    n.remoteQkey = n.id.qp().query().qkey();
                }
                done += got;
                if (got == 0) {
                    if (System.nanoTime() - deadline > 0) {
                        throw new ToolFailure("udaddy: " + done + " of " + o.messages() + " completions on connection "
                                + n.index + " before the timeout");
                    }
                    Thread.onSpinWait();
                }
            }
        }
    }
}
