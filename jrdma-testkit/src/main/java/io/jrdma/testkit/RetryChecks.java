package io.jrdma.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.RnrTimer;
import io.jrdma.verbs.WcStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * RNR NAK retries (IBTA 9.7.5.2.8: the requester waits the responder's minimum RNR timer and
 * retries, rnr_retry times, 7 meaning forever) and transport retries (IBTA 9.7.6.1.3: without an
 * answer the requester retries after the local ACK timeout, retry_cnt times).
 */
abstract class RetryChecks extends SuiteChecks {
    /** The RNR timer code of the exhaustion tests: 14 = 1.28 ms. */
    static final int RNR_CODE = 14;

    RetryChecks(SuiteSupport support) {
        super(support);
    }

    @ParameterizedTest(name = "rnr_retry {0}")
    @ValueSource(ints = {0, 1, 2, 3, 4, 5, 6})
    void exhaustingTheRnrRetriesFailsWithRnrRetryExcErrNoSoonerThanTheirTimers(int rnrRetry) {
        assume(features().rnrRetry(), "RNR retries");
        EndpointPair p = connect(QpOptions.rc().withRnrRetry(rnrRetry).withMinRnrTimer(RNR_CODE));
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, LOCAL, 2);
        byte[] before = b.snapshot();
        long t0 = System.nanoTime();
        post(p.a().qp(), send(1, a, 0, 64).next(send(2, a, 0, 64)));
        expect(p.a(), 1, WcStatus.RNR_RETRY_EXC_ERR);
        long elapsed = System.nanoTime() - t0;
        assertThat(elapsed).as("%d retries of %d ns each", rnrRetry, RnrTimer.nanos(RNR_CODE))
                .isGreaterThanOrEqualTo(rnrRetry * RnrTimer.nanos(RNR_CODE));
        expect(p.a(), 2, WcStatus.WR_FLUSH_ERR);
        Await.state(p.a().qp(), QpState.ERR);
        // The responder only said "not ready": it stays usable and received nothing.
        assertThat(p.b().qp().state()).isEqualTo(QpState.RTS);
        Await.noCompletion(p.b().cq(), Await.QUIET);
        b.assertUnchanged(before);
    }

    @Test
    void rnrRetrySevenRetriesUntilAReceiveIsPosted() {
        assume(features().rnrRetry(), "RNR retries");
        EndpointPair p = connect(QpOptions.rc().withRnrRetry(7).withMinRnrTimer(QpOptions.FAST_RNR_TIMER));
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, LOCAL, 2);
        post(p.a().qp(), send(1, a, 0, 64));
        // Thousands of 10 µs RNR periods pass: with rnr_retry 7 the SEND never gives up.
        Await.noCompletion(p.a().cq(), Await.QUIET.multipliedBy(2));
        assertThat(p.a().qp().state()).isEqualTo(QpState.RTS);
        post(p.b(), recv(9, b, 0, 64));
        expect(p.a(), 1, WcStatus.SUCCESS);
        assertThat(expect(p.b(), 9, WcStatus.SUCCESS).byteLen()).isEqualTo(64);
        assertThat(DataPattern.matches(b.body(), 0, 64, 1)).isTrue();
    }

    @Test
    void aReceivePostedWithinTheRnrBudgetLetsTheSendSucceed() {
        assume(features().rnrRetry(), "RNR retries");
        // 6 retries of 40.96 ms (code 24): the receive arrives long before they run out.
        EndpointPair p = connect(QpOptions.rc().withRnrRetry(6).withMinRnrTimer(24));
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, LOCAL, 2);
        post(p.a().qp(), send(1, a, 0, 64));
        Await.noCompletion(p.a().cq(), Await.QUIET.dividedBy(10));
        post(p.b(), recv(9, b, 0, 64));
        expect(p.a(), 1, WcStatus.SUCCESS);
        expect(p.b(), 9, WcStatus.SUCCESS);
    }

    @Test
    void aVanishedPeerRunsOutTheTransportRetriesWithRetryExcErr() throws Exception {
        assume(features().transportRetry(), "transport retries");
        int retries = 2;
        int timeout = 8; // 4.096 µs × 2^8 = 1.05 ms
        EndpointPair p = connect(QpOptions.rc().withRetry(retries, timeout));
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        p.b().qp().close();
        long t0 = System.nanoTime();
        post(p.a().qp(), send(1, a, 0, 64).next(send(2, a, 0, 64)));
        expect(p.a(), 1, WcStatus.RETRY_EXC_ERR);
        assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(retries * RnrTimer.ackTimeoutNanos(timeout));
        expect(p.a(), 2, WcStatus.WR_FLUSH_ERR);
        Await.state(p.a().qp(), QpState.ERR);
    }

    @Test
    void aPeerInErrorIsNotAnsweredEither() {
        assume(features().transportRetry(), "transport retries");
        EndpointPair p = connect(QpOptions.rc().withRetry(1, 8));
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        p.b().qp().modify(new QpAttr().qpState(QpState.ERR));
        post(p.a().qp(), send(1, a, 0, 64));
        expect(p.a(), 1, WcStatus.RETRY_EXC_ERR);
    }
}
