package io.jrdma.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.AsyncEvent;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpState;
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
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Remote access violations on RC (IBTA 9.7.5.2.x class C responder errors, rxe's
 * {@code check_op_valid} and {@code check_rkey}): every violation of a WRITE, READ or atomic ends
 * the same way — the requester's WR completes with REM_ACCESS_ERR (REM_INV_REQ_ERR when the QP
 * itself grants no such access), the responder reports QP_ACCESS_ERR / QP_REQ_ERR, both QPs go to
 * ERR, every other outstanding WR on both sides is flushed exactly once, and not a byte of either
 * side's memory changed. On iWARP ({@link Features#ackedRequests()} false) a WRITE completes
 * successfully before the responder sees it, a READ with REM_ACCESS_ERR, the WRs sent behind the bad
 * one may complete before the TERMINATE arrives, and the responder's event is QP_ACCESS_ERR for a
 * WRITE and QP_REQ_ERR for a READ (Linux siw checks a READ when it builds the response).
 */
abstract class RemoteAccessChecks extends SuiteChecks {
    /** The remote operations. */
    enum Op {
        /** RDMA WRITE of 16 bytes. */
        WRITE(Access.REMOTE_WRITE),
        /** RDMA READ of 16 bytes. */
        READ(Access.REMOTE_READ),
        /** Compare and swap. */
        CMP_AND_SWP(Access.REMOTE_ATOMIC),
        /** Fetch and add. */
        FETCH_AND_ADD(Access.REMOTE_ATOMIC);

        final int access;

        Op(int access) {
            this.access = access;
        }

        boolean atomic() {
            return access == Access.REMOTE_ATOMIC;
        }
    }

    /** How the request breaks the rules. */
    enum Violation {
        /** An rkey whose 8-bit key does not match the region at its index. */
        UNKNOWN_RKEY,
        /** The rkey of a region in another PD of the responder. */
        RKEY_OF_ANOTHER_PD,
        /** The region was registered without the access the operation needs. */
        REGION_WITHOUT_ACCESS,
        /** The range runs past the end of the region. */
        PAST_THE_END,
        /** The range starts before the region. */
        BEFORE_THE_START,
        /** The responder QP grants no such remote access (qp_access_flags). */
        QP_WITHOUT_ACCESS
    }

    RemoteAccessChecks(SuiteSupport support) {
        super(support);
    }

