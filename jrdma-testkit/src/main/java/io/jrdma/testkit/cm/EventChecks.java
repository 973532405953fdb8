package io.jrdma.testkit.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.CmState;
import io.jrdma.cm.CmStrings;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.cm.RejectReason;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.WcStatus;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The events of SPEC.md's list with their status and data, as {@code cma.c}'s handlers produce them.
 * ADDR_RESOLVED, ADDR_ERROR and ROUTE_RESOLVED are checked with their calls in {@link CallChecks};
 * ESTABLISHED of a UD id in {@link RuleChecks}; the multicast events in {@link MulticastChecks}.
 * ROUTE_ERROR and ADDR_CHANGE have no test: jrdma does not produce them (docs/spec-coverage.md says why).
 */
abstract class EventChecks extends CmChecks {
    EventChecks(CmSuiteSupport support) {
        super(support);
    }

    @Test
    void aUdConnectRequestCarriesTheRemoteAddressAndPrivateData() {
        assume(CmCapability.UD_SIDR);
        Server server = listen(PortSpace.UDP, 4);
        Peer client = peer();
        CmId id = routed(client, PortSpace.UDP, server.port());
        Side.of(id).createQp();
        id.connect(ConnParam.defaults().withPrivateData(new byte[] {4, 5, 6}));
        CmEvent req = server.events().expect(CmEventType.CONNECT_REQUEST);
        assertThat(req.status()).isZero();
        assertThat(req.listenId()).isSameAs(server.listener());
        assertThat(req.id().portSpace()).isEqualTo(PortSpace.UDP);
        assertThat(req.ud()).as("UD parameters").isNotNull();
        assertThat(req.privateData()).startsWith(4, 5, 6);
        assertThat(req.ud().ahAttr().dgid()).as("the address of the remote").isEqualTo(Gid.of(fixture().address()));
        assertThat(req.id().peerAddress()).isEqualTo(id.localAddress());
    }

    @Test
    void connectResponseCarriesTheReplyToAnIdWithoutAQp() {
        assume(CmCapability.CONNECT_RESPONSE);
        Server server = listen(PortSpace.TCP, 4);
        Peer client = peer();
        CmId id = routed(client, PortSpace.TCP, server.port());
        Side active = Side.of(id);
        active.createOwnQp();
        id.connect(ConnParam.defaults().withQpNum(active.qp.qpNum()).withResources(4, 3));
        CmEvent req = server.events().expect(CmEventType.CONNECT_REQUEST);
        Side passive = Side.of(req.id());
        passive.createQp();
        req.id().accept(ConnParam.defaults().withResources(2, 6).withPrivateData(new byte[] {9, 8}));
        CmEvent resp = client.events().expect(CmEventType.CONNECT_RESPONSE, id);
        assertThat(resp.status()).isZero();
        assertThat(resp.privateData()).startsWith(9, 8);
        assertThat(resp.param().qpNum()).as("the remote QP").isEqualTo(passive.qp.qpNum());
        assertThat(resp.param().initiatorDepth()).as("at most the remote's responder resources").isEqualTo(2);
        assertThat(resp.param().responderResources()).as("the remote's initiator depth, at most ours")
                .isLessThanOrEqualTo(4);
        server.events().expectNone(QUIET); // no RTU yet
    }

    @Test
    void connectErrorFollowsAReplyTheLocalQpCannotTake() {
        assume(CmCapability.CONNECT_RESPONSE);
        int most;
        try (io.jrdma.verbs.Context c = device().open()) { // any provider's device, not only core's
            most = c.queryDevice().maxQpInitRdAtom();
        }
        if (most >= 255) {
            Assumptions.abort("the device takes any initiator depth");
        }
        Server server = listen(PortSpace.TCP, 4);
        Peer client = peer();
        CmId id = routed(client, PortSpace.TCP, server.port());
        Side active = Side.of(id);
        active.createQp();
        if (quirk(CmQuirk.INITIATOR_DEPTH_CHECKED_AT_THE_CALL)) {
            assertThatThrownBy(() -> id.connect(ConnParam.defaults().withResources(1, most + 1)))
                    .isInstanceOf(IllegalArgumentException.class);
            skipIf(CmQuirk.INITIATOR_DEPTH_CHECKED_AT_THE_CALL);
        }
        // Ask for more RDMA READ depth than this device can issue; a passive side without a QP
        // grants it, so moving the active QP to RTS fails (cma_rep_recv: CONNECT_ERROR, REJ sent).
        id.connect(ConnParam.defaults().withResources(1, most + 1));
        CmEvent req = server.events().expect(CmEventType.CONNECT_REQUEST);
        req.id().accept(ConnParam.defaults().withResources(most + 1, 1).withQpNum(0x777));
        CmEvent err = client.events().expect(CmEventType.CONNECT_ERROR, id);
        assertThat(err.status()).as("a negative errno").isNegative();
        assertThat(active.qp.state()).isEqualTo(QpState.ERR);
        CmEvent rej = server.events().expect(CmEventType.REJECTED, req.id());
        assertThat(rej.status()).isEqualTo(RejectReason.CONSUMER_DEFINED.value());
    }

