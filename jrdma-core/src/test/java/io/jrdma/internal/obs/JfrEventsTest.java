package io.jrdma.internal.obs;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * jrdma's JFR events, recorded with {@link Recording} around real work on loop0 and read back with
 * {@link RecordingFile}: MR registration, QP state changes, a retransmission after no response, an
 * RNR wait, and the CM's state changes and events (a connection established, one rejected with its
 * reason). With no recording running, the hooks allocate nothing.
 */
class JfrEventsTest {
    private static final String[] EVENTS = {"jrdma.MrRegister", "jrdma.MrDeregister", "jrdma.QpState",
        "jrdma.Retransmit", "jrdma.RnrWait", "jrdma.CmIdState", "jrdma.CmEvent", "jrdma.Terminate"};

    @TempDir
    Path dir;

    private List<RecordedEvent> record(ThrowingRunnable work) throws Exception {
        Path file = dir.resolve("jrdma.jfr");
        try (Recording r = new Recording()) {
            for (String e : EVENTS) {
                r.enable(e);
            }
            r.start();
            work.run();
            r.stop();
            r.dump(file);
        }
        // JFR writes each thread's buffer on its own: put the events back in time order.
        return RecordingFile.readAllEvents(file).stream()
                .sorted(java.util.Comparator.comparing(RecordedEvent::getStartTime)).toList();
    }

    private static List<RecordedEvent> named(List<RecordedEvent> all, String name) {
        return all.stream().filter(e -> e.getEventType().getName().equals(name)).toList();
    }

    /** Work that may throw. */
    interface ThrowingRunnable {
        /** Runs. */
        void run() throws Exception;
    }

    private static WorkCompletion poll(CompletionQueue cq) {
        WorkCompletion[] wc = {new WorkCompletion()};
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (cq.poll(wc) == 0) {
            assertThat(System.nanoTime()).as("a completion within 10 s").isLessThan(deadline);
            Thread.onSpinWait();
        }
        return wc[0];
    }

