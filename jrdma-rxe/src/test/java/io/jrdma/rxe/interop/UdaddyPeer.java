package io.jrdma.rxe.interop;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.cm.UdParam;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.rxe.RxeDevice;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * A minimal peer speaking librdmacm's udaddy protocol (rdma-core {@code librdmacm/examples/udaddy.c},
 * behaviour only) over jrdma: UD in the UDP port space, the remote QPN and Q_Key resolved with
 * SIDR. The client sends {@code -C} SEND-with-immediate datagrams (immediate = its QPN) and waits
 * for as many replies; the server waits for the datagrams, builds its reply address from the
 * first one's GRH (IPv4 source at byte 32, as {@code ibv_create_ah_from_wc} reads it) and replies.
 * Options: {@code [-s server] [-b bind] [-p port] [-C count] [-S size]}.
 */
public final class UdaddyPeer {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int GRH = 40;

    private UdaddyPeer() {
    }

    /** Runs udaddy's client ({@code -s server}) or server. */
    public static void main(String[] args) throws Exception {
        String server = null;
        String bind = null;
        int port = 7174;
        int count = 10;
        int size = 100;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "-s" -> server = args[++i];
                case "-b" -> bind = args[++i];
                case "-p" -> port = Integer.parseInt(args[++i]);
                case "-C" -> count = Integer.parseInt(args[++i]);
                case "-S" -> size = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        int rc;
        try (RdmaCm cm = RdmaCm.open(); EventChannel ch = cm.createEventChannel(); Arena arena = Arena.ofShared()) {
            rc = server != null ? client(ch, arena, bind, server, port, count, size)
                    : server(ch, arena, bind, port, count, size);
            for (Device d : cm.devices()) {
                if (d instanceof DeviceImpl di && di.providerDevice() instanceof RxeDevice rd) {
                    System.out.println("counters " + d.name() + ": " + rd.counters());
                }
            }
        }
        System.out.println("return status " + rc);
        System.exit(rc);
    }

    private static CmEvent expect(EventChannel ch, CmEventType type) throws InterruptedException {
        CmEvent e = ch.getEvent(WAIT);
        if (e == null || e.type() != type) {
            throw new IllegalStateException("expected " + type + ", got " + e);
        }
        ch.ackEvent(e);
        return e;
    }

    private static int client(EventChannel ch, Arena arena, String bind, String server, int port, int count,
            int size) throws Exception {
        System.out.println("udaddy: starting client");
        CmId id = ch.createId("udaddy-client", PortSpace.UDP, QpType.UD);
        id.resolveAddr(bind == null ? null : new InetSocketAddress(InetAddress.getByName(bind), 0),
                new InetSocketAddress(InetAddress.getByName(server), port), Duration.ofSeconds(2));
        expect(ch, CmEventType.ADDR_RESOLVED);
        id.resolveRoute(Duration.ofSeconds(2));
        expect(ch, CmEventType.ROUTE_RESOLVED);
        ProtectionDomain pd = id.verbs().allocPd();
        CompletionQueue cq = id.verbs().createCq(count * 2);
        QueuePair qp = id.createQp(pd, QpInitAttr.of(QpType.UD, cq, QpCap.of(count, count)));
        MemoryRegion mr = pd.registerMemory(arena.allocate(size + GRH, 8), Access.LOCAL_WRITE);
        for (int i = 0; i < count; i++) {
            qp.postRecv(new RecvWr().wrId(i).sg(mr, 0, size + GRH));
        }
        System.out.println("udaddy: connecting");
        id.connect(ConnParam.defaults());
        UdParam ud = expect(ch, CmEventType.ESTABLISHED).ud();
        System.out.println("resolved remote QPN 0x" + Integer.toHexString(ud.qpNum()) + " qkey 0x"
                + Integer.toHexString(ud.qkey()));
        AddressHandle ah = pd.createAh(ud.ahAttr());
        System.out.println("initiating data transfers");
        for (int i = 0; i < count; i++) {
            qp.postSend(new SendWr().wrId(100 + i).opcode(WrOpcode.SEND_WITH_IMM).immData(qp.qpNum())
                    .sg(mr, GRH, size).ud(ah, ud.qpNum(), ud.qkey()));
        }
        System.out.println("receiving data transfers");
        int got = receive(cq, count, size);
        System.out.println("data transfers complete: " + got + " replies");
        ah.close();
        mr.close();
        id.destroyQp();
        id.destroy();
        return got == count ? 0 : 1;
    }

