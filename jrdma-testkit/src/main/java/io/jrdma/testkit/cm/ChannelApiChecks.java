package io.jrdma.testkit.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.CmState;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaAddrInfo;
import io.jrdma.cm.RdmaCm;
import io.jrdma.internal.net.Ip;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The librdmacm-style API: event channels ({@code rdma_get_cm_event} blocking, timed and
 * non-blocking, {@code rdma_ack_cm_event}, {@code rdma_destroy_id} waiting for acks,
 * {@code rdma_migrate_id}), the synchronous mode ({@code rdma_create_ep}, {@code rdma_get_request},
 * blocking connect and accept) and {@code rdma_getaddrinfo}.
 */
abstract class ChannelApiChecks extends CmChecks {
    ChannelApiChecks(CmSuiteSupport support) {
        super(support);
    }

    /**
     * Makes sure the events {@code cm}'s executor was given so far have been delivered (queued on
     * their channels): a kernel-style marker id's event comes after them on the one executor.
     */
    private static void flushExecutor(RdmaCm cm, InetSocketAddress somewhere) throws InterruptedException {
        CountDownLatch seen = new CountDownLatch(1);
        CmId marker = cm.createId((id, e) -> {
            seen.countDown();
            return true;
        }, null, PortSpace.TCP);
        marker.resolveAddr(null, somewhere, WAIT);
        assertThat(seen.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    }

    @Test
    void getEventBlocksUntilAnEventArrives() throws Exception {
        RdmaCm cm = openCm();
        ChannelEvents ch = channel(cm);
        CmId id = ch.channel().createId(null, PortSpace.TCP);
        AtomicReference<CmEvent> got = new AtomicReference<>();
        Thread waiter = background("getEvent", () -> {
            try {
                got.set(ch.channel().getEvent());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        waiter.join(QUIET.toMillis());
        assertThat(waiter.isAlive()).as("getEvent blocks while the channel is empty").isTrue();
        id.resolveAddr(null, at(9), WAIT);
        join(waiter);
        assertThat(got.get().type()).isEqualTo(CmEventType.ADDR_RESOLVED);
        assertThat(got.get().id()).isSameAs(id);
        ch.channel().ackEvent(got.get());
    }

    @Test
    void timedGetEventReturnsNullAfterItsTimeoutAndTheEventWhenOneComes() throws Exception {
        RdmaCm cm = openCm();
        ChannelEvents ch = channel(cm);
        CmId id = ch.channel().createId(null, PortSpace.TCP);
        long t0 = System.nanoTime();
        assertThat(ch.channel().getEvent(QUIET)).isNull();
        assertThat(System.nanoTime() - t0).as("waited the timeout").isGreaterThanOrEqualTo(
                QUIET.toNanos() * 9 / 10);
        id.resolveAddr(null, at(9), WAIT);
        CmEvent e = ch.channel().getEvent(WAIT);
        assertThat(e).isNotNull();
        assertThat(e.type()).isEqualTo(CmEventType.ADDR_RESOLVED);
        ch.channel().ackEvent(e);
    }

    @Test
    void pollEventNeverWaits() throws Exception {
        RdmaCm cm = openCm();
        ChannelEvents ch = channel(cm);
        CmId id = ch.channel().createId(null, PortSpace.TCP);
        long t0 = System.nanoTime();
        assertThat(ch.channel().pollEvent()).isNull();
        assertThat(System.nanoTime() - t0).isLessThan(QUIET.toNanos());
        id.resolveAddr(null, at(9), WAIT);
        flushExecutor(cm, at(9));
        CmEvent e = ch.channel().pollEvent();
        assertThat(e).isNotNull();
        assertThat(e.type()).isEqualTo(CmEventType.ADDR_RESOLVED);
        ch.channel().ackEvent(e);
        assertThat(ch.channel().pollEvent()).isNull();
    }

    @Test
    void ackEventAcknowledgesARetrievedEventExactlyOnce() {
        RdmaCm cm = openCm();
        ChannelEvents ch = channel(cm);
        CmId id = ch.channel().createId(null, PortSpace.TCP);
        id.resolveAddr(null, at(9), WAIT);
        CmEvent e = ch.nextUnacked();
        ch.channel().ackEvent(e);
        assertThatThrownBy(() -> ch.channel().ackEvent(e)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ch.channel().ackEvent(null)).isInstanceOf(IllegalArgumentException.class);
        id.destroy(); // nothing left to wait for
        assertThat(cm.idCount()).isZero();
    }

    @Test
    void destroyWaitsUntilEveryRetrievedEventIsAcknowledged() throws Exception {
        RdmaCm cm = openCm();
        ChannelEvents ch = channel(cm);
        CmId id = ch.channel().createId(null, PortSpace.TCP);
        id.resolveAddr(null, at(9), WAIT);
        CmEvent e = ch.nextUnacked();
        Thread destroyer = background("destroy", id::destroy);
        destroyer.join(QUIET.toMillis());
        assertThat(destroyer.isAlive()).as("destroy waits for the ack").isTrue();
        ch.channel().ackEvent(e);
        join(destroyer);
        assertThat(id.state()).isEqualTo(CmState.DESTROYING);
    }

    @Test
    void destroyDiscardsEventsThatWereNeverRetrieved() throws Exception {
        RdmaCm cm = openCm();
        ChannelEvents ch = channel(cm);
        CmId id = ch.channel().createId(null, PortSpace.TCP);
        id.resolveAddr(null, at(9), WAIT);
        flushExecutor(cm, at(9));
        long t0 = System.nanoTime();
        id.destroy();
        assertThat(System.nanoTime() - t0).as("destroy did not wait").isLessThan(WAIT.toNanos() / 2);
        assertThat(ch.channel().pollEvent()).isNull();
        ch.channel().close();
    }

    @Test
    void migrateIdMovesTheIdAndItsQueuedEventsToTheOtherChannel() throws Exception {
        RdmaCm cm = openCm();
        ChannelEvents a = channel(cm);
        ChannelEvents b = channel(cm);
        CmId id = a.channel().createId(null, PortSpace.TCP);
        id.resolveAddr(null, at(9), WAIT);
        flushExecutor(cm, at(9)); // ADDR_RESOLVED now waits on channel a
        b.channel().migrateId(id);
        b.expect(CmEventType.ADDR_RESOLVED, id);
        id.resolveRoute(WAIT);
        b.expect(CmEventType.ROUTE_RESOLVED, id);
        a.expectNone(QUIET);
        a.channel().close(); // the id left it
        assertThatThrownBy(() -> b.channel().close()).isInstanceOf(RdmaException.class);
        id.destroy();
        b.channel().close();
    }

    @Test
    void migrateIdWaitsForEventsRetrievedFromTheOldChannelToBeAcknowledged() throws Exception {
        RdmaCm cm = openCm();
        ChannelEvents a = channel(cm);
        ChannelEvents b = channel(cm);
        CmId id = a.channel().createId(null, PortSpace.TCP);
        id.resolveAddr(null, at(9), WAIT);
        CmEvent e = a.nextUnacked();
        Thread migrator = background("migrate", () -> b.channel().migrateId(id));
        migrator.join(QUIET.toMillis());
        assertThat(migrator.isAlive()).as("migrate waits for the old channel's acks (librdmacm)").isTrue();
        a.channel().ackEvent(e);
        join(migrator);
        id.resolveRoute(WAIT);
        b.expect(CmEventType.ROUTE_RESOLVED, id);
        id.destroy(); // returns: nothing unacknowledged on either channel
        assertThat(cm.idCount()).isZero();
    }

    @Test
    void closingAChannelThatStillHasIdsFailsWithEbusy() throws Exception {
        RdmaCm cm = openCm();
        ChannelEvents ch = channel(cm);
        CmId id = ch.channel().createId(null, PortSpace.TCP);
        assertThatThrownBy(() -> ch.channel().close()).isInstanceOf(RdmaException.class)
                .extracting(t -> ((RdmaException) t).errno()).isEqualTo(Errno.EBUSY);
        id.destroy();
        ch.channel().close();
        assertThatThrownBy(() -> ch.channel().getEvent(QUIET)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void synchronousIdsConnectAndAcceptWithoutAChannel() throws Exception {
        RdmaCm scm = openCm();
        String host = fixture().address().getHostAddress();
        CmId listener = scm.createEp(RdmaAddrInfo.resolve(host, "0", true, PortSpace.TCP).get(0), null, null);
        assertThat(listener.state()).isEqualTo(CmState.ADDR_BOUND);
        listener.listen(4);
        AtomicReference<Side> served = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread server = background("sync-server", () -> {
            try {
                CmId req = listener.getRequest(WAIT);
                assertThat(req).as("a request within " + WAIT).isNotNull();
                Side s = Side.of(req);
                s.createQp();
                s.postRecv(7, 0);
                req.accept(ConnParam.defaults()); // returns once established
                assertThat(req.state()).isEqualTo(CmState.CONNECT);
                served.set(s);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException | AssertionError e) {
                failure.set(e);
            }
        });
        RdmaCm ccm = openCm();
        Context ctx = track(device().open());
        ProtectionDomain pd = ctx.allocPd();
        CompletionQueue cq = ctx.createCq(64);
        RdmaAddrInfo dst = RdmaAddrInfo.resolve(host, Integer.toString(listener.localPort()), false,
                PortSpace.TCP).get(0);
        CmId client = ccm.createEp(dst, pd, QpInitAttr.rc(cq, QpCap.of(8, 8)));
        assertThat(client.state()).as("createEp resolves address and route").isEqualTo(CmState.ROUTE_RESOLVED);
        assertThat(client.qp()).isNotNull();
        assertThat(client.qp().state()).isEqualTo(QpState.INIT);
        client.connect(ConnParam.defaults()); // returns once established
        assertThat(client.qp().state()).isEqualTo(QpState.RTS);
        join(server);
        assertThat(failure.get()).isNull();
        Side s = served.get();
        assertThat(s.qp.state()).isEqualTo(QpState.RTS);
        if (!iwarp()) {
            assertThat(client.qp().query().destQpNum()).isEqualTo(s.qp.qpNum());
        }
        // One message over the connection, as librdmacm's rdma_client/rdma_server do.
        byte[] msg = "sync".getBytes(StandardCharsets.US_ASCII);
        MemorySegment buf = Arena.ofAuto().allocate(64);
        MemorySegment.copy(msg, 0, buf, ValueLayout.JAVA_BYTE, 0, msg.length);
        MemoryRegion mr = pd.registerMemory(buf, Access.LOCAL_WRITE);
        assertThat(client.qp().postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
                .sg(mr, 0, msg.length))).isEqualTo(1);
        Completion rc = s.awaitCompletion(WAIT);
        assertThat(rc.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(rc.opcode()).isEqualTo(WcOpcode.RECV);
        assertThat(s.read(0, 0, rc.byteLen())).isEqualTo(msg);
    }

    @Test
    void aSynchronousConnectToAPortNobodyListensOnFailsWithAnError() {
        Server gone = listen(PortSpace.TCP, 1);
        int port = gone.port();
        gone.listener().destroy();
        RdmaCm cm = openCm();
        String host = fixture().address().getHostAddress();
        CmId client = cm.createEp(RdmaAddrInfo.resolve(host, Integer.toString(port), false, PortSpace.TCP).get(0),
                null, null);
        Side.of(client).createQp();
        assertThatThrownBy(() -> client.connect(ConnParam.defaults())).isInstanceOf(RdmaException.class)
                .extracting(t -> ((RdmaException) t).errno()).isEqualTo(Errno.ECONNREFUSED);
    }

    @Test
    void getRequestWaitsBoundedAndOnlyOnSynchronousListeners() throws Exception {
        RdmaCm cm = openCm();
        String host = fixture().address().getHostAddress();
        CmId bound = cm.createEp(RdmaAddrInfo.resolve(host, "0", true, PortSpace.TCP).get(0), null, null);
        assertThatThrownBy(() -> bound.getRequest(QUIET)).as("not listening")
                .isInstanceOf(IllegalStateException.class);
        bound.listen(1);
        long t0 = System.nanoTime();
        assertThat(bound.getRequest(QUIET)).isNull();
        assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(QUIET.toNanos() * 9 / 10);
        CmId channelId = channel(cm).channel().createId(null, PortSpace.TCP);
        channelId.bind(at(0));
        channelId.listen(1);
        assertThatThrownBy(() -> channelId.getRequest(QUIET)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("synchronous");
    }

    @Test
    void aPassiveEndpointWithQpAttributesGivesEveryRequestItsQp() throws Exception {
        RdmaCm scm = openCm();
        Context ctx = track(device().open());
        ProtectionDomain pd = ctx.allocPd();
        CompletionQueue cq = ctx.createCq(64);
        String host = fixture().address().getHostAddress();
        CmId listener = scm.createEp(RdmaAddrInfo.resolve(host, "0", true, PortSpace.TCP).get(0), pd,
                QpInitAttr.rc(cq, QpCap.of(8, 8)));
        listener.listen(2);
        Peer client = peer();
        CmId id = routed(client, PortSpace.TCP, listener.localPort());
        Side.of(id).createQp();
        id.connect(ConnParam.defaults());
        CmId req = listener.getRequest(WAIT);
        assertThat(req).isNotNull();
        assertThat(req.qp()).as("rdma_get_request creates the QP the endpoint was made with").isNotNull();
        assertThat(req.qp().state()).isEqualTo(QpState.INIT);
        assertThat(req.qp().pd()).isSameAs(pd);
        req.accept(ConnParam.defaults());
        client.events().expect(CmEventType.ESTABLISHED, id);
        assertThat(req.qp().state()).isEqualTo(QpState.RTS);
    }

    @Test
    void rdmaAddrInfoResolvesActiveAndPassiveAddresses() {
        String host = fixture().address().getHostAddress();
        List<RdmaAddrInfo> active = RdmaAddrInfo.resolve(host, "7471", false, PortSpace.TCP);
        assertThat(active).hasSize(1);
        RdmaAddrInfo a = active.get(0);
        assertThat(a.destination()).isEqualTo(new InetSocketAddress(fixture().address(), 7471));
        assertThat(a.source()).isNull();
        assertThat(a.passive()).isFalse();
        assertThat(a.portSpace()).isEqualTo(PortSpace.TCP);
        assertThat(a.qpType()).isEqualTo(QpType.RC);

        List<RdmaAddrInfo> passive = RdmaAddrInfo.resolve(null, "7471", true, null);
        assertThat(passive).as("glibc's order for a passive wildcard: 0.0.0.0, then ::")
                .extracting(i -> i.source().getAddress()).containsExactly(Ip.wildcard(false), Ip.wildcard(true));
        RdmaAddrInfo p = passive.get(0);
        assertThat(p.passive()).isTrue();
        assertThat(p.source().getAddress().isAnyLocalAddress()).isTrue();
        assertThat(p.source().getPort()).isEqualTo(7471);
        assertThat(p.destination()).isNull();
        assertThat(p.portSpace()).as("the default port space").isEqualTo(PortSpace.TCP);
        assertThat(RdmaAddrInfo.resolve(null, "7471", true, null, StandardProtocolFamily.INET6))
                .singleElement().satisfies(i -> assertThat(i.source().getAddress()).isEqualTo(Ip.wildcard(true)));

        // hints.ai_family: the fixture's own family resolves, the other one has no address; an IPv6
        // literal may come in brackets.
        StandardProtocolFamily own = ipv6() ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET;
        StandardProtocolFamily other = ipv6() ? StandardProtocolFamily.INET : StandardProtocolFamily.INET6;
        String literal = Ip.literal(fixture().address());
        assertThat(RdmaAddrInfo.resolve(ipv6() ? "[" + literal + "]" : literal, "7471", false, PortSpace.TCP, own))
                .singleElement().satisfies(i -> assertThat(i.destination())
                        .isEqualTo(new InetSocketAddress(fixture().address(), 7471)));
        assertThatThrownBy(() -> RdmaAddrInfo.resolve(literal, "7471", false, PortSpace.TCP, other))
                .isInstanceOf(RdmaException.class);

        assertThat(RdmaAddrInfo.resolve(host, "7174", false, PortSpace.UDP).get(0).qpType()).isEqualTo(QpType.UD);
        assertThatThrownBy(() -> RdmaAddrInfo.resolve(host, "rdma", false, PortSpace.TCP))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RdmaAddrInfo.resolve(host, "65536", false, PortSpace.TCP))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RdmaAddrInfo.resolve(null, "7471", false, PortSpace.TCP))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
