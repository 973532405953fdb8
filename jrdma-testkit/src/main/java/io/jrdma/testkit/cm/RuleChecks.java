package io.jrdma.testkit.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.CmState;
import io.jrdma.cm.CmStrings;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.Ece;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.cm.RejectReason;
import io.jrdma.internal.cm.CmIdImpl;
import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * SPEC.md's twelve rules, each with its own test (several for the rules that say several things),
 * looking at both sides of the connection. Rule 8 (the iw_cm accept contract) is in
 * {@link IwCmChecks}.
 */
abstract class RuleChecks extends CmChecks {
    /** IB user private data limits (Linux: REQ 92 − 36 cma_hdr, REP, REJ, SIDR_REQ 216 − 36, SIDR_REP). */
    static final int IB_REQ = 56;
    static final int IB_REP = 196;
    static final int IB_REJ = 148;
    static final int IB_SIDR_REQ = 180;
    static final int IB_SIDR_REP = 136;

    RuleChecks(CmSuiteSupport support) {
        super(support);
    }

    private static byte[] bytes(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i + 1);
        }
        return b;
    }

    // ------------------------------------------------------------------------------------------ rule 1

    @Test
    void rule1ConnectWithoutARouteFailsWithEinvalAndSendsNothing() {
        Server server = listen(PortSpace.TCP, 4);
        Peer client = peer();
        long sent = fixture().messagesSent();
        CmId idle = client.events().channel().createId(null, PortSpace.TCP);
        assertThatThrownBy(() -> idle.connect(ConnParam.defaults().withQpNum(0x99)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("route").hasMessageContaining("EINVAL");
        CmId resolved = client.events().channel().createId(null, PortSpace.TCP);
        resolved.resolveAddr(null, at(server.port()), WAIT);
        client.events().expect(CmEventType.ADDR_RESOLVED, resolved);
        Side.of(resolved).createQp();
        assertThatThrownBy(() -> resolved.connect(ConnParam.defaults())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("EINVAL");
        assertThatThrownBy(() -> resolved.connect(ConnParam.defaults(), SHORT))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> resolved.connect(ConnParam.defaults(), new Ece(0x15b3, 1)))
                .isInstanceOf(IllegalStateException.class);
        assertThat(idle.state()).isEqualTo(CmState.IDLE);
        assertThat(resolved.state()).isEqualTo(CmState.ADDR_RESOLVED);
        server.events().expectNone(QUIET);
        client.events().expectNone(QUIET);
        assertThat(fixture().messagesSent()).as("CM messages sent").isEqualTo(sent);
        // Once routed, the same id connects.
        resolved.resolveRoute(WAIT);
        client.events().expect(CmEventType.ROUTE_RESOLVED, resolved);
        resolved.connect(ConnParam.defaults());
        server.events().expect(CmEventType.CONNECT_REQUEST);
    }

    // ------------------------------------------------------------------------------------------ rule 2

    @Test
    void rule2ConnectInAConnectedPortSpaceConnectsTheQps() {
        long sent = fixture().messagesSent();
        Connection c = connect(spec().receives(1));
        if (!iwarp()) { // iWARP QPs have no destination QP number
            assertThat(c.active().qp.query().destQpNum()).isEqualTo(c.passive().qp.qpNum());
            assertThat(c.passive().qp.query().destQpNum()).isEqualTo(c.active().qp.qpNum());
        }
        if (has(CmCapability.CONNECT_RESPONSE)) {
            assertThat(fixture().messagesSent() - sent).as("REQ, REP, RTU").isGreaterThanOrEqualTo(3);
        }
        assertThat(((CmIdImpl) c.active().id).transport()).as("connection state is kept").isNotNull();
        byte[] hello = "hello".getBytes(StandardCharsets.US_ASCII);
        c.active().send(1, 5, hello);
        Completion r = c.passive().awaitCompletion(WAIT);
        assertThat(r.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(c.passive().read(0, 0, r.byteLen())).isEqualTo(hello);
        c.passive().send(2, 5, hello);
        assertThat(c.active().awaitCompletion(WAIT).status()).isEqualTo(WcStatus.SUCCESS); // the active send
        assertThat(c.active().awaitCompletion(WAIT).opcode()).isEqualTo(WcOpcode.RECV);
    }

    @Test
    void rule2ConnectInTheUdpPortSpaceReturnsTheRemoteQpnAndQkeyAndKeepsNoConnection() {
        assume(CmCapability.UD_SIDR);
        Server server = listen(PortSpace.UDP, 4);
        Peer client = peer();
        CmId id = routed(client, PortSpace.UDP, server.port());
        Side active = Side.of(id);
        active.createQp();
        int states = fixture().connectionStates();
        id.connect(ConnParam.defaults().withPrivateData(new byte[] {1, 2}));
        CmEvent req = server.events().expect(CmEventType.CONNECT_REQUEST);
        Side passive = Side.of(req.id());
        passive.createQp();
        passive.postRecv(1, 0);
        req.id().accept(ConnParam.defaults().withPrivateData(new byte[] {3}));
        CmEvent est = client.events().expect(CmEventType.ESTABLISHED, id);
        assertThat(est.status()).isZero();
        assertThat(est.ud()).isNotNull();
        assertThat(est.ud().qpNum()).as("remote QPN").isEqualTo(passive.qp.qpNum());
        assertThat(est.ud().qkey()).as("remote Q_Key (RDMA_UDP_QKEY)").isEqualTo(0x01234567);
        assertThat(est.privateData()).startsWith(3);
        server.events().expectNone(QUIET); // SIDR: the passive side gets no ESTABLISHED

        // No connection state is kept: no IB CM id on either side, nothing to disconnect.
        assertThat(((CmIdImpl) id).transport()).isNull();
        assertThat(((CmIdImpl) req.id()).transport()).isNull();
        if (states >= 0) {
            eventually(() -> fixture().connectionStates() <= states, "no IB CM state left after SIDR ("
                    + fixture().connectionStates() + " > " + states + ")");
        }
        assertThatThrownBy(id::disconnect).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> req.id().disconnect()).isInstanceOf(IllegalStateException.class);
        assertThat(active.qp.state()).as("a failed disconnect leaves the QP alone").isEqualTo(QpState.RTS);
        assertThat(passive.qp.state()).isEqualTo(QpState.RTS);

        // Data flows over UD with what ESTABLISHED returned.
        AddressHandle ah = active.pd.createAh(est.ud().ahAttr());
        byte[] msg = "ud!".getBytes(StandardCharsets.US_ASCII);
        active.sendUd(7, 1, msg, ah, est.ud().qpNum(), est.ud().qkey());
        assertThat(active.awaitCompletion(WAIT).status()).isEqualTo(WcStatus.SUCCESS);
        Completion r = passive.awaitCompletion(WAIT);
        assertThat(r.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(r.byteLen()).as("40-byte GRH + message").isEqualTo(40 + msg.length);
        assertThat(passive.read(0, 40, msg.length)).isEqualTo(msg);
    }


    /**
     * The IB port space (RDMA_PS_IB, service IDs 0x013F_xxxx): the id's QP type decides, as in cma.c. One
     * listener serves an RC id (REQ/REP/RTU) and a UD id (SIDR, RDMA_UDP_QKEY); a TCP-port-space id sent
     * to the same port number asks for another service ID and is rejected (IB_CM_REJ_INVALID_SERVICE_ID).
     */
    @Test
    void theIbPortSpaceServesRcAndUdIdsOnOneListenerAndIsApartFromTcp() {
        assume(CmCapability.UD_SIDR);
        assume(CmCapability.IB_PORT_SPACE);
        Server server = listen(PortSpace.IB, 4);
        Peer client = peer();

        CmId rc = routed(client, PortSpace.IB, server.port());
        assertThat(rc.qpType()).isEqualTo(io.jrdma.verbs.QpType.RC);
        Side.of(rc).createQp();
        rc.connect(ConnParam.defaults().withPrivateData(new byte[] {9}));
        CmEvent req = server.events().expect(CmEventType.CONNECT_REQUEST);
        assertThat(req.id().qpType()).isEqualTo(io.jrdma.verbs.QpType.RC);
        assertThat(req.privateData()).startsWith(9);
        Side.of(req.id()).createQp();
        req.id().accept(ConnParam.defaults());
        client.events().expect(CmEventType.ESTABLISHED, rc);
        server.events().expect(CmEventType.ESTABLISHED, req.id());

        CmId ud = client.events().channel().createId("ud", PortSpace.IB, io.jrdma.verbs.QpType.UD);
        ud.resolveAddr(null, at(server.port()), WAIT);
        client.events().expect(CmEventType.ADDR_RESOLVED, ud);
        ud.resolveRoute(WAIT);
        client.events().expect(CmEventType.ROUTE_RESOLVED, ud);
        Side.of(ud).createQp();
        ud.connect(ConnParam.defaults());
        CmEvent udReq = server.events().expect(CmEventType.CONNECT_REQUEST);
        assertThat(udReq.id().qpType()).isEqualTo(io.jrdma.verbs.QpType.UD);
        Side passive = Side.of(udReq.id());
        passive.createQp();
        udReq.id().accept(ConnParam.defaults());
        CmEvent est = client.events().expect(CmEventType.ESTABLISHED, ud);
        assertThat(est.ud()).isNotNull();
        assertThat(est.ud().qpNum()).isEqualTo(passive.qp.qpNum());
        assertThat(est.ud().qkey()).isEqualTo(0x01234567);

        CmId tcp = routed(client, PortSpace.TCP, server.port());
        Side.of(tcp).createQp();
        tcp.connect(ConnParam.defaults());
        CmEvent rej = client.events().expect(CmEventType.REJECTED, tcp);
        assertThat(rej.status()).as("another port space is another service ID")
                .isEqualTo(RejectReason.INVALID_SERVICE_ID.value());
        server.events().expectNone(QUIET);
    }
    @Test
    void rule3RetryAndRnrRetryCountsReachTheQps() {
        assume(CmCapability.CONNECT_RESPONSE); // IB transport retries; iWARP runs over TCP
        Connection c = connect(spec().connect(ConnParam.defaults().withRetries(5, 3))
                .accept(ConnParam.defaults().withRetries(6, 4)));
        QpAttr a = c.active().qp.query();
        QpAttr p = c.passive().qp.query();
        // IBTA 12.7.38/12.7.41 (cm.c): the REQ's retry count is for the passive QP and the active one
        // keeps its own; each side's RNR retry count is the one the other side asked for.
        assertThat(a.retryCnt()).as("active retry count").isEqualTo(5);
        assertThat(p.retryCnt()).as("passive retry count (the REQ's)").isEqualTo(5);
        assertThat(a.rnrRetry()).as("active RNR retry (the REP's)").isEqualTo(4);
        assertThat(p.rnrRetry()).as("passive RNR retry (the REQ's)").isEqualTo(3);
    }

    // ------------------------------------------------------------------------------------------ rule 3

    @Test
    void rule3IrdAndOrdAreNegotiatedSoNoInitiatorDepthExceedsTheRemotesResponderResources() {
        Connection c = connect(spec().connect(ConnParam.defaults().withResources(3, 5))
                .accept(ConnParam.defaults().withResources(2, 8)));
        assertThat(c.request().param().initiatorDepth()).as("the request tells the most it may issue").isEqualTo(3);
        skipIf(CmQuirk.QUERY_QP_NOT_NEGOTIATED);
        QpAttr a = c.active().qp.query();
        QpAttr p = c.passive().qp.query();
        assertThat(a.maxRdAtomic()).as("active ORD <= passive IRD").isLessThanOrEqualTo(p.maxDestRdAtomic());
        assertThat(p.maxRdAtomic()).as("passive ORD <= active IRD").isLessThanOrEqualTo(a.maxDestRdAtomic());
        if (iwarp()) {
            // siw's relaxed IRD negotiation raises the responder's IRD to the initiator's ORD rather than
            // cutting the ORD; the rule above still holds.
            assertThat(p.maxDestRdAtomic()).as("passive IRD: at least what accept gave").isGreaterThanOrEqualTo(2);
            assertThat(a.maxRdAtomic()).as("active ORD: at most what connect asked").isLessThanOrEqualTo(5);
            assertThat(p.maxRdAtomic()).as("the passive side asked for 8 but the active side takes 3").isEqualTo(3);
        } else {
            assertThat(a.maxRdAtomic()).isEqualTo(heldDepth(2));
            assertThat(p.maxDestRdAtomic()).isEqualTo(heldDepth(2));
            assertThat(p.maxRdAtomic()).as("the passive side asked for 8 but the active side takes 3")
                    .isEqualTo(heldDepth(3));
            assertThat(a.maxDestRdAtomic()).isEqualTo(heldDepth(3));
        }
    }

    @Test
    void rule3ConnectPrivateDataUpToTheLimitWorksAndOneByteMoreIsAClearError() {
        int limit = iwarp() ? fixture().mpaPrivateDataLimit() : IB_REQ;
        Server server = listen(PortSpace.TCP, 4);
        Peer client = peer();
        CmId id = routed(client, PortSpace.TCP, server.port());
        Side.of(id).createQp();
        long sent = fixture().messagesSent();
        assertThatThrownBy(() -> id.connect(ConnParam.defaults().withPrivateData(bytes(limit + 1))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(Integer.toString(limit));
        assertThat(id.state()).isEqualTo(CmState.ROUTE_RESOLVED);
        assertThat(fixture().messagesSent()).isEqualTo(sent);
        id.connect(ConnParam.defaults().withPrivateData(bytes(limit)));
        CmEvent req = server.events().expect(CmEventType.CONNECT_REQUEST);
        assertThat(req.privateData()).startsWith(bytes(limit));
    }

    @Test
    void rule3AcceptPrivateDataUpToTheLimitWorksAndOneByteMoreIsAClearError() {
        int limit = iwarp() ? fixture().mpaPrivateDataLimit() : IB_REP;
        AtomicReference<CmEvent> reqSeen = new AtomicReference<>();
        Spec over = spec().accept(ConnParam.defaults().withPrivateData(bytes(limit + 1)));
        Server server = listen(PortSpace.TCP, 4);
        Peer client = peer();
        CmId id = routed(client, PortSpace.TCP, server.port());
        Side.of(id).createQp();
        id.connect(ConnParam.defaults());
        CmEvent req = server.events().expect(CmEventType.CONNECT_REQUEST);
        reqSeen.set(req);
        Side.of(req.id()).createQp();
        assertThatThrownBy(() -> req.id().accept(over.accept)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(Integer.toString(limit));
        client.events().expect(CmEventType.REJECTED, id); // rule 6: a failed accept rejects

        Connection ok = connect(spec().accept(ConnParam.defaults().withPrivateData(bytes(limit))));
        assertThat(ok.activeEstablished().privateData()).startsWith(bytes(limit));
    }

    @Test
    void rule3RejectPrivateDataUpToTheLimitWorksAndOneByteMoreIsAClearError() {
        int limit = iwarp() ? fixture().mpaPrivateDataLimit() : IB_REJ;
        Server server = listen(PortSpace.TCP, 4);
        Peer client = peer();
        CmId id = routed(client, PortSpace.TCP, server.port());
        Side.of(id).createQp();
        id.connect(ConnParam.defaults());
        CmEvent req = server.events().expect(CmEventType.CONNECT_REQUEST);
        assertThatThrownBy(() -> req.id().reject(bytes(limit + 1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(Integer.toString(limit));
        client.events().expectNone(QUIET); // nothing was sent: the request is still pending
        req.id().reject(bytes(limit));
        CmEvent rej = client.events().expect(CmEventType.REJECTED, id);
        assertThat(rej.privateData()).startsWith(bytes(limit));
    }

    @Test
    void rule3SidrPrivateDataLimitsHoldForConnectAcceptAndReject() {
        assume(CmCapability.UD_SIDR);
        Server server = listen(PortSpace.UDP, 4);
        Peer client = peer();
        CmId id = routed(client, PortSpace.UDP, server.port());
        Side.of(id).createQp();
        assertThatThrownBy(() -> id.connect(ConnParam.defaults().withPrivateData(bytes(IB_SIDR_REQ + 1))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(Integer.toString(IB_SIDR_REQ));
        id.connect(ConnParam.defaults().withPrivateData(bytes(IB_SIDR_REQ)));
        CmEvent req = server.events().expect(CmEventType.CONNECT_REQUEST);
        assertThat(req.privateData()).startsWith(bytes(IB_SIDR_REQ));
        Side.of(req.id()).createQp();
        assertThatThrownBy(() -> req.id().reject(bytes(IB_SIDR_REP + 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(Integer.toString(IB_SIDR_REP));
        assertThatThrownBy(() -> req.id().accept(ConnParam.defaults().withPrivateData(bytes(IB_SIDR_REP + 1))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(Integer.toString(IB_SIDR_REP));
        // The failed accept answers with a SIDR_REP of status REJECT: cma_sidr_rep_handler reports a
        // SIDR_REP that is not SUCCESS as UNREACHABLE with the SIDR status.
        CmEvent refused = client.events().expect(CmEventType.UNREACHABLE, id);
        assertThat(refused.status()).as("IB_SIDR_REJECT").isEqualTo(2);

        CmId second = routed(client, PortSpace.UDP, server.port());
        Side.of(second).createQp();
        second.connect(ConnParam.defaults());
        CmEvent req2 = server.events().expect(CmEventType.CONNECT_REQUEST);
        Side.of(req2.id()).createQp();
        req2.id().accept(ConnParam.defaults().withPrivateData(bytes(IB_SIDR_REP)));
        List<CmEvent> got = client.events().drain(QUIET);
        CmEvent est = got.stream().filter(e -> e.id() == second).findFirst().orElseThrow();
        assertThat(est.type()).isEqualTo(CmEventType.ESTABLISHED);
        assertThat(est.privateData()).startsWith(bytes(IB_SIDR_REP));
    }

    // ------------------------------------------------------------------------------------------ rule 4

    @Test
    void rule4AcceptOnThePassiveSideNeedsConnParam() {
        Server server = listen(PortSpace.TCP, 4);
        Peer client = peer();
        CmId id = routed(client, PortSpace.TCP, server.port());
        Side.of(id).createQp();
        id.connect(ConnParam.defaults());
        CmEvent req = server.events().expect(CmEventType.CONNECT_REQUEST);
        Side.of(req.id()).createQp();
        assertThatThrownBy(() -> req.id().accept(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("connection parameters");
        // A failed accept rejects the request (rule 6), as Linux's __rdma_accept does.
        client.events().expect(CmEventType.REJECTED, id);
        server.events().expectNone(QUIET);
    }

    // ------------------------------------------------------------------------------------------ rule 5

    @Test
    void rule5ActiveAcceptWithNullAfterConnectResponseSendsTheRtu() {
        assume(CmCapability.CONNECT_RESPONSE);
        Server server = listen(PortSpace.TCP, 4);
        Peer client = peer();
        CmId id = routed(client, PortSpace.TCP, server.port());
        Side active = Side.of(id);
        active.createOwnQp(); // not through the id: the user does the transitions
        id.connect(ConnParam.defaults().withQpNum(active.qp.qpNum()));
        CmEvent req = server.events().expect(CmEventType.CONNECT_REQUEST);
        Side passive = Side.of(req.id());
        passive.createQp();
        passive.postRecv(2, 0);
        req.id().accept(ConnParam.defaults());
        client.events().expect(CmEventType.CONNECT_RESPONSE, id);
        server.events().expectNone(QUIET); // waiting for the RTU
        active.qp.modify(id.initQpAttr(QpState.INIT));
        active.postRecv(1, 0);
        active.qp.modify(id.initQpAttr(QpState.RTR));
        active.qp.modify(id.initQpAttr(QpState.RTS));
        id.accept(null);
        CmEvent est = client.events().expect(CmEventType.ESTABLISHED, id);
        assertThat(est.status()).isZero();
        server.events().expect(CmEventType.ESTABLISHED, req.id());
        if (!iwarp()) {
            assertThat(active.qp.query().destQpNum()).isEqualTo(passive.qp.qpNum());
            assertThat(passive.qp.query().destQpNum()).isEqualTo(active.qp.qpNum());
        }
        byte[] msg = {42};
        active.send(10, 3, msg);
        passive.send(20, 3, msg);
        List<Completion> a = List.of(active.awaitCompletion(WAIT), active.awaitCompletion(WAIT));
        List<Completion> p = List.of(passive.awaitCompletion(WAIT), passive.awaitCompletion(WAIT));
        assertThat(a).extracting(Completion::status).containsOnly(WcStatus.SUCCESS);
        assertThat(p).extracting(Completion::status).containsOnly(WcStatus.SUCCESS);
    }

    @Test
    void rule5ActiveAcceptWithConnParamOrInAnyOtherStateIsAClearError() {
        assume(CmCapability.CONNECT_RESPONSE);
        Server server = listen(PortSpace.TCP, 4);
        Peer client = peer();
        CmId id = routed(client, PortSpace.TCP, server.port());
        assertThatThrownBy(() -> id.accept(null)).as("before connect").isInstanceOf(IllegalStateException.class);
        Side active = Side.of(id);
        active.createOwnQp();
        id.connect(ConnParam.defaults().withQpNum(active.qp.qpNum()));
        assertThatThrownBy(() -> id.accept(null)).as("before CONNECT_RESPONSE")
                .isInstanceOf(IllegalStateException.class);
        CmEvent req = server.events().expect(CmEventType.CONNECT_REQUEST);
        Side.of(req.id()).createQp();
        req.id().accept(ConnParam.defaults());
        client.events().expect(CmEventType.CONNECT_RESPONSE, id);
        assertThatThrownBy(() -> id.accept(ConnParam.defaults())).as("a conn_param after CONNECT_RESPONSE")
                .isInstanceOf(IllegalArgumentException.class);
        active.qp.modify(id.initQpAttr(QpState.INIT));
        active.qp.modify(id.initQpAttr(QpState.RTR));
        active.qp.modify(id.initQpAttr(QpState.RTS));
        id.establish(); // rdma_establish = accept(null): still possible after the refused call
        client.events().expect(CmEventType.ESTABLISHED, id);
        assertThatThrownBy(() -> id.accept(null)).as("after ESTABLISHED").isInstanceOf(IllegalStateException.class);

        Connection withQp = connect();
        assertThatThrownBy(() -> withQp.active().id.accept(null)).as("an id with a QP never gets CONNECT_RESPONSE")
                .isInstanceOf(IllegalStateException.class);
    }

    // ------------------------------------------------------------------------------------------ rule 6

    @Test
    void rule6AFailedAcceptRejectsTheRemoteAndFlushesEveryPostedReceiveOnce() {
        Server server = listen(PortSpace.TCP, 4);
        Peer client = peer();
        CmId id = routed(client, PortSpace.TCP, server.port());
        Side active = Side.of(id);
        active.createQp();
        for (int i = 0; i < 3; i++) {
            active.postRecv(100 + i, i);
        }
        id.connect(ConnParam.defaults());
        CmEvent req = server.events().expect(CmEventType.CONNECT_REQUEST);
        Side passive = Side.of(req.id());
        passive.createQp();
        for (int i = 0; i < 5; i++) {
            passive.postRecv(200 + i, i);
        }
        int tooLong = (iwarp() ? fixture().mpaPrivateDataLimit() : IB_REP) + 1;
        assertThatThrownBy(() -> req.id().accept(ConnParam.defaults().withPrivateData(bytes(tooLong))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(passive.qp.state()).as("the QP of a failed accept goes to ERROR").isEqualTo(QpState.ERR);
        List<Completion> flushed = passive.drain(5, QUIET);
        assertThat(flushed).extracting(Completion::wrId).containsExactlyInAnyOrder(200L, 201L, 202L, 203L, 204L);
        assertThat(flushed).extracting(Completion::status).containsOnly(WcStatus.WR_FLUSH_ERR);

        CmEvent rej = client.events().expect(CmEventType.REJECTED, id);
        if (!iwarp()) {
            // What the peer sees: IB/RoCE a REJ with reason 28 (rdma_reject in __rdma_accept's error path);
            // iWARP (see IwCmaBackend) a TCP close before the MPA reply, REJECTED with -ECONNRESET.
            assertThat(rej.status()).isEqualTo(RejectReason.CONSUMER_DEFINED.value());
            assertThat(CmStrings.isConsumerReject(id, rej.status())).isTrue();
        }
        List<Completion> activeFlushed = active.drain(3, QUIET);
        assertThat(activeFlushed).extracting(Completion::wrId).containsExactlyInAnyOrder(100L, 101L, 102L);
        assertThat(activeFlushed).extracting(Completion::status).containsOnly(WcStatus.WR_FLUSH_ERR);
        server.events().expectNone(QUIET); // no further event for the id of the failed accept
        client.events().expectNone(QUIET);
    }

    @Test
    void rule6AcceptWithTheQpInErrorFailsWithEinvalRejectsThePeerAndLeavesTheReceivesFlushed() {
        Server server = listen(PortSpace.TCP, 4);
        Peer client = peer();
        CmId id = routed(client, PortSpace.TCP, server.port());
        Side.of(id).createQp();
        id.connect(ConnParam.defaults());
        CmEvent req = server.events().expect(CmEventType.CONNECT_REQUEST);
        Side passive = Side.of(req.id());
        passive.createQp();
        for (int i = 0; i < 3; i++) {
            passive.postRecv(300 + i, i);
        }
        passive.qp.modify(new QpAttr().qpState(QpState.ERR));
        assertThatThrownBy(() -> req.id().accept(ConnParam.defaults()))
                .isInstanceOfSatisfying(RdmaException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL))
                .hasMessageContaining("ERR");
        assertThat(passive.qp.state()).isEqualTo(QpState.ERR);
        List<Completion> flushed = passive.drain(3, QUIET);
        assertThat(flushed).as("each receive flushed once").extracting(Completion::wrId)
                .containsExactlyInAnyOrder(300L, 301L, 302L);
        assertThat(flushed).extracting(Completion::status).containsOnly(WcStatus.WR_FLUSH_ERR);
        CmEvent rej = client.events().expect(CmEventType.REJECTED, id);
        if (!iwarp()) {
            assertThat(rej.status()).isEqualTo(RejectReason.CONSUMER_DEFINED.value());
        }
        server.events().expectNone(QUIET);
        client.events().expectNone(QUIET);
    }

    @Test
    void rule6AcceptTakesAQpInResetThroughInitRtrAndRts() {
        Server server = listen(PortSpace.TCP, 4);
        Peer client = peer();
        CmId id = routed(client, PortSpace.TCP, server.port());
        Side active = Side.of(id);
        active.createQp();
        active.postRecv(400, 0);
        id.connect(ConnParam.defaults());
        CmEvent req = server.events().expect(CmEventType.CONNECT_REQUEST);
        Side passive = Side.of(req.id());
        passive.createQp();
        passive.qp.modify(new QpAttr().qpState(QpState.RESET));
        req.id().accept(ConnParam.defaults());
        client.events().expect(CmEventType.ESTABLISHED, id);
        server.events().expect(CmEventType.ESTABLISHED, req.id());
        assertThat(passive.qp.state()).as("the passive QP after accept").isEqualTo(QpState.RTS);
        if (!iwarp()) {
            assertThat(passive.qp.query().destQpNum()).isEqualTo(active.qp.qpNum());
        }
        passive.send(401, 1, new byte[] {7});
        assertThat(passive.awaitCompletion(WAIT).status()).isEqualTo(WcStatus.SUCCESS);
        Completion got = active.awaitCompletion(WAIT);
        assertThat(got.wrId()).isEqualTo(400L);
        assertThat(got.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(active.read(0, 0, 1)).containsExactly(7);
    }

    @Test
    void rule6AnActiveQpInErrorWhenTheReplyArrivesGivesConnectErrorAndNoConnectionOnEitherSide() {
        Server server = listen(PortSpace.TCP, 4);
        Peer client = peer();
        CmId id = routed(client, PortSpace.TCP, server.port());
        Side active = Side.of(id);
        active.createQp();
        id.connect(ConnParam.defaults());
        CmEvent req = server.events().expect(CmEventType.CONNECT_REQUEST);
        Side.of(req.id()).createQp();
        active.qp.modify(new QpAttr().qpState(QpState.ERR));
        req.id().accept(ConnParam.defaults());
        CmEvent err = client.events().expect(CmEventType.CONNECT_ERROR, id);
        assertThat(err.status()).isEqualTo(Errno.EINVAL.status());
        if (iwarp()) {
            // iWARP: the reply is answered by closing the stream; the passive side's connection ends.
            List<CmEvent> passive = server.events().drain(QUIET);
            assertThat(passive).extracting(CmEvent::type).isNotEmpty()
                    .last().isIn(CmEventType.DISCONNECTED, CmEventType.REJECTED, CmEventType.CONNECT_ERROR);
        } else {
            // IB/RoCE: a REJ instead of the RTU (cma_rep_recv's failure in cma_ib_handler).
            CmEvent rej = server.events().expect(CmEventType.REJECTED, req.id());
            assertThat(rej.status()).isEqualTo(RejectReason.CONSUMER_DEFINED.value());
            server.events().expectNone(QUIET);
        }
        client.events().expectNone(QUIET);
    }

    // ------------------------------------------------------------------------------------------ rule 7

    @Test
    void rule7KernelStyleAcceptAndRejectAreMadeFromUnderTheHandler() {
        RdmaCm scm = openCm();
        EventRecorder serverHandler = recorder().reaction((id, e) -> {
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                if (e.privateData().length > 0 && e.privateData()[0] == 'R') {
                    id.reject(new byte[] {'n', 'o'});
                } else {
                    Side.of(id).createQp();
                    id.accept(ConnParam.defaults());
                }
            }
            return false;
        });
        CmId listener = scm.createId(serverHandler, null, PortSpace.TCP);
        listener.bind(at(0));
        listener.listen(4);
        Peer client = peer();
        CmId welcome = routed(client, PortSpace.TCP, listener.localPort());
        Side.of(welcome).createQp();
        welcome.connect(ConnParam.defaults().withPrivateData(new byte[] {'A'}));
        client.events().expect(CmEventType.ESTABLISHED, welcome);
        CmId refused = routed(client, PortSpace.TCP, listener.localPort());
        Side.of(refused).createQp();
        refused.connect(ConnParam.defaults().withPrivateData(new byte[] {'R'}));
        CmEvent rej = client.events().expect(CmEventType.REJECTED, refused);
        assertThat(rej.privateData()).startsWith('n', 'o');
        assertThat(serverHandler.failures()).isEmpty();

        if (has(CmCapability.CONNECT_RESPONSE)) {
            // The active side's accept(null) for CONNECT_RESPONSE, from under that event's handler.
            RdmaCm ccm = openCm();
            EventRecorder clientHandler = recorder().reaction((id, e) -> {
                switch (e.type()) {
                    case ADDR_RESOLVED -> id.resolveRoute(WAIT);
                    case ROUTE_RESOLVED -> {
                        Side s = Side.of(id);
                        s.createOwnQp();
                        id.context(s);
                        id.connectLocked(ConnParam.defaults().withQpNum(s.qp.qpNum()));
                    }
                    case CONNECT_RESPONSE -> {
                        Side s = (Side) id.context();
                        s.qp.modify(id.initQpAttr(QpState.INIT));
                        s.qp.modify(id.initQpAttr(QpState.RTR));
                        s.qp.modify(id.initQpAttr(QpState.RTS));
                        id.accept(null);
                    }
                    default -> {
                    }
                }
                return false;
            });
            CmId k = ccm.createId(clientHandler, null, PortSpace.TCP);
            k.resolveAddr(null, at(listener.localPort()), WAIT);
            clientHandler.expect(CmEventType.ADDR_RESOLVED);
            clientHandler.expect(CmEventType.ROUTE_RESOLVED);
            clientHandler.expect(CmEventType.CONNECT_RESPONSE);
            clientHandler.expect(CmEventType.ESTABLISHED);
            assertThat(clientHandler.failures()).isEmpty();
        }
    }

    @Test
    void rule7ChannelStyleAcceptIsMadeAfterTheEventWasRetrievedFromAnyThread() throws Exception {
        Server server = listen(PortSpace.TCP, 4);
        Peer client = peer();
        CmId id = routed(client, PortSpace.TCP, server.port());
        Side.of(id).createQp();
        id.connect(ConnParam.defaults());
        CmEvent req = server.events().expectUnacked(CmEventType.CONNECT_REQUEST);
        Side.of(req.id()).createQp();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread acceptor = background("accept", () -> {
            try {
                req.id().accept(ConnParam.defaults());
            } catch (RuntimeException e) {
                failure.set(e);
            }
        });
        join(acceptor);
        assertThat(failure.get()).isNull();
        server.events().channel().ackEvent(req);
        client.events().expect(CmEventType.ESTABLISHED, id);
        server.events().expect(CmEventType.ESTABLISHED, req.id());
        assertThatThrownBy(() -> req.id().reject(null)).as("nothing left to answer")
                .isInstanceOf(IllegalStateException.class);
    }

    // ------------------------------------------------------------------------------------------ rule 9

    @Test
    void rule9AckTimeoutReachesRtsAndMinRnrTimerReachesRtrOnBothSides() {
        assume(CmCapability.CONNECT_RESPONSE); // IB transport timers; iWARP has TCP's
        Connection c = connect(spec().beforeConnect(id -> {
            id.setAckTimeout(14);
            id.setMinRnrTimer(12);
        }).beforeAccept(id -> {
            id.setAckTimeout(16);
            id.setMinRnrTimer(20);
        }));
        QpAttr a = c.active().qp.query();
        QpAttr p = c.passive().qp.query();
        assertThat(a.timeout()).as("active ACK timeout").isEqualTo(14);
        assertThat(a.minRnrTimer()).as("active min RNR timer").isEqualTo(12);
        assertThat(p.timeout()).as("passive ACK timeout").isEqualTo(16);
        assertThat(p.minRnrTimer()).as("passive min RNR timer").isEqualTo(20);

        Connection d = connect();
        assertThat(d.active().qp.query().minRnrTimer()).as("cm.c's default").isZero();
        assertThat(d.active().qp.query().timeout()).as("the CM's computed local ACK timeout").isPositive();
    }

    // ------------------------------------------------------------------------------------------ rule 10

    @Test
    void rule10EceIsOfferedInTheConnectAndAnsweredInTheAccept() {
        assume(CmCapability.ECE);
        Ece offer = new Ece(0x15b3, 0xA5);
        Ece answer = new Ece(0x15b3, 0x05);
        Connection c = connect(spec().ece(offer, answer));
        assertThat(c.request().ece()).as("offered").isEqualTo(offer);
        assertThat(c.request().id().remoteEce()).isEqualTo(offer);
        assertThat(c.activeEstablished().ece()).as("answered").isEqualTo(answer);
        assertThat(c.active().id.remoteEce()).isEqualTo(answer);
        Connection none = connect();
        assertThat(none.request().ece()).isEqualTo(Ece.NONE);
    }

    @Test
    void rule10ARejectCanSayTheEceOptionIsNotSupported() {
        assume(CmCapability.ECE);
        Server server = listen(PortSpace.TCP, 4);
        Peer client = peer();
        CmId id = routed(client, PortSpace.TCP, server.port());
        Side.of(id).createQp();
        id.connect(ConnParam.defaults(), new Ece(0x15b3, 0xFF));
        CmEvent req = server.events().expect(CmEventType.CONNECT_REQUEST);
        req.id().rejectEce(null);
        CmEvent rej = client.events().expect(CmEventType.REJECTED, id);
        assertThat(rej.status()).isEqualTo(RejectReason.VENDOR_OPTION_NOT_SUPPORTED.value()).isEqualTo(35);
        assertThat(CmStrings.rejectMsg(id, rej.status())).isEqualTo("vendor option is not supported");
        assertThat(CmStrings.isConsumerReject(id, rej.status())).isFalse();
    }

    @Test
    void rule10EceOnATransportWithoutItIsAClearError() {
        Peer client = peer();
        CmId id = routed(client, PortSpace.TCP, 7471);
        if (has(CmCapability.ECE)) {
            assertThatThrownBy(() -> new Ece(1 << 24, 0)).as("a 24-bit vendor id")
                    .isInstanceOf(IllegalArgumentException.class);
            return;
        }
        Side.of(id).createQp();
        assertThatThrownBy(() -> id.connect(ConnParam.defaults(), new Ece(0x15b3, 1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    // ------------------------------------------------------------------------------------------ rule 11

    @Test
    void rule11AConsumerRejectIsToldApartFromTimeoutsAndProtocolRejects() {
        Server server = listen(PortSpace.TCP, 1);
        Peer client = peer();
        CmId rejected = routed(client, PortSpace.TCP, server.port());
        Side.of(rejected).createQp();
        rejected.connect(ConnParam.defaults());
        server.events().expect(CmEventType.CONNECT_REQUEST).id().reject(new byte[] {'x'});
        CmEvent consumer = client.events().expect(CmEventType.REJECTED, rejected);
        assertThat(consumerReject(rejected, consumer.status())).as("rdma_reject").isTrue();
        assertThat(consumer.privateData()).startsWith('x');
        if (iwarp()) {
            assertThat(consumer.status()).isEqualTo(consumerRejectStatus());
        } else {
            assertThat(consumer.status()).isEqualTo(RejectReason.CONSUMER_DEFINED.value());
            assertThat(CmStrings.rejectMsg(rejected, consumer.status())).isEqualTo("consumer defined");
            // A protocol reject: nobody listens there.
            Server gone = listen(PortSpace.TCP, 1);
            int port = gone.port();
            gone.listener().destroy();
            CmId nobody = routed(client, PortSpace.TCP, port);
            Side.of(nobody).createQp();
            nobody.connect(ConnParam.defaults());
            CmEvent invalid = client.events().expect(CmEventType.REJECTED, nobody);
            assertThat(CmStrings.isConsumerReject(nobody, invalid.status())).as("invalid service ID").isFalse();
        }
        if (has(CmCapability.DROP_MESSAGES)) {
            track(fixture().drop(EnumSet.of(CmMessageKind.REQ), Integer.MAX_VALUE));
            CmId silent = routed(client, PortSpace.TCP, server.port());
            Side.of(silent).createQp();
            silent.connect(ConnParam.defaults(), SHORT);
            CmEvent timeout = client.events().expect(CmEventType.UNREACHABLE, silent);
            assertThat(CmStrings.isConsumerReject(silent, timeout.status())).as("a timeout").isFalse();
        }
    }

    // ------------------------------------------------------------------------------------------ rule 12

    @Test
    void rule12TheDeviceIsChosenBySourceAddressAndAnIdBoundToItStaysOnIt() {
        Server server = listen(PortSpace.TCP, 4);
        Peer client = peer();
        CmId id = client.events().channel().createId(null, PortSpace.TCP);
        id.bind(at(0));
        Device bound = id.device();
        assertThat(bound).as("bind to a device's address ties the id to that device").isNotNull();
        assertThat(bound.servesAddress(fixture().address())).isTrue();
        id.resolveAddr(null, at(server.port()), WAIT);
        client.events().expect(CmEventType.ADDR_RESOLVED, id);
        assertThat(id.device()).isSameAs(bound);
        id.resolveRoute(WAIT);
        client.events().expect(CmEventType.ROUTE_RESOLVED, id);
        assertThat(id.device()).isSameAs(bound);
        Side active = Side.of(id);
        assertThat(active.context.device()).isSameAs(bound);
        active.createQp();
        id.connect(ConnParam.defaults());
        CmEvent req = server.events().expect(CmEventType.CONNECT_REQUEST);
        assertThat(req.id().device()).as("the request's id is on the device the request came in on")
                .isSameAs(server.listener().device());
        Side.of(req.id()).createQp();
        req.id().accept(ConnParam.defaults());
        client.events().expect(CmEventType.ESTABLISHED, id);
        assertThat(id.device()).isSameAs(bound);
        // A device is named bare or with its provider ("native:rxe0") among the fixture's.
        assertThat(fixture().deviceNames()).containsAnyOf(bound.name(), bound.provider() + ":" + bound.name());
        // A manager restricted to devices that do not serve an address cannot bind to it.
        CmId elsewhere = client.events().channel().createId(null, PortSpace.TCP);
        assertThatThrownBy(() -> elsewhere.bind(new InetSocketAddress(fixture().unservedAddress(), 0)))
                .isInstanceOf(RdmaException.class);
    }

    @Test
    void rule3RetryAndRnrRetryCountsAreThreeBitsAtTheCall() {
        assertThat(ConnParam.defaults().withRetries(7, 7).rnrRetryCount()).as("7 = infinite RNR retries").isEqualTo(7);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ConnParam.defaults().withRetries(8, 0))
                .isInstanceOf(IllegalArgumentException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ConnParam.defaults().withRetries(0, 8))
                .isInstanceOf(IllegalArgumentException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ConnParam.defaults().withRetries(-1, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