    @Test
    void accessFlagsChangedInRtsApplyToTheNextRequest() {
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, ALL, 2);
        post(p.a().qp(), write(1, a, 0, 16, b, 0));
        expect(p.a(), 1, WcStatus.SUCCESS);
        if (!features().ackedRequests()) {
            // On iWARP the WRITE completed when it was handed to TCP: wait until the responder placed it
            // before taking its write right away.
            Await.until("the WRITE placed at the responder", Await.DEFAULT, () -> b.body().asSlice(0, 16)
                    .mismatch(a.body().asSlice(0, 16)) < 0);
        }
        p.b().qp().modify(new QpAttr().qpState(QpState.RTS).qpAccessFlags(Access.REMOTE_READ));
        assertThat(p.b().qp().query().qpAccessFlags()).isEqualTo(Access.REMOTE_READ);
        post(p.a().qp(), read(2, a, 100, 16, b, 0));
        expect(p.a(), 2, WcStatus.SUCCESS);
        byte[] before = b.snapshot();
        post(p.a().qp(), write(3, a, 200, 16, b, 0));
        expectRefused(p.a(), 3, WrOpcode.RDMA_WRITE, WcStatus.REM_INV_REQ_ERR);
        Await.state(p.b().qp(), QpState.ERR);
        b.assertUnchanged(before);
    }

    static Stream<Arguments> violations() {
        List<Arguments> all = new ArrayList<>();
        for (Op op : Op.values()) {
            for (Violation v : Violation.values()) {
                all.add(Arguments.of(op, v));
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} with {1}")
    @MethodSource("violations")
    void aRemoteAccessViolationFailsBothQpsFlushesEverythingOnceAndWritesNothing(Op op, Violation v) {
        if (op.atomic()) {
            assume(features().atomics(), "atomics");
        }
        int qpAccess = Access.REMOTE_READ | Access.REMOTE_WRITE | Access.REMOTE_ATOMIC;
        if (v == Violation.QP_WITHOUT_ACCESS) {
            qpAccess &= ~op.access;
        }
        EndpointPair p = connect(QpOptions.rc().withQpAccess(qpAccess));
        CanaryBuffer src = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer recvA = buffer(p.a(), SIZE, LOCAL, 2);
        CanaryBuffer recvB = buffer(p.b(), SIZE, LOCAL, 3);
        int regionAccess = v == Violation.REGION_WITHOUT_ACCESS ? ALL & ~op.access : ALL;
        CanaryBuffer target = v == Violation.RKEY_OF_ANOTHER_PD
                ? buffer(p.b().context().allocPd(), SIZE, ALL, 4)
                : buffer(p.b(), SIZE, regionAccess, 4);
        byte[] srcBefore = src.snapshot();
        byte[] targetBefore = target.snapshot();

        post(p.a(), recv(201, recvA, 0, 64).next(recv(202, recvA, 64, 64)));
        post(p.b(), recv(301, recvB, 0, 64).next(recv(302, recvB, 64, 64)));
        long addr = switch (v) {
            case PAST_THE_END -> target.addr(SIZE - 8);
            case BEFORE_THE_START -> target.addr(0) - 8;
            default -> target.addr(64);
        };
        int rkey = v == Violation.UNKNOWN_RKEY ? target.mr().rkey() ^ 0x5A : target.mr().rkey();
        SendWr bad = new SendWr().wrId(1).flags(SendFlags.SIGNALED);
        switch (op) {
            case WRITE -> bad.opcode(WrOpcode.RDMA_WRITE).sg(src.mr(), 0, 16).rdma(addr, rkey);
            case READ -> bad.opcode(WrOpcode.RDMA_READ).sg(src.mr(), 0, 16).rdma(addr, rkey);
            case CMP_AND_SWP -> bad.opcode(WrOpcode.ATOMIC_CMP_AND_SWP).sg(src.mr(), 0, 8)
                    .atomic(v == Violation.PAST_THE_END ? target.addr(SIZE) : addr, rkey, 0, 1);
            case FETCH_AND_ADD -> bad.opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).sg(src.mr(), 0, 8)
                    .atomic(v == Violation.PAST_THE_END ? target.addr(SIZE) : addr, rkey, 1, 0);
            default -> throw new IllegalStateException();
        }
        bad.next(send(2, src, 0, 8).next(send(3, src, 0, 8)));
        post(p.a().qp(), bad);

        WcStatus want = v == Violation.QP_WITHOUT_ACCESS ? WcStatus.REM_INV_REQ_ERR : WcStatus.REM_ACCESS_ERR;
        expectRefused(p.a(), 1, bad.opcode(), want);
        Await.state(p.b().qp(), QpState.ERR);
        assertCompletedOnce(p.a().cq(), p.a().qp().qpNum(), List.of(2L, 3L), List.of(201L, 202L));
        assertFlushedOnce(p.b().cq(), p.b().qp().qpNum(), List.of(301L, 302L));
        if (features().responderAsyncEvents()) {
            AsyncEventType type;
            if (features().ackedRequests()) {
                type = v == Violation.QP_WITHOUT_ACCESS ? AsyncEventType.QP_REQ_ERR : AsyncEventType.QP_ACCESS_ERR;
            } else {
                type = op == Op.READ ? AsyncEventType.QP_REQ_ERR : AsyncEventType.QP_ACCESS_ERR;
            }
            AsyncEvent e = Await.event(p.b().context(), type);
            assertThat(e.qp().qpNum()).isEqualTo(p.b().qp().qpNum());
        }
        target.assertUnchanged(targetBefore);
        src.assertUnchanged(srcBefore);
        recvA.assertGuardsIntact();
        recvB.assertGuardsIntact();
    }
}
