package io.jrdma.siw.transport;

import static io.jrdma.siw.transport.Links.assertStatus;
import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.siw.SiwConfig;
import io.jrdma.siw.wire.MpaReply;
import io.jrdma.siw.wire.MpaRequest;
import io.jrdma.siw.wire.MpaV2Ctrl;
import io.jrdma.siw.wire.RdmapOpcode;
import io.jrdma.siw.wire.TermError;
import io.jrdma.testkit.Await;
import io.jrdma.testkit.Completion;
import io.jrdma.testkit.Hygiene;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.WcStatus;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Peer-to-peer mode (RFC 6581 §5): the initiator's ready-to-receive message, a zero-length RDMA WRITE
 * or READ, both roles. siw's responder answers P with W if offered, else R, else W, and reports
 * ESTABLISHED only when the RTR arrived; siw's initiator offers both, sends the chosen RTR (STag 1)
 * before anything else and refuses a reply without a common type ({@code siw_cm.c}, {@code siw_qp.c
 * siw_qp_mpa_rts}; golden {@code mpa-v2-pdata}).
 */
class RtrModesIT {
    private static final SiwConfig SIW = SiwConfig.defaults();
    /** No exception escapes, nothing is logged at WARNING, nothing leaks (issue 6). */
    @RegisterExtension
    final Hygiene hygiene = new Hygiene();
    private final Testbed tb = new Testbed();

    @AfterEach
    void close() {
        tb.close();
    }

    private static MpaRequest p2p(boolean write, boolean read) {
        return new MpaRequest(2, false, false, Optional.of(new MpaV2Ctrl(4, 4, true, false, write, read)),
                new byte[0]);
    }

    private void sendWorks(Links.Accepted a) {
        Testbed.Buffer b = tb.buffer(4096, Testbed.ALL);
        Testbed.recv(a.qp(), 5, b, 0, 64);
        a.peer().write(a.peer().send("after rtr".getBytes(StandardCharsets.US_ASCII)));
        Completion c = tb.completion();
        assertThat(c.wrId()).isEqualTo(5);
        assertThat(c.byteLen()).isEqualTo(9);
    }

    @Test
    void aResponderOfferedAWriteRtrChoosesItAndIsEstablishedOnlyWhenItArrives() {
        Links.Accepted a = Links.accept(tb, SIW, p2p(true, true), Testbed.param(4, 4));
        MpaV2Ctrl c = a.reply().v2().orElseThrow();
        assertThat(c.peerToPeer()).isTrue();
        assertThat(c.zeroLengthWriteRtr()).isTrue();
        assertThat(c.zeroLengthReadRtr()).isFalse();
        long beforeRtr = System.nanoTime();
        a.peer().write(a.peer().write(0, 0, new byte[0], true));
        a.up().nextAfter("established", beforeRtr);
        sendWorks(a);
        a.peer().close();
    }

    @Test
    void aResponderOfferedOnlyAReadRtrAnswersTheZeroLengthRead() {
        Links.Accepted a = Links.accept(tb, SIW, p2p(false, true), Testbed.param(4, 4));
        MpaV2Ctrl c = a.reply().v2().orElseThrow();
        assertThat(c.zeroLengthReadRtr()).isTrue();
        assertThat(c.zeroLengthWriteRtr()).isFalse();
        long beforeRtr = System.nanoTime();
        a.peer().write(a.peer().readRequest(0x55, 0x77, 0, 1, 0));
        a.up().nextAfter("established", beforeRtr);
        RawPeer.Fpdu resp = a.peer().readFpdu();
        assertThat(resp.opcode()).isEqualTo(RdmapOpcode.RDMA_READ_RESPONSE);
        assertThat(resp.header().stag()).isEqualTo(0x55);
        assertThat(resp.header().taggedOffset()).isEqualTo(0x77);
        assertThat(resp.header().last()).isTrue();
        assertThat(resp.payload()).isEmpty();
        sendWorks(a);
        a.peer().close();
    }

    @Test
    void aResponderOfferedNoRtrTypeProposesTheWriteAsSiwDoes() {
        Links.Accepted a = Links.accept(tb, SIW, p2p(false, false), Testbed.param(4, 4));
        MpaV2Ctrl c = a.reply().v2().orElseThrow();
        assertThat(c.peerToPeer()).isTrue();
        assertThat(c.zeroLengthWriteRtr()).isTrue();
        a.peer().write(a.peer().write(0, 0, new byte[0], true));
        a.up().next("established");
        a.peer().close();
    }

