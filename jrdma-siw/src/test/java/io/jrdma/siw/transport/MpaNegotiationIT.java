package io.jrdma.siw.transport;

import static io.jrdma.siw.transport.Links.assertStatus;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.cm.IwConnParam;
import io.jrdma.siw.SiwConfig;
import io.jrdma.siw.SiwDevice;
import io.jrdma.siw.cm.SiwCm;
import io.jrdma.siw.wire.MpaFrame;
import io.jrdma.siw.wire.MpaReply;
import io.jrdma.siw.wire.MpaRequest;
import io.jrdma.siw.wire.MpaV2Ctrl;
import io.jrdma.siw.wire.RdmapOpcode;
import io.jrdma.siw.wire.TermError;
import io.jrdma.siw.wire.Terminate;
import io.jrdma.spi.IwCmProvider;
import io.jrdma.testkit.Hygiene;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.WcStatus;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The MPA exchange (RFC 5044 §7, RFC 6581) between jrdma and a raw peer over TCP on 127.0.0.1, both
 * roles: IRD/ORD negotiation, revision 1 both ways, CRC negotiation, markers, rejects with private
 * data and its limit, timeouts, and the TERMINATEs and statuses of a failed exchange, as Linux siw 6.1
 * produces them ({@code siw_cm.c}; golden README).
 */
class MpaNegotiationIT {
    private static final SiwConfig SIW = SiwConfig.defaults();
    /** No exception escapes, nothing is logged at WARNING, nothing leaks. */
    @RegisterExtension
    final Hygiene hygiene = new Hygiene();
    private final Testbed tb = new Testbed();

