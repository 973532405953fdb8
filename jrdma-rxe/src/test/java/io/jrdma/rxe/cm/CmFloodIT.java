package io.jrdma.rxe.cm;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.internal.cm.ib.CmaHeader;
import io.jrdma.internal.cm.ib.IbCm;
import io.jrdma.internal.cm.ib.IbCmCounters;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.rxe.RxeDevice;
import io.jrdma.rxe.net.UdpPort;
import io.jrdma.rxe.testing.Gen;
import io.jrdma.internal.roce.Icrc;
import io.jrdma.spi.DeviceCounters;
import io.jrdma.spi.ibcm.CmMessage;
import io.jrdma.spi.ibcm.Octets;
import io.jrdma.spi.ibcm.Req;
import io.jrdma.spi.ibcm.SidrRep;
import io.jrdma.spi.ibcm.SidrReq;
import io.jrdma.testkit.Await;
import io.jrdma.testkit.CmVerbsFixture;
import io.jrdma.testkit.EndpointPair;
import io.jrdma.testkit.Features;
import io.jrdma.testkit.Hygiene;
import io.jrdma.testkit.QpOptions;
import io.jrdma.testkit.cm.IbCmPeer;
import io.jrdma.verbs.Counter;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.Rdma;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Floods of connection requests on RoCE from an off-box sender on 127.0.0.5: {@value #FLOOD} CM REQ MADs
 * (random valid fields, each its own communication id) at rxe0's QP1 for a service nobody listens on, and
 * {@value #FLOOD} SIDR_REQs naming a live RC listener. Each is decoded and answered (ib_cm: REJ, invalid
 * service ID; SIDR_REP, reject) or dropped, never kept or counted against the listener's backlog; a
 * legitimate rdma_cm connection made in the middle of the flood is established; nothing uncaught, logged or
 * leaked ({@link Hygiene}).
 */
class CmFloodIT {
    private static final int FLOOD = 500;
    /** rdma_cm service id of TCP port 9 (discard): nobody listens there. */
    private static final long UNUSED_SERVICE = 0x0000_0000_0106_0009L;
    private static final int SELF = 0x7f000005;
    private static final int RXE0 = 0x7f000001;
    private static final int BACKLOG = 3;

    @RegisterExtension
    final Hygiene hygiene = new Hygiene();

    private static Req forService(Req r, long sid) {
        return new Req(r.localCommId(), r.vendorId(), sid, r.localCaGuid(), r.localQkey(), r.localQpn(),
                r.responderResources(), r.localEecn(), r.initiatorDepth(), r.remoteEecn(), r.remoteCmResponseTimeout(),
                r.transportServiceType(), r.endToEndFlowControl(), r.startingPsn(), r.localCmResponseTimeout(),
                r.retryCount(), r.partitionKey(), r.pathMtu(), r.rdcExists(), r.rnrRetryCount(), r.maxCmRetries(),
                r.srq(), r.extendedTransportType(), r.primaryPath(), r.alternatePath(), r.sapSupported(),
                r.eceOptions(), r.privateData());
    }

    @Test
    void aFloodOfConnectRequestsIsAnsweredAndALegitimateConnectionStillGetsThrough() throws Exception {
        DeviceImpl dev = (DeviceImpl) Rdma.device("rxe0");
        DeviceCounters rc = ((RxeDevice) dev.providerDevice()).counters();
        IbCmCounters cm = IbCm.of(dev).counters();
        long rcvd = rc.get(Counter.CM_RX_MADS);
        long rej = cm.get(IbCmCounters.Group.TX_MSGS, CmMessage.ATTR_REJ);
        int stateBefore = IbCm.of(dev).stateCount();
        int timersBefore = IbCm.of(dev).armedTimers();
        Gen g = new Gen(6);
        MemorySegment seg = MemorySegment.ofArray(new byte[CmMadCodec.DATAGRAM_LENGTH]);
        Icrc icrc = new Icrc();
        try (DatagramChannel ch = UdpPort.openDf(false);
                CmVerbsFixture f = new CmVerbsFixture("rxe0", Features.ibTransport(RxeDevice.MAX_INLINE),
                        "127.0.0.1")) {
            ch.bind(new InetSocketAddress("127.0.0.5", 4791));
            InetSocketAddress rxe0 = new InetSocketAddress("127.0.0.1", 4791);
            for (int i = 0; i < FLOOD; i++) {
                Req r = forService(CmMessages.req(g), UNUSED_SERVICE);
                int len = CmMadCodec.encodeDatagram(new CmMad(0xF100D000L + i, r), 0xFFFF, i, seg, 0);
                icrc.sealIpv4ForSend(seg, 0, len, SELF, RXE0, 4791, 4791);
                ch.send(ByteBuffer.wrap(seg.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)), rxe0);
                if (i == FLOOD / 2) {
                    try (EndpointPair p = f.connect(QpOptions.rc())) {
                        assertThat(p.a().qp().state()).as("a legitimate connection mid-flood").isEqualTo(QpState.RTS);
                        assertThat(p.b().qp().state()).isEqualTo(QpState.RTS);
                    }
                }
            }
            Await.until(FLOOD + " REQs received by the CM", Duration.ofSeconds(20),
                    () -> rc.get(Counter.CM_RX_MADS) - rcvd >= FLOOD);
            Await.until("the flood's REQs answered", Duration.ofSeconds(20),
                    () -> cm.get(IbCmCounters.Group.TX_MSGS, CmMessage.ATTR_REJ) - rej >= FLOOD);
            System.out.println("FLOOD rxe0 REQs=" + FLOOD + " received=" + (rc.get(Counter.CM_RX_MADS) - rcvd)
                    + " REJs=" + (cm.get(IbCmCounters.Group.TX_MSGS, CmMessage.ATTR_REJ) - rej));
        }
        // Rejected REQs leave no connection state behind (ib_cm: a REJ for an unknown service is stateless).
        Await.until("the CM keeps no state of the flood", Duration.ofSeconds(20),
                () -> IbCm.of(dev).stateCount() <= stateBefore);
        // ... and no timer: the legitimate connection's timewait ends, the flood armed none.
        Await.until("the CM's timers back to " + timersBefore, Duration.ofSeconds(20),
                () -> IbCm.of(dev).armedTimers() <= timersBefore);
    }

    @Test
    void aFloodOfSidrRequestsForAnRcListenerIsRefusedWithoutTakingItsBacklog() throws Exception {
        DeviceImpl dev = (DeviceImpl) Rdma.device("rxe0");
        IbCmCounters cm = IbCm.of(dev).counters();
        long sent = cm.get(IbCmCounters.Group.TX_MSGS, CmMessage.ATTR_SIDR_REP);
        int stateBefore = IbCm.of(dev).stateCount();
        int timersBefore = IbCm.of(dev).armedTimers();
        InetAddress rxe0 = InetAddress.getByName("127.0.0.1");
        try (RdmaCm server = RdmaCm.open("rxe0"); RdmaCm client = RdmaCm.open("rxe0");
                RxeIbCmPeer flood = new RxeIbCmPeer(InetAddress.getByName("127.0.0.5"), rxe0)) {
            EventChannel ch = server.createEventChannel();
            CmId listener = ch.createId(null, PortSpace.TCP);
            listener.bind(new InetSocketAddress(rxe0, 0));
            listener.listen(BACKLOG);
            Octets pd = CmaHeader.of(flood.address(), 0xC00F, rxe0).prependTo(new byte[0], SidrReq.PRIVATE_DATA_LIMIT);
            long sid = PortSpace.TCP.serviceId(listener.localPort());
            int answers = 0;
            int rejects = 0;
            for (int i = 0; i < FLOOD; i++) {
                flood.send(0x51D0_0000L + i, new SidrReq(i + 1, 0xFFFF, sid, pd));
                if (i == FLOOD / 2) {
                    connectOnce(client, ch, listener.localPort());
                }
                // Read the answers as they come, so that the socket never holds more than a few.
                for (IbCmPeer.Received r; (r = flood.receive(Duration.ZERO)) != null; answers++) {
                    rejects += isReject(r) ? 1 : 0;
                }
            }
            for (; answers < FLOOD; answers++) {
                IbCmPeer.Received r = flood.receive(Duration.ofSeconds(20));
                assertThat(r).as("the SIDR_REP of SIDR_REQ %d", answers).isNotNull();
                rejects += isReject(r) ? 1 : 0;
            }
            assertThat(rejects).isEqualTo(FLOOD);
            for (int i = 0; i < BACKLOG + 1; i++) {
                connectOnce(client, ch, listener.localPort());
            }
            assertThat(((io.jrdma.internal.cm.CmIdImpl) listener).backlogRejects()).isZero();
            System.out.println("FLOOD rxe0 SIDR_REQs=" + FLOOD + " SIDR_REPs="
                    + (cm.get(IbCmCounters.Group.TX_MSGS, CmMessage.ATTR_SIDR_REP) - sent) + " rejects=" + rejects);
            listener.destroy();
        }
        Await.until("the CM keeps no state of the flood", Duration.ofSeconds(20),
                () -> IbCm.of(dev).stateCount() <= stateBefore);
        Await.until("the CM's timers back to " + timersBefore, Duration.ofSeconds(20),
                () -> IbCm.of(dev).armedTimers() <= timersBefore);
    }

    private static boolean isReject(IbCmPeer.Received r) {
        return r.message() instanceof SidrRep rep && rep.status() == SidrRep.STATUS_REJECT;
    }

    /** One rdma_cm connection to the listener on {@code port}, made and torn down (no QPs: the handshake). */
    private static void connectOnce(RdmaCm client, EventChannel serverEvents, int port) throws Exception {
        EventChannel ch = client.createEventChannel();
        CmId id = ch.createId(null, PortSpace.TCP);
        id.resolveAddr(null, new InetSocketAddress("127.0.0.1", port), Duration.ofSeconds(5));
        assertThat(next(ch).type()).isEqualTo(CmEventType.ADDR_RESOLVED);
        id.resolveRoute(Duration.ofSeconds(5));
        assertThat(next(ch).type()).isEqualTo(CmEventType.ROUTE_RESOLVED);
        id.connect(ConnParam.defaults().withQpNum(0x77));
        CmEvent req = next(serverEvents);
        assertThat(req.type()).isEqualTo(CmEventType.CONNECT_REQUEST);
        req.id().accept(ConnParam.defaults().withQpNum(0x78));
        CmEvent e = next(ch);
        assertThat(e.type()).as("a legitimate connect mid-flood").isEqualTo(CmEventType.CONNECT_RESPONSE);
        id.accept(null);
        assertThat(next(ch).type()).isEqualTo(CmEventType.ESTABLISHED);
        assertThat(next(serverEvents).type()).isEqualTo(CmEventType.ESTABLISHED);
        id.destroy();
        req.id().destroy();
        ch.close();
    }

    private static CmEvent next(EventChannel ch) throws InterruptedException {
        CmEvent e = ch.getEvent(Duration.ofSeconds(10));
        assertThat(e).as("a CM event within 10 s").isNotNull();
        ch.ackEvent(e);
        return e;
    }
}