    @Test
    void anInitiatorOffersBothRtrTypesAndSendsTheWriteTheResponderChose() throws Exception {
        try (Links.Connecting c = Links.connect(tb, SIW.withPeerToPeer(SiwConfig.Rtr.ANY), Testbed.param(2, 0))) {
            MpaV2Ctrl req = c.request().v2().orElseThrow();
            assertThat(req.peerToPeer()).isTrue();
            assertThat(req.zeroLengthWriteRtr()).isTrue();
            assertThat(req.zeroLengthReadRtr()).isTrue();
            assertThat(req.ord()).as("siw_connect: ORD at least 1 in peer-to-peer mode").isEqualTo(1);
            c.peer().sendMpa(new MpaReply(2, false, false, false, Optional.of(new MpaV2Ctrl(2, 2, true, false, true,
                    false)), new byte[0]));
            RawPeer.Fpdu rtr = c.peer().readFpdu();
            assertThat(rtr.opcode()).isEqualTo(RdmapOpcode.RDMA_WRITE);
            assertThat(rtr.header().last()).isTrue();
            assertThat(rtr.header().stag()).as("siw_qp_mpa_rts: STag 1").isEqualTo(1);
            assertThat(rtr.header().taggedOffset()).isZero();
            assertThat(rtr.payload()).isEmpty();
            assertStatus(c.up().next("connectReply"), 0);
            Await.noCompletion(tb.cq, Await.QUIET);
        }
    }

    @Test
    void anInitiatorOfferingOnlyTheReadRtrSendsAZeroLengthReadAndConsumesItsResponseSilently() throws Exception {
        try (Links.Connecting c = Links.connect(tb, SIW.withPeerToPeer(SiwConfig.Rtr.READ), Testbed.param(2, 2))) {
            MpaV2Ctrl req = c.request().v2().orElseThrow();
            assertThat(req.zeroLengthReadRtr()).isTrue();
            assertThat(req.zeroLengthWriteRtr()).isFalse();
            c.peer().sendMpa(new MpaReply(2, false, false, false, Optional.of(new MpaV2Ctrl(2, 2, true, false, false,
                    true)), new byte[0]));
            RawPeer.Fpdu rtr = c.peer().readFpdu();
            assertThat(rtr.opcode()).isEqualTo(RdmapOpcode.RDMA_READ_REQUEST);
            assertThat(rtr.header().messageSequenceNumber()).isEqualTo(1);
            assertThat(rtr.readRequest().readSize()).isZero();
            assertThat(rtr.readRequest().sourceStag()).isEqualTo(1);
            assertStatus(c.up().next("connectReply"), 0);
            c.peer().write(c.peer().readResponse(rtr.readRequest().sinkStag(), rtr.readRequest().sinkTo(),
                    new byte[0], true));
            // A real READ after the RTR: MSN 2, and only its own completion appears.
            Testbed.Buffer sink = tb.buffer(4096, Testbed.ALL);
            Testbed.post(c.qp(), Testbed.read(9, sink, 0, 4, 0x99, 0x1000));
            RawPeer.Fpdu rr = c.peer().readFpdu();
            assertThat(rr.header().messageSequenceNumber()).isEqualTo(2);
            c.peer().write(c.peer().readResponse(rr.readRequest().sinkStag(), rr.readRequest().sinkTo(),
                    new byte[] {1, 2, 3, 4}, true));
            Completion done = tb.completion();
            assertThat(done.wrId()).isEqualTo(9);
            assertThat(done.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(sink.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, 3)).isEqualTo((byte) 4);
            Await.noCompletion(tb.cq, Await.QUIET);
        }
    }

    @Test
    void anInitiatorWhoseRtrOfferFindsNoMatchSendsTerminateNoMatchingRtr() throws Exception {
        try (Links.Connecting c = Links.connect(tb, SIW.withPeerToPeer(SiwConfig.Rtr.WRITE), Testbed.param(1, 1))) {
            c.peer().sendMpa(new MpaReply(2, false, false, false, Optional.of(new MpaV2Ctrl(1, 1, true, false, false,
                    true)), new byte[0]));
            assertStatus(c.up().next("connectReply"), Errno.EINVAL.status());
            assertThat(c.peer().readTerminate().error()).contains(TermError.MPA_NO_MATCHING_RTR);
            assertThat(c.peer().expectClose(0)).isEqualTo("FIN");
        }
    }
}
