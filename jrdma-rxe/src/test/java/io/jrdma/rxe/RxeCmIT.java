package io.jrdma.rxe;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.CmStrings;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.cm.UdParam;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.spi.DeviceCounters;
import io.jrdma.verbs.Counter;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcFlags;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * rdma_cm over rxe between rxe0 (127.0.0.1) and rxe1 (127.0.0.2): REQ/REP/RTU, DREQ/DREP, REJ and
 * SIDR travel as QP1 MADs over UDP, and the QPs the CM moved to RTS carry data.
 */
class RxeCmIT {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private static CmEvent expect(EventChannel ch, CmEventType type) throws InterruptedException {
        CmEvent e = ch.getEvent(WAIT);
        assertThat(e).as("waiting for " + type).isNotNull();
        assertThat(e.type()).as(e.toString()).isEqualTo(type);
        ch.ackEvent(e);
        return e;
    }

    private static DeviceCounters counters(String name) {
        return ((RxeDevice) ((DeviceImpl) Rdma.device(name)).providerDevice()).counters();
    }

    private static WorkCompletion poll(CompletionQueue cq) {
        WorkCompletion[] wc = {new WorkCompletion()};
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (cq.poll(wc) == 1) {
                return wc[0];
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no completion within " + WAIT);
    }

    @Test
    void rcConnectsMovesDataBothWaysAndDisconnects() throws Exception {
        long madsBefore = counters("rxe0").get(Counter.CM_TX_MADS) + counters("rxe1").get(Counter.CM_TX_MADS);
        try (RdmaCm cm = RdmaCm.open("rxe0", "rxe1"); EventChannel ch = cm.createEventChannel();
                Arena arena = Arena.ofShared()) {
            CmId listener = ch.createId("server", PortSpace.TCP, QpType.RC);
            listener.bind(new InetSocketAddress("127.0.0.2", 0));
            listener.listen(4);
            assertThat(listener.device().name()).isEqualTo("rxe1");

            CmId client = ch.createId("client", PortSpace.TCP, QpType.RC);
            client.resolveAddr(new InetSocketAddress("127.0.0.1", 0),
                    new InetSocketAddress("127.0.0.2", listener.localPort()), WAIT);
            expect(ch, CmEventType.ADDR_RESOLVED);
            assertThat(client.device().name()).isEqualTo("rxe0");
            client.resolveRoute(WAIT);
            expect(ch, CmEventType.ROUTE_RESOLVED);
            ProtectionDomain cpd = client.verbs().allocPd();
            CompletionQueue ccq = client.verbs().createCq(16);
            QueuePair cqp = client.createQp(cpd, QpInitAttr.rc(ccq, QpCap.of(8, 8)));
            client.connect(ConnParam.defaults().withPrivateData(new byte[] {1, 2, 3}));

            CmEvent req = ch.getEvent(WAIT);
            assertThat(req.type()).isEqualTo(CmEventType.CONNECT_REQUEST);
            assertThat(req.privateData()).startsWith(1, 2, 3);
            CmId conn = req.id();
            assertThat(conn.device().name()).isEqualTo("rxe1");
            ProtectionDomain spd = conn.verbs().allocPd();
            CompletionQueue scq = conn.verbs().createCq(16);
            QueuePair sqp = conn.createQp(spd, QpInitAttr.rc(scq, QpCap.of(8, 8)));
            conn.accept(ConnParam.defaults().withPrivateData(new byte[] {9}));
            ch.ackEvent(req);
            CmEvent e1 = expect(ch, CmEventType.ESTABLISHED);
            CmEvent e2 = expect(ch, CmEventType.ESTABLISHED);
            CmEvent clientEst = e1.id() == client ? e1 : e2;
            assertThat(clientEst.privateData()).startsWith(9);
            assertThat(cqp.state()).isEqualTo(QpState.RTS);
            assertThat(sqp.state()).isEqualTo(QpState.RTS);
            assertThat(cqp.query().destQpNum()).isEqualTo(sqp.qpNum());

            int access = Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE;
            MemorySegment cbuf = arena.allocate(8192);
            MemorySegment sbuf = arena.allocate(8192);
            MemoryRegion cmr = cpd.registerMemory(cbuf, access);
            MemoryRegion smr = spd.registerMemory(sbuf, access);
            for (int i = 0; i < 4096; i++) {
                cbuf.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
            }
            sqp.postRecv(new RecvWr().wrId(1).sg(smr, 0, 4096));
            cqp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(cmr, 0, 2500));
            assertThat(poll(ccq).status()).isEqualTo(WcStatus.SUCCESS);
            WorkCompletion r = poll(scq);
            assertThat(r.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(r.byteLen()).isEqualTo(2500);
            assertThat(sbuf.asSlice(0, 2500).toArray(ValueLayout.JAVA_BYTE))
                    .isEqualTo(cbuf.asSlice(0, 2500).toArray(ValueLayout.JAVA_BYTE));
            // and the other way: the server READs the client's buffer (rping's first step)
            sqp.postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                    .sg(smr, 4096, 4096).rdma(cmr.address(), cmr.rkey()));
            assertThat(poll(scq).status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(sbuf.asSlice(4096, 4096).toArray(ValueLayout.JAVA_BYTE))
                    .isEqualTo(cbuf.asSlice(0, 4096).toArray(ValueLayout.JAVA_BYTE));

            client.disconnect();
            CmEvent d1 = expect(ch, CmEventType.DISCONNECTED);
            assertThat(d1.id()).isSameAs(conn);
            conn.disconnect();
            CmEvent d2 = expect(ch, CmEventType.DISCONNECTED);
            assertThat(d2.id()).isSameAs(client);
            assertThat(cqp.state()).isEqualTo(QpState.ERR);
            expect(ch, CmEventType.TIMEWAIT_EXIT);
            expect(ch, CmEventType.TIMEWAIT_EXIT);
            cmr.close();
            smr.close();
            conn.destroyQp();
            client.destroyQp();
            conn.destroy();
            client.destroy();
            listener.destroy();
        }
        long mads = counters("rxe0").get(Counter.CM_TX_MADS) + counters("rxe1").get(Counter.CM_TX_MADS) - madsBefore;
        assertThat(mads).as("REQ, REP, RTU, DREQ, DREP went as QP1 MADs").isGreaterThanOrEqualTo(5);
    }

    @Test
    void aConnectToAPortNobodyListensOnIsRejectedWithInvalidServiceId() throws Exception {
        try (RdmaCm cm = RdmaCm.open("rxe0", "rxe1"); EventChannel ch = cm.createEventChannel()) {
            CmId client = ch.createId("client", PortSpace.TCP, QpType.RC);
            client.resolveAddr(new InetSocketAddress("127.0.0.1", 0), new InetSocketAddress("127.0.0.2", 7399),
                    WAIT);
            expect(ch, CmEventType.ADDR_RESOLVED);
            client.resolveRoute(WAIT);
            expect(ch, CmEventType.ROUTE_RESOLVED);
            ProtectionDomain pd = client.verbs().allocPd();
            CompletionQueue cq = client.verbs().createCq(4);
            client.createQp(pd, QpInitAttr.rc(cq, QpCap.of(2, 2)));
            client.connect(ConnParam.defaults());
            CmEvent rej = expect(ch, CmEventType.REJECTED);
            assertThat(rej.status()).isEqualTo(8);
            assertThat(CmStrings.rejectMsg(client, rej.status())).isEqualTo("invalid service ID");
            client.destroyQp();
            client.destroy();
        }
    }

    @Test
    void udResolvesTheServiceWithSidrAndExchangesDatagrams() throws Exception {
        try (RdmaCm cm = RdmaCm.open("rxe0", "rxe1"); EventChannel ch = cm.createEventChannel();
                Arena arena = Arena.ofShared()) {
            CmId listener = ch.createId("server", PortSpace.UDP, QpType.UD);
            listener.bind(new InetSocketAddress("127.0.0.2", 0));
            listener.listen(4);
            CmId client = ch.createId("client", PortSpace.UDP, QpType.UD);
            client.resolveAddr(new InetSocketAddress("127.0.0.1", 0),
                    new InetSocketAddress("127.0.0.2", listener.localPort()), WAIT);
            expect(ch, CmEventType.ADDR_RESOLVED);
            client.resolveRoute(WAIT);
            expect(ch, CmEventType.ROUTE_RESOLVED);
            ProtectionDomain cpd = client.verbs().allocPd();
            CompletionQueue ccq = client.verbs().createCq(16);
            QueuePair cqp = client.createQp(cpd, QpInitAttr.of(QpType.UD, ccq, QpCap.of(8, 8)));
            client.connect(ConnParam.defaults().withPrivateData(new byte[] {5}));
            CmEvent req = expect(ch, CmEventType.CONNECT_REQUEST);
            CmId conn = req.id();
            ProtectionDomain spd = conn.verbs().allocPd();
            CompletionQueue scq = conn.verbs().createCq(16);
            QueuePair sqp = conn.createQp(spd, QpInitAttr.of(QpType.UD, scq, QpCap.of(8, 8)));
            MemorySegment sbuf = arena.allocate(4096);
            MemoryRegion smr = spd.registerMemory(sbuf, Access.LOCAL_WRITE);
            sqp.postRecv(new RecvWr().wrId(77).sg(smr, 0, 4096));
            conn.accept(ConnParam.defaults());
            CmEvent est = expect(ch, CmEventType.ESTABLISHED);
            assertThat(est.id()).isSameAs(client);
            UdParam ud = est.ud();
            assertThat(ud.qpNum()).isEqualTo(sqp.qpNum());
            assertThat(ud.qkey()).isEqualTo(0x01234567);

            MemorySegment cbuf = arena.allocate(4096);
            MemoryRegion cmr = cpd.registerMemory(cbuf, Access.LOCAL_WRITE);
            cbuf.asSlice(0, 100).fill((byte) 0x5a);
            AddressHandle ah = cpd.createAh(ud.ahAttr());
            cqp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND_WITH_IMM).immData(cqp.qpNum())
                    .flags(SendFlags.SIGNALED).sg(cmr, 0, 100).ud(ah, ud.qpNum(), ud.qkey()));
            assertThat(poll(ccq).status()).isEqualTo(WcStatus.SUCCESS);
            WorkCompletion r = poll(scq);
            assertThat(r.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(r.byteLen()).isEqualTo(140);
            assertThat(r.srcQp()).isEqualTo(cqp.qpNum());
            assertThat(r.immData()).isEqualTo(cqp.qpNum());
            assertThat(r.wcFlags() & WcFlags.GRH).isNotZero();
            // the GRH area holds the sender's IPv4 header (after 20 zero bytes), then the payload
            assertThat(sbuf.get(ValueLayout.JAVA_BYTE, 20)).isEqualTo((byte) 0x45);
            assertThat(sbuf.asSlice(32, 4).toArray(ValueLayout.JAVA_BYTE)).containsExactly(127, 0, 0, 1);
            assertThat(sbuf.asSlice(40, 100).toArray(ValueLayout.JAVA_BYTE)).containsOnly((byte) 0x5a);
            ah.close();
            cmr.close();
            smr.close();
            conn.destroyQp();
            client.destroyQp();
            conn.destroy();
            client.destroy();
            listener.destroy();
        }
    }
}
