package io.jrdma.siw.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.siw.SiwConfig;
import io.jrdma.siw.wire.FpduHeader;
import io.jrdma.siw.wire.MpaRequest;
import io.jrdma.siw.wire.RdmapOpcode;
import io.jrdma.siw.wire.ReadRequestHeader;
import io.jrdma.siw.wire.TermError;
import io.jrdma.siw.wire.TermLayout;
import io.jrdma.siw.wire.Terminate;
import io.jrdma.siw.wire.TerminateHeader;
import io.jrdma.testkit.Await;
import io.jrdma.testkit.Completion;
import io.jrdma.testkit.Hygiene;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import io.jrdma.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * TERMINATE (RFC 5040 §4.8, §7): what jrdma sends for each responder error — layer, type, code and the
 * copied headers as Linux siw builds them ({@code siw_send_terminate}) — and how it takes one from the
 * peer; plus the QP going to ERROR with flushes, and graceful and abrupt disconnects.
 */
class TerminateIT {
    /** No exception escapes, nothing is logged at WARNING, nothing leaks (issue 6). */
    @RegisterExtension
    final Hygiene hygiene = new Hygiene();
    private final Testbed tb = new Testbed();

    @AfterEach
    void close() {
        tb.close();
    }

    private Links.Accepted connected() {
        Links.Accepted a = Links.accept(tb, SiwConfig.defaults(), MpaRequest.v2(false, 2, 2, new byte[0]),
                Testbed.param(2, 2));
        a.up().next("established");
        return a;
    }

    /** Sends {@code fpdu}, reads the TERMINATE it draws, and checks the QP failed and the connection closed. */
    private Terminate drawTerminate(Links.Accepted a, byte[] fpdu, AsyncEventType event) {
        a.peer().write(fpdu);
        Terminate t = a.peer().readTerminate();
        assertThat(a.peer().expectClose(0)).as("siw closes after its TERMINATE").isIn("FIN", "RST");
        Await.state(a.qp(), QpState.ERR);
        assertThat(tb.event(event).qp().qpNum()).isEqualTo(a.qp().qpNum());
        assertThat(tb.siw.counters().terminatesSent()).isPositive();
        return t;
    }

    /** The DDP header of {@code fpdu} as a TERMINATE copies it: without the ULPDU_Length. */
    private static byte[] ddpHeader(byte[] fpdu, boolean tagged) {
        return Arrays.copyOfRange(fpdu, FpduHeader.MPA_LENGTH_FIELD_LENGTH,
                tagged ? FpduHeader.TAGGED_LENGTH : FpduHeader.UNTAGGED_LENGTH);
    }

    private static void assertCopiesDdpHeader(Terminate t, byte[] fpdu, boolean tagged, int payload) {
        assertThat(t.m()).isTrue();
        assertThat(t.d()).isTrue();
        assertThat(t.ddpSegmentLength()).as("the offender's payload length, as siw fills it in").isEqualTo(payload);
        assertThat(t.ddpHeader()).isEqualTo(ddpHeader(fpdu, tagged));
    }

    // ---------------------------------------------------------------------------------- tagged: WRITE

    @Test
    void aWriteToAnUnknownStagIsDdpTaggedInvalidStag() {
        Links.Accepted a = connected();
        byte[] w = a.peer().write(0x00DEAD01, 0x1000, new byte[24], true);
        Terminate t = drawTerminate(a, w, AsyncEventType.QP_ACCESS_ERR);
        assertThat(t.error()).contains(TermError.DDP_TAGGED_INVALID_STAG);
        assertCopiesDdpHeader(t, w, true, 24);
        assertThat(t.r()).isFalse();
    }

    @Test
    void aWritePastTheRegionIsDdpTaggedBaseOrBounds() {
        Links.Accepted a = connected();
        Testbed.Buffer b = tb.buffer(4096, Testbed.ALL);
        byte[] w = a.peer().write(b.mr().rkey(), b.addr(4090), new byte[8], true);
        Terminate t = drawTerminate(a, w, AsyncEventType.QP_ACCESS_ERR);
        assertThat(t.error()).contains(TermError.DDP_TAGGED_BASE_BOUNDS);
        assertCopiesDdpHeader(t, w, true, 8);
    }

