package io.jrdma.testkit.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.CmState;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.IwCmEvent;
import io.jrdma.cm.IwCmEventType;
import io.jrdma.cm.IwCmHandler;
import io.jrdma.cm.IwCmId;
import io.jrdma.cm.IwConnParam;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QueuePair;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The iWARP CM as an API of its own ({@code include/rdma/iw_cm.h}, {@code iwcm.c}): listen,
 * connect, accept and reject on iw_cm ids, their events, and SPEC rule 8 — the id passed to accept
 * is the one CONNECT_REQUEST provided, its events may come before accept returns, and a failed
 * accept delivers no event at all. Skipped on transports without {@link CmCapability#IW_CM}, except
 * the check that an rdma_cm id exposes its iw_cm id only on iWARP.
 */
abstract class IwCmChecks extends CmChecks {
    IwCmChecks(CmSuiteSupport support) {
        super(support);
    }

    /** An event with the id its handler got it for. */
    record Got(IwCmId id, IwCmEvent event) {
    }

    /** A recording iw_cm handler. */
    static class IwRecorder implements IwCmHandler {
        final LinkedBlockingQueue<Got> events = new LinkedBlockingQueue<>();

        @Override
        public boolean onEvent(IwCmId id, IwCmEvent event) {
            events.add(new Got(id, event));
            return false;
        }

        Got next() {
            try {
                Got g = events.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                if (g == null) {
                    fail("no iw_cm event within " + WAIT);
                }
                return g;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }

        Got expect(IwCmEventType type) {
            Got g = next();
            assertThat(g.event().type()).as("expected %s, got %s", type, g.event()).isEqualTo(type);
            return g;
        }

        void expectNone() {
            try {
                Got g = events.poll(QUIET.toMillis(), TimeUnit.MILLISECONDS);
                if (g != null) {
                    fail("unexpected iw_cm event " + g.event());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    /** Verbs for iw_cm tests: one context, PD and CQ, QPs in INIT as iw_cm_init_qp_attr says. */
    private final class Verbs {
        final Context ctx = track(device().open());
        final ProtectionDomain pd = ctx.allocPd();
        final CompletionQueue cq = ctx.createCq(64);

        QueuePair qp(IwCmId forAttrs) {
            QueuePair q = pd.createQp(QpInitAttr.rc(cq, QpCap.of(8, 8)));
            q.modify(forAttrs.initQpAttr(QpState.INIT));
            return q;
        }
    }

    private static IwConnParam param(String pdata, QueuePair qp) {
        return new IwConnParam(pdata.getBytes(StandardCharsets.US_ASCII), 1, 1, qp == null ? 0xFFFFFF : qp.qpNum());
    }

    private IwCmId listener(RdmaCm cm, IwRecorder r) {
        IwCmId l = cm.createIwId(device(), r, "listener");
        l.localAddress(at(0));
        l.listen(4);
        assertThat(l.localAddress().getPort()).isPositive();
        return l;
    }

    private IwCmId connecting(RdmaCm cm, IwRecorder r, IwCmId listener, Verbs v, String pdata) {
        IwCmId a = cm.createIwId(device(), r, "active");
        a.localAddress(new InetSocketAddress(fixture().address(), 0));
        a.remoteAddress(at(listener.localAddress().getPort()));
        a.connect(param(pdata, v.qp(a)));
        return a;
    }

    @Test
    void iwCmIdsListenConnectAcceptAndClose() {
        assume(CmCapability.IW_CM);
        RdmaCm cm = openCm();
        Verbs v = new Verbs();
        IwRecorder server = new IwRecorder();
        IwRecorder client = new IwRecorder();
        IwCmId l = listener(cm, server);
        IwCmId a = connecting(cm, client, l, v, "hello");
        Got req = server.expect(IwCmEventType.CONNECT_REQUEST);
        assertThat(req.event().status()).isZero();
        assertThat(req.event().newId()).isNotNull().isNotSameAs(l);
        assertThat(new String(req.event().privateData(), StandardCharsets.US_ASCII)).isEqualTo("hello");
        IwCmId conn = req.event().newId();
        QueuePair passiveQp = v.qp(conn);
        conn.accept(param("welcome", passiveQp));
        Got reply = client.expect(IwCmEventType.CONNECT_REPLY);
        assertThat(reply.id()).isSameAs(a);
        assertThat(reply.event().status()).isZero();
        assertThat(new String(reply.event().privateData(), StandardCharsets.US_ASCII)).startsWith("welcome");
        Got est = server.expect(IwCmEventType.ESTABLISHED);
        assertThat(est.id()).as("events of the connection go to the accepted id").isSameAs(conn);
        assertThat(passiveQp.state()).isEqualTo(QpState.RTS);
        a.disconnect(false);
        boolean closed = false;
        while (!closed) {
            Got g = server.next();
            assertThat(g.id()).isSameAs(conn);
            closed = g.event().type() == IwCmEventType.CLOSE;
        }
        a.destroy();
        conn.destroy();
        l.destroy();
    }

    @Test
    void rule8EventsOfAnAcceptedRequestGoToItsIdEvenBeforeAcceptReturns() {
        assume(CmCapability.IW_CM);
        RdmaCm cm = openCm();
        Verbs v = new Verbs();
        AtomicReference<IwCmId> accepted = new AtomicReference<>();
        IwRecorder server = new IwRecorder() {
            @Override
            public boolean onEvent(IwCmId id, IwCmEvent event) {
                if (event.type() == IwCmEventType.CONNECT_REQUEST) {
                    // Accept from the request's handler: the provider may raise ESTABLISHED inside
                    // accept (siw does without peer-to-peer RTR); it must be delivered, to this id.
                    IwCmId conn = event.newId();
                    conn.accept(param("", v.qp(conn)));
                    accepted.set(conn);
                }
                return super.onEvent(id, event);
            }
        };
        IwRecorder client = new IwRecorder();
        IwCmId l = listener(cm, server);
        connecting(cm, client, l, v, "x");
        Got req = server.expect(IwCmEventType.CONNECT_REQUEST);
        assertThat(accepted.get()).isSameAs(req.event().newId());
        Got est = server.expect(IwCmEventType.ESTABLISHED);
        assertThat(est.id()).isSameAs(accepted.get());
        assertThat(client.expect(IwCmEventType.CONNECT_REPLY).event().status()).isZero();
    }

    @Test
    void rule8AFailedAcceptDeliversNoEventToTheIdAndThePeerIsRefused() {
        assume(CmCapability.IW_CM);
        RdmaCm cm = openCm();
        Verbs v = new Verbs();
        IwRecorder server = new IwRecorder();
        IwRecorder client = new IwRecorder();
        IwCmId l = listener(cm, server);
        connecting(cm, client, l, v, "x");
        IwCmId conn = server.expect(IwCmEventType.CONNECT_REQUEST).event().newId();
        assertThatThrownBy(() -> conn.accept(param("", null))).as("no such QP")
                .isInstanceOf(IllegalArgumentException.class);
        server.expectNone();
        Got reply = client.expect(IwCmEventType.CONNECT_REPLY);
        assertThat(reply.event().status()).as("the connect failed").isNegative();
    }

    @Test
    void iwCmRejectCarriesPrivateDataToThePeer() {
        assume(CmCapability.IW_CM);
        RdmaCm cm = openCm();
        Verbs v = new Verbs();
        IwRecorder server = new IwRecorder();
        IwRecorder client = new IwRecorder();
        IwCmId l = listener(cm, server);
        connecting(cm, client, l, v, "x");
        IwCmId conn = server.expect(IwCmEventType.CONNECT_REQUEST).event().newId();
        conn.reject("no".getBytes(StandardCharsets.US_ASCII));
        Got reply = client.expect(IwCmEventType.CONNECT_REPLY);
        assertThat(reply.event().status()).isNegative();
        assertThat(new String(reply.event().privateData(), StandardCharsets.US_ASCII)).startsWith("no");
        server.expectNone();
    }

    @Test
    void anRdmaCmIdExposesItsIwCmIdOnIwarpOnly() {
        if (iwarp()) {
            assume(CmCapability.IW_CM); // a CM whose iw_cm ids are not the API's (the kernel's) has none to expose
        }
        Connection c = connect();
        if (iwarp()) {
            assertThat(c.active().id.iwCmId()).isNotNull();
            assertThat(c.request().id().iwCmId()).isNotNull();
        } else {
            assertThat(c.active().id.iwCmId()).isNull();
            assertThat(c.request().id().iwCmId()).isNull();
        }
    }

    @Test
    void onIwarpAConnectNeedsAQpAndThereIsNoConnectResponse() {
        assume(CmCapability.IW_CM);
        Server server = listen(PortSpace.TCP, 4);
        Peer client = peer();
        CmId id = routed(client, PortSpace.TCP, server.port());
        assertThatThrownBy(() -> id.connect(ConnParam.defaults().withQpNum(0xFFFFFF)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(id.state()).isEqualTo(CmState.ROUTE_RESOLVED);
        Side.of(id).createQp();
        id.connect(ConnParam.defaults());
        CmId passive = server.events().expect(CmEventType.CONNECT_REQUEST).id();
        Side.of(passive).createQp();
        passive.accept(ConnParam.defaults());
        assertThat(client.events().next().type()).isNotEqualTo(CmEventType.CONNECT_RESPONSE);
        assertThatThrownBy(() -> id.accept(null)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void iwCmAcceptSendsItsIrdAndOrdAndThePeersCloseArrivesAsDisconnectThenClose() {
        assume(CmCapability.IW_CM);
        RdmaCm cm = openCm();
        Verbs v = new Verbs();
        IwRecorder server = new IwRecorder();
        IwRecorder client = new IwRecorder();
        IwCmId l = listener(cm, server);
        IwCmId a = cm.createIwId(device(), client, "active");
        a.localAddress(new InetSocketAddress(fixture().address(), 0));
        a.remoteAddress(at(l.localAddress().getPort()));
        QueuePair activeQp = v.qp(a);
        a.connect(new IwConnParam(new byte[0], 2, 3, activeQp.qpNum())); // ORD 2, IRD 3
        Got req = server.expect(IwCmEventType.CONNECT_REQUEST);
        assertThat(req.event().ird()).as("the initiator's IRD (MPA v2)").isEqualTo(3);
        assertThat(req.event().ord()).as("the initiator's ORD").isEqualTo(2);
        IwCmId conn = req.event().newId();
        QueuePair passiveQp = v.qp(conn);
        // ORD 5 exceeds the initiator's IRD 3: the reply offers 3 (siw_accept); IRD 4 stays.
        conn.accept(new IwConnParam(new byte[0], 5, 4, passiveQp.qpNum()));
        Got reply = client.expect(IwCmEventType.CONNECT_REPLY);
        assertThat(reply.event().status()).isZero();
        assertThat(reply.event().ird()).as("the responder's IRD").isEqualTo(4);
        assertThat(reply.event().ord()).as("the responder's ORD, capped by the initiator's IRD").isEqualTo(3);
        server.expect(IwCmEventType.ESTABLISHED);
        // iw_cm_init_qp_attr: INIT and RTR carry the access flags, RTS only the state.
        assertThat(conn.initQpAttr(QpState.INIT).qpAccessFlags()).isEqualTo(
                io.jrdma.verbs.Access.REMOTE_WRITE | io.jrdma.verbs.Access.REMOTE_READ);
        assertThat(conn.initQpAttr(QpState.RTS).mask()).isEqualTo(io.jrdma.verbs.QpAttrMask.STATE);
        // The passive side closes gracefully: the active id sees the peer's orderly close (DISCONNECT),
        // then CLOSE, and nothing after it.
        conn.disconnect(false);
        Got disc = client.expect(IwCmEventType.DISCONNECT);
        assertThat(disc.id()).isSameAs(a);
        assertThat(disc.event().status()).isZero();
        Got close = client.expect(IwCmEventType.CLOSE);
        assertThat(close.id()).isSameAs(a);
        client.expectNone();
        a.destroy();
        conn.destroy();
        l.destroy();
    }

    @Test
    void anAbruptIwCmDisconnectResetsTheConnectionSoThePeerSeesCloseWithoutDisconnect() {
        assume(CmCapability.IW_CM);
        RdmaCm cm = openCm();
        Verbs v = new Verbs();
        IwRecorder server = new IwRecorder();
        IwRecorder client = new IwRecorder();
        IwCmId l = listener(cm, server);
        IwCmId a = connecting(cm, client, l, v, "x");
        IwCmId conn = server.expect(IwCmEventType.CONNECT_REQUEST).event().newId();
        QueuePair passiveQp = v.qp(conn);
        conn.accept(param("", passiveQp));
        assertThat(client.expect(IwCmEventType.CONNECT_REPLY).event().status()).isZero();
        server.expect(IwCmEventType.ESTABLISHED);
        a.disconnect(true); // iw_cm_disconnect(abrupt): the QP to ERROR, a TCP reset
        Got close = server.expect(IwCmEventType.CLOSE);
        assertThat(close.id()).isSameAs(conn);
        assertThat(close.event().status()).as("a reset is no orderly close").isEqualTo(
                io.jrdma.verbs.Errno.ECONNRESET.status());
        eventually(() -> passiveQp.state() == QpState.ERR, "the passive QP goes to ERROR");
        server.expectNone();
        a.destroy();
        conn.destroy();
        l.destroy();
    }

    @Test
    void anIwCmListenerTakesNoMoreRequestsThanItsBacklogAndTheExtraConnectFails() {
        assume(CmCapability.IW_CM);
        RdmaCm cm = openCm();
        Verbs v = new Verbs();
        IwRecorder server = new IwRecorder();
        IwCmId l = cm.createIwId(device(), server, "listener");
        l.localAddress(at(0));
        l.listen(1);
        IwRecorder first = new IwRecorder();
        connecting(cm, first, l, v, "1");
        Got req = server.expect(IwCmEventType.CONNECT_REQUEST);
        IwRecorder second = new IwRecorder();
        connecting(cm, second, l, v, "2");
        Got refused = second.expect(IwCmEventType.CONNECT_REPLY);
        assertThat(refused.event().status()).as("beyond the backlog (iwcm: the request is dropped)").isNegative();
        server.expectNone();
        req.event().newId().reject(new byte[0]);
        assertThat(first.expect(IwCmEventType.CONNECT_REPLY).event().status()).isNegative();
    }
}
