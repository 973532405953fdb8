package io.jrdma.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.verbs.AsyncEvent;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Completion queues and channels ({@code ibv_poll_cq}, {@code ibv_req_notify_cq},
 * {@code ibv_get_cq_event}, {@code ibv_ack_cq_events}, {@code ibv_resize_cq}) and CQ overflow.
 */
abstract class CompletionQueueChecks extends SuiteChecks {
    @Override
    boolean hostLocal() {
        return true;
    }

    /** How long a test waits to be sure a channel stays silent. */
    static final Duration SILENCE = Duration.ofMillis(50);

    CompletionQueueChecks(SuiteSupport support) {
        super(support);
    }

    /** Posts {@code n} signaled 8-byte RDMA WRITEs with ids {@code first..first+n-1}. */
    static void writes(EndpointPair p, CanaryBuffer src, CanaryBuffer dst, long first, int n) {
        for (int i = 0; i < n; i++) {
            post(p.a().qp(), write(first + i, src, 8L * i, 8, dst, 8L * i));
        }
    }

    @Test
    void pollFillsTheCallersArrayFromTheOffsetAndReturnsTheCount() {
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, ALL, 2);
        writes(p, a, b, 1, 3);
        WorkCompletion[] wc = Await.newArray(8);
        for (WorkCompletion w : wc) {
            w.fill(-1, WcStatus.GENERAL_ERR, null, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        }
        List<Long> ids = new ArrayList<>();
        Await.until("three completions", Await.DEFAULT, () -> {
            int base = 2 + ids.size();
            int n = p.a().cq().poll(wc, base, 3 - ids.size());
            assertThat(n).isBetween(0, 3 - ids.size());
            for (int i = 0; i < n; i++) {
                ids.add(wc[base + i].wrId());
            }
            return ids.size() == 3;
        });
        assertThat(ids).containsExactly(1L, 2L, 3L);
        for (int i : new int[] {0, 1, 5, 6, 7}) {
            assertThat(wc[i].wrId()).as("entry %d outside the polled range", i).isEqualTo(-1);
        }
        for (int i = 2; i < 5; i++) {
            assertThat(wc[i].status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc[i].qpNum()).isEqualTo(p.a().qp().qpNum());
        }
    }

    @Test
    void pollingAnEmptyQueueReturnsZeroAndABadRangeIsRejected() {
        CompletionQueue cq = rc().a().cq();
        WorkCompletion[] wc = Await.newArray(4);
        assertThat(cq.poll(wc)).isZero();
        assertThat(cq.poll(wc, 4, 0)).isZero();
        assertThatThrownBy(() -> cq.poll(wc, 2, 3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> cq.poll(wc, -1, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void requestNotifyNextSignalsTheChannelOnceForTheNextCompletion() throws Exception {
        EndpointPair p = connect(QpOptions.rc().withChannel(true));
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, LOCAL, 2);
        CompletionChannel ch = p.b().channel();
        assertThat(p.b().cq().channel()).isSameAs(ch);
        assertThat(ch.getEvent(SILENCE)).as("nothing armed, nothing signaled").isNull();
        p.b().cq().requestNotify(false);
        post(p.b(), recv(1, b, 0, 64).next(recv(2, b, 64, 64)));
        post(p.a().qp(), send(10, a, 0, 8));
        assertThat(ch.getEvent(Await.DEFAULT)).isSameAs(p.b().cq());
        ch.ackEvents(p.b().cq(), 1);
        expect(p.b(), 1, WcStatus.SUCCESS);
        post(p.a().qp(), send(11, a, 0, 8));
        expect(p.b(), 2, WcStatus.SUCCESS);
        assertThat(ch.getEvent(SILENCE)).as("the arming was used up by the first completion").isNull();
    }

    @Test
    void requestNotifySolicitedWakesOnlyForSolicitedOrFailedCompletions() throws Exception {
        EndpointPair p = connect(QpOptions.rc().withChannel(true));
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, LOCAL, 2);
        CompletionChannel ch = p.b().channel();
        CompletionQueue cq = p.b().cq();
        post(p.b(), chain(recv(1, b, 0, 64), recv(2, b, 64, 64), recv(3, b, 128, 64)));
        cq.requestNotify(true);
        post(p.a().qp(), send(10, a, 0, 8));
        expect(p.b(), 1, WcStatus.SUCCESS);
        assertThat(ch.getEvent(SILENCE)).as("an unsolicited SEND does not wake a solicited arming").isNull();
        post(p.a().qp(), send(11, a, 0, 8).flags(SendFlags.SIGNALED | SendFlags.SOLICITED));
        assertThat(ch.getEvent(Await.DEFAULT)).as("a solicited SEND does").isSameAs(cq);
        ch.ackEvents(cq, 1);
        expect(p.b(), 2, WcStatus.SUCCESS);
        cq.requestNotify(true);
        p.b().qp().modify(new QpAttr().qpState(QpState.ERR));
        assertThat(ch.getEvent(Await.DEFAULT)).as("so does a failed (flushed) completion").isSameAs(cq);
        ch.ackEvents(cq, 1);
        expect(p.b(), 3, WcStatus.WR_FLUSH_ERR);
    }

    @Test
    void requestNotifyOnACqWithoutAChannelIsIllegalState() {
        CompletionQueue cq = rc().a().cq();
        assertThat(cq.channel()).isNull();
        assertThatThrownBy(() -> cq.requestNotify(false)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("channel");
    }

    @Test
    void acknowledgingMoreEventsThanWereDeliveredIsRejected() throws Exception {
        EndpointPair p = connect(QpOptions.rc().withChannel(true));
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, ALL, 2);
        CompletionChannel ch = p.a().channel();
        p.a().cq().requestNotify(false);
        writes(p, a, b, 1, 1);
        assertThat(ch.getEvent(Await.DEFAULT)).isSameAs(p.a().cq());
        assertThatThrownBy(() -> ch.ackEvents(p.a().cq(), 2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ch.ackEvents(p.a().cq(), -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ch.ackEvents(p.b().cq(), 1)).isInstanceOf(IllegalArgumentException.class);
        ch.ackEvents(p.a().cq(), 1);
    }

    @Test
    void aCqOrChannelInUseCannotBeClosed() {
        EndpointPair p = connect(QpOptions.rc().withChannel(true));
        assertThatThrownBy(() -> p.a().cq().close()).isInstanceOfSatisfying(RdmaException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.EBUSY));
        assertThatThrownBy(() -> p.a().channel().close()).isInstanceOfSatisfying(RdmaException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.EBUSY));
    }

    @Test
    void overflowingACqRaisesCqErrAndPutsTheCqInError() {
        EndpointPair p = connect(QpOptions.rc().withCqDepth(4));
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, ALL, 2);
        int capacity = p.a().cq().capacity();
        assertThat(capacity).isGreaterThanOrEqualTo(4).isLessThan(16);
        assertThat(p.a().cq().isInError()).isFalse();
        writes(p, a, b, 1, capacity + 2);
        AsyncEvent e = Await.event(p.a().context(), AsyncEventType.CQ_ERR);
        assertThat(e.cq()).isSameAs(p.a().cq());
        assertThat(p.a().cq().isInError()).isTrue();
    }

    @Test
    void resizingKeepsTheWaitingCompletionsInOrder() {
        EndpointPair p = connect(QpOptions.rc().withCqDepth(8));
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, ALL, 2);
        writes(p, a, b, 1, 5);
        Await.until("five writes to complete", Await.DEFAULT, () -> p.a().qp().sendQueueDepth() == 0);
        p.a().cq().resize(64);
        assertThat(p.a().cq().capacity()).isGreaterThanOrEqualTo(64);
        assertThat(Await.completions(p.a().cq(), 5)).extracting(Completion::wrId).containsExactly(1L, 2L, 3L, 4L, 5L);
        writes(p, a, b, 6, 2);
        assertThat(Await.completions(p.a().cq(), 2)).extracting(Completion::wrId).containsExactly(6L, 7L);
    }

