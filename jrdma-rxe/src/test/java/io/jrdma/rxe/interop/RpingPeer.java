package io.jrdma.rxe.interop;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.rxe.RxeDevice;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A minimal peer speaking librdmacm's rping protocol (rdma-core {@code librdmacm/examples/rping.c},
 * behaviour only) over jrdma, to prove interoperability with Linux rxe before the real
 * {@code jrdma rping} tool exists. Per ping: the client SENDs its source buffer advertisement
 * {addr be64, rkey be32, size be32}; the server RDMA READs it and SENDs "go ahead"; the client SENDs
 * its sink advertisement; the server RDMA WRITEs the data back and SENDs "go ahead"; the client
 * compares (-V). Options as rping: {@code -s|-c -a addr [-I src] [-p port] [-C count] [-S size] [-v]
 * [-V]}. Exit status 0 on success. Prints the rxe device counters at the end.
 */
public final class RpingPeer {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int INFO = 16;
    private static final ValueLayout.OfLong BE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private boolean server;
    private InetAddress addr;
    private InetAddress source;
    private int port = 7174;
    private int count;
    private int size = 64;
    private boolean verbose;
    private boolean validate;

    private EventChannel ch;
    private CompletionQueue cq;
    private QueuePair qp;
    private MemoryRegion recvMr;
    private MemoryRegion sendMr;
    private MemoryRegion rdmaMr;
    private MemoryRegion startMr;
    private final WorkCompletion[] wc = {new WorkCompletion()};
    private boolean peerDisconnected;

    private RpingPeer() {
    }

    /** Runs rping's client or server; see the class comment for the options. */
    public static void main(String[] args) throws Exception {
        RpingPeer p = new RpingPeer();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "-s" -> p.server = true;
                case "-c" -> p.server = false;
                case "-a" -> p.addr = InetAddress.getByName(args[++i]);
                case "-I" -> p.source = InetAddress.getByName(args[++i]);
                case "-p" -> p.port = Integer.parseInt(args[++i]);
                case "-C" -> p.count = Integer.parseInt(args[++i]);
                case "-S" -> p.size = Integer.parseInt(args[++i]);
                case "-v" -> p.verbose = true;
                case "-V" -> p.validate = true;
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (p.addr == null) {
            throw new IllegalArgumentException("-a addr is required");
        }
        int rc;
        try (RdmaCm cm = RdmaCm.open(); Arena arena = Arena.ofShared()) {
            p.ch = cm.createEventChannel();
            rc = p.server ? p.runServer(arena) : p.runClient(arena);
            for (Device d : cm.devices()) {
                if (d instanceof DeviceImpl di && di.providerDevice() instanceof RxeDevice rd) {
                    System.out.println("counters " + d.name() + ": " + rd.counters());
                }
            }
            p.ch.close();
        }
        System.out.println("rping exit " + rc);
        System.exit(rc);
    }

    private CmEvent expect(CmEventType type) throws InterruptedException {
        CmEvent e = ch.getEvent(WAIT);
        if (e == null) {
            throw new IllegalStateException("no " + type + " within " + WAIT);
        }
        ch.ackEvent(e);
        if (e.type() != type) {
            throw new IllegalStateException("expected " + type + ", got " + e);
        }
        return e;
    }

    private void setup(CmId id, Arena arena) {
        ProtectionDomain pd = id.verbs().allocPd();
        cq = id.verbs().createCq(32);
        qp = id.createQp(pd, QpInitAttr.of(QpType.RC, cq, new QpCap(16, 2, 1, 1, 0)));
        recvMr = pd.registerMemory(arena.allocate(INFO, 8), Access.LOCAL_WRITE);
        sendMr = pd.registerMemory(arena.allocate(INFO, 8), 0);
        int rw = Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE;
        rdmaMr = pd.registerMemory(arena.allocate(size, 8), rw);
        if (!server) {
            startMr = pd.registerMemory(arena.allocate(size, 8), rw);
        }
        postRecv();
    }

    private void postRecv() {
        qp.postRecv(new RecvWr().wrId(1).sg(recvMr, 0, INFO));
    }

    private static ConnParam connParam() {
        return new ConnParam(new byte[0], 1, 1, false, 7, 7, false, 0);
    }