    private static void toRts(QueuePair qp, Gid gid, int destQpn, int rnrRetry) {
        qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(Access.REMOTE_WRITE));
        qp.modify(new QpAttr().qpState(QpState.RTR).ahAttr(AhAttr.to(gid)).pathMtu(Mtu.MTU_1024).destQpNum(destQpn)
                .rqPsn(0).maxDestRdAtomic(1).minRnrTimer(1));
        qp.modify(new QpAttr().qpState(QpState.RTS).timeout(1).retryCnt(2).rnrRetry(rnrRetry).sqPsn(100)
                .maxRdAtomic(1));
    }

    @Test
    void verbsWorkRecordsMrQpStateRetransmitAndRnrWaitEvents() throws Exception {
        int[] qpns = new int[2];
        List<RecordedEvent> events = record(() -> {
            try (Context ctx = Rdma.device("loop0").open(); Arena arena = Arena.ofShared()) {
                ProtectionDomain pd = ctx.allocPd();
                CompletionQueue cq = ctx.createCq(16);
                MemoryRegion mr = pd.registerMemory(arena.allocate(4096), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
                QueuePair a = pd.createQp(QpInitAttr.rc(cq, QpCap.of(4, 4)));
                QueuePair b = pd.createQp(QpInitAttr.rc(cq, QpCap.of(4, 4)));
                qpns[0] = a.qpNum();
                qpns[1] = b.qpNum();
                Gid gid = ctx.queryGid(1, 0);
                // a talks to a QP number nobody has: retransmissions until retry_cnt runs out
                toRts(a, gid, 0xFFFFF0, 0);
                a.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                        .sg(mr, 0, 8).rdma(mr.address(), mr.rkey()));
                assertThat(poll(cq).status()).isEqualTo(WcStatus.RETRY_EXC_ERR);
                // b sends to a QP in RTS without receives: RNR NAKs and RNR waits
                QueuePair c = pd.createQp(QpInitAttr.rc(cq, QpCap.of(4, 4)));
                toRts(b, gid, c.qpNum(), 1);
                toRts(c, gid, b.qpNum(), 1);
                b.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(mr, 0, 8));
                assertThat(poll(cq).status()).isEqualTo(WcStatus.RNR_RETRY_EXC_ERR);
                mr.close();
            }
        });
        List<RecordedEvent> mrs = named(events, "jrdma.MrRegister");
        assertThat(mrs).hasSize(1);
        assertThat(mrs.get(0).getString("device")).isEqualTo("loop0");
        assertThat(mrs.get(0).getLong("length")).isEqualTo(4096);
        assertThat(mrs.get(0).getString("access")).contains("REMOTE_WRITE");
        assertThat(named(events, "jrdma.MrDeregister")).hasSize(1);

        List<RecordedEvent> states = named(events, "jrdma.QpState").stream()
                .filter(e -> e.getInt("qpNum") == qpns[0]).toList();
        assertThat(states).extracting(e -> e.getString("from") + "->" + e.getString("to"))
                .containsSubsequence("RESET->INIT", "INIT->RTR", "RTR->RTS", "RTS->ERR");
        assertThat(states.get(0).getString("qpType")).isEqualTo("RC");

        List<RecordedEvent> retransmits = named(events, "jrdma.Retransmit");
        assertThat(retransmits).as("retry_cnt 2: two retransmissions").hasSize(2);
        assertThat(retransmits).allSatisfy(e -> {
            assertThat(e.getInt("qpNum")).isEqualTo(qpns[0]);
            assertThat(e.getInt("psn")).isEqualTo(100);
            assertThat(e.getString("reason")).isEqualTo("no response");
        });
        assertThat(retransmits).extracting(e -> e.getInt("retriesLeft")).containsExactly(1, 0);

        List<RecordedEvent> rnr = named(events, "jrdma.RnrWait");
        assertThat(rnr).as("rnr_retry 1: one wait").hasSize(1);
        assertThat(rnr.get(0).getInt("qpNum")).isEqualTo(qpns[1]);
        assertThat(rnr.get(0).getDuration("wait")).isEqualTo(Duration.ofNanos(10_000)); // RNR timer code 1
    }

    private static CmEvent next(EventChannel ch, CmEventType type) throws InterruptedException {
        CmEvent e = ch.getEvent(Duration.ofSeconds(5));
        assertThat(e).as("waiting for " + type).isNotNull();
        assertThat(e.type()).as(e.toString()).isEqualTo(type);
        ch.ackEvent(e);
        return e;
    }

    @Test
    void connectionManagerWorkRecordsIdStatesAndEventsWithTheRejectReason() throws Exception {
        List<RecordedEvent> events = record(() -> {
            try (RdmaCm cm = RdmaCm.open("loop0"); EventChannel ch = cm.createEventChannel()) {
                CmId listener = ch.createId("server", PortSpace.TCP);
                listener.bind(new InetSocketAddress("127.0.0.1", 0));
                listener.listen(4);
                CmId client = ch.createId("client", PortSpace.TCP);
                client.resolveAddr(null, new InetSocketAddress("127.0.0.1", listener.localPort()),
                        Duration.ofSeconds(2));
                next(ch, CmEventType.ADDR_RESOLVED);
                client.resolveRoute(Duration.ofSeconds(2));
                next(ch, CmEventType.ROUTE_RESOLVED);
                ProtectionDomain pd = client.verbs().allocPd();
                CompletionQueue cq = client.verbs().createCq(8);
                client.createQp(pd, QpInitAttr.rc(cq, QpCap.of(2, 2)));
                client.connect(ConnParam.defaults());
                CmEvent req = next(ch, CmEventType.CONNECT_REQUEST);
                req.id().reject(new byte[] {7});
                next(ch, CmEventType.REJECTED);
                client.destroyQp();
                req.id().destroy();
                client.destroy();
                listener.destroy();
                pd.close();
                cq.close();
            }
        });
        List<RecordedEvent> cmEvents = named(events, "jrdma.CmEvent");
        assertThat(cmEvents).extracting(e -> e.getString("event")).containsSubsequence(
                "RDMA_CM_EVENT_ADDR_RESOLVED", "RDMA_CM_EVENT_ROUTE_RESOLVED", "RDMA_CM_EVENT_CONNECT_REQUEST",
                "RDMA_CM_EVENT_REJECTED");
        RecordedEvent rejected = cmEvents.stream().filter(e -> e.getString("event").endsWith("REJECTED"))
                .findFirst().orElseThrow();
        assertThat(rejected.getInt("status")).as("IB reject reason: consumer defined").isEqualTo(28);
        assertThat(rejected.getString("reason")).isEqualTo("consumer defined");
        assertThat(rejected.getString("device")).isEqualTo("loop0");
        assertThat(rejected.getString("peer")).startsWith("127.0.0.1:");
        assertThat(rejected.getInt("qpNum")).isPositive();
        int clientId = rejected.getInt("id");
        List<RecordedEvent> states = named(events, "jrdma.CmIdState").stream()
                .filter(e -> e.getInt("id") == clientId).toList();
        assertThat(states).extracting(e -> e.getString("from") + "->" + e.getString("to"))
                .containsSubsequence("IDLE->ADDR_BOUND", "ADDR_BOUND->ADDR_QUERY", "ADDR_QUERY->ADDR_RESOLVED",
                        "ADDR_RESOLVED->ROUTE_QUERY", "ROUTE_QUERY->ROUTE_RESOLVED", "ROUTE_RESOLVED->CONNECT",
                        "CONNECT->DESTROYING");
        assertThat(states.get(0).getString("portSpace")).isEqualTo("TCP");
    }

    @Test
    void withoutARecordingTheDataPathHooksAllocateNothing() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int i = 0; i < 20_000; i++) { // warm up
            Trace.retransmit("loop0", i, i, "timeout", 3);
            Trace.rnrWait("loop0", i, i, 10_000, 3);
            Trace.terminate("siw0", i, true, "DDP", 1, 0, "DDP_TAGGED_INVALID_STAG");
            Trace.qpState("loop0", i, "RC", "RTS", "ERR");
        }
        long before = mx.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 100_000; i++) {
            Trace.retransmit("loop0", i, i, "timeout", 3);
            Trace.rnrWait("loop0", i, i, 10_000, 3);
            Trace.terminate("siw0", i, true, "DDP", 1, 0, "DDP_TAGGED_INVALID_STAG");
            Trace.qpState("loop0", i, "RC", "RTS", "ERR");
        }
        long allocated = mx.getCurrentThreadAllocatedBytes() - before;
        // one object per call would be several megabytes; a few bytes may come from the MXBean call itself
        assertThat(allocated).as("bytes for 400 000 disabled hooks").isLessThan(64 * 1024);
    }
}
