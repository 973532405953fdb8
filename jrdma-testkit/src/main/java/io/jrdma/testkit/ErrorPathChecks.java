package io.jrdma.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Local and responder errors other than remote access violations: a message longer than the
 * receive, a bad local key or address, a receive into memory without local write, a READ into
 * memory without local write, and a READ to a responder without responder resources. On iWARP the
 * requester of a refused SEND sees success and then its QP fail (see {@link Features}), and a local
 * error ends the peer QP too ({@link Features#localErrorsCloseConnection()}).
 */
abstract class ErrorPathChecks extends SuiteChecks {
    ErrorPathChecks(SuiteSupport support) {
        super(support);
    }

    @Test
    void aSendLongerThanTheReceiveIsLocLenErrThereAndRemInvReqErrHere() {
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, LOCAL, 2);
        post(p.b(), recv(9, b, 0, 100).next(recv(10, b, 200, 100)));
        post(p.a().qp(), send(1, a, 0, 101).next(send(2, a, 0, 8)));
        if (features().ackedRequests()) {
            // IBTA 9.9.3: an invalid-request NAK and LOC_LEN_ERR; Linux 6.1 rxe answers as for a malformed WQE,
            // with a remote-operation NAK and LOC_QP_OP_ERR (Features#receiveLengthErrors).
            boolean length = features().receiveLengthErrors();
            expect(p.a(), 1, length ? WcStatus.REM_INV_REQ_ERR : WcStatus.REM_OP_ERR);
            Await.state(p.a().qp(), QpState.ERR);
            expect(p.b(), 9, length ? WcStatus.LOC_LEN_ERR : WcStatus.LOC_QP_OP_ERR);
        } else {
            expectRefused(p.a(), 1, WrOpcode.SEND, WcStatus.REM_INV_REQ_ERR);
            expect(p.b(), 9, WcStatus.LOC_LEN_ERR);
        }
        Await.state(p.b().qp(), QpState.ERR);
        assertCompletedOnce(p.a().cq(), p.a().qp().qpNum(), List.of(2L), List.of());
        assertFlushedOnce(p.b().cq(), p.b().qp().qpNum(), List.of(10L));
        if (features().responderAsyncEvents()) {
            // siw_proc_send: a SEND that does not fit is a fatal stream error on iWARP.
            AsyncEventType type = features().ackedRequests() ? AsyncEventType.QP_REQ_ERR : AsyncEventType.QP_FATAL;
            assertThat(Await.event(p.b().context(), type).qp().qpNum()).isEqualTo(p.b().qp().qpNum());
        }
        b.assertGuardsIntact();
    }

    @Test
    void aBadLocalKeyIsLocProtErrAndLeavesThePeerUntouched() {
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, LOCAL, 2);
        byte[] before = b.snapshot();
        post(p.b(), recv(9, b, 0, SIZE));
        SendWr wr = send(1, a, 0, 64);
        wr.sge(0).lkey(a.mr().lkey() ^ 0xFF);
        post(p.a().qp(), wr.next(send(2, a, 0, 64)));
        expectBadLocalKey(p.a(), 1);
        expect(p.a(), 2, WcStatus.WR_FLUSH_ERR);
        Await.state(p.a().qp(), QpState.ERR);
        if (features().localErrorsCloseConnection()) {
            Await.state(p.b().qp(), QpState.ERR);
            assertFlushedOnce(p.b().cq(), p.b().qp().qpNum(), List.of(9L));
        } else {
            assertThat(p.b().qp().state()).isEqualTo(QpState.RTS);
            Await.noCompletion(p.b().cq(), Await.QUIET);
        }
        b.assertUnchanged(before);
    }

    @Test
    void aLocalAddressOutsideTheRegionIsLocProtErr() {
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, ALL, 2);
        byte[] before = b.snapshot();
        SendWr wr = write(1, a, 0, 64, b, 0);
        wr.sge(0).addr(a.addr(SIZE - 32));
        post(p.a().qp(), wr);
        expect(p.a(), 1, WcStatus.LOC_PROT_ERR);
        b.assertUnchanged(before);
    }

    @Test
    void aReceiveIntoMemoryWithoutLocalWriteFailsAtTheResponder() {
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, Access.REMOTE_READ, 2);
        byte[] before = b.snapshot();
        post(p.b(), recv(9, b, 0, 64));
        post(p.a().qp(), send(1, a, 0, 64));
        expectRefused(p.a(), 1, WrOpcode.SEND, WcStatus.REM_OP_ERR);
        // Linux rxe's responder reports the receive it cannot write as a malformed WQE (LOC_QP_OP_ERR,
        // do_class_ac_error); jrdma's rxe, loop and siw as LOC_PROT_ERR.
        expectOneOf(p.b(), 9, WcStatus.LOC_PROT_ERR, WcStatus.LOC_QP_OP_ERR);
        Await.state(p.b().qp(), QpState.ERR);
        if (features().responderAsyncEvents() && !features().ackedRequests()) {
            // siw_proc_send: a receive buffer the SEND may not write is an access error.
            assertThat(Await.event(p.b().context(), AsyncEventType.QP_ACCESS_ERR).qp().qpNum())
                    .isEqualTo(p.b().qp().qpNum());
        }
        b.assertUnchanged(before);
    }

    @Test
    void anRdmaReadIntoMemoryWithoutLocalWriteIsLocProtErr() {
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, Access.REMOTE_READ, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, ALL, 2);
        byte[] before = a.snapshot();
        post(p.a().qp(), read(1, a, 0, 64, b, 0));
        expect(p.a(), 1, WcStatus.LOC_PROT_ERR);
        Await.state(p.a().qp(), QpState.ERR);
        a.assertUnchanged(before);
    }

    @Test
    void anRdmaReadToAResponderWithoutResponderResourcesIsAnInvalidRequest() {
        assume(features().zeroIrdRefusesReads(), "refusing RDMA READs with IRD 0 (siw's relaxed IRD negotiation"
                + " raises the responder's IRD to the initiator's ORD)");
        EndpointPair p = connect(QpOptions.rc().withRd(4, 0));
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, ALL, 2);
        byte[] before = a.snapshot();
        post(p.a().qp(), read(1, a, 0, 64, b, 0));
        expect(p.a(), 1, WcStatus.REM_INV_REQ_ERR);
        Await.state(p.b().qp(), QpState.ERR);
        a.assertUnchanged(before);
    }

    @Test
    void aSendToAResponderGrantingNoRemoteAccessStillWorks() {
        EndpointPair p = connect(QpOptions.rc().withQpAccess(0));
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, LOCAL, 2);
        post(p.b(), recv(9, b, 0, 64));
        post(p.a().qp(), new SendWr().wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(a.mr(), 0, 64));
        expect(p.a(), 1, WcStatus.SUCCESS);
        expect(p.b(), 9, WcStatus.SUCCESS);
    }
}
