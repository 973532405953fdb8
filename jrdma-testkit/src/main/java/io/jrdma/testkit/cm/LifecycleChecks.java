package io.jrdma.testkit.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.CmStrings;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaAddrInfo;
import io.jrdma.cm.RdmaCm;
import io.jrdma.cm.RejectReason;
import io.jrdma.internal.cm.CmIdImpl;
import io.jrdma.internal.cm.PortTable;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.WcStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * SPEC.md's "beyond one rule at a time": timeouts and CM retries, the backlog, disconnects from
 * either side and from both at once, destroying listeners with pending requests and ids in the
 * middle of a callback, every posted work request completing once, and a thousand connections
 * without leaks.
 */
abstract class LifecycleChecks extends CmChecks {
    /** Connect/accept/disconnect cycles of the leak test. */
    static final int CYCLES = 1000;
    /** The leak test's time bound (it takes a few seconds on loop). */
    static final Duration CYCLES_BOUND = Duration.ofSeconds(60);

    LifecycleChecks(CmSuiteSupport support) {
        super(support);
    }

    @BeforeEach
    void notASecondFamily() {
        Assumptions.assumeFalse(fixture().secondFamily(),
                "the lifecycle checks run with the provider's first-family fixture");
    }

    private static long count(List<CmEvent> events, CmEventType type) {
        return events.stream().filter(e -> e.type() == type).count();
    }

    // ------------------------------------------------------------------------------------------ timeouts

    @Test
    void aRequestWhoseActiveSideGaveUpIsRejectedOnThePassiveSide() {
        assume(CmCapability.CONNECT_RESPONSE); // the IB CM's REJ(timeout)
        Server server = listen(PortSpace.TCP, 1);
        Peer client = peer();
        CmId id = routed(client, PortSpace.TCP, server.port());
        Side.of(id).createQp();
        id.connect(ConnParam.defaults(), SHORT);
        CmEvent req = server.events().expect(CmEventType.CONNECT_REQUEST); // never answered
        client.events().expect(CmEventType.UNREACHABLE, id);
        // cm.c: the active side destroys its cm_id in REQ_SENT with REJ(timeout); the passive side's
        // request then ends in REJECTED instead of waiting for an answer forever (over Linux's ucma it ends
        // without an event: see requestEndedWithoutAnEvent).
        if (quirk(CmQuirk.NO_EVENT_BEFORE_ACCEPT)) {
            requestEndedWithoutAnEvent(server, req.id());
        } else {
            CmEvent rej = server.events().expect(CmEventType.REJECTED, req.id());
            assertThat(rej.status()).isEqualTo(RejectReason.TIMEOUT.value());
            assertThat(CmStrings.isConsumerReject(req.id(), rej.status())).isFalse();
        }
        req.id().destroy(); // frees its place in the backlog
        CmId next = routed(client, PortSpace.TCP, server.port());
        Side.of(next).createQp();
        next.connect(ConnParam.defaults());
        server.events().expect(CmEventType.CONNECT_REQUEST);
    }

    /**
     * Where the CM tells a request's id nothing before it is accepted ({@link CmQuirk#NO_EVENT_BEFORE_ACCEPT}): the
     * REJ still ends the request in the passive side's CM, which from then on gives its id no QP attributes (so
     * no QP can be created through it) and fails an accept at the call; no event comes.
     */
    private void requestEndedWithoutAnEvent(Server server, CmId request) {
        AtomicReference<RuntimeException> refused = new AtomicReference<>();
        eventually(() -> {
            try {
                request.initQpAttr(QpState.RTR);
                return false;
            } catch (RuntimeException e) {
                refused.set(e);
                return true;
            }
        }, "the passive side's CM ends the request on the REJ");
        assertThat(refused.get()).as("the CM's refusal").hasMessageContaining("EINVAL");
        server.events().expectNone(QUIET);
        // rdma_create_qp takes the QP to INIT with the CM's attributes, which it has no more
        Side side = Side.of(request);
        assertThatThrownBy(side::createQp).as("a QP for a request the REJ ended").hasMessageContaining("EINVAL");
        assertThatThrownBy(() -> request.accept(ConnParam.defaults())).as("accepting a request the REJ ended")
                .isInstanceOf(RuntimeException.class).hasMessageContaining("EINVAL");
        side.close();
        server.events().expectNone(QUIET);
    }