    @AfterEach
    void close() {
        tb.close();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Proves that what a peer did on {@code l} before made no upcall: a valid request made afterwards is the
     * next upcall. A listener's requests are served in order on one engine, so an upcall the earlier
     * connection caused would come first. The later request is rejected (no upcall follows a reject).
     */
    private static void nextUpcallIsALaterRequest(IwCmProvider.Listener l, Upcalls up) {
        try (RawPeer p = RawPeer.connect(l.localAddress())) {
            p.write(MpaRequest.v2(false, 1, 1, bytes("later")).toBytes());
            Upcalls.Up req = up.next("connectRequest");
            assertThat(req.privateData()).as("the later request's private data").isEqualTo(bytes("later"));
            req.conn().reject(new byte[0]);
        }
    }

    // ---------------------------------------------------------------------------------- IRD / ORD

    @Test
    void aResponderRaisesItsIrdToThePeersOrdAndCapsItsOrdAtThePeersIrd() {
        Links.Accepted a = Links.accept(tb, SIW, MpaRequest.v2(false, 4, 8, bytes("hi")), Testbed.param(2, 16));
        assertThat(a.request().ird()).as("the peer's IRD").isEqualTo(4);
        assertThat(a.request().ord()).as("the peer's ORD").isEqualTo(8);
        assertThat(a.request().privateData()).isEqualTo(bytes("hi"));
        MpaReply r = a.reply();
        assertThat(r.revision()).isEqualTo(2);
        assertThat(r.reject()).isFalse();
        // siw_accept, relaxed IRD negotiation: IRD max(2, 8), ORD min(16, 4); no private data echoed.
        assertThat(r.v2()).contains(MpaV2Ctrl.of(8, 4));
        assertThat(r.privateData()).isEmpty();
        a.up().next("established");
        assertThat(a.qp().state()).isEqualTo(QpState.RTS);
        a.peer().close();
    }

    @Test
    void anInitiatorSendsItsIrdAndOrdAndKeepsItsOrdWithinTheRepliedIrd() throws Exception {
        try (Links.Connecting c = Links.connect(tb, SIW, new IwConnParam(bytes("pd"), 5, 3, 0))) {
            MpaRequest req = c.request();
            assertThat(req.revision()).isEqualTo(2);
            assertThat(req.crc()).isFalse();
            assertThat(req.markers()).isFalse();
            assertThat(req.v2()).contains(MpaV2Ctrl.of(3, 5));
            assertThat(req.privateData()).isEqualTo(bytes("pd"));
            Upcalls.Up u = c.answer(new MpaReply(2, false, false, false, Optional.of(MpaV2Ctrl.of(2, 7)),
                    bytes("ok")));
            assertStatus(u, 0);
            assertThat(u.ird()).isEqualTo(2);
            assertThat(u.ord()).isEqualTo(7);
            assertThat(u.privateData()).isEqualTo(bytes("ok"));
            // ORD min(5, 2): a third READ waits for one of the first two to be answered.
            Testbed.Buffer sink = tb.buffer(4096, Testbed.ALL);
            for (int i = 0; i < 3; i++) {
                Testbed.post(c.qp(), Testbed.read(i, sink, 100L * i, 16, 0x1234, 0x1000 + i));
            }
            RawPeer.Fpdu r1 = c.peer().readFpdu();
            RawPeer.Fpdu r2 = c.peer().readFpdu();
            assertThat(r1.opcode()).isEqualTo(RdmapOpcode.RDMA_READ_REQUEST);
            assertThat(r2.readRequest().sourceTo()).isEqualTo(0x1001);
            // The peer's own READ is answered on the same stream: its response comes next, so no third READ
            // request went out before it.
            c.peer().write(c.peer().readRequest(0x5678, 0, 16, sink.mr().rkey(), sink.addr(0)));
            RawPeer.Fpdu next = c.peer().readFpdu();
            assertThat(next.opcode()).as("the response to the peer's READ, not a third READ request: " + next)
                    .isEqualTo(RdmapOpcode.RDMA_READ_RESPONSE);
            c.peer().write(c.peer().readResponse(r1.readRequest().sinkStag(), r1.readRequest().sinkTo(),
                    new byte[16], true));
            assertThat(c.peer().readFpdu().readRequest().sourceTo()).isEqualTo(0x1002);
            assertThat(tb.completion().status()).isEqualTo(WcStatus.SUCCESS);
        }
    }

    @Test
    void aReplyOrdAboveWhatThisSideCanServeDrawsTerminateInsufficientIrd() throws Exception {
        try (Links.Connecting c = Links.connect(tb, SIW, Testbed.param(1, 1))) {
            Upcalls.Up u = c.answer(new MpaReply(2, false, false, false, Optional.of(MpaV2Ctrl.of(1, 16383)),
                    new byte[0]));
            assertStatus(u, Errno.EINVAL.status());
            Terminate t = c.peer().readTerminate();
            assertThat(t.error()).contains(TermError.MPA_INSUFFICIENT_IRD);
            assertThat(c.peer().expectClose(0)).isEqualTo("FIN");
        }
    }

    @Test
    void aReplyWithABadKeyDrawsTerminateInvalidRequestReply() throws Exception {
        try (Links.Connecting c = Links.connect(tb, SIW, Testbed.param(1, 1))) {
            byte[] bad = new MpaReply(2, false, false, false, Optional.of(MpaV2Ctrl.of(1, 1)), new byte[0]).toBytes();
            System.arraycopy(bytes("MPA ID Bad Frame"), 0, bad, 0, MpaFrame.KEY_LENGTH);
            c.peer().write(bad);
            assertStatus(c.up().next("connectReply"), Errno.EINVAL.status());
            assertThat(c.peer().readTerminate().error()).contains(TermError.MPA_INVALID_REQUEST_REPLY);
            assertThat(c.peer().expectClose(0)).isEqualTo("FIN");
        }
    }

    // ---------------------------------------------------------------------------------- MPA v1

    @Test
    void aRevisionOneRequestGetsARevisionOneReplyWithoutV2Block() {
        Links.Accepted a = Links.accept(tb, SIW, new MpaRequest(1, false, false, Optional.empty(), bytes("v1")),
                Testbed.param(4, 4));
        assertThat(a.request().ird()).isEqualTo(1);
        assertThat(a.request().ord()).isEqualTo(1);
        assertThat(a.request().privateData()).isEqualTo(bytes("v1"));
        MpaReply r = a.reply();
        assertThat(r.revision()).isEqualTo(1);
        assertThat(r.v2()).isEmpty();
        assertThat(a.replyBytes()).hasSize(MpaFrame.HEADER_LENGTH);
        a.up().next("established");
        a.peer().close();
    }

    @Test
    void anInitiatorConfiguredForRevisionOneSendsNoV2BlockAndConnects() throws Exception {
        try (Links.Connecting c = Links.connect(tb, SIW.withMpaRevision(1), new IwConnParam(bytes("x"), 2, 2, 0))) {
            MpaRequest req = c.request();
            assertThat(req.revision()).isEqualTo(1);
            assertThat(req.v2()).isEmpty();
            assertThat(c.requestBytes()).hasSize(MpaFrame.HEADER_LENGTH + 1);
            assertStatus(c.answer(new MpaReply(1, false, false, false, Optional.empty(), new byte[0])), 0);
            assertThat(c.qp().state()).isEqualTo(QpState.RTS);
        }
    }

    @Test
    void aRevisionTwoInitiatorFallsBackWhenTheResponderRepliesWithRevisionOne() throws Exception {
        try (Links.Connecting c = Links.connect(tb, SIW, Testbed.param(4, 4))) {
            assertThat(c.request().revision()).isEqualTo(2);
            Upcalls.Up u = c.answer(new MpaReply(1, false, false, false, Optional.empty(), new byte[0]));
            assertStatus(u, 0);
            assertThat(u.ird()).as("revision 1 carries no IRD/ORD: 1/1 assumed").isEqualTo(1);
            // The data path works on the fallback connection.
            Testbed.Buffer b = tb.buffer(4096, Testbed.ALL);
            Testbed.recv(c.qp(), 7, b, 0, 64);
            c.peer().write(c.peer().send(bytes("fallback")));
            assertThat(tb.completion().byteLen()).isEqualTo(8);
        }
    }

    // ---------------------------------------------------------------------------------- CRC

    @Test
    void aResponderHonoursAPeerThatAsksForCrc() {
        Links.Accepted a = Links.accept(tb, SIW, MpaRequest.v2(true, 1, 1, new byte[0]), Testbed.param(1, 1));
        assertThat(a.reply().crc()).as("C echoed").isTrue();
        a.up().next("established");
        RawPeer p = a.peer().crc(true);
        Testbed.Buffer b = tb.buffer(4096, Testbed.ALL);
        Testbed.recv(a.qp(), 1, b, 0, 64);
        p.write(p.send(bytes("checked")));
        assertThat(tb.completion().byteLen()).isEqualTo(7);
        Testbed.post(a.qp(), Testbed.send(2, b, 0, 5));
        RawPeer.Fpdu f = p.readFpdu(); // readFpdu verifies the CRC
        assertThat(f.payload()).isEqualTo(bytes("check"));
        p.close();
    }

    @Test
    void aResponderThatRequiresCrcTurnsItOnForAPeerThatDidNotAsk() {
        Links.Accepted a = Links.accept(tb, SIW.withCrcRequired(true), MpaRequest.v2(false, 1, 1, new byte[0]),
                Testbed.param(1, 1));
        assertThat(a.reply().crc()).isTrue();
        a.up().next("established");
        Testbed.Buffer b = tb.buffer(4096, Testbed.ALL);
        Testbed.post(a.qp(), Testbed.send(1, b, 0, 12));
        assertThat(a.peer().crc(true).readFpdu().opcode()).isEqualTo(RdmapOpcode.SEND);
        a.peer().close();
    }

    @Test
    void anInitiatorThatRequiresCrcAsksForItAndRefusesAReplyWithout() throws Exception {
        try (Links.Connecting c = Links.connect(tb, SIW.withCrcRequired(true), Testbed.param(1, 1))) {
            assertThat(c.request().crc()).isTrue();
            Upcalls.Up u = c.answer(new MpaReply(2, false, false, false, Optional.of(MpaV2Ctrl.of(1, 1)),
                    new byte[0]));
            assertStatus(u, Errno.ECONNRESET.status());
            assertThat(c.peer().expectClose(0)).isEqualTo("FIN");
        }
    }

    @Test
    void anInitiatorTurnsCrcOnWhenTheReplyHasIt() throws Exception {
        try (Links.Connecting c = Links.connect(tb, SIW, Testbed.param(1, 1))) {
            assertThat(c.request().crc()).isFalse();
            assertStatus(c.answer(new MpaReply(2, false, true, false, Optional.of(MpaV2Ctrl.of(1, 1)),
                    new byte[0])), 0);
            Testbed.Buffer b = tb.buffer(4096, Testbed.ALL);
            Testbed.post(c.qp(), Testbed.send(1, b, 0, 3));
            assertThat(c.peer().crc(true).readFpdu().payload()).hasSize(3);
        }
    }

    @Test
    void aBadCrcDrawsTerminateCrcErrorAndTheConnectionCloses() {
        Links.Accepted a = Links.accept(tb, SIW, MpaRequest.v2(true, 1, 1, new byte[0]), Testbed.param(1, 1));
        a.up().next("established");
        Testbed.Buffer b = tb.buffer(4096, Testbed.ALL);
        Testbed.recv(a.qp(), 1, b, 0, 64);
        RawPeer p = a.peer().crc(true);
        byte[] send = p.send(bytes("corrupt"));
        send[send.length - 1] ^= (byte) 0xFF;
        p.write(send);
        Terminate t = p.readTerminate();
        assertThat(t.error()).contains(TermError.MPA_CRC_ERROR);
        assertThat(t.d()).as("an LLP error copies no header").isFalse();
        assertThat(p.expectClose(0)).isEqualTo("FIN");
        io.jrdma.testkit.Await.state(a.qp(), QpState.ERR);
        assertThat(tb.completion().status()).as("the receive is flushed").isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(tb.siw.counters().crcErrors()).isPositive();
    }

    // ---------------------------------------------------------------------------------- markers

    @Test
    void aRequestWithMarkersGetsARejectReplyAndAFin() {
        SiwCm cm = tb.cm(SIW);
        Upcalls up = new Upcalls();
        IwCmProvider.Listener l = tb.listen(cm, up);
        try (RawPeer p = RawPeer.connect(l.localAddress())) {
            p.sendMpa(new MpaRequest(2, true, false, Optional.of(MpaV2Ctrl.of(1, 1)), new byte[0]));
            MpaReply r = (MpaReply) Links.decode(p.readMpaBytes());
            assertThat(r.reject()).isTrue();
            assertThat(r.markers()).as("M cleared").isFalse();
            assertThat(r.v2()).contains(MpaV2Ctrl.of(0, 0));
            assertThat(p.expectClose(0)).isEqualTo("FIN");
        }
        nextUpcallIsALaterRequest(l, up);
    }

    @Test
    void aReplyWithMarkersFailsTheConnect() throws Exception {
        try (Links.Connecting c = Links.connect(tb, SIW, Testbed.param(1, 1))) {
            c.peer().write(new MpaReply(2, true, false, false, Optional.of(MpaV2Ctrl.of(1, 1)), new byte[0])
                    .toBytes());
            assertStatus(c.up().next("connectReply"), Errno.ECONNRESET.status());
            assertThat(c.peer().expectClose(0)).isEqualTo("FIN");
        }
    }

    // ---------------------------------------------------------------------------------- rejects

    @Test
    void aRejectCarriesItsPrivateDataAndCloses() {
        SiwCm cm = tb.cm(SIW);
        Upcalls up = new Upcalls();
        IwCmProvider.Listener l = tb.listen(cm, up);
        try (RawPeer p = RawPeer.connect(l.localAddress())) {
            p.sendMpa(MpaRequest.v2(false, 1, 1, new byte[0]));
            Upcalls.Up req = up.next("connectRequest");
            req.conn().reject(bytes("go away"));
            MpaReply r = (MpaReply) Links.decode(p.readMpaBytes());
            assertThat(r.reject()).isTrue();
            assertThat(r.privateData()).isEqualTo(bytes("go away"));
            assertThat(p.expectClose(0)).isEqualTo("FIN");
        }
        assertThat(tb.siw.counters().mpaRejectsSent()).isPositive();
    }

    @Test
    void aRejectFollowedAtOnceByACloseStillReachesThePeerAndEndsWithAFin() {
        // rdma_reject then rdma_destroy_id at once, the usual pattern: the reject reaches the peer, then a FIN.
        SiwCm cm = tb.cm(SIW);
        Upcalls up = new Upcalls();
        IwCmProvider.Listener l = tb.listen(cm, up);
        try (RawPeer p = RawPeer.connect(l.localAddress())) {
            p.sendMpa(MpaRequest.v2(false, 1, 1, new byte[0]));
            Upcalls.Up req = up.next("connectRequest");
            req.conn().reject(bytes("full"));
            req.conn().close();
            MpaReply r = (MpaReply) Links.decode(p.readMpaBytes());
            assertThat(r.reject()).isTrue();
            assertThat(r.privateData()).isEqualTo(bytes("full"));
            assertThat(p.expectClose(0)).isEqualTo("FIN");
        }
    }

    @Test
    void aRejectReplyFailsTheConnectAsAConsumerRejectWithItsPrivateData() throws Exception {
        try (Links.Connecting c = Links.connect(tb, SIW, Testbed.param(1, 1))) {
            Upcalls.Up u = c.answer(new MpaReply(2, false, false, true, Optional.of(MpaV2Ctrl.of(0, 0)),
                    bytes("no")));
            assertStatus(u, Errno.ECONNREFUSED.status());
            assertThat(u.privateData()).isEqualTo(bytes("no"));
            assertThat(c.peer().expectClose(0)).isEqualTo("FIN");
        }
    }

    // ---------------------------------------------------------------------------------- private data

    @Test
    void privateDataHas252UserBytesBesideTheV2Block() throws Exception {
        byte[] max = new byte[MpaFrame.MAX_PRIVATE_DATA - MpaV2Ctrl.LENGTH];
        Arrays.fill(max, (byte) 7);
        try (Links.Connecting c = Links.connect(tb, SIW, new IwConnParam(max, 1, 1, 0))) {
            assertThat(c.requestBytes()).hasSize(MpaFrame.HEADER_LENGTH + MpaFrame.MAX_PRIVATE_DATA);
            assertThat(c.request().privateData()).isEqualTo(max);
        }
        SiwCm cm = tb.cm(SIW);
        byte[] over = new byte[max.length + 1];
        try (ServerSocket server = RawPeer.listen()) {
            assertThatThrownBy(() -> tb.connect(cm, tb.qp(), server, new IwConnParam(over, 1, 1, 0), new Upcalls()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("256");
            // A valid connect afterwards is the first connection the server accepts and its first bytes are
            // its request: the refused one opened no connection and sent nothing.
            tb.connect(cm, tb.qp(), server, new IwConnParam(bytes("next"), 1, 1, 0), new Upcalls());
            RawPeer next = tb.closeLater(RawPeer.accept(server));
            assertThat(((MpaRequest) Links.decode(next.readMpaBytes())).privateData()).as("nothing came before it")
                    .isEqualTo(bytes("next"));
        }
        Links.Accepted a = Links.accept(tb, SIW, MpaRequest.v2(false, 1, 1, new byte[0]), Testbed.param(1, 1));
        a.up().next("established");
        a.peer().close();
    }

    @Test
    void aResponderAcceptsPdLength256AndDropsPdLength257WithAReset() {
        SiwCm cm = tb.cm(SIW);
        Upcalls up = new Upcalls();
        IwCmProvider.Listener l = tb.listen(cm, up);
        byte[] ok = MpaRequest.v2(false, 1, 1, new byte[252]).toBytes();
        try (RawPeer p = RawPeer.connect(l.localAddress())) {
            p.write(ok);
            Upcalls.Up req = up.next("connectRequest");
            assertThat(req.privateData()).hasSize(252);
            req.conn().reject(new byte[0]);
        }
        byte[] tooLong = Arrays.copyOf(ok, ok.length + 1);
        tooLong[MpaFrame.PD_LENGTH_OFFSET + 1] = 1; // PD_Length 0x0101 = 257
        try (RawPeer p = RawPeer.connect(l.localAddress())) {
            p.write(tooLong);
            // siw refuses PD_Length 257 before reading it: the unread bytes make the close a reset.
            assertThat(p.expectClose(0)).as("no reply, a reset (golden pcap/mpa-pd257)").isEqualTo("RST");
        }
        nextUpcallIsALaterRequest(l, up);
    }

    @Test
    void aBadKeyOrRevisionGetsNoReplyButAFin() {
        SiwCm cm = tb.cm(SIW);
        Upcalls up = new Upcalls();
        IwCmProvider.Listener l = tb.listen(cm, up);
        byte[] badKey = MpaRequest.v2(false, 1, 1, new byte[0]).toBytes();
        System.arraycopy(bytes("MPA ID Bad Frame"), 0, badKey, 0, MpaFrame.KEY_LENGTH);
        byte[] rev3 = MpaRequest.v2(false, 1, 1, new byte[0]).toBytes();
        rev3[MpaFrame.REVISION_OFFSET] = 3;
        for (byte[] req : new byte[][] {badKey, rev3}) {
            try (RawPeer p = RawPeer.connect(l.localAddress())) {
                p.write(req);
                assertThat(p.expectClose(0)).isEqualTo("FIN");
            }
        }
        nextUpcallIsALaterRequest(l, up);
    }

    // ---------------------------------------------------------------------------------- timeouts

    @Test
    void theDefaultTimeoutsAreSiws() {
        assertThat(SiwConfig.defaults().initiatorTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(SiwConfig.defaults().responderTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThatThrownBy(() -> SIW.withTimeouts(Duration.ZERO, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anInitiatorWhoseReplyNeverComesFailsWithEtimedoutAfterItsTimeout() throws Exception {
        SiwConfig quick = SIW.withTimeouts(Duration.ofMillis(300), Duration.ofMillis(300));
        long t0 = System.nanoTime();
        try (Links.Connecting c = Links.connect(tb, quick, Testbed.param(1, 1))) {
            Upcalls.Up u = c.up().next("connectReply", 3_000);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertStatus(u, Errno.ETIMEDOUT.status());
            assertThat(ms).isBetween(250L, 3_000L);
            assertThat(c.peer().expectClose(0)).isEqualTo("FIN");
        }
    }

    @Test
    void aResponderDropsAPeerThatSendsNoRequestAfterItsTimeout() {
        SiwCm cm = tb.cm(SIW.withTimeouts(Duration.ofMillis(300), Duration.ofMillis(300)));
        Upcalls up = new Upcalls();
        IwCmProvider.Listener l = tb.listen(cm, up);
        long t0 = System.nanoTime();
        try (RawPeer p = RawPeer.connect(l.localAddress())) {
            p.write(Arrays.copyOf(MpaRequest.v2(false, 1, 1, new byte[0]).toBytes(), 10)); // half a request
            assertThat(p.expectClose(0)).isEqualTo("FIN");
        }
        assertThat((System.nanoTime() - t0) / 1_000_000).isBetween(250L, 3_000L);
        nextUpcallIsALaterRequest(l, up);
    }

    @Test
    void theMaximumIrdAndOrdAreSiws() {
        Links.Accepted a = Links.accept(tb, SIW, MpaRequest.v2(false, 1000, 1000, new byte[0]),
                Testbed.param(1, 1));
        assertThat(a.reply().v2().orElseThrow().ird()).as("capped at SIW_MAX_IRD_QP")
                .isEqualTo(SiwDevice.MAX_ORD_IRD);
        a.up().next("established");
        a.peer().close();
    }
}
