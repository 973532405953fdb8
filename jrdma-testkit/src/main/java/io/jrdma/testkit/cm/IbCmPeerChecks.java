package io.jrdma.testkit.cm;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RejectReason;
import io.jrdma.internal.cm.CmIdImpl;
import io.jrdma.internal.cm.ib.CmaHeader;
import io.jrdma.internal.cm.ib.IbCm;
import io.jrdma.internal.cm.ib.IbCmCounters;
import io.jrdma.internal.cm.ib.IbCmId;
import io.jrdma.internal.cm.ib.IbCmState;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.spi.ibcm.CmMessage;
import io.jrdma.spi.ibcm.Drep;
import io.jrdma.spi.ibcm.Dreq;
import io.jrdma.spi.ibcm.Mra;
import io.jrdma.spi.ibcm.Octets;
import io.jrdma.spi.ibcm.Rej;
import io.jrdma.spi.ibcm.Rep;
import io.jrdma.spi.ibcm.Req;
import io.jrdma.spi.ibcm.Rtu;
import io.jrdma.spi.ibcm.SidrRep;
import io.jrdma.spi.ibcm.SidrReq;
import io.jrdma.testkit.Hygiene;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpState;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The IB CM against raw peers ({@link IbCmPeer}): a host that sends CM messages of its own making — out of
 * range, for other hosts' connections, reusing an identity, in floods, or a request and then silence — gets
 * the protocol's answer (a REJ with its reason, a SIDR_REP with its status, a DREP, a silent drop counted in
 * {@code cm_rx_dropped}, a timeout), and nothing else: no exception reaches the application, the listener
 * keeps its backlog and keeps serving, other hosts' connections stay up, and every test ends with the IB
 * CM's state back where it was and {@link Hygiene} clean. Behaviour follows Linux's {@code cm.c} and
 * {@code cma.c} (exact comm-id pairs, {@code cma_check_req_qp_type}, timewait), with the sender checked
 * against the connection's peer as well.
 */
abstract class IbCmPeerChecks extends CmChecks {
    @RegisterExtension
    final Hygiene hygiene = new Hygiene();

    private int statesBefore;

    IbCmPeerChecks(CmSuiteSupport support) {
        super(support);
    }

    @BeforeEach
    final void onlyWithRawPeers() {
        assume(CmCapability.RAW_IB_CM_PEER);
        statesBefore = fixture().connectionStates();
    }

    // ------------------------------------------------------------------------------------------ helpers

    private DeviceImpl dev() {
        return (DeviceImpl) device();
    }

    private IbCm ibcm() {
        return IbCm.of(dev());
    }

    private IbCmPeer rawPeer(int index) {
        return track(fixture().ibCmPeer(index));
    }

    private static long tid() {
        return RawReq.nextTid();
    }

    private long dropped(int attributeId) {
        return ibcm().counters().get(IbCmCounters.Group.RX_DROPPED, attributeId);
    }

    /** The IB CM id under an rdma_cm id. */
    private static IbCmId ib(CmId id) {
        return ((CmIdImpl) id).transport(IbCmId.class);
    }

    /** The next message the peer gets, which must be a {@code type}. */
    private static <T extends CmMessage> T expect(IbCmPeer peer, Class<T> type) {
        IbCmPeer.Received r = peer.receive(WAIT);
        assertThat(r).as("a %s for %s within %s", type.getSimpleName(), peer.address(), WAIT).isNotNull();
        assertThat(r.message()).as("what %s got", peer.address()).isInstanceOf(type);
        return type.cast(r.message());
    }

    /** Nothing more comes to the peer for {@link #QUIET}. */
    private static void expectNothing(IbCmPeer peer) {
        IbCmPeer.Received r = peer.receive(QUIET);
        assertThat(r).as("nothing more for %s", peer.address()).isNull();
    }

    /**
     * Once the listeners are gone, the IB CM holds no more state than before the test: nothing is left of
     * the requests and connections the test made (a destroyed id's timewait is the timer's, not state).
     */
    private void stateBackToBefore(Server... servers) {
        for (Server sv : servers) {
            sv.listener().destroy();
        }
        eventually(() -> fixture().connectionStates() <= statesBefore, "IB CM state back to " + statesBefore
                + " (now " + fixture().connectionStates() + ")");
    }