    @Test
    void aLostReqIsRetransmittedAfterTheCmResponseTimeout() {
        assume(CmCapability.CONNECT_RESPONSE); // the IB CM's retransmission
        assume(CmCapability.DROP_MESSAGES);
        MessageDrop drop = track(fixture().drop(EnumSet.of(CmMessageKind.REQ), 1));
        long t0 = System.nanoTime();
        Connection c = connect(spec());
        long elapsed = System.nanoTime() - t0;
        assertThat(drop.dropped()).isEqualTo(1);
        // cm.c: the REQ is resent after 2 × packet life time + the remote CM response timeout
        // (CMA_CM_RESPONSE_TIMEOUT 20: 4096 ms by cm_convert_to_ms).
        assertThat(elapsed).as("waited the CM response timeout").isGreaterThanOrEqualTo(
                TimeUnit.MILLISECONDS.toNanos(4096));
        assertThat(c.active().qp.state()).isEqualTo(QpState.RTS);
    }

    @Test
    void aReqNeverAnsweredIsSentOncePlusMaxCmRetriesTimesThenTheConnectIsUnreachableWithEtimedout() {
        assume(CmCapability.CONNECT_RESPONSE); // the IB CM's retransmission
        assume(CmCapability.DROP_MESSAGES);
        // 4.096 µs × 2^8 ≈ 1 ms instead of CMA_CM_RESPONSE_TIMEOUT's 4 s: 16 REQs in well under a second.
        track(fixture().cmResponseTimeout(8));
        MessageDrop drop = track(fixture().drop(EnumSet.of(CmMessageKind.REQ), Integer.MAX_VALUE));
        Server server = listen(PortSpace.TCP, 4);
        Peer client = peer();
        CmId id = routed(client, PortSpace.TCP, server.port());
        Side active = Side.of(id);
        active.createQp();
        active.postRecv(1, 0);
        id.connect(ConnParam.defaults()); // no caller bound: the IB CM's own retries decide
        CmEvent e = client.events().expect(CmEventType.UNREACHABLE, id);
        // cm.c cm_send_handler: after max_cm_retries retransmissions the REQ times out (IB_CM_REQ_ERROR,
        // status -ETIMEDOUT), and cma_ib_handler reports UNREACHABLE.
        assertThat(e.status()).isEqualTo(io.jrdma.verbs.Errno.ETIMEDOUT.status());
        assertThat(drop.dropped()).as("the REQ and its CMA_MAX_CM_RETRIES (15) retransmissions")
                .isEqualTo(io.jrdma.internal.cm.ib.IbCm.MAX_CM_RETRIES + 1);
        assertThat(active.qp.state()).isEqualTo(QpState.ERR);
        assertThat(active.drain(1, QUIET)).extracting(Completion::status).containsExactly(WcStatus.WR_FLUSH_ERR);
        server.events().expectNone(QUIET);
        client.events().expectNone(QUIET);
        assertThat(drop.dropped()).as("nothing is sent after giving up").isEqualTo(
                io.jrdma.internal.cm.ib.IbCm.MAX_CM_RETRIES + 1);
    }

    // ------------------------------------------------------------------------------------------ backlog

    @Test
    void requestsBeyondTheBacklogAreRejectedAndCounted() {
        Server server = listen(PortSpace.TCP, 2);
        Peer client = peer();
        List<CmEvent> pending = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            CmId id = routed(client, PortSpace.TCP, server.port());
            Side.of(id).createQp();
            id.connect(ConnParam.defaults());
            pending.add(server.events().expect(CmEventType.CONNECT_REQUEST));
        }
        CmId third = routed(client, PortSpace.TCP, server.port());
        Side.of(third).createQp();
        third.connect(ConnParam.defaults());
        CmEvent rej = client.events().expect(CmEventType.REJECTED, third);
        if (!quirk(CmQuirk.REJECT_IS_ALWAYS_CONSUMER_DEFINED)) {
            assertThat(CmStrings.isConsumerReject(third, rej.status())).as("the application did not reject it")
                    .isFalse();
            if (!iwarp()) {
                assertThat(rej.status()).isEqualTo(RejectReason.NO_RESOURCES.value());
            }
        }
        assertThat(((CmIdImpl) server.listener()).backlogRejects()).isEqualTo(1);
        server.events().expectNone(QUIET);

