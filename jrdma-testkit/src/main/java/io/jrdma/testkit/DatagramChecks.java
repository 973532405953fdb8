package io.jrdma.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * Unreliable datagram and unreliable connected service: the 40-byte GRH area before a UD payload,
 * the source QP, Q_Key checks, and the silent drops where a reliable service would retry.
 */
abstract class DatagramChecks extends SuiteChecks {
    /** The bytes a UD receive reserves for the GRH (IBTA 11.4.1.1). */
    static final int GRH = 40;

    DatagramChecks(SuiteSupport support) {
        super(support);
    }

    EndpointPair ud() {
        assume(features().ud(), "UD QPs");
        return connect(QpOptions.ud().withCap(new QpCap(16, 16, 2, 2, 0)));
    }

    static SendWr udSend(long id, Endpoint from, CanaryBuffer src, int len) {
        return send(id, src, 0, len).ud(from.ahToPeer(), from.peerQpn(), from.peerQkey());
    }

    @Test
    void aUdReceiveGetsTheGrhAreaThenThePayloadAndTheSourceQp() {
        EndpointPair p = ud();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, LOCAL, 2);
        byte[] before = b.snapshot();
        post(p.b(), recv(9, b, 0, GRH + 256));
        post(p.a().qp(), udSend(1, p.a(), a, 100));
        expect(p.a(), 1, WcStatus.SUCCESS);
        Completion r = expect(p.b(), 9, WcStatus.SUCCESS);
        assertThat(r.opcode()).isEqualTo(WcOpcode.RECV);
        assertThat(r.byteLen()).isEqualTo(GRH + 100);
        assertThat(r.hasGrh()).isTrue();
        assertThat(r.srcQp()).isEqualTo(p.a().qp().qpNum());
        assertThat(DataPattern.matches(b.body(), GRH, 100, 1)).as("payload after the GRH area").isTrue();
        b.assertOnlyChanged(before, 0, GRH + 100);
    }

    @Test
    void aUdSendWithImmediateDeliversIt() {
        assume(features().immediateData(), "immediate data");
        EndpointPair p = ud();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, LOCAL, 2);
        post(p.b(), recv(9, b, 0, GRH + 64));
        post(p.a().qp(), udSend(1, p.a(), a, 8).opcode(WrOpcode.SEND_WITH_IMM).immData(0x1234));
        expect(p.a(), 1, WcStatus.SUCCESS);
        Completion r = expect(p.b(), 9, WcStatus.SUCCESS);
        assertThat(r.hasImm()).isTrue();
        assertThat(r.immOrInvalidate()).isEqualTo(0x1234);
    }

    @Test
    void aQkeyMismatchDropsTheDatagramAndTheReceiveStaysPosted() {
        EndpointPair p = ud();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, LOCAL, 2);
        byte[] before = b.snapshot();
        post(p.b(), recv(9, b, 0, GRH + 64));
        post(p.a().qp(), send(1, a, 0, 8).ud(p.a().ahToPeer(), p.a().peerQpn(), p.a().peerQkey() + 1));
        expect(p.a(), 1, WcStatus.SUCCESS);
        Await.noCompletion(p.b().cq(), Await.QUIET);
        b.assertUnchanged(before);
        assertThat(p.b().qp().recvQueueDepth()).isEqualTo(1);
        post(p.a().qp(), udSend(2, p.a(), a, 8));
        expect(p.a(), 2, WcStatus.SUCCESS);
        assertThat(expect(p.b(), 9, WcStatus.SUCCESS).byteLen()).isEqualTo(GRH + 8);
    }

    @Test
    void aDatagramTooLongForTheReceiveIsDroppedAndTheReceiveServesTheNextOne() {
        EndpointPair p = ud();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, LOCAL, 2);
        byte[] before = b.snapshot();
        post(p.b(), recv(9, b, 0, GRH + 50));
        post(p.a().qp(), udSend(1, p.a(), a, 100));
        expect(p.a(), 1, WcStatus.SUCCESS);
        if (!features().receiveLengthErrors()) {
            // Linux 6.1 rxe: a malformed WQE (Features#receiveLengthErrors), written up to the GRH area.
            expect(p.b(), 9, WcStatus.LOC_QP_OP_ERR);
            Await.state(p.b().qp(), QpState.ERR);
            b.assertOnlyChanged(before, 0, GRH);
            return;
        }
        Await.noCompletion(p.b().cq(), Await.QUIET);
        b.assertUnchanged(before);
        post(p.a().qp(), udSend(2, p.a(), a, 30));
        expect(p.a(), 2, WcStatus.SUCCESS);
        Completion r = expect(p.b(), 9, WcStatus.SUCCESS);
        assertThat(r.byteLen()).isEqualTo(GRH + 30);
        assertThat(DataPattern.matches(b.body(), GRH, 30, 1)).isTrue();
        assertThat(p.b().qp().state()).isEqualTo(QpState.RTS);
    }

    @Test
    void aDatagramTooLongForAnSrqReceiveCompletesItWithRemInvReqErr() {
        assume(features().ud() && features().srq(), "UD QPs with an SRQ");
        EndpointPair p = connect(QpOptions.ud().withCap(new QpCap(16, 16, 2, 2, 0)).withSrq(8));
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, LOCAL, 2);
        byte[] before = b.snapshot();
        post(p.b(), chain(recv(9, b, 0, GRH + 50), recv(10, b, 512, GRH + 200)));
        // rxe_resp.c: a length error on UD with an SRQ is class E, the receive completes in error.
        post(p.a().qp(), udSend(1, p.a(), a, 100));
        expect(p.a(), 1, WcStatus.SUCCESS);
        if (!features().receiveLengthErrors()) {
            // Linux 6.1 rxe: a malformed WQE (Features#receiveLengthErrors); the QP fails, the SRQ keeps the rest.
            expect(p.b(), 9, WcStatus.LOC_QP_OP_ERR);
            Await.state(p.b().qp(), QpState.ERR);
            b.assertOnlyChanged(before, 0, GRH);
            Await.noCompletion(p.b().cq(), Await.QUIET);
            assertThat(p.b().srq().posted()).as("receive 10 stays in the SRQ").isEqualTo(1);
            return;
        }
        expect(p.b(), 9, WcStatus.REM_INV_REQ_ERR);
        b.assertUnchanged(before);
        post(p.a().qp(), udSend(2, p.a(), a, 100));
        assertThat(expect(p.b(), 10, WcStatus.SUCCESS).byteLen()).isEqualTo(GRH + 100);
        assertThat(p.b().qp().state()).isEqualTo(QpState.RTS);
    }

    @Test
    void aDatagramLargerThanThePortMtuIsNotSentAndCompletesWithoutError() {
        EndpointPair p = ud();
        int mtu = p.a().context().queryPort(1).activeMtu().bytes();
        CanaryBuffer a = buffer(p.a(), mtu + 64, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), GRH + mtu + 64, LOCAL, 2);
        post(p.b(), recv(9, b, 0, GRH + mtu + 64));
        // IBTA C10-93.1.1 (and rxe_req.c): no packet is emitted and no error is generated.
        post(p.a().qp(), udSend(1, p.a(), a, mtu + 1));
        expect(p.a(), 1, WcStatus.SUCCESS);
        Await.noCompletion(p.b().cq(), Await.QUIET);
        assertThat(p.a().qp().state()).isEqualTo(QpState.RTS);
        post(p.a().qp(), udSend(2, p.a(), a, mtu));
        expect(p.a(), 2, WcStatus.SUCCESS);
        assertThat(expect(p.b(), 9, WcStatus.SUCCESS).byteLen()).isEqualTo(GRH + mtu);
    }

    @Test
    void aUdSendWithoutAReceiveAtThePeerIsDroppedSilently() {
        EndpointPair p = ud();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, LOCAL, 2);
        post(p.a().qp(), udSend(1, p.a(), a, 8));
        expect(p.a(), 1, WcStatus.SUCCESS);
        // A UD send completes once it is on the wire, not once the peer has seen it: give the
        // datagram time to reach the receive-queue-less peer (and be dropped) before a receive
        // is posted, else a wire transport could still match it to that receive.
        Await.noCompletion(p.b().cq(), Await.QUIET);
        post(p.b(), recv(9, b, 0, GRH + 64));
        Await.noCompletion(p.b().cq(), Await.QUIET);
        post(p.a().qp(), udSend(2, p.a(), a, 24));
        expect(p.a(), 2, WcStatus.SUCCESS);
        // The receive holds the second datagram (24 bytes), never the dropped first one (8 bytes).
        assertThat(expect(p.b(), 9, WcStatus.SUCCESS).byteLen()).isEqualTo(GRH + 24);
    }

    @Test
    void aUdSendWithABadLocalKeyMovesOnlyTheSendQueueToSqe() {
        assume(features().sendQueueErrorState(), "the SQE state (a failed send moves the QP to ERR)");
        EndpointPair p = ud();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer ra = buffer(p.a(), SIZE, LOCAL, 3);
        CanaryBuffer b = buffer(p.b(), SIZE, LOCAL, 2);
        post(p.a(), recv(21, ra, 0, GRH + 64));
        SendWr bad = udSend(1, p.a(), a, 8);
        bad.sge(0).lkey(a.mr().lkey() ^ 0xFF);
        post(p.a().qp(), bad.next(udSend(2, p.a(), a, 8)));
        expectBadLocalKey(p.a(), 1);
        expect(p.a(), 2, WcStatus.WR_FLUSH_ERR);
        Await.state(p.a().qp(), QpState.SQE);
        // The receive side of an SQE QP keeps working (IBTA 10.3.1.6).
        post(p.b().qp(), udSend(3, p.b(), b, 8));
        expect(p.b(), 3, WcStatus.SUCCESS);
        expect(p.a(), 21, WcStatus.SUCCESS);
    }

    @Test
    void ucSendsAndWritesAreDelivered() {
        assume(features().uc(), "UC QPs");
        EndpointPair p = connect(QpOptions.uc());
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, ALL, 2);
        post(p.b(), recv(9, b, 0, 64));
        post(p.a().qp(), send(1, a, 0, 64));
        expect(p.a(), 1, WcStatus.SUCCESS);
        assertThat(expect(p.b(), 9, WcStatus.SUCCESS).byteLen()).isEqualTo(64);
        post(p.a().qp(), write(2, a, 100, 100, b, 1000));
        expect(p.a(), 2, WcStatus.SUCCESS);
        // A UC WRITE completes when sent (nothing is acknowledged) and the responder places it without a
        // completion: the bytes arrive moments later, on the responder's engine (another thread when the
        // two devices run on engines of their own, jrdma.rxe.engines).
        byte[] sent = a.body().asSlice(100, 100).toArray(ValueLayout.JAVA_BYTE);
        Await.until("the UC WRITE's bytes at the responder", Await.DEFAULT,
                () -> java.util.Arrays.equals(b.body().asSlice(1000, 100).toArray(ValueLayout.JAVA_BYTE), sent));
        assertThat(b.body().asSlice(1000, 100).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(sent);
    }

    @Test
    void aUcSendWithoutAReceiveIsDroppedButTheRequesterSucceeds() {
        assume(features().uc(), "UC QPs");
        EndpointPair p = connect(QpOptions.uc());
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        post(p.a().qp(), send(1, a, 0, 64));
        expect(p.a(), 1, WcStatus.SUCCESS);
        Await.noCompletion(p.b().cq(), Await.QUIET);
        assertThat(p.a().qp().state()).isEqualTo(QpState.RTS);
        assertThat(p.b().qp().state()).isEqualTo(QpState.RTS);
    }
}
