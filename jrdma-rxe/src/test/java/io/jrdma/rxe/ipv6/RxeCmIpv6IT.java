package io.jrdma.rxe.ipv6;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.cm.UdParam;
import io.jrdma.rxe.testing.RxeIpv6Link;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
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
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * rdma_cm over RoCEv2 in IPv6/UDP between two devices, rxe6a on {@value RxeIpv6Link#A} and rxe6b on
 * {@value RxeIpv6Link#B}: the REQ's GIDs and rdma_cm header are IPv6, the connected QPs move data, SIDR
 * resolves a UD QP, and a UD receive starts with the sender's IPv6 header; over link-local addresses too.
 * Routed addresses (not the loopback shortcut): the client resolves from its own address, as
 * {@code rping -I} does.
 */
class RxeCmIpv6IT {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String SERVER = RxeIpv6Link.DEVICE_A;
    private static final String CLIENT = RxeIpv6Link.DEVICE_B;
    private static RxeIpv6Link link;

    @BeforeAll
    static void link() {
        link = RxeIpv6Link.shared();
    }

    @BeforeEach
    void needsTheLink() {
        Assumptions.assumeTrue(RxeIpv6Link.usable(link),
                "two unique-local IPv6 addresses for rxe6a/rxe6b (root and iproute2)");
    }

    private static CmEvent expect(EventChannel ch, CmEventType type) throws InterruptedException {
        CmEvent e = ch.getEvent(WAIT);
        assertThat(e).as("waiting for " + type).isNotNull();
        assertThat(e.type()).as(e.toString()).isEqualTo(type);
        ch.ackEvent(e);
        return e;
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
    void rcConnectsOverIpv6ReportsIpv6AddressesAndMovesData() throws Exception {
        InetAddress a = InetAddress.getByName(RxeIpv6Link.A);
        InetAddress b = InetAddress.getByName(RxeIpv6Link.B);
        connectMoveDataAndDisconnect(SERVER, new InetSocketAddress(a, 0), CLIENT, new InetSocketAddress(b, 0), a);
    }

    @Test
    void aLinkLocalConnectionTakesTheScopeOfItsInterfaceAndCrossesTheLink() throws Exception {
        // The server's link-local address as the client's side of the link reaches it: its scope is the
        // client's interface. The GIDs carry no scope; every packet to fe80::6a:1 leaves through jrdma6b.
        InetAddress server = InetAddress.getByName(RxeIpv6Link.LINK_LOCAL_A + "%" + RxeIpv6Link.LINK);
        InetAddress client = InetAddress.getByName(RxeIpv6Link.LINK_LOCAL_B + "%" + RxeIpv6Link.PEER);
        InetAddress serverFromClient = InetAddress.getByName(RxeIpv6Link.LINK_LOCAL_A + "%" + RxeIpv6Link.PEER);
        connectMoveDataAndDisconnect(RxeIpv6Link.DEVICE_LA, new InetSocketAddress(server, 0), RxeIpv6Link.DEVICE_LB,
                new InetSocketAddress(client, 0), serverFromClient);
    }

    /**
     * A listener on {@code serverDevice} at {@code bind}, a client on {@code clientDevice} from {@code src} to
     * {@code dst} (the listener's port): REQ/REP/RTU with IPv6 addresses in the ids and the QPs' address
     * vectors, an RDMA WRITE and READ of 8 KiB, DREQ/DREP.
     */
    private static void connectMoveDataAndDisconnect(String serverDevice, InetSocketAddress bind, String clientDevice,
            InetSocketAddress src, InetAddress dst) throws Exception {
        try (RdmaCm scm = RdmaCm.open(serverDevice); RdmaCm ccm = RdmaCm.open(clientDevice);
                EventChannel sch = scm.createEventChannel(); EventChannel cch = ccm.createEventChannel();
                Arena arena = Arena.ofShared()) {
            CmId listener = sch.createId("server", PortSpace.TCP, QpType.RC);
            listener.bind(bind);
            listener.listen(4);
            CmId client = cch.createId("client", PortSpace.TCP, QpType.RC);
            client.resolveAddr(src, new InetSocketAddress(dst, listener.localPort()), WAIT);
            expect(cch, CmEventType.ADDR_RESOLVED);
            assertThat(client.device().name()).isEqualTo(clientDevice);
            client.resolveRoute(WAIT);
            expect(cch, CmEventType.ROUTE_RESOLVED);
            ProtectionDomain cpd = client.verbs().allocPd();
            CompletionQueue ccq = client.verbs().createCq(16);
            QueuePair cqp = client.createQp(cpd, QpInitAttr.rc(ccq, QpCap.of(8, 8)));
            client.connect(ConnParam.defaults().withPrivateData(new byte[] {6, 6}));

            CmEvent req = sch.getEvent(WAIT);
            assertThat(req.type()).isEqualTo(CmEventType.CONNECT_REQUEST);
            assertThat(req.privateData()).startsWith(6, 6);
            CmId conn = req.id();
            assertThat(conn.device().name()).isEqualTo(serverDevice);
            // The rdma_cm header of the REQ carried IPv6 addresses and the client's port.
            assertThat(conn.localAddress()).isEqualTo(new InetSocketAddress(bind.getAddress(), listener.localPort()));
            assertThat(conn.peerAddress()).isEqualTo(client.localAddress());
            assertThat(client.localAddress().getAddress()).isEqualTo(src.getAddress());
            ProtectionDomain spd = conn.verbs().allocPd();
            CompletionQueue scq = conn.verbs().createCq(16);
            QueuePair sqp = conn.createQp(spd, QpInitAttr.rc(scq, QpCap.of(8, 8)));
            conn.accept(ConnParam.defaults());
            sch.ackEvent(req);
            expect(sch, CmEventType.ESTABLISHED);
            expect(cch, CmEventType.ESTABLISHED);
            assertThat(cqp.state()).isEqualTo(QpState.RTS);
            // The QPs' address vectors: the peer's IPv6 address is its GID (not IPv4-mapped).
            assertThat(cqp.query().ahAttr().dgid()).isEqualTo(Gid.of(bind.getAddress()));
            assertThat(sqp.query().ahAttr().dgid()).isEqualTo(Gid.of(src.getAddress()));
            assertThat(cqp.query().ahAttr().dgid().isIpv4Mapped()).isFalse();

            int access = Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE;
            MemorySegment cbuf = arena.allocate(16384);
            MemorySegment sbuf = arena.allocate(16384);
            MemoryRegion cmr = cpd.registerMemory(cbuf, access);
            MemoryRegion smr = spd.registerMemory(sbuf, access);
            for (int i = 0; i < 8192; i++) {
                cbuf.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 11));
            }
            cqp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .sg(cmr, 0, 8192).rdma(smr.address(), smr.rkey()));
            assertThat(poll(ccq).status()).isEqualTo(WcStatus.SUCCESS);
            sqp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                    .sg(smr, 8192, 8192).rdma(cmr.address(), cmr.rkey()));
            assertThat(poll(scq).status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(sbuf.asSlice(0, 8192).toArray(ValueLayout.JAVA_BYTE))
                    .isEqualTo(cbuf.asSlice(0, 8192).toArray(ValueLayout.JAVA_BYTE));
            assertThat(sbuf.asSlice(8192, 8192).toArray(ValueLayout.JAVA_BYTE))
                    .isEqualTo(cbuf.asSlice(0, 8192).toArray(ValueLayout.JAVA_BYTE));

            client.disconnect(); // DREQ
            expect(sch, CmEventType.DISCONNECTED);
            conn.disconnect(); // DREP
            expect(cch, CmEventType.DISCONNECTED);
            conn.destroy();
            client.destroy();
            listener.destroy();
        }
    }

    @Test
    void sidrResolvesAUdQpOverIpv6AndTheReceiveStartsWithTheSendersIpv6Header() throws Exception {
        InetAddress a = InetAddress.getByName(RxeIpv6Link.A);
        InetAddress b = InetAddress.getByName(RxeIpv6Link.B);
        try (RdmaCm scm = RdmaCm.open(SERVER); RdmaCm ccm = RdmaCm.open(CLIENT);
                EventChannel sch = scm.createEventChannel(); EventChannel cch = ccm.createEventChannel();
                Arena arena = Arena.ofShared()) {
            CmId listener = sch.createId("server", PortSpace.UDP, QpType.UD);
            listener.bind(new InetSocketAddress(a, 0));
            listener.listen(4);
            CmId client = cch.createId("client", PortSpace.UDP, QpType.UD);
            client.resolveAddr(new InetSocketAddress(b, 0), new InetSocketAddress(a, listener.localPort()), WAIT);
            expect(cch, CmEventType.ADDR_RESOLVED);
            client.resolveRoute(WAIT);
            expect(cch, CmEventType.ROUTE_RESOLVED);
            ProtectionDomain cpd = client.verbs().allocPd();
            CompletionQueue ccq = client.verbs().createCq(16);
            QueuePair cqp = client.createQp(cpd, QpInitAttr.of(QpType.UD, ccq, QpCap.of(8, 8)));
            client.connect(ConnParam.defaults());

            CmEvent req = expect(sch, CmEventType.CONNECT_REQUEST);
            CmId conn = req.id();
            assertThat(conn.peerAddress()).isEqualTo(client.localAddress());
            assertThat(req.ud().ahAttr().dgid()).as("the requester's GID").isEqualTo(Gid.of(b));
            ProtectionDomain spd = conn.verbs().allocPd();
            CompletionQueue scq = conn.verbs().createCq(16);
            QueuePair sqp = conn.createQp(spd, QpInitAttr.of(QpType.UD, scq, QpCap.of(8, 8)));
            MemorySegment sbuf = arena.allocate(4096);
            MemoryRegion smr = spd.registerMemory(sbuf, Access.LOCAL_WRITE);
            sqp.postRecv(new RecvWr().wrId(7).sg(smr, 0, 4096));
            conn.accept(ConnParam.defaults());
            CmEvent est = expect(cch, CmEventType.ESTABLISHED);
            UdParam ud = est.ud();
            assertThat(ud.qpNum()).isEqualTo(sqp.qpNum());
            assertThat(ud.ahAttr().dgid()).isEqualTo(Gid.of(a));

            MemorySegment cbuf = arena.allocate(4096);
            MemoryRegion cmr = cpd.registerMemory(cbuf, Access.LOCAL_WRITE);
            for (int i = 0; i < 100; i++) {
                cbuf.set(ValueLayout.JAVA_BYTE, i, (byte) (i + 1));
            }
            AddressHandle ah = cpd.createAh(ud.ahAttr());
            cqp.postSend(new SendWr().wrId(8).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(cmr, 0, 100)
                    .ud(ah, ud.qpNum(), ud.qkey()));
            assertThat(poll(ccq).status()).isEqualTo(WcStatus.SUCCESS);
            WorkCompletion r = poll(scq);
            assertThat(r.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(r.byteLen()).isEqualTo(40 + 100);
            assertThat(r.wcFlags() & WcFlags.GRH).isNotZero();
            // The GRH area is the IPv6 header the datagram came in (IBTA A17.4.5.1; rxe copies
            // ipv6_hdr): version 6, payload length = UDP header + BTH + DETH + payload + ICRC, next
            // header UDP, the sender's and our address.
            assertThat(sbuf.get(ValueLayout.JAVA_BYTE, 0) >>> 4).isEqualTo(6);
            int payloadLength = Short.toUnsignedInt(sbuf.get(
                    ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 4));
            assertThat(payloadLength).isEqualTo(8 + 12 + 8 + 100 + 4);
            assertThat(sbuf.get(ValueLayout.JAVA_BYTE, 6)).isEqualTo((byte) 17);
            assertThat(sbuf.asSlice(8, 16).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(b.getAddress());
            assertThat(sbuf.asSlice(24, 16).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(a.getAddress());
            assertThat(sbuf.asSlice(40, 100).toArray(ValueLayout.JAVA_BYTE))
                    .isEqualTo(cbuf.asSlice(0, 100).toArray(ValueLayout.JAVA_BYTE));
            ah.close();
            conn.destroy();
            client.destroy();
            listener.destroy();
        }
    }
}
