package io.jrdma.examples;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.cm.UdParam;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Unreliable datagrams through the connection manager's UDP port space, as rdma-core's
 * {@code udaddy} does: the client "connects" an id of {@link PortSpace#UDP} to the server, which the
 * IB CM carries as a SIDR request ({@code rdma_connect} on a UD id); the server accepts; the client's
 * ESTABLISHED event brings the server QP's number, Q_Key and address vector ({@code rdma_ud_param}).
 * No connection state exists afterwards: the client makes an address handle ({@code ibv_create_ah}) and
 * sends datagrams to the QP number with the Q_Key. Each datagram lands behind a 40-byte GRH in the
 * receive buffer, as on any UD QP. Needs an IB-transport device: the loop provider or rxe (iWARP has no
 * UD).
 */
public final class UdExample {
    /** The example's default port. */
    public static final int PORT = 7474;
    /** The global route header every UD receive starts with (IBTA 11.4.1.1). */
    public static final int GRH = 40;
    private static final int SLOT = 256;
    private static final int SLOTS = 32;

    private UdExample() {
    }

    private record Ud(ProtectionDomain pd, CompletionQueue cq, MemorySegment buf, MemoryRegion mr) {
        static Ud create(CmId id, Arena arena) {
            ProtectionDomain pd = id.verbs().allocPd();
            CompletionQueue cq = id.verbs().createCq(3 * SLOTS);
            // Receive room for twice the receives kept posted: a receive's slot frees an instant after
            // its completion is reported, so a repost right after the poll needs the headroom.
            id.createQp(pd, QpInitAttr.of(QpType.UD, cq, QpCap.of(SLOTS, 2 * SLOTS)));
            MemorySegment buf = arena.allocate((long) SLOT * SLOTS, 64);
            return new Ud(pd, cq, buf, pd.registerMemory(buf, Access.LOCAL_WRITE));
        }

        void close(CmId id) {
            id.destroyQp();
            mr.close();
            cq.close();
            pd.close();
        }
    }

    /**
     * Serves one SIDR request on {@code at} and returns the first {@code count} datagrams that arrive.
     *
     * @param cm the connection manager
     * @param at the address to listen on
     * @param count how many datagrams to wait for
     * @param listening run once the server listens
     * @return the datagrams' text
     * @throws InterruptedException if interrupted while waiting
     */
    public static List<String> serve(RdmaCm cm, InetSocketAddress at, int count, Runnable listening)
            throws InterruptedException {
        List<String> got = new ArrayList<>();
        try (EventChannel ch = cm.createEventChannel(); Arena arena = Arena.ofShared()) {
            CmId listen = ch.createId(null, PortSpace.UDP);
            try {
                listen.bind(at);
                listen.listen(1);
                listening.run();
                CmEvent req = Completions.expect(ch, CmEventType.CONNECT_REQUEST);
                CmId id = req.id();
                Ud ud = Ud.create(id, arena);
                for (int i = 0; i < SLOTS; i++) {
                    id.qp().postRecv(new RecvWr().wrId(i).sg(ud.mr(), (long) SLOT * i, SLOT));
                }
                id.accept(ConnParam.defaults()); // the SIDR reply: our QP number and Q_Key
                WorkCompletion wc = new WorkCompletion();
                while (got.size() < count) {
                    Completions.next(ud.cq(), wc);
                    int slot = (int) wc.wrId();
                    byte[] data = ud.buf().asSlice((long) SLOT * slot + GRH, wc.byteLen() - GRH)
                            .toArray(ValueLayout.JAVA_BYTE);
                    got.add(new String(data, StandardCharsets.UTF_8));
                    id.qp().postRecv(new RecvWr().wrId(slot).sg(ud.mr(), (long) SLOT * slot, SLOT));
                }
                ud.close(id);
                id.destroy();
            } finally {
                listen.destroy();
            }
        }
        return got;
    }

    /**
     * Resolves the server's QP with SIDR and sends it {@code messages} as datagrams.
     *
     * @param cm the connection manager
     * @param server the server's address
     * @param messages the texts to send (each at most 200 bytes)
     * @return the server's QP number, Q_Key and address vector as ESTABLISHED reported them
     * @throws InterruptedException if interrupted while waiting
     */
    public static UdParam run(RdmaCm cm, InetSocketAddress server, List<String> messages) throws InterruptedException {
        try (EventChannel ch = cm.createEventChannel(); Arena arena = Arena.ofShared()) {
            CmId id = ch.createId(null, PortSpace.UDP);
            try {
                id.resolveAddr(null, server, Duration.ofSeconds(2));
                Completions.expect(ch, CmEventType.ADDR_RESOLVED);
                id.resolveRoute(Duration.ofSeconds(2));
                Completions.expect(ch, CmEventType.ROUTE_RESOLVED);
                Ud ud = Ud.create(id, arena);
                id.connect(ConnParam.defaults()); // SIDR_REQ
                UdParam remote = Completions.expect(ch, CmEventType.ESTABLISHED).ud();
                AddressHandle ah = ud.pd().createAh(remote.ahAttr());
                WorkCompletion wc = new WorkCompletion();
                for (int i = 0; i < messages.size(); i++) {
                    byte[] text = messages.get(i).getBytes(StandardCharsets.UTF_8);
                    MemorySegment.copy(text, 0, ud.buf(), ValueLayout.JAVA_BYTE, 0, text.length);
                    id.qp().postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
                            .sg(ud.mr(), 0, text.length).ud(ah, remote.qpNum(), remote.qkey()));
                    Completions.next(ud.cq(), wc);
                }
                ah.close();
                ud.close(id);
                return remote;
            } finally {
                id.destroy();
            }
        }
    }

    /**
     * Runs one side: {@code [-d device] [-p port] server [address]} or {@code ... client address}.
     *
     * @param args the command line
     * @throws Exception if the example fails
     */
    public static void main(String[] args) throws Exception {
        String device = null;
        int port = PORT;
        int i = 0;
        for (; i + 1 < args.length && args[i].startsWith("-"); i += 2) {
            if (args[i].equals("-d")) {
                device = args[i + 1];
            } else {
                port = Integer.parseInt(args[i + 1]);
            }
        }
        if (i >= args.length) {
            System.out.println("usage: UdExample [-d device] [-p port] server [address] | client address");
            System.exit(1);
        }
        boolean serverSide = args[i].equals("server");
        String host = i + 1 < args.length ? args[i + 1] : serverSide ? "0.0.0.0" : "127.0.0.1";
        try (RdmaCm cm = device == null ? RdmaCm.open() : RdmaCm.open(device)) {
            InetSocketAddress at = new InetSocketAddress(host, port);
            if (serverSide) {
                for (String s : serve(cm, at, 3, () -> System.out.println("listening on " + at))) {
                    System.out.println("received: " + s);
                }
            } else {
                UdParam p = run(cm, at, List.of("datagram 1", "datagram 2", "datagram 3"));
                System.out.printf("sent 3 datagrams to QP 0x%x (Q_Key 0x%x)%n", p.qpNum(), p.qkey());
            }
        }
    }
}
