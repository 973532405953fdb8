package io.jrdma.testkit.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.CmState;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.verbs.QpState;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The kernel-style API (Linux {@code rdma_create_id} with an event handler, {@code cma.c}'s
 * {@code handler_mutex}): one event at a time per id, all events of a connection manager on one
 * executor, a handler's "destroy me" answer, destroy against a running callback, and the calls
 * reserved for handlers ({@code rdma_connect_locked}, accept/reject under the handler lock).
 */
abstract class KernelApiChecks extends CmChecks {
    KernelApiChecks(CmSuiteSupport support) {
        super(support);
    }

    @Test
    void eventsAreDeliveredOneAtATimeEvenWhileAHandlerQueuesMore() {
        Server server = listen(PortSpace.TCP, 8);
        RdmaCm cm = openCm();
        EventRecorder r = recorder().reaction((id, e) -> {
            if (e.type() == CmEventType.ADDR_RESOLVED) {
                id.resolveRoute(WAIT); // ROUTE_RESOLVED is queued while this call still runs
                Thread.sleep(50);
            }
            return false;
        });
        List<CmId> ids = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            CmId id = cm.createId(r, i, PortSpace.TCP);
            ids.add(id);
            id.resolveAddr(null, at(server.port()), WAIT);
        }
        List<CmEvent> seen = new ArrayList<>();
        for (int i = 0; i < 2 * ids.size(); i++) {
            seen.add(r.next());
        }
        assertThat(r.failures()).isEmpty();
        assertThat(r.maxConcurrent()).as("handler calls running at once").isEqualTo(1);
        for (CmId id : ids) {
            List<CmEventType> own = seen.stream().filter(e -> e.id() == id).map(CmEvent::type).toList();
            assertThat(own).containsExactly(CmEventType.ADDR_RESOLVED, CmEventType.ROUTE_RESOLVED);
        }
    }

    @Test
    void allEventsOfAConnectionManagerRunOnOneExecutorThread() throws Exception {
        RdmaCm cm = openCm();
        EventRecorder r = recorder().reaction((id, e) -> {
            switch (e.type()) {
                case CONNECT_REQUEST -> {
                    Side.of(id).createQp();
                    id.accept(ConnParam.defaults());
                }
                case ADDR_RESOLVED -> id.resolveRoute(WAIT);
                case ROUTE_RESOLVED -> {
                    Side.of(id).createQp();
                    id.connectLocked(ConnParam.defaults());
                }
                default -> {
                }
            }
            return false;
        });
        CmId listener = cm.createId(r, "listener", PortSpace.TCP);
        listener.bind(at(0));
        listener.listen(8);
        for (int i = 0; i < 3; i++) {
            cm.createId(r, "client", PortSpace.TCP).resolveAddr(null, at(listener.localPort()), WAIT);
        }
        int established = 0;
        while (established < 6) {
            if (r.next().type() == CmEventType.ESTABLISHED) {
                established++;
            }
        }
        assertThat(r.failures()).isEmpty();
        assertThat(r.threads()).as("threads the handlers of listener, passive and active ids ran on").hasSize(1)
                .doesNotContain(Thread.currentThread());
        assertThat(r.maxConcurrent()).isEqualTo(1);
    }

    @Test
    void aHandlerReturningTrueHasItsIdDestroyedOnceItReturns() {
        RdmaCm cm = openCm();
        AtomicReference<CmState> stateInHandler = new AtomicReference<>();
        AtomicInteger idsInHandler = new AtomicInteger(-1);
        EventRecorder r = recorder().reaction((id, e) -> {
            stateInHandler.set(id.state());
            idsInHandler.set(cm.idCount());
            return true;
        });
        CmId id = cm.createId(r, null, PortSpace.TCP);
        id.resolveAddr(null, at(9), WAIT);
        r.expect(CmEventType.ADDR_RESOLVED);
        eventually(() -> id.state() == CmState.DESTROYING, "the id is destroyed after its handler returned");
        assertThat(r.failures()).isEmpty();
        assertThat(stateInHandler.get()).as("state while the handler ran").isEqualTo(CmState.ADDR_RESOLVED);
        assertThat(idsInHandler.get()).as("ids alive while the handler ran").isEqualTo(1);
        assertThat(cm.idCount()).isZero();
        assertThatThrownBy(() -> id.resolveRoute(WAIT)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("destroyed");
    }

    @Test
    void aConnectRequestHandlerReturningTrueRejectsTheRequest() {
        RdmaCm cm = openCm();
        EventRecorder r = recorder().reaction((id, e) -> e.type() == CmEventType.CONNECT_REQUEST);
        CmId listener = cm.createId(r, null, PortSpace.TCP);
        listener.bind(at(0));
        listener.listen(4);
        Peer client = peer();
        CmId id = routed(client, PortSpace.TCP, listener.localPort());
        Side.of(id).createQp();
        id.connect(ConnParam.defaults());
        r.expect(CmEventType.CONNECT_REQUEST);
        CmEvent rej = client.events().expect(CmEventType.REJECTED, id);
        assertThat(consumerReject(id, rej.status())).as("a consumer reject (IB 28, iWARP -ECONNREFUSED)")
                .isTrue();
        eventually(() -> cm.idCount() == 1, "only the listener is left");
    }

    @Test
    void aConnectRequestHandlerThatThrowsHasTheRequestRejectedAndItsBacklogPlaceGivenBack() {
        // Nobody is left to answer the request: before, it stayed outstanding, held its place in the backlog
        // and left the client waiting for the CM's retries; now each one is rejected as the consumer's.
        RdmaCm cm = openCm();
        java.util.concurrent.atomic.AtomicInteger requests = new java.util.concurrent.atomic.AtomicInteger();
        CmId listener = cm.createId((id, e) -> {
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                requests.incrementAndGet();
                throw new IllegalStateException("a handler bug");
            }
            return false;
        }, null, PortSpace.TCP);
        listener.bind(at(0));
        listener.listen(1);
        Peer client = peer();
        for (int i = 0; i < 3; i++) {
            CmId id = routed(client, PortSpace.TCP, listener.localPort());
            Side.of(id).createQp();
            id.connect(ConnParam.defaults());
            CmEvent rej = client.events().expect(CmEventType.REJECTED, id);
            assertThat(consumerReject(id, rej.status())).as("request %d: a consumer reject", i).isTrue();
        }
        assertThat(requests.get()).isEqualTo(3);
        eventually(() -> cm.idCount() == 1, "only the listener is left");
    }

    @Test
    void destroyWaitsForTheRunningCallbackAndNoCallbackFollowsIt() throws Exception {
        RdmaCm cm = openCm();
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        track(release::countDown);
        AtomicBoolean handlerDone = new AtomicBoolean();
        AtomicReference<CmId> child = new AtomicReference<>();
        EventRecorder r = recorder().reaction((id, e) -> {
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                child.set(id);
                entered.countDown();
                release.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                handlerDone.set(true);
            }
            return false;
        });
        CmId listener = cm.createId(r, null, PortSpace.TCP);
        listener.bind(at(0));
        listener.listen(4);
        Peer client = peer();
        CmId id = routed(client, PortSpace.TCP, listener.localPort());
        Side.of(id).createQp();
        id.connect(ConnParam.defaults());
        assertThat(entered.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();

        AtomicBoolean handlerDoneWhenDestroyReturned = new AtomicBoolean();
        Thread destroyer = background("destroy", () -> {
            child.get().destroy();
            handlerDoneWhenDestroyReturned.set(handlerDone.get());
        });
        destroyer.join(QUIET.toMillis());
        assertThat(destroyer.isAlive()).as("destroy waits while the handler runs").isTrue();
        release.countDown();
        join(destroyer);
        assertThat(handlerDoneWhenDestroyReturned).as("the handler had returned when destroy returned").isTrue();
        // The unanswered request of the destroyed id is rejected; its handler sees nothing more.
        client.events().expect(CmEventType.REJECTED, id);
        r.expect(CmEventType.CONNECT_REQUEST);
        r.expectNone(QUIET);
    }

    @Test
    void noCallbackRunsAfterDestroyReturnsEvenForEventsAlreadyQueued() throws Exception {
        RdmaCm cm = openCm();
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        track(release::countDown);
        EventRecorder blocker = recorder().reaction((id, e) -> {
            entered.countDown();
            release.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            return false;
        });
        EventRecorder victim = recorder();
        CmId b = cm.createId(blocker, null, PortSpace.TCP);
        CmId v = cm.createId(victim, null, PortSpace.TCP);
        b.resolveAddr(null, at(9), WAIT);
        assertThat(entered.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        v.resolveAddr(null, at(9), WAIT); // its ADDR_RESOLVED waits behind the blocked handler
        v.destroy();
        release.countDown();
        blocker.expect(CmEventType.ADDR_RESOLVED);
        victim.expectNone(QUIET);
        assertThat(victim.all()).isEmpty();
    }

    @Test
    void connectLockedConnectsFromInsideAHandler() {
        Server server = listen(PortSpace.TCP, 4);
        RdmaCm cm = openCm();
        AtomicReference<Side> side = new AtomicReference<>();
        EventRecorder r = recorder().reaction((id, e) -> {
            if (e.type() == CmEventType.ADDR_RESOLVED) {
                id.resolveRoute(WAIT);
            } else if (e.type() == CmEventType.ROUTE_RESOLVED) {
                Side s = Side.of(id);
                s.createQp();
                side.set(s);
                id.connectLocked(ConnParam.defaults());
            }
            return false;
        });
        CmId id = cm.createId(r, null, PortSpace.TCP);
        id.resolveAddr(null, at(server.port()), WAIT);
        r.expect(CmEventType.ADDR_RESOLVED);
        r.expect(CmEventType.ROUTE_RESOLVED);
        CmEvent req = server.events().expect(CmEventType.CONNECT_REQUEST);
        Side.of(req.id()).createQp();
        req.id().accept(ConnParam.defaults());
        r.expect(CmEventType.ESTABLISHED);
        server.events().expect(CmEventType.ESTABLISHED, req.id());
        assertThat(r.failures()).isEmpty();
        assertThat(side.get().qp.state()).isEqualTo(QpState.RTS);
    }

    @Test
    void plainConnectInsideAHandlerAndConnectLockedOutsideOneAreClearErrors() {
        Server server = listen(PortSpace.TCP, 4);
        RdmaCm cm = openCm();
        AtomicReference<Throwable> inHandler = new AtomicReference<>();
        EventRecorder r = recorder().reaction((id, e) -> {
            if (e.type() == CmEventType.ADDR_RESOLVED) {
                id.resolveRoute(WAIT);
            } else if (e.type() == CmEventType.ROUTE_RESOLVED) {
                try {
                    id.connect(ConnParam.defaults().withQpNum(0x123));
                } catch (RuntimeException ex) {
                    inHandler.set(ex);
                }
            }
            return false;
        });
        CmId id = cm.createId(r, null, PortSpace.TCP);
        long sent = fixture().messagesSent();
        id.resolveAddr(null, at(server.port()), WAIT);
        r.expect(CmEventType.ADDR_RESOLVED);
        r.expect(CmEventType.ROUTE_RESOLVED);
        assertThat(inHandler.get()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("connectLocked");
        assertThatThrownBy(() -> id.connectLocked(ConnParam.defaults().withQpNum(0x123)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("handler");
        assertThat(id.state()).isEqualTo(CmState.ROUTE_RESOLVED);
        server.events().expectNone(QUIET);
        assertThat(fixture().messagesSent()).as("messages sent").isEqualTo(sent);
    }

    @Test
    void acceptOrRejectOutsideTheHandlerIsAClearErrorUnlessTheHandlerLockIsHeld() {
        RdmaCm cm = openCm();
        AtomicReference<CmId> child = new AtomicReference<>();
        EventRecorder r = recorder().reaction((id, e) -> {
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                child.set(id);
            }
            return false;
        });
        CmId listener = cm.createId(r, null, PortSpace.TCP);
        listener.bind(at(0));
        listener.listen(4);
        Peer client = peer();
        CmId id = routed(client, PortSpace.TCP, listener.localPort());
        Side.of(id).createQp();
        id.connect(ConnParam.defaults());
        r.expect(CmEventType.CONNECT_REQUEST);
        CmId conn = child.get();
        Side.of(conn).createQp();
        assertThatThrownBy(() -> conn.accept(ConnParam.defaults())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("handler");
        assertThatThrownBy(() -> conn.reject(new byte[] {1})).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("handler");
        client.events().expectNone(QUIET);
        conn.lockHandler();
        try {
            conn.accept(ConnParam.defaults());
        } finally {
            conn.unlockHandler();
        }
        client.events().expect(CmEventType.ESTABLISHED, id);
        r.expect(CmEventType.ESTABLISHED);
        assertThat(r.failures()).isEmpty();
    }
}
