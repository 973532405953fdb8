package io.jrdma.siw.interop;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AsyncEvent;
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
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * Error paths against Linux siw, for the interop rig: {@code ErrorProbe client-bad-read HOST PORT}
 * connects to a guest {@code rping -s} and reads from an STag siw does not know (siw answers with a
 * TERMINATE RDMAP / remote protection / invalid STag; jrdma must complete the READ with REM_ACCESS_ERR);
 * {@code ErrorProbe server-short-recv PORT} accepts a guest {@code rping -c} with an 8-byte receive for
 * rping's 16-byte first SEND (jrdma completes it with LOC_LEN_ERR and sends TERMINATE DDP / untagged /
 * MSN no buffer, which siw logs as "got TERMINATE. layer 1, type 2, code 2"). Exit code 0 when jrdma saw
 * what it should.
 */
public final class ErrorProbe {
    private ErrorProbe() {
    }

    /** Entry point. */
    public static void main(String[] args) throws Exception {
        try (RdmaCm cm = RdmaCm.open("siw0"); EventChannel ch = cm.createEventChannel();
                Arena arena = Arena.ofShared()) {
            int rc = args[0].equals("client-bad-read") ? badRead(ch, arena, args[1], Integer.parseInt(args[2]))
                    : shortRecv(ch, arena, Integer.parseInt(args[1]));
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
                return wc[0];
            }
            Thread.onSpinWait();
        }
        throw new IllegalStateException("no completion in 30 s");
    }

    private static int badRead(EventChannel ch, Arena arena, String host, int port) throws Exception {
        CmId id = ch.createId(null, PortSpace.TCP);
        id.resolveAddr(null, new InetSocketAddress(host, port), Duration.ofSeconds(2));
        expect(ch, CmEventType.ADDR_RESOLVED);
        id.resolveRoute(Duration.ofSeconds(2));
        expect(ch, CmEventType.ROUTE_RESOLVED);
        ProtectionDomain pd = id.verbs().allocPd();
        CompletionQueue cq = id.verbs().createCq(16);
        QueuePair qp = id.createQp(pd, QpInitAttr.rc(cq, QpCap.of(8, 8)));
        MemoryRegion sink = pd.registerMemory(arena.allocate(4096), Access.LOCAL_WRITE);
        id.connect(new ConnParam(null, 1, 1, false, 7, 7, false, 0));
        expect(ch, CmEventType.ESTABLISHED);
        Thread.sleep(500); // siw's accept race (golden README): let its QP take the socket first
        qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED).sg(sink, 0, 64)
                .rdma(0x2000, 0x00DEAD00));
        WorkCompletion wc = poll(cq);
        AsyncEvent ev = id.verbs().getAsyncEvent(Duration.ofSeconds(5));
        System.out.println("READ of an unknown STag: " + wc.status() + "; QP " + qp.state() + "; event " + ev);
        return wc.status() == WcStatus.REM_ACCESS_ERR ? 0 : 1;
    }

    private static int shortRecv(EventChannel ch, Arena arena, int port) throws Exception {
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
        MemoryRegion rmr = pd.registerMemory(arena.allocate(16), Access.LOCAL_WRITE);
        qp.postRecv(new RecvWr().wrId(1).sg(rmr, 0, 8));
        conn.accept(new ConnParam(null, 1, 1, false, 7, 7, false, 0));
        expect(ch, CmEventType.ESTABLISHED);
        WorkCompletion wc = poll(cq);
        AsyncEvent ev = conn.verbs().getAsyncEvent(Duration.ofSeconds(5));
        System.out.println("rping's 16-byte SEND into an 8-byte receive: " + wc.status() + "; QP " + qp.state()
                + "; event " + ev);
        Thread.sleep(1000); // the engine sends the TERMINATE after raising the event: do not exit before it
        return wc.status() == WcStatus.LOC_LEN_ERR ? 0 : 1;
    }
}