    @Test
    void aWriteToARegionOrQpWithoutRemoteWriteIsReportedAsAnInvalidStag() {
        // RFC 5041 has no access-rights code: siw_tagged_error reports "invalid STag".
        Links.Accepted a = connected();
        Testbed.Buffer ro = tb.buffer(4096, Access.LOCAL_WRITE | Access.REMOTE_READ);
        byte[] w = a.peer().write(ro.mr().rkey(), ro.addr(0), new byte[4], true);
        assertThat(drawTerminate(a, w, AsyncEventType.QP_ACCESS_ERR).error())
                .contains(TermError.DDP_TAGGED_INVALID_STAG);
        try (Testbed other = new Testbed()) {
            Links.Accepted q = Links.accept(other, SiwConfig.defaults(), MpaRequest.v2(false, 1, 1, new byte[0]),
                    Testbed.param(1, 1));
            q.up().next("established");
            q.qp().modify(new QpAttr().qpAccessFlags(Access.REMOTE_READ));
            Testbed.Buffer b = other.buffer(4096, Testbed.ALL);
            q.peer().write(q.peer().write(b.mr().rkey(), b.addr(0), new byte[4], true));
            assertThat(q.peer().readTerminate().error()).as("jrdma checks the QP's access flags (siw does not)")
                    .contains(TermError.DDP_TAGGED_INVALID_STAG);
            assertThat(b.segment().get(java.lang.foreign.ValueLayout.JAVA_INT, 0)).isZero();
        }
    }

    // ---------------------------------------------------------------------------------- READ request

    private Terminate readDraws(Links.Accepted a, byte[] rr, TermError want) {
        Terminate t = drawTerminate(a, rr, AsyncEventType.QP_REQ_ERR);
        assertThat(t.error()).contains(want);
        // RDMAP remote protection: M, D, R, the DDP header and the Read Request's RDMA header.
        assertCopiesDdpHeader(t, rr, false, 0);
        assertThat(t.r()).isTrue();
        assertThat(t.rdmaHeader()).isEqualTo(Arrays.copyOfRange(rr, FpduHeader.UNTAGGED_LENGTH,
                ReadRequestHeader.LENGTH));
        return t;
    }

    @Test
    void aReadOfAnUnknownStagIsRdmapInvalidStagWithTheRequestsHeaders() {
        Links.Accepted a = connected();
        readDraws(a, a.peer().readRequest(0x0C03, 0x7f0000030000L, 32, 0xDEADBE02, 0x2000),
                TermError.RDMAP_INVALID_STAG);
    }

    @Test
    void aReadPastTheRegionIsRdmapBaseOrBounds() {
        Links.Accepted a = connected();
        Testbed.Buffer b = tb.buffer(4096, Testbed.ALL);
        readDraws(a, a.peer().readRequest(1, 0, 100, b.mr().rkey(), b.addr(4000)), TermError.RDMAP_BASE_BOUNDS);
    }