    /** A REQ from {@code peer} to the listener on {@code port}, on the path MTU the device uses. */
    private RawReq req(IbCmPeer peer, int port) {
        return new RawReq(peer, fixture().address(), port, dev().portAttributes().activeMtu().value());
    }

    /** A connection a raw peer made: its side (REQ and the REP it got) and the server's id. */
    record RawConnection(RawReq req, Rep rep, CmId server, Side passive) {
        Dreq dreq() {
            return new Dreq(req.commId, rep.localCommId(), rep.localQpn(), Octets.empty());
        }

        /** The server's application is done with it: its id destroyed, its verbs resources freed. */
        void end() {
            server.destroy();
            passive.close();
        }
    }

    /**
     * The raw peer's REQ is accepted as rping accepts (with the depths the request carried, at least 1),
     * the REP comes to the peer, its RTU establishes the connection.
     */
    private RawConnection rawConnect(Server server, RawReq req) {
        req.send();
        CmEvent request = server.events().expect(CmEventType.CONNECT_REQUEST);
        Side passive = Side.of(request.id());
        passive.createQp();
        ConnParam asked = request.param();
        request.id().accept(new ConnParam(null, Math.max(1, asked.responderResources()),
                Math.max(1, asked.initiatorDepth()), false, 7, 7, false, 0));
        Rep rep = expect(req.peer, Rep.class);
        assertThat(rep.remoteCommId()).as("the REP answers the REQ's comm id").isEqualTo(req.commId);
        assertThat(rep.localQpn()).isEqualTo(passive.qp.qpNum());
        req.peer.send(req.tid, new Rtu(req.commId, rep.localCommId(), Octets.empty()));
        server.events().expect(CmEventType.ESTABLISHED, request.id());
        return new RawConnection(req, rep, request.id(), passive);
    }

    /**
     * The raw peer disconnects: its DREQ, the server's DISCONNECTED, and the DREP once the server's
     * application disconnects too (rdma_disconnect answers a DREQ received); the server's id is in timewait.
     */
    private void rawDisconnect(Server server, RawConnection c) {
        c.req().peer.send(tid(), c.dreq());
        server.events().expectSkippingTimewait(CmEventType.DISCONNECTED);
        c.server().disconnect();
        Drep drep = expect(c.req().peer, Drep.class);
        assertThat(drep.remoteCommId()).isEqualTo(c.req().commId);
        assertThat(drep.localCommId()).isEqualTo(c.rep().localCommId());
    }

    /**
     * A client of the fixture's own still connects to {@code server} and exchanges a message; then both ids
     * are destroyed (the connection's state goes with them: a destroyed id leaves timewait to the timer).
     */
    private void stillServes(Server server) {
        Connection c = connect(spec().receives(1), server, peer());
        c.active().send(1, 1, new byte[] {42});
        assertThat(c.passive().awaitCompletion(WAIT).status()).isEqualTo(io.jrdma.verbs.WcStatus.SUCCESS);
        assertThat(c.active().awaitCompletion(WAIT).status()).isEqualTo(io.jrdma.verbs.WcStatus.SUCCESS);
        c.passive().id.destroy();
        c.active().id.destroy();
        c.passive().close();
        c.active().close();
        c.client().cm().close();
    }

    // ------------------------------------------------------------------------------------------ backlog

    @Test
    void sidrRequestsForAnRcListenerAreRejectedWithoutTakingItsBacklog() {
        // cma_check_req_qp_type: a SIDR_REQ is for a UD listener; an RC one refuses it before the backlog
        // counts it, and cm.c answers IB_SIDR_REJECT. Before, each one held a place for ever.
        int backlog = 2;
        Server server = listen(PortSpace.TCP, backlog);
        IbCmPeer peer = rawPeer(0);
        Octets pd = CmaHeader.of(peer.address(), 0xC002, fixture().address()).prependTo(new byte[0],
                SidrReq.PRIVATE_DATA_LIMIT);
        for (int i = 0; i < backlog + 3; i++) {
            peer.send(tid(), new SidrReq(0x5100 + i, 0xFFFF, PortSpace.TCP.serviceId(server.port()), pd));
            SidrRep rep = expect(peer, SidrRep.class);
            assertThat(rep.requestId()).as("the SIDR_REP echoes the request id").isEqualTo(0x5100 + i);
            assertThat(rep.status()).as("IB_SIDR_REJECT").isEqualTo(SidrRep.STATUS_REJECT);
        }
        server.events().expectNone(QUIET);
        assertThat(((CmIdImpl) server.listener()).backlogRejects()).isZero();
        for (int i = 0; i < backlog + 1; i++) {
            stillServes(server);
        }
        stateBackToBefore(server);
    }