    @Test
    void unreachableReportsASilentPeerAfterTheCallersTimeout() {
        assume(CmCapability.DROP_MESSAGES);
        MessageDrop drop = track(fixture().drop(EnumSet.of(CmMessageKind.REQ), Integer.MAX_VALUE));
        Server server = listen(PortSpace.TCP, 4);
        Peer client = peer();
        CmId id = routed(client, PortSpace.TCP, server.port());
        Side active = Side.of(id);
        active.createQp();
        active.postRecv(1, 0);
        long t0 = System.nanoTime();
        id.connect(ConnParam.defaults(), SHORT);
        CmEvent e = client.events().expect(CmEventType.UNREACHABLE, id);
        long elapsed = System.nanoTime() - t0;
        assertThat(elapsed).as("not before the caller's timeout").isGreaterThanOrEqualTo(SHORT.toNanos() * 9 / 10);
        assertThat(e.status()).isEqualTo(Errno.ETIMEDOUT.status());
        assertThat(CmStrings.isConsumerReject(id, e.status())).isFalse();
        assertThat(drop.dropped()).isGreaterThanOrEqualTo(1);
        assertThat(active.qp.state()).as("the QP of a failed connect goes to ERROR").isEqualTo(QpState.ERR);
        List<Completion> flushed = active.drain(1, QUIET);
        assertThat(flushed).extracting(Completion::wrId).containsExactly(1L);
        assertThat(flushed).extracting(Completion::status).containsOnly(WcStatus.WR_FLUSH_ERR);
        server.events().expectNone(QUIET);
        client.events().expectNone(QUIET); // UNREACHABLE once, nothing after
    }

    @Test
    void unreachableReportsASilentUdPeerAfterTheCallersTimeout() {
        assume(CmCapability.UD_SIDR);
        assume(CmCapability.DROP_MESSAGES);
        track(fixture().drop(EnumSet.of(CmMessageKind.SIDR_REQ), Integer.MAX_VALUE));
        Server server = listen(PortSpace.UDP, 4);
        Peer client = peer();
        CmId id = routed(client, PortSpace.UDP, server.port());
        Side.of(id).createQp();
        long t0 = System.nanoTime();
        id.connect(ConnParam.defaults(), SHORT);
        CmEvent e = client.events().expect(CmEventType.UNREACHABLE, id);
        assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(SHORT.toNanos() * 9 / 10);
        assertThat(e.status()).isEqualTo(Errno.ETIMEDOUT.status());
        server.events().expectNone(QUIET);
    }

    @Test
    void rejectedReportsAPortNobodyListensOnAsInvalidServiceId() {
        assume(CmCapability.CONNECT_RESPONSE); // the IB CM's reason; iWARP sees a refused TCP connect
        Server gone = listen(PortSpace.TCP, 1);
        int port = gone.port();
        gone.listener().destroy();
        Peer client = peer();
        CmId id = routed(client, PortSpace.TCP, port);
        Side.of(id).createQp();
        id.connect(ConnParam.defaults());
        CmEvent rej = client.events().expect(CmEventType.REJECTED, id);
        assertThat(rej.status()).isEqualTo(RejectReason.INVALID_SERVICE_ID.value());
        assertThat(CmStrings.rejectMsg(id, rej.status())).isEqualTo("invalid service ID");
        assertThat(CmStrings.isConsumerReject(id, rej.status())).isFalse();
    }