        CmEvent first = pending.get(0); // answering a request frees its place
        Side.of(first.id()).createQp();
        first.id().accept(ConnParam.defaults());
        client.events().expect(CmEventType.ESTABLISHED);
        server.events().expect(CmEventType.ESTABLISHED, first.id());
        CmId fourth = routed(client, PortSpace.TCP, server.port());
        Side.of(fourth).createQp();
        fourth.connect(ConnParam.defaults());
        List<CmEvent> events = server.events().drain(QUIET);
        assertThat(events).extracting(CmEvent::type).contains(CmEventType.CONNECT_REQUEST);
        assertThat(((CmIdImpl) server.listener()).backlogRejects()).isEqualTo(1);
    }

    @Test
    void backlogRejectsAreCountedInTheDevicesCounters() {
        skipIf(CmQuirk.NO_BACKLOG_REJECT_COUNTER);
        Server server = listen(PortSpace.TCP, 1);
        io.jrdma.verbs.Context verbs = server.listener().verbs();
        assertThat(verbs.queryCounters().has(io.jrdma.verbs.Counter.CM_BACKLOG_REJECTS))
                .as("the device keeps the counter").isTrue();
        long before = verbs.queryCounters().get(io.jrdma.verbs.Counter.CM_BACKLOG_REJECTS);
        Peer client = peer();
        CmId held = routed(client, PortSpace.TCP, server.port());
        Side.of(held).createQp();
        held.connect(ConnParam.defaults());
        server.events().expect(CmEventType.CONNECT_REQUEST); // fills the backlog
        for (int i = 0; i < 3; i++) {
            CmId id = routed(client, PortSpace.TCP, server.port());
            Side.of(id).createQp();
            id.connect(ConnParam.defaults());
            client.events().expect(CmEventType.REJECTED, id);
        }
        assertThat(verbs.queryCounters().get(io.jrdma.verbs.Counter.CM_BACKLOG_REJECTS) - before)
                .as("cm_backlog_rejects").isEqualTo(3);
    }

    @Test
    void aUdRequestBeyondTheBacklogIsAnsweredAtOnce() {
        assume(CmCapability.UD_SIDR);
        Server server = listen(PortSpace.UDP, 1);
        Peer client = peer();
        CmId held = routed(client, PortSpace.UDP, server.port());
        Side.of(held).createQp();
        held.connect(ConnParam.defaults());
        server.events().expect(CmEventType.CONNECT_REQUEST); // fills the backlog
        CmId id = routed(client, PortSpace.UDP, server.port());
        Side.of(id).createQp();
        long t0 = System.nanoTime();
        id.connect(ConnParam.defaults());
        CmEvent e = client.events().expect(CmEventType.UNREACHABLE, id);
        assertThat(e.status()).as("IB_SIDR_REJECT").isEqualTo(2);
        assertThat(System.nanoTime() - t0).as("answered, not timed out").isLessThan(TimeUnit.SECONDS.toNanos(4));
        assertThat(((CmIdImpl) server.listener()).backlogRejects()).isEqualTo(1);
    }

    @Test
    void requestsRejectedForTheBacklogLeaveNoConnectionState() {
        Server server = listen(PortSpace.TCP, 1);
        Peer client = peer();
        CmId held = routed(client, PortSpace.TCP, server.port());
        Side.of(held).createQp();
        held.connect(ConnParam.defaults());
        server.events().expect(CmEventType.CONNECT_REQUEST); // fills the backlog
        int states = fixture().connectionStates();
        Assumptions.assumeTrue(states >= 0, "the fixture cannot count CM state");
        for (int i = 0; i < 10; i++) {
            CmId id = routed(client, PortSpace.TCP, server.port());
            Side.of(id).createQp();
            id.connect(ConnParam.defaults());
            client.events().expect(CmEventType.REJECTED, id);
            id.destroyQp();
            id.destroy();
        }
        assertThat(((CmIdImpl) server.listener()).backlogRejects()).isEqualTo(10);
        eventually(() -> fixture().connectionStates() <= states, "connection-manager state back to " + states
                + " (now " + fixture().connectionStates() + ")");
    }

    // ------------------------------------------------------------------------------------------ disconnect

    @Test
    void disconnectFromThePassiveSideEndsTheConnectionOnBothSides() {
        Connection c = connect(spec().receives(2));
        c.request().id().disconnect();
        assertThat(c.passive().qp.state()).isEqualTo(QpState.ERR);
        CmEvent a = c.client().events().expect(CmEventType.DISCONNECTED, c.active().id);
        assertThat(a.status()).isZero();
        c.active().id.disconnect();
        c.server().events().expect(CmEventType.DISCONNECTED, c.request().id());
        assertThat(c.active().qp.state()).isEqualTo(QpState.ERR);
        assertThat(c.active().drain(2, QUIET)).extracting(Completion::wrId).containsExactlyInAnyOrder(1000L, 1001L);
        assertThat(c.passive().drain(2, QUIET)).extracting(Completion::wrId).containsExactlyInAnyOrder(2000L, 2001L);
        if (has(CmCapability.TIMEWAIT_EXIT)) {
            c.client().events().expect(CmEventType.TIMEWAIT_EXIT, c.active().id);
            c.server().events().expect(CmEventType.TIMEWAIT_EXIT, c.request().id());
        }
        c.client().events().expectNone(QUIET);
        c.server().events().expectNone(QUIET);
    }

    /** Rounds of the simultaneous-disconnect test: the race it looks for needs a few tries. */
    static final int SIMULTANEOUS_ROUNDS = 40;

    @Test
    void aSimultaneousDisconnectGivesEachSideExactlyOneDisconnected() throws Exception {
        Server server = listen(PortSpace.TCP, 8);
        Peer client = peer();
        int objects = fixture().verbsObjects();
        for (int round = 0; round < SIMULTANEOUS_ROUNDS; round++) {
            simultaneousDisconnect(round, connect(spec().receives(2), server, client));
        }
        if (objects >= 0) {
            // Every round frees what it made: a device's queues are finite (under rdma-core's libsiw, Linux siw
            // refuses a context's queue that would be mapped at page 144).
            int after = fixture().verbsObjects();
            eventually(() -> fixture().verbsObjects() == objects, "the device's verbs objects back to " + objects
                    + " (" + after + " when the rounds ended)");
        }
    }

    private void simultaneousDisconnect(int round, Connection c) throws Exception {
        CountDownLatch go = new CountDownLatch(2);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Runnable[] sides = {c.active().id::disconnect, c.request().id()::disconnect};
        Thread[] threads = new Thread[2];
        for (int i = 0; i < 2; i++) {
            Runnable side = sides[i];
            threads[i] = background("disconnect-" + i, () -> {
                go.countDown();
                awaitQuietly(go); // both start together
                try {
                    side.run();
                } catch (RuntimeException e) {
                    failure.compareAndSet(null, e);
                }
            });
        }
        join(threads[0]);
        join(threads[1]);
        assertThat(failure.get()).as("round %d: a disconnect crossing the peer's failed", round).isNull();
        c.client().events().expect(CmEventType.DISCONNECTED, c.active().id);
        c.server().events().expect(CmEventType.DISCONNECTED, c.request().id());
        // As librdmacm applications do on DISCONNECTED: disconnect (again), which answers the peer.
        c.active().id.disconnect();
        c.request().id().disconnect();
        Duration settle = round == 0 ? QUIET : Duration.ofMillis(50);
        if (round == 0 && has(CmCapability.TIMEWAIT_EXIT)) {
            // TIMEWAIT_EXIT is the last event of the connection: anything else must have come first.
            c.client().events().expect(CmEventType.TIMEWAIT_EXIT, c.active().id);
            c.server().events().expect(CmEventType.TIMEWAIT_EXIT, c.request().id());
            settle = Duration.ofMillis(50);
        }
        List<CmEvent> active = c.client().events().drain(settle);
        List<CmEvent> passive = c.server().events().drain(settle);
        // Later rounds do not wait for TIMEWAIT_EXIT (its timer is the slow part); one may show up.
        int timewaits = round == 0 ? 0 : 1;
        assertThat(active).as("round %d: more events on the active side", round)
                .filteredOn(e -> e.type() != CmEventType.TIMEWAIT_EXIT).isEmpty();
        assertThat(count(active, CmEventType.TIMEWAIT_EXIT)).isLessThanOrEqualTo(timewaits);
        assertThat(passive).as("round %d: more events on the passive side", round)
                .filteredOn(e -> e.type() != CmEventType.TIMEWAIT_EXIT).isEmpty();
        assertThat(count(passive, CmEventType.TIMEWAIT_EXIT)).isLessThanOrEqualTo(timewaits);
        assertThat(c.active().qp.state()).isEqualTo(QpState.ERR);
        assertThat(c.passive().qp.state()).isEqualTo(QpState.ERR);
        // The flushes come from the provider's engine: wait for them (on a loaded host a plain 50 ms drain
        // once saw none), then for nothing more.
        for (Side s : List.of(c.active(), c.passive())) {
            assertThat(s.drain(2, Duration.ofMillis(50))).as("round %d: the two receives, flushed once", round)
                    .extracting(Completion::status).containsExactly(WcStatus.WR_FLUSH_ERR, WcStatus.WR_FLUSH_ERR);
        }
        c.active().close();
        c.passive().close();
        c.active().id.destroy();
        c.request().id().destroy();
    }

    private static void awaitQuietly(CountDownLatch l) {
        try {
            l.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void everyPostedWorkRequestCompletesExactlyOnceAcrossADisconnect() {
        Connection c = connect(spec().receives(4));
        for (int i = 0; i < 3; i++) {
            c.active().send(10 + i, 8 + i, new byte[] {(byte) i});
        }
        Map<Long, Integer> seen = new HashMap<>();
        // The three sends land in three of the passive side's four receives; then the connection ends.
        for (int i = 0; i < 3; i++) {
            Completion r = c.passive().awaitCompletion(WAIT);
            seen.merge(r.wrId(), 1, Integer::sum);
            assertThat(r.status()).isEqualTo(WcStatus.SUCCESS);
        }
        c.active().id.disconnect();
        c.server().events().expect(CmEventType.DISCONNECTED, c.request().id());
        c.request().id().disconnect();
        // Active: its three sends and four flushed receives; passive: its one unused receive, flushed.
        List<Completion> all = new ArrayList<>(c.active().drain(7, QUIET));
        all.addAll(c.passive().drain(1, QUIET));
        for (Completion x : all) {
            seen.merge(x.wrId(), 1, Integer::sum);
        }
        assertThat(seen.keySet()).containsExactlyInAnyOrder(10L, 11L, 12L, 1000L, 1001L, 1002L, 1003L, 2000L, 2001L,
                2002L, 2003L);
        assertThat(seen.values()).as("completions per work request").containsOnly(1);
    }

    // ------------------------------------------------------------------------------------------ destroy

    @Test
    void aListenerDestroyedWithPendingRequestsRejectsThem() {
        Server server = listen(PortSpace.TCP, 8);
        Peer client = peer();
        List<CmId> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            CmId id = routed(client, PortSpace.TCP, server.port());
            Side.of(id).createQp();
            id.connect(ConnParam.defaults());
            ids.add(id);
        }
        // One request is retrieved (the application owns that id now); two wait in the channel.
        CmEvent taken = server.events().expect(CmEventType.CONNECT_REQUEST);
        eventually(() -> server.cm().idCount() == 4, "the other two requests reached the server");
        server.listener().destroy();
        List<CmEvent> got = client.events().drain(QUIET);
        assertThat(count(got, CmEventType.REJECTED)).as("the waiting requests are rejected").isEqualTo(2);
        assertThat(got).filteredOn(e -> e.type() == CmEventType.REJECTED).extracting(CmEvent::id)
                .doesNotContain(taken.id()).allSatisfy(id -> assertThat(ids).contains(id));
        eventually(() -> server.cm().idCount() == 1, "only the retrieved request's id is left");
        // The retrieved one is still the application's to answer.
        Side.of(taken.id()).createQp();
        taken.id().accept(ConnParam.defaults());
        assertThat(client.events().expect(CmEventType.ESTABLISHED).id()).isIn(ids);
    }

    @Test
    void aKernelListenerDestroyedWithQueuedRequestsRejectsThem() throws Exception {
        RdmaCm scm = openCm();
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        track(release::countDown);
        EventRecorder r = recorder().reaction((id, e) -> {
            if (e.type() == CmEventType.CONNECT_REQUEST && entered.getCount() > 0) {
                entered.countDown();
                release.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                return true; // destroy: the request is rejected
            }
            return false;
        });
        CmId listener = scm.createId(r, null, PortSpace.TCP);
        listener.bind(at(0));
        listener.listen(8);
        Peer client = peer();
        for (int i = 0; i < 3; i++) {
            CmId id = routed(client, PortSpace.TCP, listener.localPort());
            Side.of(id).createQp();
            id.connect(ConnParam.defaults());
        }
        assertThat(entered.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        eventually(() -> scm.idCount() == 4, "all three requests reached the server");
        listener.destroy(); // does not wait: the running callback is the first request's
        release.countDown();
        List<CmEvent> got = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            got.add(client.events().next());
        }
        assertThat(got).extracting(CmEvent::type).containsOnly(CmEventType.REJECTED);
        eventually(() -> scm.idCount() == 0, "every request's id is gone");
        assertThat(r.all()).as("queued requests are never delivered").hasSize(1);
    }

    @Test
    void aSynchronousListenerDestroyedWithRequestsNotYetTakenRejectsThem() {
        RdmaCm scm = openCm();
        String host = fixture().address().getHostAddress();
        CmId listener = scm.createEp(RdmaAddrInfo.resolve(host, "0", true, PortSpace.TCP).get(0), null, null);
        listener.listen(4);
        Peer client = peer();
        CmId id = routed(client, PortSpace.TCP, listener.localPort());
        Side.of(id).createQp();
        id.connect(ConnParam.defaults());
        eventually(() -> scm.idCount() == 2, "the request reached the server");
        listener.destroy();
        client.events().expect(CmEventType.REJECTED, id);
        eventually(() -> scm.idCount() == 0, "the request's id is gone");
    }

    @Test
    void destroyingAnIdFromInsideItsHandlerIsSafe() {
        RdmaCm scm = openCm();
        EventRecorder r = recorder().reaction((id, e) -> {
            switch (e.type()) {
                case CONNECT_REQUEST -> {
                    Side.of(id).createQp();
                    id.accept(ConnParam.defaults());
                }
                case ESTABLISHED -> id.destroy(); // not the "return true" way
                default -> {
                }
            }
            return false;
        });
        CmId listener = scm.createId(r, null, PortSpace.TCP);
        listener.bind(at(0));
        listener.listen(4);
        Peer client = peer();
        CmId id = routed(client, PortSpace.TCP, listener.localPort());
        Side active = Side.of(id);
        active.createQp();
        id.connect(ConnParam.defaults());
        client.events().expect(CmEventType.ESTABLISHED, id);
        r.expect(CmEventType.CONNECT_REQUEST);
        r.expect(CmEventType.ESTABLISHED);
        assertThat(r.failures()).isEmpty();
        client.events().expectSkippingTimewait(CmEventType.DISCONNECTED); // the destroyed side left
        eventually(() -> scm.idCount() == 1, "only the listener is left");
        r.expectNone(QUIET);
    }

    // ------------------------------------------------------------------------------------------ leaks

    @Test
    void aThousandConnectAcceptDisconnectCyclesLeakNoThreadIdOrQp() {
        Server server = listen(PortSpace.TCP, 16);
        Peer client = peer();
        CmId first = routed(client, PortSpace.TCP, server.port());
        CompletionQueue ccq = first.verbs().createCq(64);
        QpRecipe active = new QpRecipe(first.verbs().allocPd(), QpInitAttr.rc(ccq, QpCap.of(4, 4)));
        first.destroy();
        CompletionQueue scq = server.listener().verbs().createCq(64);
        QpRecipe passive = new QpRecipe(server.listener().verbs().allocPd(), QpInitAttr.rc(scq, QpCap.of(4, 4)));
        Assumptions.assumeTrue(server.listener().device() instanceof DeviceImpl, () -> server.listener().device()
                .name() + ": the kernel keeps the device's QP count; the leak check counts jrdma's devices");
        DeviceImpl dev = (DeviceImpl) server.listener().device();
        for (int i = 0; i < 5; i++) {
            cycle(server, client, active, passive); // warm up: threads and caches that stay
        }
        int states = fixture().connectionStates();
        int qps = dev.count(DeviceImpl.Resource.QP);
        Map<String, Integer> threads = platformThreads();
        long t0 = System.nanoTime();
        for (int i = 0; i < CYCLES; i++) {
            cycle(server, client, active, passive);
            assertThat(System.nanoTime() - t0).as("time for %d cycles", i + 1).isLessThan(CYCLES_BOUND.toNanos());
        }
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        System.out.printf("%d connect/accept/disconnect cycles in %d ms (%.2f ms each)%n", CYCLES, ms,
                (double) ms / CYCLES);
        assertThat(server.cm().idCount()).as("server ids").isEqualTo(1);
        assertThat(client.cm().idCount()).as("client ids").isZero();
        assertThat(dev.count(DeviceImpl.Resource.QP)).as("QPs").isEqualTo(qps);
        assertThat(PortTable.instance().bindings(PortSpace.TCP, server.port())).as("bindings on the port")
                .isEqualTo(1);
        if (states >= 0) {
            // At most the baseline: timewaits of the warm-up (and of earlier tests) may still end.
            eventually(() -> fixture().connectionStates() <= states, "connection-manager state back to "
                    + states + " (now " + fixture().connectionStates() + ")");
        }
        eventually(() -> platformThreads().equals(threads), "platform threads back to " + threads + " (now "
                + platformThreads() + ")");
    }

    /** A PD and the attributes of the QPs one side creates in every cycle. */
    private record QpRecipe(ProtectionDomain pd, QpInitAttr attr) {
    }

    private void cycle(Server server, Peer client, QpRecipe active, QpRecipe passive) {
        CmId id = routed(client, PortSpace.TCP, server.port());
        id.createQp(active.pd(), active.attr());
        id.connect(ConnParam.defaults());
        CmEvent req = server.events().expect(CmEventType.CONNECT_REQUEST);
        req.id().createQp(passive.pd(), passive.attr());
        req.id().accept(ConnParam.defaults());
        client.events().expect(CmEventType.ESTABLISHED, id);
        server.events().expect(CmEventType.ESTABLISHED, req.id());
        id.disconnect();
        server.events().expect(CmEventType.DISCONNECTED, req.id());
        req.id().disconnect();
        client.events().expect(CmEventType.DISCONNECTED, id);
        id.destroyQp();
        id.destroy();
        req.id().destroyQp();
        req.id().destroy();
    }

    /** Platform threads by name, without the JDK's virtual-thread carriers (their number floats). */
    private static Map<String, Integer> platformThreads() {
        Map<String, Integer> m = new HashMap<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            String n = t.getName();
            if (!t.isVirtual() && t.isAlive() && !n.startsWith("ForkJoinPool") && !n.startsWith("cm-suite-")) {
                m.merge(n, 1, Integer::sum);
            }
        }
        return m;
    }
}