    @Test
    void resizingBelowTheWaitingCompletionsIsEinvalAndKeepsThem() {
        EndpointPair p = connect(QpOptions.rc().withCqDepth(16));
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, ALL, 2);
        writes(p, a, b, 1, 5);
        Await.until("five writes to complete", Await.DEFAULT, () -> p.a().qp().sendQueueDepth() == 0);
        assertThatThrownBy(() -> p.a().cq().resize(2)).isInstanceOfSatisfying(RdmaException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        assertThat(Await.completions(p.a().cq(), 5)).extracting(Completion::wrId).containsExactly(1L, 2L, 3L, 4L, 5L);
    }

    @Test
    void cqSizesOutsideTheDeviceLimitsAreRejected() {
        Context ctx = openContext();
        int max = ctx.queryDevice().maxCqe();
        assertThatThrownBy(() -> ctx.createCq(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ctx.createCq(max + 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(String.valueOf(max));
        CompletionQueue cq = ctx.createCq(4);
        assertThatThrownBy(() -> cq.resize(max + 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> cq.resize(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void waitingOnAQuietChannelTimesOutWithNull() throws Exception {
        EndpointPair p = connect(QpOptions.rc().withChannel(true));
        p.a().cq().requestNotify(false);
        long t0 = System.nanoTime();
        assertThat(p.a().channel().getEvent(SILENCE)).isNull();
        assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(SILENCE.toNanos() / 2);
    }

    @Test
    void unsignaledSendsLeaveNoCompletionButRetireFromTheQueue() {
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, ALL, 2);
        for (int i = 0; i < 3; i++) {
            post(p.a().qp(), write(i + 1, a, 0, 8, b, 0).flags(0));
        }
        post(p.a().qp(), write(4, a, 0, 8, b, 0));
        expect(p.a(), 4, WcStatus.SUCCESS);
        Await.noCompletion(p.a().cq(), Await.QUIET);
        assertThat(p.a().qp().sendQueueDepth()).isZero();
    }

    @Test
    void sqSigAllSignalsEveryWorkRequest() {
        EndpointPair p = connect(QpOptions.rc().withSqSigAll(true));
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, ALL, 2);
        SendWr chain = write(1, a, 0, 8, b, 0).flags(0).next(write(2, a, 0, 8, b, 8).flags(0)
                .next(write(3, a, 0, 8, b, 16).flags(0)));
        assertThat(p.a().qp().initAttr().sqSigAll()).isTrue();
        post(p.a().qp(), chain);
        assertThat(Await.completions(p.a().cq(), 3)).extracting(Completion::wrId).containsExactly(1L, 2L, 3L);
    }
}
