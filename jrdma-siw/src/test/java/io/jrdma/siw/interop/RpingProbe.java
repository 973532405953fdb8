package io.jrdma.siw.interop;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
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
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A minimal rping peer (the librdmacm example's protocol) for checking the transport against Linux:
 * {@code RpingProbe server PORT COUNT} or {@code RpingProbe client HOST PORT COUNT SIZE}. It prints
 * what it moved and exits non-zero on any failure. The real tool is {@code jrdma rping}.
 */
public final class RpingProbe {
    private static final ValueLayout.OfLong BE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private RpingProbe() {
    }

    /** Entry point. */
    public static void main(String[] args) throws Exception {
        boolean server = args[0].equals("server");
        try (RdmaCm cm = RdmaCm.open(System.getProperty("probe.device", "siw0"));
                EventChannel ch = cm.createEventChannel(); Arena arena = Arena.ofShared()) {
            int rc = server ? server(cm, ch, arena, Integer.parseInt(args[1]), Integer.parseInt(args[2]))
                    : client(cm, ch, arena, args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]),
                    Integer.parseInt(args[4]));
            System.exit(rc);
        }
    }

    private static CmEvent expect(EventChannel ch, CmEventType t) throws InterruptedException {
        CmEvent e = ch.getEvent(Duration.ofSeconds(30));
        if (e == null || e.type() != t) {
            throw new IllegalStateException("expected " + t + ", got " + e);
        }
        ch.ackEvent(e);
        return e;
    }

    private static WorkCompletion poll(CompletionQueue cq) {
        WorkCompletion[] wc = {new WorkCompletion()};
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (cq.poll(wc) == 1) {
                if (wc[0].status() != WcStatus.SUCCESS) {
                    throw new IllegalStateException("completion failed: " + wc[0]);
                }
                return wc[0];
            }
            Thread.onSpinWait();
        }
        throw new IllegalStateException("no completion in 30 s");
    }

    private static void advertise(MemorySegment info, MemoryRegion mr, int size) {
        info.set(BE64, 0, mr.address());
        info.set(BE32, 8, mr.rkey());
        info.set(BE32, 12, size);
    }

    private static int server(RdmaCm cm, EventChannel ch, Arena arena, int port, int count) throws Exception {
        CmId listener = ch.createId(null, PortSpace.TCP);
        listener.bind(new InetSocketAddress("0.0.0.0", port));
        listener.listen(4);
        System.out.println("listening on " + port);
        CmEvent req = ch.getEvent(Duration.ofSeconds(60));
        ch.ackEvent(req);
        CmId conn = req.id();
        ProtectionDomain pd = conn.verbs().allocPd();
        CompletionQueue cq = conn.verbs().createCq(16);
        QueuePair qp = conn.createQp(pd, QpInitAttr.rc(cq, QpCap.of(8, 8)));
        MemorySegment recv = arena.allocate(16);
        MemorySegment send = arena.allocate(16);
        MemorySegment rdma = arena.allocate(1 << 20);
        MemoryRegion rmr = pd.registerMemory(recv, Access.LOCAL_WRITE);
        MemoryRegion smr = pd.registerMemory(send, 0);
        MemoryRegion dmr = pd.registerMemory(rdma, Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE);
        qp.postRecv(new RecvWr().wrId(1).sg(rmr, 0, 16));
        conn.accept(new ConnParam(null, 1, 1, false, 7, 7, false, 0));
        expect(ch, CmEventType.ESTABLISHED);
        for (int i = 0; i < count; i++) {
            poll(cq); // client's start buffer advertisement
            long addr = recv.get(BE64, 0);
            int rkey = recv.get(BE32, 8);
            int len = recv.get(BE32, 12);
            qp.postRecv(new RecvWr().wrId(1).sg(rmr, 0, 16));
            qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                    .sg(dmr, 0, len).rdma(addr, rkey));
            poll(cq);
            String text = rdma.getString(0, StandardCharsets.US_ASCII);
            System.out.println("server ping data: " + text);
            qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(smr, 0, 16));
            poll(cq);
            poll(cq); // client's rdma buffer advertisement
            addr = recv.get(BE64, 0);
            rkey = recv.get(BE32, 8);
            qp.postRecv(new RecvWr().wrId(1).sg(rmr, 0, 16));
            int n = text.length() + 1;
            qp.postSend(new SendWr().wrId(4).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .sg(dmr, 0, n).rdma(addr, rkey));
            poll(cq);
            qp.postSend(new SendWr().wrId(5).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(smr, 0, 16));
            poll(cq);
        }
        expect(ch, CmEventType.DISCONNECTED);
        conn.disconnect();
        System.out.println("server done: " + count + " iterations");
        return 0;
    }

    private static int client(RdmaCm cm, EventChannel ch, Arena arena, String host, int port, int count, int size)
            throws Exception {
        CmId id = ch.createId(null, PortSpace.TCP);
        id.resolveAddr(null, new InetSocketAddress(host, port), Duration.ofSeconds(2));
        expect(ch, CmEventType.ADDR_RESOLVED);
        id.resolveRoute(Duration.ofSeconds(2));
        expect(ch, CmEventType.ROUTE_RESOLVED);
        ProtectionDomain pd = id.verbs().allocPd();
        CompletionQueue cq = id.verbs().createCq(16);
        QueuePair qp = id.createQp(pd, QpInitAttr.rc(cq, QpCap.of(8, 8)));
        MemorySegment recv = arena.allocate(16);
        MemorySegment send = arena.allocate(16);
        MemorySegment start = arena.allocate(size);
        MemorySegment rdma = arena.allocate(size);
        MemoryRegion rmr = pd.registerMemory(recv, Access.LOCAL_WRITE);
        MemoryRegion smr = pd.registerMemory(send, 0);
        MemoryRegion stmr = pd.registerMemory(start, Access.LOCAL_WRITE | Access.REMOTE_READ);
        MemoryRegion dmr = pd.registerMemory(rdma, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        qp.postRecv(new RecvWr().wrId(1).sg(rmr, 0, 16));
        id.connect(new ConnParam(null, 1, 1, false, 7, 7, false, 0));
        expect(ch, CmEventType.ESTABLISHED);
        for (int i = 0; i < count; i++) {
            // RPING_MSG_FMT "rdma-ping-%d: " followed by a rotating printable pattern
            String head = "rdma-ping-" + i + ": ";
            byte[] msg = new byte[size];
            byte[] hb = head.getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(hb, 0, msg, 0, Math.min(hb.length, size));
            for (int k = hb.length, c = 65 + i % 62; k < size - 1; k++, c = c == 122 ? 65 : c + 1) {
                msg[k] = (byte) c;
            }
            msg[size - 1] = 0;
            MemorySegment.copy(msg, 0, start, ValueLayout.JAVA_BYTE, 0, size);
            rdma.fill((byte) 0);
            advertise(send, stmr, size);
            qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(smr, 0, 16));
            poll(cq);
            poll(cq); // server read our buffer
            qp.postRecv(new RecvWr().wrId(1).sg(rmr, 0, 16));
            advertise(send, dmr, size);
            qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(smr, 0, 16));
            poll(cq);
            poll(cq); // server wrote our rdma buffer
            qp.postRecv(new RecvWr().wrId(1).sg(rmr, 0, 16));
            int n = start.getString(0, StandardCharsets.US_ASCII).length() + 1;
            if (start.asSlice(0, n).mismatch(rdma.asSlice(0, n)) != -1) {
                System.out.println("data mismatch in iteration " + i);
                return 1;
            }
            System.out.println("ping data: " + rdma.getString(0, StandardCharsets.US_ASCII));
        }
        id.disconnect();
        expect(ch, CmEventType.DISCONNECTED);
        System.out.println("client done: " + count + " iterations of " + size + " bytes");
        return 0;
    }
}