    @Test
    void aRequestWhosePathMtuThePortCannotCarryIsRejectedWithInvalidMtu() {
        Server server = listen(PortSpace.TCP, 1);
        IbCmPeer peer = rawPeer(0);
        List<Integer> codes = new ArrayList<>(List.of(0, 6, 7, 15));
        for (int code = dev().portAttributes().maxMtu().value() + 1; code <= 5; code++) {
            codes.add(code); // an IBTA MTU above the port's maximum (rxe: the configured MTU)
        }
        for (int code : codes) {
            RawReq req = req(peer, server.port());
            req.pathMtu = code;
            req.send();
            Rej rej = expect(peer, Rej.class);
            assertThat(rej.reason()).as("MTU code %d", code).isEqualTo(RejectReason.INVALID_MTU.value());
            assertThat(rej.messageRejected()).isEqualTo(Rej.REJECTED_REQ);
            assertThat(rej.remoteCommId()).isEqualTo(req.commId);
        }
        server.events().expectNone(QUIET);
        stillServes(server);
        stateBackToBefore(server);
    }

    @Test
    void aRequestForAnotherQpTypeServiceOrAddressIsRejectedBeforeTheBacklog() {
        Server server = listen(PortSpace.TCP, 1);
        IbCmPeer peer = rawPeer(0);
        record Case(String what, java.util.function.Consumer<RawReq> change, RejectReason reason) {
        }
        List<Case> cases = List.of(
                new Case("UC for an RC listener", r -> r.transport = Req.TRANSPORT_UC, RejectReason.CONSUMER_DEFINED),
                new Case("RD", r -> r.transport = Req.TRANSPORT_RD, RejectReason.CONSUMER_DEFINED),
                new Case("XRC", r -> {
                    r.transport = Req.TRANSPORT_XRC;
                    r.extendedTransport = 1;
                }, RejectReason.CONSUMER_DEFINED),
                new Case("an unknown port space", r -> r.serviceId = 0x0107_0000L | server.port(),
                        RejectReason.INVALID_SERVICE_ID),
                new Case("a service ID beyond the IP port spaces", r -> r.serviceId |= 1L << 40,
                        RejectReason.INVALID_SERVICE_ID),
                new Case("the UDP port space", r -> r.serviceId = PortSpace.UDP.serviceId(server.port()),
                        RejectReason.INVALID_SERVICE_ID),
                // The service ID has a listener, so the IB CM hands these on; rdma_cm finds no listener
                // for the address (cma_find_listener: -EINVAL) and cm.c rejects as the consumer's.
                new Case("no rdma_cm header", r -> r.privateData = Octets.of(new byte[20]),
                        RejectReason.CONSUMER_DEFINED),
                new Case("IP version 5 in the header", r -> {
                    byte[] pd = r.privateData.toByteArray();
                    pd[1] = 0x50;
                    r.privateData = Octets.of(pd);
                }, RejectReason.CONSUMER_DEFINED));
        for (Case c : cases) {
            RawReq req = req(peer, server.port());
            c.change().accept(req);
            req.send();
            Rej rej = expect(peer, Rej.class);
            assertThat(rej.reason()).as(c.what()).isEqualTo(c.reason().value());
            assertThat(rej.remoteCommId()).as(c.what()).isEqualTo(req.commId);
        }
        server.events().expectNone(QUIET);
        Server ud = listen(PortSpace.UDP, 1);
        RawReq toUd = req(peer, ud.port());
        toUd.serviceId = PortSpace.UDP.serviceId(ud.port());
        toUd.send();
        assertThat(expect(peer, Rej.class).reason()).as("a REQ for a UD listener")
                .isEqualTo(RejectReason.CONSUMER_DEFINED.value());
        ud.events().expectNone(QUIET);
        stillServes(server);
        stateBackToBefore(server, ud);
    }