    /** Waits for one successful completion of {@code opcode}; other successful ones are skipped. */
    private WorkCompletion await(WcOpcode opcode) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (cq.poll(wc) == 1) {
                WorkCompletion w = wc[0];
                if (w.status() != WcStatus.SUCCESS) {
                    throw new IllegalStateException("completion failed: " + w);
                }
                if (w.opcode() == opcode) {
                    return w;
                }
            } else {
                Thread.onSpinWait();
            }
        }
        throw new IllegalStateException("no " + opcode + " completion within " + WAIT);
    }

    private void sendInfo(MemoryRegion mr) {
        MemorySegment s = sendMr.segment();
        s.set(BE64, 0, mr.address());
        s.set(BE32, 8, mr.rkey());
        s.set(BE32, 12, size);
        qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(sendMr, 0, INFO));
    }

    private static String cString(MemorySegment s) {
        int n = 0;
        while (n < s.byteSize() && s.get(ValueLayout.JAVA_BYTE, n) != 0) {
            n++;
        }
        return new String(s.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.US_ASCII);
    }

    private int runClient(Arena arena) throws Exception {
        CmId id = ch.createId("rping-client", PortSpace.TCP, QpType.RC);
        id.resolveAddr(source == null ? null : new InetSocketAddress(source, 0), new InetSocketAddress(addr, port),
                Duration.ofSeconds(2));
        expect(CmEventType.ADDR_RESOLVED);
        id.resolveRoute(Duration.ofSeconds(2));
        expect(CmEventType.ROUTE_RESOLVED);
        System.out.println("device " + id.device().name() + " " + id.localAddress() + " -> " + id.peerAddress());
        setup(id, arena);
        id.connect(connParam());
        expect(CmEventType.ESTABLISHED);
        MemorySegment start = startMr.segment();
        int first = 65;
        for (int ping = 0; count == 0 || ping < count; ping++) {
            byte[] head = String.format("rdma-ping-%d: ", ping).getBytes(StandardCharsets.US_ASCII);
            int cc = Math.min(head.length, size);
            MemorySegment.copy(head, 0, start, ValueLayout.JAVA_BYTE, 0, cc);
            int c = first;
            for (int i = cc; i < size; i++) {
                start.set(ValueLayout.JAVA_BYTE, i, (byte) c);
                c = c + 1 > 122 ? 65 : c + 1;
            }
            first = first + 1 > 122 ? 65 : first + 1;
            start.set(ValueLayout.JAVA_BYTE, size - 1, (byte) 0);
            sendInfo(startMr);
            await(WcOpcode.RECV);
            postRecv();
            sendInfo(rdmaMr);
            await(WcOpcode.RECV);
            postRecv();
            if (validate && start.mismatch(rdmaMr.segment()) >= 0) {
                System.out.println("data mismatch!");
                return 1;
            }
            if (verbose) {
                System.out.println("ping data: " + cString(rdmaMr.segment()));
            }
        }
        id.disconnect();
        expect(CmEventType.DISCONNECTED);
        id.destroyQp();
        id.destroy();
        return 0;
    }

    private int runServer(Arena arena) throws Exception {
        CmId listener = ch.createId("rping-server", PortSpace.TCP, QpType.RC);
        listener.bind(new InetSocketAddress(addr, port));
        listener.listen(3);
        System.out.println("listening on " + listener.localAddress() + " (" + listener.device().name() + ")");
        CmEvent req = expect(CmEventType.CONNECT_REQUEST);
        CmId conn = req.id();
        setup(conn, arena);
        conn.accept(connParam());
        expect(CmEventType.ESTABLISHED);
        int pings = 0;
        while (count == 0 || pings < count) {
            WorkCompletion r = awaitRecvOrDisconnect();
            if (r == null) {
                break;
            }
            MemorySegment info = recvMr.segment();
            long raddr = info.get(BE64, 0);
            int rkey = info.get(BE32, 8);
            int rlen = info.get(BE32, 12);
            postRecv();
            qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                    .sg(rdmaMr, 0, Math.min(rlen, size)).rdma(raddr, rkey));
            await(WcOpcode.RDMA_READ);
            if (verbose) {
                System.out.println("server ping data: " + cString(rdmaMr.segment()));
            }
            qp.postSend(new SendWr().wrId(4).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(sendMr, 0, INFO));
            if (awaitRecvOrDisconnect() == null) {
                break;
            }
            raddr = info.get(BE64, 0);
            rkey = info.get(BE32, 8);
            postRecv();
            int len = cString(rdmaMr.segment()).length() + 1;
            qp.postSend(new SendWr().wrId(5).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .sg(rdmaMr, 0, len).rdma(raddr, rkey));
            await(WcOpcode.RDMA_WRITE);
            qp.postSend(new SendWr().wrId(6).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(sendMr, 0, INFO));
            pings++;
        }
        System.out.println("server: " + pings + " pings");
        conn.disconnect();
        CmEvent e;
        while (!peerDisconnected && (e = ch.getEvent(Duration.ofSeconds(5))) != null) {
            ch.ackEvent(e);
            peerDisconnected = e.type() == CmEventType.DISCONNECTED;
        }
        conn.destroyQp();
        conn.destroy();
        listener.destroy();
        return 0;
    }

    /** The next receive, or {@code null} once the client disconnected (DISCONNECTED or a flush). */
    private WorkCompletion awaitRecvOrDisconnect() throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (cq.poll(wc) == 1) {
                WorkCompletion w = wc[0];
                if (w.status() == WcStatus.WR_FLUSH_ERR) {
                    return null;
                }
                if (w.status() != WcStatus.SUCCESS) {
                    throw new IllegalStateException("completion failed: " + w);
                }
                if (w.opcode() == WcOpcode.RECV) {
                    if (w.byteLen() != INFO) {
                        throw new IllegalStateException("Received bogus data, size " + w.byteLen());
                    }
                    return w;
                }
                continue;
            }
            CmEvent e = ch.pollEvent();
            if (e != null) {
                ch.ackEvent(e);
                if (e.type() == CmEventType.DISCONNECTED) {
                    System.out.println("server DISCONNECT EVENT...");
                    peerDisconnected = true;
                    return null;
                }
            }
            Thread.sleep(0, 100_000);
        }
        throw new IllegalStateException("no receive within " + WAIT);
    }
}
