package io.jrdma.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.verbs.AsyncEvent;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SharedReceiveQueue;
import io.jrdma.verbs.SrqAttr;
import io.jrdma.verbs.WcStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Shared receive queues ({@code ibv_create_srq}, {@code ibv_post_srq_recv}, the SRQ limit event). */
abstract class SrqChecks extends SuiteChecks {
    SrqChecks(SuiteSupport support) {
        super(support);
    }

    @Test
    void anSrqFeedsEveryQpAttachedToIt() {
        assume(features().srq(), "shared receive queues");
        EndpointPair p1 = connect(QpOptions.rc().withSrq(16));
        EndpointPair p2 = connect(QpOptions.rc().withSrq(16), p1.b());
        assertThat(p2.b().srq()).isSameAs(p1.b().srq());
        CanaryBuffer a1 = buffer(p1.a(), SIZE, LOCAL, 1);
        CanaryBuffer a2 = buffer(p2.a(), SIZE, LOCAL, 2);
        CanaryBuffer b = buffer(p1.b(), SIZE, LOCAL, 3);
        RecvWr chain = null;
        for (int i = 4; i >= 1; i--) {
            chain = recv(i, b, 256L * i, 256).next(chain);
        }
        post(p1.b(), chain);
        assertThat(p1.b().srq().posted()).isEqualTo(4);
        post(p1.a().qp(), send(11, a1, 0, 16));
        post(p2.a().qp(), send(21, a2, 0, 16));
        post(p1.a().qp(), send(12, a1, 0, 16));
        post(p2.a().qp(), send(22, a2, 0, 16));
        List<Completion> got = Await.completions(p1.b().cq(), 4);
        assertThat(got).extracting(Completion::wrId).containsExactlyInAnyOrder(1L, 2L, 3L, 4L);
        assertThat(got).extracting(Completion::status).containsOnly(WcStatus.SUCCESS);
        assertThat(got).filteredOn(c -> c.qpNum() == p1.b().qp().qpNum()).hasSize(2);
        assertThat(got).filteredOn(c -> c.qpNum() == p2.b().qp().qpNum()).hasSize(2);
        assertThat(p1.b().srq().posted()).isZero();
    }

    @Test
    void theLimitEventFiresOnceWhenThePostedReceivesDropBelowTheLimit() {
        assume(features().srq(), "shared receive queues");
        EndpointPair p = connect(QpOptions.rc().withSrq(8));
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, LOCAL, 2);
        SharedReceiveQueue srq = p.b().srq();
        for (int i = 1; i <= 4; i++) {
            post(p.b(), recv(i, b, 64L * i, 64));
        }
        srq.armLimit(3);
        assertThat(srq.query().srqLimit()).isEqualTo(3);
        post(p.a().qp(), send(11, a, 0, 8));
        expect(p.b(), 1, WcStatus.SUCCESS);
        assertThat(Await.events(p.b().context(), Await.QUIET)).doesNotContain(AsyncEventType.SRQ_LIMIT_REACHED);
        post(p.a().qp(), send(12, a, 0, 8));
        expect(p.b(), 2, WcStatus.SUCCESS);
        AsyncEvent e = Await.event(p.b().context(), AsyncEventType.SRQ_LIMIT_REACHED);
        assertThat(e.srq()).isSameAs(srq);
        assertThat(srq.query().srqLimit()).as("the limit disarms when it fires").isZero();
        post(p.a().qp(), send(13, a, 0, 8));
        expect(p.b(), 3, WcStatus.SUCCESS);
        assertThat(Await.events(p.b().context(), Await.QUIET)).doesNotContain(AsyncEventType.SRQ_LIMIT_REACHED);
    }

    @Test
    void aQpWithAnSrqTakesNoReceivesOfItsOwn() {
        assume(features().srq(), "shared receive queues");
        EndpointPair p = connect(QpOptions.rc().withSrq(8));
        assertThatThrownBy(() -> p.b().qp().postRecv(new RecvWr().wrId(1)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("shared receive queue");
    }

    @Test
    void aFullSrqIsAReturnValue() {
        assume(features().srq(), "shared receive queues");
        EndpointPair p = connect(QpOptions.rc().withSrq(4));
        CanaryBuffer b = buffer(p.b(), SIZE, LOCAL, 2);
        // The SRQ holds what the device granted: at least the 4 asked for (Linux rxe rounds up).
        int n = p.b().srq().query().maxWr();
        assertThat(n).isBetween(4, 16);
        RecvWr chain = null;
        for (int i = n + 2; i >= 1; i--) {
            chain = recv(i, b, 64L * i, 64).next(chain);
        }
        assertThat(p.b().srq().postRecv(chain)).isEqualTo(n);
        assertThat(p.b().srq().postRecv(recv(n + 3, b, 0, 64))).isZero();
        assertThat(p.b().srq().posted()).isEqualTo(n);
    }

    @Test
    void anSrqInUseCannotBeClosedAndItsLimitsAreChecked() {
        assume(features().srq(), "shared receive queues");
        EndpointPair p = connect(QpOptions.rc().withSrq(4));
        SharedReceiveQueue srq = p.b().srq();
        assertThatThrownBy(srq::close).isInstanceOfSatisfying(RdmaException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.EBUSY));
        // A limit above what the SRQ holds (Linux rxe holds more than asked: 7 for 4).
        int held = srq.query().maxWr();
        assertThatThrownBy(() -> srq.armLimit(held + 1)).isInstanceOf(IllegalArgumentException.class);
        int max = p.b().context().queryDevice().maxSrqWr();
        assertThatThrownBy(() -> p.b().pd().createSrq(new SrqAttr(max + 1, 1, 0)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("max_srq_wr");
        assertThatThrownBy(() -> p.b().pd().createSrq(new SrqAttr(4, 1, 5)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theReceivesOfAnSrqOutliveTheErrorOfOneQp() {
        assume(features().srq(), "shared receive queues");
        EndpointPair p1 = connect(QpOptions.rc().withSrq(16));
        EndpointPair p2 = connect(QpOptions.rc().withSrq(16), p1.b());
        CanaryBuffer a2 = buffer(p2.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p1.b(), SIZE, LOCAL, 2);
        post(p1.b(), recv(1, b, 0, 64).next(recv(2, b, 64, 64)));
        p1.b().qp().modify(new QpAttr().qpState(QpState.ERR));
        Await.noCompletion(p1.b().cq(), Await.QUIET);
        assertThat(p1.b().srq().posted()).as("an SRQ's receives belong to no QP and are not flushed").isEqualTo(2);
        post(p2.a().qp(), send(5, a2, 0, 8));
        Completion c = expect(p2.b(), 1, WcStatus.SUCCESS);
        assertThat(c.qpNum()).isEqualTo(p2.b().qp().qpNum());
    }
}