    @Test
    void aFloodOfSidrRequestsAndOfRequestsBeyondTheBacklogLeavesTheListenerServing() {
        int backlog = 4;
        int sidrs = 200;
        int reqs = 24;
        Server server = listen(PortSpace.TCP, backlog);
        IbCmPeer peer = rawPeer(0);
        Octets pd = CmaHeader.of(peer.address(), 0xC003, fixture().address()).prependTo(new byte[0],
                SidrReq.PRIVATE_DATA_LIMIT);
        for (int i = 0; i < sidrs; i++) {
            peer.send(tid(), new SidrReq(0x6000 + i, 0xFFFF, PortSpace.TCP.serviceId(server.port()), pd));
        }
        for (int i = 0; i < reqs; i++) {
            RawReq req = req(peer, server.port());
            req.qpn = 0x1000 + i;
            req.send();
        }
        int sidrRejects = 0;
        int full = 0;
        while (sidrRejects + full < sidrs + reqs - backlog) {
            CmMessage m = expect(peer, CmMessage.class);
            if (m instanceof SidrRep r && r.status() == SidrRep.STATUS_REJECT) {
                sidrRejects++;
            } else if (m instanceof Rej r && r.reason() == RejectReason.NO_RESOURCES.value()) {
                full++;
            } else {
                throw new AssertionError("unexpected answer to the flood: " + m);
            }
        }
        assertThat(sidrRejects).isEqualTo(sidrs);
        assertThat(full).as("REQs beyond the backlog").isEqualTo(reqs - backlog);
        List<CmId> admitted = new ArrayList<>();
        for (int i = 0; i < backlog; i++) {
            admitted.add(server.events().expect(CmEventType.CONNECT_REQUEST).id());
        }
        server.events().expectNone(QUIET);
        assertThat(((CmIdImpl) server.listener()).backlogRejects()).isEqualTo(reqs - backlog);
        for (CmId id : admitted) {
            id.reject(null);
            assertThat(expect(peer, Rej.class).reason()).isEqualTo(RejectReason.CONSUMER_DEFINED.value());
            id.destroy();
        }
        for (int i = 0; i < backlog + 1; i++) {
            stillServes(server);
        }
        stateBackToBefore(server);
    }

    // ------------------------------------------------------------------------------------------ wire ranges

    @Test
    void aRequestWithEveryFieldAtItsWireMaximumIsServedWithinTheDevicesLimits() {
        // The 8-bit depths are capped at what the device's QPs take (128 on rxe), so that an application
        // answering with the depths the request carried (rping) gets a QP that accepts them; every other
        // field at its widest reaches the QP or the CM as it came, or capped where the CM times itself.
        Server server = listen(PortSpace.TCP, 1);
        IbCmPeer peer = rawPeer(0);
        RawReq req = req(peer, server.port());
        req.responderResources = 255;
        req.initiatorDepth = 255;
        req.retryCount = 7;
        req.rnrRetryCount = 7;
        req.localAckTimeout = 31;
        req.localCmResponseTimeout = 31;
        req.remoteCmResponseTimeout = 31;
        req.maxCmRetries = 15;
        req.psn = 0xFFFFFF;
        req.qpn = 0xFFFFFE;
        req.flowLabel = 0xFFFFF;
        req.trafficClass = 255;
        req.hopLimit = 255;
        req.sl = 15;
        RawConnection c = rawConnect(server, req);
        int ird = dev().attributes().maxQpRdAtom();
        int ord = dev().attributes().maxQpInitRdAtom();
        assertThat(c.rep().responderResources()).as("REP responder resources").isBetween(1, ird);
        assertThat(c.rep().initiatorDepth()).as("REP initiator depth").isBetween(1, ord);
        QpAttr a = c.passive().qp.query();
        assertThat(a.qpState()).isEqualTo(QpState.RTS);
        assertThat(a.maxDestRdAtomic()).isLessThanOrEqualTo(ird);
        assertThat(a.maxRdAtomic()).isLessThanOrEqualTo(ord);
        assertThat(a.destQpNum()).isEqualTo(0xFFFFFE);
        assertThat(a.sqPsn()).isEqualTo(0xFFFFFF);
        rawDisconnect(server, c);
        c.end(); // its timewait (capped at IB time 25, 2 minutes) is left to the timer
        stillServes(server);
        stateBackToBefore(server);
    }

