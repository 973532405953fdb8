package io.jrdma.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Posting ({@code ibv_post_send}, {@code ibv_post_recv}): a full queue is a return value with the
 * chain partially posted; misuse (wrong state, opcode, SGE count, inline size) throws at once.
 */
abstract class PostingChecks extends SuiteChecks {
    @Override
    boolean hostLocal() {
        return true;
    }

    PostingChecks(SuiteSupport support) {
        super(support);
    }

    @Test
    void aFullReceiveQueueIsAReturnValueAndTheChainIsPartlyPosted() {
        EndpointPair p = connect(QpOptions.rc().withCap(new QpCap(16, 4, 1, 1, 0)));
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, LOCAL, 2);
        // The queue holds what the device granted: at least the 4 asked for (Linux rxe rounds up).
        int n = p.b().qp().initAttr().cap().maxRecvWr();
        assertThat(n).isBetween(4, 16);
        RecvWr chain = null;
        for (int i = n + 2; i >= 1; i--) {
            chain = recv(i, b, 64L * i, 64).next(chain);
        }
        assertThat(p.b().qp().postRecv(chain)).isEqualTo(n);
        assertThat(p.b().qp().recvQueueDepth()).isEqualTo(n);
        assertThat(p.b().qp().postRecv(recv(n + 3, b, 0, 64))).isZero();
        for (int i = 0; i < n; i++) {
            post(p.a().qp(), send(100 + i, a, 0, 8));
        }
        List<Long> ids = new ArrayList<>();
        for (long i = 1; i <= n; i++) {
            ids.add(i);
        }
        assertThat(Await.completions(p.b().cq(), n)).extracting(Completion::wrId).containsExactlyElementsOf(ids);
    }

    @Test
    void aFullSendQueueIsAReturnValueAndTheChainIsPartlyPosted() {
        EndpointPair p = connect(QpOptions.rc().withCap(new QpCap(4, 16, 1, 1, 0)));
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, LOCAL, 2);
        // The queue holds what the device granted: at least the 4 asked for (Linux rxe rounds up).
        int n = p.a().qp().initAttr().cap().maxSendWr();
        assertThat(n).isBetween(4, 16);
        SendWr chain = null;
        for (int i = n + 2; i >= 1; i--) {
            chain = send(i, a, 0, 8).next(chain);
        }
        // No receive is posted: the first SEND waits in RNR retries, so nothing leaves the queue. Without
        // RNR (iWARP) the QP is drained (SQD) instead, where no new send starts.
        holdSends(p.a());
        assertThat(p.a().qp().postSend(chain)).isEqualTo(n);
        assertThat(p.a().qp().postSend(send(n + 3, a, 0, 8))).isZero();
        assertThat(p.a().qp().sendQueueDepth()).isEqualTo(n);
        for (int i = 0; i < n; i++) {
            post(p.b(), recv(100 + i, b, 64L * i, 64));
        }
        releaseSends(p.a());
        List<Long> ids = new ArrayList<>();
        for (long i = 1; i <= n; i++) {
            ids.add(i);
        }
        assertThat(Await.completions(p.a().cq(), n)).extracting(Completion::wrId).containsExactlyElementsOf(ids);
    }

    /** Keeps {@code e}'s new sends in its queue: by RNR retries (nothing to do) or, without RNR, in SQD. */
    void holdSends(Endpoint e) {
        if (!features().rnrRetry()) {
            e.qp().modify(new QpAttr().qpState(QpState.SQD));
        }
    }

    /** Lets the sends {@link #holdSends} held go (the caller has posted the receives they need). */
    void releaseSends(Endpoint e) {
        if (!features().rnrRetry()) {
            e.qp().modify(new QpAttr().qpState(QpState.RTS));
        }
    }

    @ParameterizedTest
    @EnumSource(value = QpState.class, names = {"RESET", "INIT", "RTR"})
    void postingSendsBeforeRtsIsIllegalState(QpState state) {
        Context ctx = openContext();
        QueuePair qp = standaloneQp(ctx, QpType.RC);
        QpOptions o = QpOptions.rc();
        if (state != QpState.RESET) {
            ManualConnector.toInit(qp, o);
        }
        if (state == QpState.RTR) {
            ManualConnector.toRtr(qp, o, ctx.queryGid(1, 0), qp.qpNum());
        }
        assertThat(qp.state()).isEqualTo(state);
        assertThatThrownBy(() -> qp.postSend(new SendWr().wrId(1))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(state.name());
        assertThat(qp.sendQueueDepth()).isZero();
    }

    @Test
    void postingReceivesInResetIsIllegalStateButInitAllowsThem() {
        Context ctx = openContext();
        QueuePair qp = standaloneQp(ctx, QpType.RC);
        // One SGE: libsiw refuses receives without one (EINVAL), whatever the state.
        CanaryBuffer b = buffer(qp.pd(), 64, LOCAL, 1);
        if (features().resetRefusesReceives()) {
            assertThatThrownBy(() -> qp.postRecv(recv(1, b, 0, 64))).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("RESET");
        }
        ManualConnector.toInit(qp, QpOptions.rc());
        assertThat(qp.postRecv(recv(1, b, 0, 64))).isEqualTo(1);
        assertThat(qp.recvQueueDepth()).isEqualTo(1);
    }

    static Stream<Arguments> opcodesTheQpTypeLacks() {
        List<Arguments> a = new ArrayList<>();
        List<WrOpcode> notOnUd = List.of(WrOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM, WrOpcode.RDMA_READ,
                WrOpcode.ATOMIC_CMP_AND_SWP, WrOpcode.ATOMIC_FETCH_AND_ADD, WrOpcode.SEND_WITH_INV, WrOpcode.LOCAL_INV);
        List<WrOpcode> notOnUc = List.of(WrOpcode.RDMA_READ, WrOpcode.ATOMIC_CMP_AND_SWP,
                WrOpcode.ATOMIC_FETCH_AND_ADD, WrOpcode.SEND_WITH_INV);
        for (WrOpcode op : notOnUd) {
            a.add(Arguments.of(QpType.UD, op));
        }
        for (WrOpcode op : notOnUc) {
            a.add(Arguments.of(QpType.UC, op));
        }
        return a.stream();
    }

    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("opcodesTheQpTypeLacks")
    void anOpcodeTheQpTypeLacksIsRejected(QpType type, WrOpcode op) {
        assume(type == QpType.UD ? features().ud() : features().uc(), type + " QPs");
        QpOptions o = type == QpType.UD ? QpOptions.ud() : QpOptions.uc();
        EndpointPair p = connect(o);
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        SendWr wr = new SendWr().wrId(1).opcode(op).flags(SendFlags.SIGNALED).sg(a.mr(), 0, 8).rdma(a.addr(0),
                a.mr().rkey());
        if (type == QpType.UD) {
            wr.ud(p.a().ahToPeer(), p.a().peerQpn(), p.a().peerQkey());
        }
        assertThatThrownBy(() -> p.a().qp().postSend(wr)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(op.name()).hasMessageContaining(type.name());
        assertThat(p.a().qp().sendQueueDepth()).isZero();
    }

    @Test
    void anOpcodeTheTransportLacksIsRejected() {
        assume(!features().atomics() || !features().immediateData(), "a transport without atomics or immediates");
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        WrOpcode op = features().atomics() ? WrOpcode.SEND_WITH_IMM : WrOpcode.ATOMIC_FETCH_AND_ADD;
        SendWr wr = new SendWr().wrId(1).opcode(op).flags(SendFlags.SIGNALED).sg(a.mr(), 0, 8).atomic(a.addr(0),
                a.mr().rkey(), 1, 0);
        assertThatThrownBy(() -> p.a().qp().postSend(wr)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(op.name());
    }

    @Test
    void tooManySgesAreRejectedAfterTheEarlierWorkRequestsOfTheChainWerePosted() {
        EndpointPair p = connect(QpOptions.rc().withCap(new QpCap(16, 16, 2, 2, 0)));
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, ALL, 2);
        // One WR first, so that nothing else is pending when the broken chain is posted: the WRs it
        // posted must be processed although the post threw.
        post(p.a().qp(), write(5, a, 0, 8, b, 3000));
        expect(p.a(), 5, WcStatus.SUCCESS);
        Await.noCompletion(p.a().cq(), Await.QUIET);
        RecvWr bigRecv = new RecvWr().wrId(2).numSge(3);
        for (int i = 0; i < 3; i++) {
            bigRecv.sge(i).set(b.mr(), 100L * i, 10);
        }
        assertThatThrownBy(() -> p.b().qp().postRecv(recv(1, b, 1000, 64).next(bigRecv)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("max_recv_sge");
        assertThat(p.b().qp().recvQueueDepth()).isEqualTo(1);

        SendWr bigSend = new SendWr().wrId(11).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).numSge(3);
        for (int i = 0; i < 3; i++) {
            bigSend.sge(i).set(a.mr(), 100L * i, 10);
        }
        assertThatThrownBy(() -> p.a().qp().postSend(send(10, a, 0, 16).next(bigSend)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("max_send_sge");
        expect(p.a(), 10, WcStatus.SUCCESS);
        expect(p.b(), 1, WcStatus.SUCCESS);
    }

    @Test
    void inlineDataBeyondTheQpsLimitIsRejected() {
        assume(features().maxInline() >= 16, "inline data");
        int limit = Math.min(64, features().maxInline());
        EndpointPair p = connect(QpOptions.rc().withCap(new QpCap(16, 16, 1, 1, limit)));
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        assertThat(p.a().qp().initAttr().cap().maxInlineData()).isGreaterThanOrEqualTo(limit);
        int over = p.a().qp().initAttr().cap().maxInlineData() + 1;
        assertThatThrownBy(() -> p.a().qp().postSend(send(1, a, 0, over).flags(SendFlags.SIGNALED
                | SendFlags.INLINE))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("inline");
    }

    @Test
    void inlineDataIsCopiedWhenItIsPosted() {
        assume(features().maxInline() >= 16, "inline data");
        int len = Math.min(64, features().maxInline());
        EndpointPair p = connect(QpOptions.rc().withCap(new QpCap(16, 16, 1, 1, len)));
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, LOCAL, 2);
        holdSends(p.a());
        post(p.a().qp(), send(1, a, 0, len).flags(SendFlags.SIGNALED | SendFlags.INLINE));
        // The SEND waits (for a receive, or in SQD); meanwhile the source changes and loses its registration.
        a.fill(99);
        a.mr().close();
        Await.noCompletion(p.a().cq(), Await.QUIET);
        post(p.b(), recv(9, b, 0, SIZE));
        releaseSends(p.a());
        expect(p.a(), 1, WcStatus.SUCCESS);
        assertThat(expect(p.b(), 9, WcStatus.SUCCESS).byteLen()).isEqualTo(len);
        assertThat(DataPattern.matches(b.body(), 0, len, 1)).as("the bytes as they were at post time").isTrue();
    }

    @Test
    void anAtomicNeedsExactlyOneEightByteSge() {
        assume(features().atomics(), "atomics");
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, ALL, 1);
        SendWr four = new SendWr().wrId(1).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).flags(SendFlags.SIGNALED)
                .sg(a.mr(), 0, 4).atomic(a.addr(0), a.mr().rkey(), 1, 0);
        assertThatThrownBy(() -> p.a().qp().postSend(four)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("8-byte");
        SendWr two = new SendWr().wrId(2).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).flags(SendFlags.SIGNALED).numSge(2)
                .atomic(a.addr(0), a.mr().rkey(), 1, 2);
        two.sge(0).set(a.mr(), 0, 8);
        two.sge(1).set(a.mr(), 8, 8);
        assertThatThrownBy(() -> p.a().qp().postSend(two)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aUdSendNeedsAnOpenAddressHandleOfItsOwnPd() {
        assume(features().ud(), "UD QPs");
        EndpointPair p = connect(QpOptions.ud());
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        assertThatThrownBy(() -> p.a().qp().postSend(send(1, a, 0, 8))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("address handle");
        ProtectionDomain other = p.a().context().allocPd();
        AddressHandle foreign = other.createAh(AhAttr.to(p.a().context().queryGid(1, 0)));
        assertThatThrownBy(() -> p.a().qp().postSend(send(2, a, 0, 8).ud(foreign, p.a().peerQpn(), 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PD");
        foreign.close();
        other.close();
        AddressHandle closed = p.a().pd().createAh(AhAttr.to(p.a().context().queryGid(1, 0)));
        closed.close();
        assertThatThrownBy(() -> p.a().qp().postSend(send(3, a, 0, 8).ud(closed, p.a().peerQpn(), 1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(p.a().qp().sendQueueDepth()).isZero();
    }

    @Test
    void postingNothingIsRejected() {
        EndpointPair p = rc();
        assertThatThrownBy(() -> p.a().qp().postSend(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> p.a().qp().postRecv(null)).isInstanceOf(IllegalArgumentException.class);
    }
}