    private static int receive(CompletionQueue cq, int count, int size) {
        WorkCompletion[] wc = {new WorkCompletion()};
        int got = 0;
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (got < count && System.nanoTime() < deadline) {
            if (cq.poll(wc) == 1) {
                WorkCompletion w = wc[0];
                if (w.status() != WcStatus.SUCCESS) {
                    throw new IllegalStateException("completion failed: " + w);
                }
                if (w.opcode() == io.jrdma.verbs.WcOpcode.RECV) {
                    if (w.byteLen() != size + GRH) {
                        throw new IllegalStateException("received " + w.byteLen() + " bytes, not " + (size + GRH));
                    }
                    got++;
                }
            } else {
                Thread.onSpinWait();
            }
        }
        return got;
    }

    private static int server(EventChannel ch, Arena arena, String bind, int port, int count, int size)
            throws Exception {
        System.out.println("udaddy: starting server");
        CmId listener = ch.createId("udaddy-server", PortSpace.UDP, QpType.UD);
        listener.bind(new InetSocketAddress(bind == null ? InetAddress.getByName("0.0.0.0")
                : InetAddress.getByName(bind), port));
        listener.listen(0);
        CmEvent req = expect(ch, CmEventType.CONNECT_REQUEST);
        CmId conn = req.id();
        ProtectionDomain pd = conn.verbs().allocPd();
        CompletionQueue cq = conn.verbs().createCq(count * 2);
        QueuePair qp = conn.createQp(pd, QpInitAttr.of(QpType.UD, cq, QpCap.of(count, count)));
        MemoryRegion mr = pd.registerMemory(arena.allocate(size + GRH, 8), Access.LOCAL_WRITE);
        for (int i = 0; i < count; i++) {
            qp.postRecv(new RecvWr().wrId(i).sg(mr, 0, size + GRH));
        }
        conn.accept(ConnParam.defaults());
        System.out.println("receiving data transfers");
        WorkCompletion[] wc = {new WorkCompletion()};
        int got = 0;
        int remoteQpn = -1;
        AddressHandle ah = null;
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (got < count && System.nanoTime() < deadline) {
            if (cq.poll(wc) == 1) {
                if (wc[0].status() != WcStatus.SUCCESS) {
                    throw new IllegalStateException("completion failed: " + wc[0]);
                }
                if (ah == null) {
                    // ibv_create_ah_from_wc: for RoCEv2 over IPv4 the sender is the IPv4 source at byte 32.
                    MemorySegment g = mr.segment();
                    byte[] src = g.asSlice(32, 4).toArray(ValueLayout.JAVA_BYTE);
                    ah = pd.createAh(AhAttr.to(Gid.of(InetAddress.getByAddress(src))));
                    remoteQpn = wc[0].immData();
                    System.out.println("reply to " + InetAddress.getByAddress(src).getHostAddress() + " QPN 0x"
                            + Integer.toHexString(remoteQpn) + " (from the immediate data; src_qp 0x"
                            + Integer.toHexString(wc[0].srcQp()) + ")");
                }
                got++;
            } else {
                Thread.onSpinWait();
            }
        }
        System.out.println("received " + got);
        System.out.println("sending replies");
        int qkey = qp.query().qkey();
        for (int i = 0; i < count; i++) {
            qp.postSend(new SendWr().wrId(100 + i).opcode(WrOpcode.SEND_WITH_IMM).immData(qp.qpNum())
                    .flags(SendFlags.SIGNALED).sg(mr, GRH, size).ud(ah, remoteQpn, qkey));
        }
        int sent = 0;
        deadline = System.nanoTime() + WAIT.toNanos();
        while (sent < count && System.nanoTime() < deadline) {
            if (cq.poll(wc) == 1) {
                if (wc[0].status() != WcStatus.SUCCESS) {
                    throw new IllegalStateException("completion failed: " + wc[0]);
                }
                sent++;
            } else {
                Thread.onSpinWait();
            }
        }
        System.out.println("data transfers complete");
        ah.close();
        mr.close();
        conn.destroyQp();
        conn.destroy();
        listener.destroy();
        return got == count && sent == count ? 0 : 1;
    }
}