    @Test
    void aReplyWithEveryFieldAtItsWireMaximumEstablishesTheActiveSideWithinItsLimits() {
        // The active side's turn: a raw peer answers a REQ with a REP whose depths are 255, RNR retry 7, the
        // target ACK delay 31, QPN 0xFFFFFE, PSN 0xFFFFFF. The QP takes what the device allows.
        IbCmPeer server = rawPeer(0);
        Peer client = peer();
        CmId id = client.events().channel().createId("client", PortSpace.TCP);
        id.resolveAddr(null, new java.net.InetSocketAddress(server.address(), 7471), WAIT);
        CmEvent resolved = client.events().next();
        org.junit.jupiter.api.Assumptions.assumeTrue(resolved.type() == CmEventType.ADDR_RESOLVED,
                () -> "the fixture's devices have no route to the raw peer " + server.address() + ": " + resolved);
        id.resolveRoute(WAIT);
        client.events().expect(CmEventType.ROUTE_RESOLVED, id);
        Side active = Side.of(id);
        active.createQp();
        id.connect(new ConnParam(null, 4, 4, false, 7, 7, false, 0));
        Req req = expect(server, Req.class);
        assertThat(req.serviceId()).isEqualTo(PortSpace.TCP.serviceId(7471));
        int serverId = 0x5EC0_0001;
        server.send(tid(), new Rep(serverId, req.localCommId(), 0, 0xFFFFFE, 0, 0, 0xFFFFFF, 255, 255, 31, 0, false, 7,
                false, 0x0200_5EFF_FE00_00FFL, 0, Octets.empty()));
        Rtu rtu = expect(server, Rtu.class);
        assertThat(rtu.remoteCommId()).isEqualTo(serverId);
        assertThat(rtu.localCommId()).isEqualTo(req.localCommId());
        client.events().expect(CmEventType.ESTABLISHED, id);
        QpAttr a = active.qp.query();
        assertThat(a.qpState()).isEqualTo(QpState.RTS);
        assertThat(a.destQpNum()).isEqualTo(0xFFFFFE);
        assertThat(a.sqPsn()).isEqualTo(0xFFFFFF);
        assertThat(a.maxRdAtomic()).as("ORD: ours, within what the peer accepts").isEqualTo(4);
        assertThat(a.timeout()).as("the ACK timeout takes the peer's ACK delay").isEqualTo(31);
        id.disconnect();
        Dreq dreq = expect(server, Dreq.class);
        assertThat(dreq.remoteCommId()).isEqualTo(serverId);
        server.send(tid(), new Drep(serverId, req.localCommId(), Octets.empty()));
        client.events().expectSkippingTimewait(CmEventType.DISCONNECTED);
        id.destroy();
        active.close();
        stateBackToBefore();
    }

    @Test
    void aRequestAnsweredAndThenLeftSilentEndsInARejectAfterTheRetriesAndUnreachable() {
        Server server = listen(PortSpace.TCP, 1);
        IbCmPeer peer = rawPeer(0);
        RawReq req = req(peer, server.port());
        req.localCmResponseTimeout = 8; // ≈ 1 ms per try
        req.localAckTimeout = 1;
        req.maxCmRetries = 2;
        req.send();
        CmEvent request = server.events().expect(CmEventType.CONNECT_REQUEST);
        Side passive = Side.of(request.id());
        passive.createQp();
        request.id().accept(ConnParam.defaults());
        for (int i = 0; i <= req.maxCmRetries; i++) {
            assertThat(expect(peer, Rep.class).remoteCommId()).as("REP %d", i).isEqualTo(req.commId);
        }
        // cm.c: a REP nobody answers ends in REJ(timeout) and IB_CM_REP_ERROR; cma reports UNREACHABLE.
        Rej rej = expect(peer, Rej.class);
        assertThat(rej.reason()).isEqualTo(RejectReason.TIMEOUT.value());
        CmEvent e = server.events().expect(CmEventType.UNREACHABLE, request.id());
        assertThat(e.status()).isEqualTo(Errno.ETIMEDOUT.status());
        expectNothing(peer);
        request.id().destroy();
        passive.close();
        stillServes(server);
        stateBackToBefore(server);
    }

    // ------------------------------------------------------------------------------------------ off-path

