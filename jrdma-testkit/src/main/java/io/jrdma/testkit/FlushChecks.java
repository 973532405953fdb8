package io.jrdma.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Flushing (IBTA 10.3.1, 11.4.2: a QP in ERR completes every outstanding and every newly posted WR
 * with WR_FLUSH_ERR; so do destroying and resetting it), each WR exactly once.
 */
abstract class FlushChecks extends SuiteChecks {
    FlushChecks(SuiteSupport support) {
        super(support);
    }

    @Test
    void modifyingToErrorFlushesEveryOutstandingWorkRequestOnce() {
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        List<Long> ids = new ArrayList<>();
        for (long i = 1; i <= 5; i++) {
            post(p.a(), recv(i, a, 64 * i, 64));
            ids.add(i);
        }
        if (features().rnrRetry()) {
            // The peer posted no receive: with rnr_retry 7 these SENDs wait until the QP fails.
            for (long i = 11; i <= 13; i++) {
                post(p.a().qp(), send(i, a, 0, 8).flags(i == 12 ? 0 : SendFlags.SIGNALED));
                ids.add(i);
            }
            Await.noCompletion(p.a().cq(), Await.QUIET);
        }
        p.a().qp().modify(new QpAttr().qpState(QpState.ERR));
        assertFlushedOnce(p.a().cq(), p.a().qp().qpNum(), ids);
        assertThat(p.a().qp().sendQueueDepth()).isZero();
        assertThat(p.a().qp().recvQueueDepth()).isZero();
    }

    @Test
    void workRequestsPostedInErrorAreFlushedSignaledOrNot() {
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        p.a().qp().modify(new QpAttr().qpState(QpState.ERR));
        post(p.a().qp(), send(1, a, 0, 8).next(send(2, a, 0, 8).flags(0)));
        post(p.a(), recv(3, a, 0, 64).next(recv(4, a, 64, 64)));
        assertFlushedOnce(p.a().cq(), p.a().qp().qpNum(), List.of(1L, 2L, 3L, 4L));
    }

    @Test
    void destroyingAQpFlushesItsOutstandingWorkRequests() {
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        post(p.a(), chain(recv(1, a, 0, 64), recv(2, a, 64, 64), recv(3, a, 128, 64)));
        int qpn = p.a().qp().qpNum();
        p.a().qp().close();
        assertFlushedOnce(p.a().cq(), qpn, List.of(1L, 2L, 3L));
    }

    @Test
    void resettingAQpFlushesItsOutstandingWorkRequestsAndItCanBeUsedAgain() {
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        post(p.a(), recv(1, a, 0, 64).next(recv(2, a, 64, 64)));
        p.a().qp().modify(new QpAttr().qpState(QpState.RESET));
        assertThat(p.a().qp().state()).isEqualTo(QpState.RESET);
        assertFlushedOnce(p.a().cq(), p.a().qp().qpNum(), List.of(1L, 2L));
        assertThat(p.a().qp().recvQueueDepth()).isZero();
        ManualConnector.toInit(p.a().qp(), QpOptions.rc());
        post(p.a(), recv(5, a, 0, 64));
        assertThat(p.a().qp().recvQueueDepth()).isEqualTo(1);
        Await.noCompletion(p.a().cq(), Await.QUIET);
    }

    @Test
    void aFailedRequesterFlushesItsReceivesAndLaterSendsButThePeerKeepsItsOwn() {
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, LOCAL, 2);
        post(p.a(), recv(21, a, 0, 64));
        post(p.b(), recv(31, b, 0, 64));
        SendWr bad = send(1, a, 0, 64);
        bad.sge(0).lkey(0x00FF_FF00);
        post(p.a().qp(), bad.next(send(2, a, 0, 8)));
        expectBadLocalKey(p.a(), 1);
        assertFlushedOnce(p.a().cq(), p.a().qp().qpNum(), List.of(2L, 21L));
        if (features().localErrorsCloseConnection()) {
            // iWARP: the failed requester closes the connection; the peer's receive is flushed, not used.
            Await.state(p.b().qp(), QpState.ERR);
            assertFlushedOnce(p.b().cq(), p.b().qp().qpNum(), List.of(31L));
        } else {
            assertThat(p.b().qp().recvQueueDepth()).isEqualTo(1);
            assertThat(p.b().qp().state()).isEqualTo(QpState.RTS);
        }
    }
}