    @Test
    void aReadOfARegionWithoutRemoteReadIsRdmapAccessRights() {
        Links.Accepted a = connected();
        Testbed.Buffer b = tb.buffer(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        readDraws(a, a.peer().readRequest(1, 0, 16, b.mr().rkey(), b.addr(0)), TermError.RDMAP_ACCESS_RIGHTS);
    }

    @Test
    void aReadFromAQpWithoutRemoteReadIsRdmapAccessRights() {
        Links.Accepted a = connected();
        a.qp().modify(new QpAttr().qpAccessFlags(Access.REMOTE_WRITE));
        Testbed.Buffer b = tb.buffer(4096, Testbed.ALL);
        readDraws(a, a.peer().readRequest(1, 0, 16, b.mr().rkey(), b.addr(0)), TermError.RDMAP_ACCESS_RIGHTS);
    }

    @Test
    void aReadOfAnotherPdsRegionIsRdmapStagNotAssociated() {
        Links.Accepted a = connected();
        ProtectionDomain pd2 = tb.ctx.allocPd();
        try (Arena arena = Arena.ofShared()) {
            var mr = pd2.registerMemory(arena.allocate(4096), Testbed.ALL);
            readDraws(a, a.peer().readRequest(1, 0, 16, mr.rkey(), mr.address()), TermError.RDMAP_STAG_NOT_ASSOCIATED);
            mr.close();
        }
        pd2.close();
    }

    @Test
    void moreOutstandingReadsThanTheIrdAreRdmapCatastrophicStream() {
        Links.Accepted a = connected();
        Testbed.Buffer b = tb.buffer(1 << 20, Testbed.ALL);
        RawPeer p = a.peer();
        byte[] r1 = p.readRequest(1, 0, 1 << 20, b.mr().rkey(), b.addr(0));
        byte[] r2 = p.readRequest(1, 0, 1 << 20, b.mr().rkey(), b.addr(0));
        byte[] r3 = p.readRequest(1, 0, 1 << 20, b.mr().rkey(), b.addr(0));
        byte[] all = new byte[r1.length * 3];
        System.arraycopy(r1, 0, all, 0, r1.length);
        System.arraycopy(r2, 0, all, r1.length, r1.length);
        System.arraycopy(r3, 0, all, 2 * r1.length, r1.length);
        p.write(all); // IRD 2: the third is one too many (RFC 5040 §4.4)
        Terminate t;
        RawPeer.Fpdu f;
        do {
            f = p.readFpdu();
        } while (f.opcode() == RdmapOpcode.RDMA_READ_RESPONSE);
        t = Terminate.decode(java.lang.foreign.MemorySegment.ofArray(f.bytes()), 0, f.bytes().length,
                TermLayout.SIW_LITTLE_ENDIAN) instanceof io.jrdma.siw.wire.TerminateResult.Decoded d
                ? d.terminate() : null;
        assertThat(t).isNotNull();
        assertThat(t.error()).contains(TermError.RDMAP_CATASTROPHIC_STREAM);
        assertThat(t.ddpHeader()).as("the third request's DDP header").isEqualTo(ddpHeader(r3, false));
        Await.state(a.qp(), QpState.ERR);
        assertThat(tb.event(AsyncEventType.QP_REQ_ERR).qp().qpNum()).isEqualTo(a.qp().qpNum());
    }

    // ---------------------------------------------------------------------------------- untagged

    @Test
    void aSendWithAnUnexpectedMsnIsDdpUntaggedMsnRange() {
        Links.Accepted a = connected();
        Testbed.recv(a.qp(), 1, tb.buffer(4096, Testbed.ALL), 0, 64);
        byte[] s = a.peer().fpdu(RdmapOpcode.SEND, true, new byte[16], (h, rr) -> h.queueNumber(0)
                .messageSequenceNumber(5).messageOffset(0));
        Terminate t = drawTerminate(a, s, AsyncEventType.QP_FATAL);
        assertThat(t.error()).contains(TermError.DDP_UNTAGGED_INVALID_MSN_RANGE);
        assertCopiesDdpHeader(t, s, false, 16);
    }

    @Test
    void aSendOnAnUnknownQueueIsDdpUntaggedInvalidQn() {
        Links.Accepted a = connected();
        Testbed.recv(a.qp(), 1, tb.buffer(4096, Testbed.ALL), 0, 64);
        byte[] s = a.peer().fpdu(RdmapOpcode.SEND, true, new byte[16], (h, rr) -> h.queueNumber(3)
                .messageSequenceNumber(1).messageOffset(0));
        assertThat(drawTerminate(a, s, AsyncEventType.QP_FATAL).error()).contains(TermError.DDP_UNTAGGED_INVALID_QN);
        assertThat(tb.completion().status()).as("the receive was not used").isEqualTo(WcStatus.WR_FLUSH_ERR);
    }

    @Test
    void aReadRequestWithAnUnexpectedMsnIsDdpUntaggedMsnRange() {
        Links.Accepted a = connected();
        byte[] rr = a.peer().fpdu(RdmapOpcode.RDMA_READ_REQUEST, true, new byte[0], (h, r) -> {
            h.queueNumber(1).messageSequenceNumber(3).messageOffset(0);
            r.sinkStag(1).readSize(0);
        });
        assertThat(drawTerminate(a, rr, AsyncEventType.QP_FATAL).error())
                .contains(TermError.DDP_UNTAGGED_INVALID_MSN_RANGE);
    }

    @Test
    void aSegmentAtTheWrongMessageOffsetIsDdpUntaggedInvalidMo() {
        Links.Accepted a = connected();
        Testbed.recv(a.qp(), 1, tb.buffer(4096, Testbed.ALL), 0, 64);
        RawPeer p = a.peer();
        p.write(p.fpdu(RdmapOpcode.SEND, false, new byte[8], (h, rr) -> h.queueNumber(0).messageSequenceNumber(1)
                .messageOffset(0)));
        byte[] bad = p.fpdu(RdmapOpcode.SEND, true, new byte[8], (h, rr) -> h.queueNumber(0)
                .messageSequenceNumber(1).messageOffset(12));
        assertThat(drawTerminate(a, bad, AsyncEventType.QP_FATAL).error()).contains(TermError.DDP_UNTAGGED_INVALID_MO);
    }

    @Test
    void aSendWithoutAPostedReceiveIsDdpUntaggedNoBuffer() {
        Links.Accepted a = connected();
        byte[] s = a.peer().send(new byte[10]);
        Terminate t = drawTerminate(a, s, AsyncEventType.QP_FATAL);
        assertThat(t.error()).contains(TermError.DDP_UNTAGGED_INVALID_MSN_NO_BUFFER);
        assertCopiesDdpHeader(t, s, false, 10);
    }

    @Test
    void aSendLongerThanItsReceiveIsLocLenErrAndDdpNoBufferAsSiwSends() {
        Links.Accepted a = connected();
        Testbed.recv(a.qp(), 1, tb.buffer(4096, Testbed.ALL), 0, 10);
        Testbed.recv(a.qp(), 2, tb.buffer(4096, Testbed.ALL), 0, 10);
        Terminate t = drawTerminate(a, a.peer().send(new byte[11]), AsyncEventType.QP_FATAL);
        assertThat(t.error()).as("siw_send_check_ntoh: not RFC 5041's 'message too long'")
                .contains(TermError.DDP_UNTAGGED_INVALID_MSN_NO_BUFFER);
        assertThat(Await.completions(tb.cq, 2)).extracting(Completion::status)
                .containsExactly(WcStatus.LOC_LEN_ERR, WcStatus.WR_FLUSH_ERR);
    }

    @Test
    void aSendIntoAReceiveWithoutLocalWriteIsDdpCatastrophicAndLocProtErr() {
        Links.Accepted a = connected();
        Testbed.recv(a.qp(), 1, tb.buffer(4096, Access.REMOTE_READ), 0, 64);
        byte[] s = a.peer().send(new byte[6]);
        Terminate t = drawTerminate(a, s, AsyncEventType.QP_ACCESS_ERR);
        assertThat(t.error()).contains(TermError.DDP_LOCAL_CATASTROPHIC);
        assertCopiesDdpHeader(t, s, false, 6);
        assertThat(tb.completion().status()).isEqualTo(WcStatus.LOC_PROT_ERR);
    }

    @Test
    void aSendWithInvalidateOfAnUnknownStagIsRdmapCannotInvalidate() {
        Links.Accepted a = connected();
        Testbed.recv(a.qp(), 1, tb.buffer(4096, Testbed.ALL), 0, 64);
        byte[] s = a.peer().sendSegment(RdmapOpcode.SEND_INVALIDATE, 0, new byte[4], true, 0x00BAD0FF);
        Terminate t = drawTerminate(a, s, AsyncEventType.QP_FATAL);
        assertThat(t.error()).contains(TermError.RDMAP_OPERATION_CANNOT_INVALIDATE);
        assertCopiesDdpHeader(t, s, false, 4);
        assertThat(tb.completion().status()).isEqualTo(WcStatus.REM_INV_REQ_ERR);
    }

    // ---------------------------------------------------------------------------------- header errors

    @Test
    void anUndefinedOpcodeIsRdmapUnexpectedOpcodeWithNothingCopied() {
        Links.Accepted a = connected();
        byte[] op8 = a.peer().send(new byte[4]);
        op8[3] = (byte) ((op8[3] & 0xF0) | 8);
        Terminate t = drawTerminate(a, op8, AsyncEventType.QP_FATAL);
        assertThat(t.error()).contains(TermError.RDMAP_UNEXPECTED_OPCODE);
        assertThat(t.d()).isFalse();
    }

    @Test
    void wrongDdpAndRdmapVersionsAreReportedAtTheirLayers() {
        Links.Accepted a = connected();
        byte[] ddp2 = a.peer().write(1, 0, new byte[4], true);
        ddp2[2] = (byte) ((ddp2[2] & ~0x03) | 0x02);
        assertThat(drawTerminate(a, ddp2, AsyncEventType.QP_FATAL).error())
                .contains(TermError.DDP_TAGGED_INVALID_VERSION);
        try (Testbed other = new Testbed()) {
            Links.Accepted q = Links.accept(other, SiwConfig.defaults(), MpaRequest.v2(false, 1, 1, new byte[0]),
                    Testbed.param(1, 1));
            q.up().next("established");
            byte[] rdmap0 = q.peer().send(new byte[4]);
            rdmap0[3] = (byte) (rdmap0[3] & 0x3F);
            q.peer().write(rdmap0);
            assertThat(q.peer().readTerminate().error()).contains(TermError.RDMAP_INVALID_VERSION);
        }
    }

    // ---------------------------------------------------------------------------------- from the peer

    private void peerTerminates(byte[] terminate) {
        Links.Accepted a = connected();
        Testbed.Buffer b = tb.buffer(4096, Testbed.ALL);
        Testbed.recv(a.qp(), 1, b, 0, 64);
        a.peer().write(terminate);
        Await.state(a.qp(), QpState.ERR);
        assertThat(tb.event(AsyncEventType.QP_FATAL).qp().qpNum()).isEqualTo(a.qp().qpNum());
        assertThat(tb.completion().status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(a.peer().expectClose(0)).isIn("FIN", "RST");
        assertThat(a.up().next("close").status()).isEqualTo(Errno.ECONNRESET.status());
        assertThat(tb.siw.counters().terminatesReceived()).isPositive();
    }

    @Test
    void aTerminateInSiwsLayoutEndsTheQp() {
        // golden term-to-siw-siw.02: DDP / untagged / MSN range with M and D, as siw writes the word.
        peerTerminates(io.jrdma.siw.wire.Golden.get("term-to-siw-siw.02.peer.terminate.hex").bytes());
    }

    @Test
    void aTerminateInTheRfcLayoutEndsTheQpToo() {
        peerTerminates(io.jrdma.siw.wire.Golden.get("term-to-siw-rfc.02.peer.terminate.hex").bytes());
    }

    @Test
    void aReadRefusedByAProtectionTerminateCompletesWithRemAccessErr() throws Exception {
        try (Links.Connecting c = Links.connect(tb, SiwConfig.defaults(), Testbed.param(2, 2))) {
            c.answer(new io.jrdma.siw.wire.MpaReply(2, false, false, false,
                    java.util.Optional.of(io.jrdma.siw.wire.MpaV2Ctrl.of(2, 2)), new byte[0]));
            Testbed.Buffer b = tb.buffer(4096, Testbed.ALL);
            Testbed.recv(c.qp(), 10, b, 2000, 64);
            Testbed.post(c.qp(), Testbed.read(1, b, 0, 32, 0xDEADBE02, 0x2000));
            Testbed.post(c.qp(), Testbed.send(2, b, 100, 8));
            RawPeer.Fpdu rr = c.peer().readFpdu();
            assertThat(c.peer().readFpdu().opcode()).isEqualTo(RdmapOpcode.SEND);
            // The peer answers as siw does for a bad source STag (golden term-read-stag.03's shape).
            Terminate t = Terminate.withRdmaHeader(TermError.RDMAP_INVALID_STAG, 0,
                    Arrays.copyOfRange(rr.bytes(), 2, FpduHeader.UNTAGGED_LENGTH),
                    Arrays.copyOfRange(rr.bytes(), FpduHeader.UNTAGGED_LENGTH, ReadRequestHeader.LENGTH));
            c.peer().write(t.toBytes(TermLayout.SIW_LITTLE_ENDIAN));
            List<Completion> got = Await.completions(tb.cq, 3);
            assertThat(got).extracting(Completion::wrId).containsExactly(1L, 2L, 10L);
            assertThat(got).extracting(Completion::status).containsExactly(WcStatus.REM_ACCESS_ERR,
                    WcStatus.WR_FLUSH_ERR, WcStatus.WR_FLUSH_ERR);
            Await.state(c.qp(), QpState.ERR);
        }
    }

    // ---------------------------------------------------------------------------------- local errors

    @Test
    void aLocalErrorSendsTerminateRdmapCatastrophicAndCloses() {
        Links.Accepted a = connected();
        Testbed.Buffer b = tb.buffer(4096, Testbed.ALL);
        SendWr bad = Testbed.send(1, b, 0, 8);
        bad.sge(0).lkey(b.mr().lkey() ^ 0x7F);
        Testbed.post(a.qp(), bad);
        assertThat(tb.completion().status()).isEqualTo(WcStatus.LOC_PROT_ERR);
        Terminate t = a.peer().readTerminate();
        assertThat(t.layer()).isEqualTo(io.jrdma.siw.wire.TermLayer.RDMAP);
        assertThat(t.etype()).as("local catastrophic").isZero();
        assertThat(t.ecode()).as("siw: RDMAP_ECODE_UNSPECIFIED").isEqualTo(0xFF);
        assertThat(t.d()).isFalse();
        assertThat(a.peer().expectClose(0)).isEqualTo("FIN");
        assertThat(tb.event(AsyncEventType.QP_FATAL).qp().qpNum()).isEqualTo(a.qp().qpNum());
    }

    /**
     * The TERMINATE of an error that completes a work request in error is on the wire before that completion
     * is visible. An application that tears the connection down as soon as it polls the error (rdma_disconnect
     * moves the QP to ERROR first) once got there before the TERMINATE was written, and the peer saw only the
     * close. The test is that application, at the worst moment: when the QP reports the error (its DEBUG line,
     * before the TERMINATE goes out), a log handler on the thread that found the error looks into the CQ,
     * and if the error completion is already there, moves the QP to ERROR.
     */
    @ParameterizedTest
    @ValueSource(strings = {"local protection error on a SEND", "a SEND longer than its receive"})
    void theTerminateIsOnTheWireBeforeTheErrorCompletionIsVisible(String error) {
        Links.Accepted a = connected();
        Testbed.Buffer b = tb.buffer(4096, Testbed.ALL);
        boolean local = error.startsWith("local");
        if (!local) {
            Testbed.recv(a.qp(), 1, b, 0, 10);
        }
        List<WcStatus> seenAtTheError = new CopyOnWriteArrayList<>();
        Logger siw = Logger.getLogger("io.jrdma.siw");
        Level saved = siw.getLevel();
        String prefix = "[qp 0x" + Integer.toHexString(a.qp().qpNum()) + "] ";
        Handler teardown = new Handler() {
            @Override
            public void publish(LogRecord r) {
                String m = r.getMessage();
                if (m == null || !m.startsWith(prefix) || !m.contains("TERMINATE")) {
                    return;
                }
                WorkCompletion[] wc = {new WorkCompletion(), new WorkCompletion()};
                int n = tb.cq.poll(wc);
                for (int i = 0; i < n; i++) {
                    seenAtTheError.add(wc[i].status());
                }
                if (n > 0) {
                    a.qp().modify(new QpAttr().qpState(QpState.ERR)); // the application's teardown
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        teardown.setLevel(Level.ALL);
        siw.setLevel(Level.FINE);
        siw.addHandler(teardown);
        try {
            if (local) {
                SendWr bad = Testbed.send(1, b, 0, 8);
                bad.sge(0).lkey(b.mr().lkey() ^ 0x7F);
                Testbed.post(a.qp(), bad);
            } else {
                a.peer().write(a.peer().send(new byte[11]));
            }
            Terminate t = a.peer().readTerminate();
            assertThat(t.error()).contains(local ? TermError.RDMAP_CATASTROPHIC_UNSPECIFIED
                    : TermError.DDP_UNTAGGED_INVALID_MSN_NO_BUFFER);
        } finally {
            siw.removeHandler(teardown);
            siw.setLevel(saved);
        }
        assertThat(seenAtTheError).as("completions visible before the TERMINATE was written").isEmpty();
        assertThat(tb.completion().status()).isEqualTo(local ? WcStatus.LOC_PROT_ERR : WcStatus.LOC_LEN_ERR);
        a.qp().modify(new QpAttr().qpState(QpState.ERR));
        assertThat(a.peer().expectClose(0)).isIn("FIN", "RST");
    }

    @Test
    void aFailedLocalInvalidateIsLocQpOpErrAndClosesWithoutTerminate() {
        Links.Accepted a = connected();
        Testbed.Buffer b = tb.buffer(4096, Testbed.ALL);
        Testbed.post(a.qp(), new SendWr().wrId(1).opcode(WrOpcode.LOCAL_INV).flags(SendFlags.SIGNALED)
                .invalidateRkey(b.mr().rkey() ^ 0x01));
        assertThat(tb.completion().status()).isEqualTo(WcStatus.LOC_QP_OP_ERR);
        assertThat(b.mr().isValid()).as("a wrong key invalidates nothing").isTrue();
        assertThat(a.peer().expectClose(0)).as("siw_qp_sq_process: no TERMINATE for a local operation")
                .isEqualTo("FIN");
    }

    // ---------------------------------------------------------------------------------- teardown

    @Test
    void movingTheQpToErrorFlushesClosesAndPlacesNothingMore() {
        Links.Accepted a = connected();
        Testbed.Buffer b = tb.buffer(4096, Testbed.ALL);
        Testbed.recv(a.qp(), 1, b, 0, 64);
        Testbed.recv(a.qp(), 2, b, 64, 64);
        a.qp().modify(new QpAttr().qpState(QpState.ERR));
        assertThat(Await.completions(tb.cq, 2)).extracting(Completion::status).containsOnly(WcStatus.WR_FLUSH_ERR);
        a.peer().write(a.peer().write(b.mr().rkey(), b.addr(200), new byte[] {1, 2, 3, 4}, true));
        assertThat(a.peer().expectClose(0)).isEqualTo("FIN");
        assertThat(b.segment().get(java.lang.foreign.ValueLayout.JAVA_INT, 200)).as("nothing placed in ERR").isZero();
    }

    @Test
    void aGracefulDisconnectDeliversWhatWasSentThenFin() {
        Links.Accepted a = connected();
        int len = 100_000;
        Testbed.Buffer b = tb.buffer(len, Testbed.ALL);
        Testbed.recv(a.qp(), 9, b, 0, 64);
        Testbed.post(a.qp(), Testbed.write(1, b, 0, len, 0x42, 0));
        assertThat(tb.completion().status()).as("handed to TCP").isEqualTo(WcStatus.SUCCESS);
        a.conn().disconnect(false);
        List<RawPeer.Fpdu> w = a.peer().readMessage();
        assertThat(w.stream().mapToInt(f -> f.payload().length).sum()).isEqualTo(len);
        assertThat(a.peer().expectClose(0)).as("FIN after the data, not a reset").isEqualTo("FIN");
        long beforePeerFin = System.nanoTime();
        a.peer().shutdownOutput();
        assertThat(a.up().nextAfter("close", beforePeerFin).status()).as("closed when the peer's FIN came")
                .isZero();
        Await.state(a.qp(), QpState.ERR);
        assertThat(tb.completion().status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
    }

    @Test
    void aPeerThatClosesGracefullyDisconnectsAndClosesTheQp() {
        Links.Accepted a = connected();
        Testbed.recv(a.qp(), 1, tb.buffer(4096, Testbed.ALL), 0, 64);
        a.peer().shutdownOutput();
        a.up().next("disconnect");
        assertThat(a.up().next("close").status()).isZero();
        Await.state(a.qp(), QpState.ERR);
        assertThat(tb.completion().status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(a.peer().expectClose(0)).isEqualTo("FIN");
    }

    @Test
    void anAbruptDisconnectResetsTheConnection() {
        Links.Accepted a = connected();
        a.conn().disconnect(true);
        assertThat(a.peer().expectClose(0)).isEqualTo("RST");
    }

    @Test
    void aPeerResetIsAFatalErrorWithEconnreset() {
        Links.Accepted a = connected();
        Testbed.recv(a.qp(), 1, tb.buffer(4096, Testbed.ALL), 0, 64);
        a.peer().reset();
        assertThat(a.up().next("close").status()).isEqualTo(Errno.ECONNRESET.status());
        Await.state(a.qp(), QpState.ERR);
        assertThat(tb.completion().status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
    }

    @Test
    void theTerminateControlWordIsSiwsLayout() {
        Links.Accepted a = connected();
        a.peer().write(a.peer().write(0x00DEAD01, 0, new byte[4], true));
        RawPeer.Fpdu f = a.peer().readFpdu();
        byte[] word = Arrays.copyOfRange(f.bytes(), TerminateHeader.CONTROL_OFFSET, TerminateHeader.CONTROL_OFFSET + 4);
        assertThat(word).as("etype << 4 | layer, code, R D M in the low bits").containsExactly(0x11, 0x00, 0x03, 0x00);
    }
}