    @Test
    void aThirdHostCannotEndOrAnswerAnotherHostsConnectionWithAnyMessage() {
        // The intruder knows both comm ids, the QPNs and the CA GUID (the worst case) and sends every CM
        // message for the connection: the IB CM takes none of them, since they do not come from its peer.
        Server server = listen(PortSpace.TCP, 4);
        IbCmPeer client = rawPeer(0);
        IbCmPeer intruder = rawPeer(1);
        RawConnection c = rawConnect(server, req(client, server.port()));
        int serverId = c.rep().localCommId();
        int clientId = c.req().commId;
        int serverQpn = c.rep().localQpn();
        long dropped = dropped(CmMessage.ATTR_REJ) + dropped(CmMessage.ATTR_DREQ) + dropped(CmMessage.ATTR_DREP)
                + dropped(CmMessage.ATTR_RTU) + dropped(CmMessage.ATTR_MRA) + dropped(CmMessage.ATTR_SIDR_REP);
        byte[] guid = new byte[8];
        java.nio.ByteBuffer.wrap(guid).putLong(c.req().guid);
        List<CmMessage> forged = new ArrayList<>();
        for (int rejected : new int[] {Rej.REJECTED_REQ, Rej.REJECTED_REP, Rej.REJECTED_OTHER}) {
            for (RejectReason reason : List.of(RejectReason.CONSUMER_DEFINED, RejectReason.STALE_CONN,
                    RejectReason.TIMEOUT)) {
                forged.add(new Rej(clientId, serverId, rejected, reason.value(),
                        reason == RejectReason.TIMEOUT ? Octets.of(guid) : Octets.empty(), Octets.empty()));
            }
        }
        forged.add(new Dreq(clientId, serverId, serverQpn, Octets.empty()));
        forged.add(new Drep(clientId, serverId, Octets.empty()));
        forged.add(new Rtu(clientId, serverId, Octets.empty()));
        forged.add(new Mra(clientId, serverId, Mra.MRAED_REP, 31, Octets.empty()));
        forged.add(new SidrRep(serverId, SidrRep.STATUS_VALID, Octets.empty(), 0, 0x77, c.req().serviceId, 0, 0,
                Octets.empty()));
        for (CmMessage m : forged) {
            intruder.send(tid(), m);
        }
        // The one answer: a DREP to the DREQ, as to any DREQ for a connection the CM does not know.
        Drep drep = expect(intruder, Drep.class);
        assertThat(drep.remoteCommId()).isEqualTo(clientId);
        assertThat(drep.localCommId()).as("not the connection's id").isZero();
        expectNothing(intruder);
        // A REP and a REQ reusing the client's identity: a REJ to the intruder, nothing for the connection.
        intruder.send(c.req().tid, new Rep(clientId, serverId, 0, 0x99, 0, 0, 0, 1, 1, 15, 0, false, 7, false,
                c.req().guid, 0, Octets.empty()));
        assertThat(expect(intruder, Rej.class).reason()).isEqualTo(RejectReason.INVALID_COMM_ID.value());
        RawReq claim = req(intruder, server.port());
        claim.commId = clientId;
        claim.guid = c.req().guid;
        claim.qpn = c.req().qpn;
        claim.send();
        Rej stale = expect(intruder, Rej.class);
        assertThat(stale.reason()).as("the (CA GUID, QPN) is a live connection's")
                .isEqualTo(RejectReason.STALE_CONN.value());
        expectNothing(client); // no DREQ: the claim did not come from the connection's peer
        eventually(() -> dropped(CmMessage.ATTR_REJ) + dropped(CmMessage.ATTR_DREQ) + dropped(CmMessage.ATTR_DREP)
                + dropped(CmMessage.ATTR_RTU) + dropped(CmMessage.ATTR_MRA)
                + dropped(CmMessage.ATTR_SIDR_REP) - dropped >= forged.size(), "every forged message dropped");
        server.events().expectNone(QUIET);
        assertThat(ib(c.server()).state()).isEqualTo(IbCmState.ESTABLISHED);
        assertThat(c.passive().qp.state()).isEqualTo(QpState.RTS);
        rawDisconnect(server, c);
        c.end();
        stateBackToBefore(server);
    }