    @Test
    void timewaitExitFollowsDisconnectedOnBothSides() {
        assume(CmCapability.TIMEWAIT_EXIT);
        Connection c = connect();
        c.active().id.disconnect();
        c.server().events().expect(CmEventType.DISCONNECTED, c.request().id());
        c.request().id().disconnect();
        c.client().events().expect(CmEventType.DISCONNECTED, c.active().id);
        CmEvent a = c.client().events().expect(CmEventType.TIMEWAIT_EXIT, c.active().id);
        CmEvent p = c.server().events().expect(CmEventType.TIMEWAIT_EXIT, c.request().id());
        assertThat(a.status()).isZero();
        assertThat(p.status()).isZero();
        Duration quiet = QUIET;
        c.client().events().expectNone(quiet);
        c.server().events().expectNone(quiet);
    }

    @Test
    void deviceRemovalReachesEveryIdOnTheDeviceWhichTheUserThenDestroys() throws Exception {
        assume(CmCapability.DEVICE_REMOVAL);
        Connection c = connect(spec().receives(1));
        CmId bound = c.client().events().channel().createId("bound", PortSpace.UDP);
        bound.bind(at(0));
        CmId idle = c.client().events().channel().createId("idle", PortSpace.TCP);
        RdmaCm kernelCm = openCm();
        EventRecorder r = recorder().reaction((id, e) -> e.type() == CmEventType.DEVICE_REMOVAL);
        CmId kernel = kernelCm.createId(r, null, PortSpace.TCP);
        kernel.bind(at(0));
        io.jrdma.verbs.Context ctx = track(device().open());
        try (AutoCloseable removed = fixture().removeDevice()) {
            io.jrdma.verbs.AsyncEvent fatal = ctx.getAsyncEvent(WAIT);
            assertThat(fatal).as("every open context hears of it").isNotNull();
            assertThat(fatal.type()).isEqualTo(io.jrdma.verbs.AsyncEventType.DEVICE_FATAL);
            // cma_process_remove: every id bound to the device, listener and connection ids alike.
            CmEvent l = c.server().events().expectUnacked(CmEventType.DEVICE_REMOVAL);
            CmEvent p = c.server().events().expectUnacked(CmEventType.DEVICE_REMOVAL);
            assertThat(List.of(l.id(), p.id())).containsExactlyInAnyOrder(c.server().listener(), c.request().id());
            CmEvent a = c.client().events().expectUnacked(CmEventType.DEVICE_REMOVAL);
            CmEvent b = c.client().events().expectUnacked(CmEventType.DEVICE_REMOVAL);
            assertThat(List.of(a.id(), b.id())).containsExactlyInAnyOrder(c.active().id, bound);
            for (CmEvent e : List.of(l, p, a, b)) {
                assertThat(e.status()).isZero();
                assertThat(e.id().state()).isEqualTo(CmState.DEVICE_REMOVAL);
            }
            assertThat(idle.state()).as("an id on no device hears nothing").isEqualTo(CmState.IDLE);
            c.client().events().expectNone(QUIET);
            assertThat(c.active().qp.state()).as("the QP of a removed device goes to ERROR").isEqualTo(QpState.ERR);
            assertThat(c.passive().qp.state()).isEqualTo(QpState.ERR);
            assertThat(c.active().drain(1, QUIET)).extracting(Completion::status).containsOnly(WcStatus.WR_FLUSH_ERR)
                    .hasSize(1);
            assertThatThrownBy(() -> c.active().id.disconnect()).as("only destroy is left to do")
                    .isInstanceOf(IllegalStateException.class);
            // A kernel-style handler that returns true has its id destroyed (cma_process_remove).
            assertThat(r.expect(CmEventType.DEVICE_REMOVAL).id()).isSameAs(kernel);
            eventually(() -> kernelCm.idCount() == 0, "the kernel-style id is destroyed after its handler");
            for (CmEvent e : List.of(l, p, a, b)) {
                ChannelEvents ch = e.id() == c.active().id || e.id() == bound ? c.client().events()
                        : c.server().events();
                ch.channel().ackEvent(e);
                e.id().destroy();
            }
            assertThatThrownBy(() -> c.client().events().channel().createId("new", PortSpace.TCP).bind(at(0)))
                    .as("a removed device serves no address").isInstanceOf(RdmaException.class);
        }
        Connection again = connect();
        assertThat(again.activeEstablished().status()).as("the device is back").isZero();
    }
}