    @Test
    void messagesFromThePeerWithARemoteCommIdOfZeroOrAnotherQpMatchNoConnection() {
        // cm.c matches exact (local, remote) comm-id pairs: 0 is no wildcard once the peer's id is known.
        Server server = listen(PortSpace.TCP, 4);
        IbCmPeer client = rawPeer(0);
        RawConnection c = rawConnect(server, req(client, server.port()));
        int serverId = c.rep().localCommId();
        client.send(tid(), new Rej(0, serverId, Rej.REJECTED_OTHER, RejectReason.STALE_CONN.value(), Octets.empty(),
                Octets.empty()));
        client.send(tid(), new Rej(0, serverId, Rej.REJECTED_REQ, RejectReason.STALE_CONN.value(), Octets.empty(),
                Octets.empty()));
        client.send(tid(), new Dreq(c.req().commId, serverId, c.rep().localQpn() ^ 1, Octets.empty()));
        client.send(tid(), new Drep(0, serverId, Octets.empty()));
        client.send(tid(), new Dreq(0, serverId, c.rep().localQpn(), Octets.empty()));
        Drep drep = expect(client, Drep.class);
        assertThat(drep.localCommId()).as("answered as an unknown connection").isZero();
        expectNothing(client);
        server.events().expectNone(QUIET);
        assertThat(ib(c.server()).state()).isEqualTo(IbCmState.ESTABLISHED);
        rawDisconnect(server, c);
        c.end();
        stateBackToBefore(server);
    }

    // ------------------------------------------------------------------------------------------ identity

    @Test
    void aClientThatConnectsAgainAtOnceWithTheSameQpnIsNotTakenForAStaleConnection() {
        // cm_enter_timewait forgets the connection's (CA GUID, QPN) and remote comm id: a process that starts
        // over on the same address, with the same first QPN, may connect again while the old connection is
        // still in timewait (before, it was rejected as stale for the whole timewait).
        Server server = listen(PortSpace.TCP, 4);
        IbCmPeer client = rawPeer(0);
        RawReq first = req(client, server.port());
        RawConnection c = rawConnect(server, first);
        rawDisconnect(server, c);
        assertThat(ib(c.server()).state()).as("the first connection waits out its timewait")
                .isEqualTo(IbCmState.TIMEWAIT);
        RawReq again = req(client, server.port());
        again.guid = first.guid;
        again.qpn = first.qpn;
        RawConnection second = rawConnect(server, again);
        rawDisconnect(server, second);
        c.end();
        second.end();
        stateBackToBefore(server);
    }

    @Test
    void aRequestFromThePeerClaimingItsLiveConnectionsQpIsStaleAndEndsThatConnection() {
        // cm_match_req: the peer evidently lost its connection (a restart); the REQ is rejected as stale and
        // the old connection is ended with a DREQ, so that the peer's next attempt finds the QP free.
        Server server = listen(PortSpace.TCP, 4);
        IbCmPeer client = rawPeer(0);
        RawReq first = req(client, server.port());
        RawConnection c = rawConnect(server, first);
        RawReq again = req(client, server.port());
        again.guid = first.guid;
        again.qpn = first.qpn;
        again.send();
        assertThat(expect(client, Rej.class).reason()).isEqualTo(RejectReason.STALE_CONN.value());
        Dreq dreq = expect(client, Dreq.class);
        assertThat(dreq.remoteCommId()).as("the old connection's DREQ").isEqualTo(first.commId);
        assertThat(dreq.remoteQpnEecn()).isEqualTo(first.qpn);
        client.send(tid(), new Drep(first.commId, c.rep().localCommId(), Octets.empty()));
        server.events().expect(CmEventType.DISCONNECTED, c.server());
        RawConnection second = rawConnect(server, again);
        rawDisconnect(server, second);
        c.end();
        second.end();
        stateBackToBefore(server);
    }

    @Test
    void commIdsAreDrawnAtRandom() {
        // cm.c hands out its index XOR a random operand; jrdma draws each id. Consecutive ids used to follow
        // one another, so a host that saw its own could name its neighbours'.
        IbCm cm = ibcm();
        List<IbCmId> ids = new ArrayList<>();
        try {
            for (int i = 0; i < 64; i++) {
                ids.add(cm.createId((id, e) -> {
                }, null));
            }
            Set<Integer> seen = new HashSet<>();
            int sequential = 0;
            for (int i = 0; i < ids.size(); i++) {
                int id = ids.get(i).localId();
                assertThat(id).isNotZero();
                assertThat(seen.add(id)).as("ids are unique").isTrue();
                if (i > 0 && id - ids.get(i - 1).localId() == 1) {
                    sequential++;
                }
            }
            assertThat(sequential).as("ids one after the other").isLessThan(2);
        } finally {
            for (IbCmId id : ids) {
                cm.destroy(id);
            }
        }
        stateBackToBefore();
    }
}
