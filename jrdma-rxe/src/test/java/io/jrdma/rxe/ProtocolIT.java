package io.jrdma.rxe;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.internal.roce.Aeth;
import io.jrdma.internal.roce.AtomicAckEth;
import io.jrdma.internal.roce.Bth;
import io.jrdma.internal.roce.IbOpcode;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * rxe's RC protocol rules, packet by packet against a {@link ScriptedPeer}: sequence NAKs, duplicate
 * handling (ACK again, READ re-executed, atomics answered from the reply cache), RNR NAKs, ACK
 * coalescing and the requester's retransmissions.
 */
class ProtocolIT {
    private static final int PEER_QPN = 0x456;
    private static final int RQ_PSN = 0x1000;
    private static final int SQ_PSN = 0x2000;
    private ScriptedPeer peer;
    private Endpoint e;

    @BeforeEach
    void open() throws Exception {
        peer = new ScriptedPeer();
        e = Endpoint.rc("rxe0", 1 << 20);
        Endpoint.toRts(e, Gid.of(InetAddress.getByName(ScriptedPeer.ADDRESS)), PEER_QPN, SQ_PSN, RQ_PSN,
                new Endpoint.Options().timeout(14).minRnrTimer(9));
    }

    @AfterEach
    void close() throws Exception {
        e.close();
        peer.close();
    }

    private void send(PacketBuilder b) throws Exception {
        peer.send(b.bytes(), "127.0.0.1");
    }

    private static Bth bth(byte[] p) {
        return new Bth().wrap(MemorySegment.ofArray(p), 0);
    }

    private static Aeth aeth(byte[] p) {
        return new Aeth().wrap(MemorySegment.ofArray(p), Bth.LENGTH);
    }

    private PacketBuilder sendOnly(int psn, boolean ackReq) {
        return PacketBuilder.of(IbOpcode.RC_SEND_ONLY, e.qp.qpNum(), psn, ackReq, 8).payload(new byte[8]);
    }

    @Test
    void aGapInThePsnsGetsOneSequenceNakWithTheExpectedPsn() throws Exception {
        e.qp.postRecv(new RecvWr().wrId(1).sg(e.mr, 0, 64));
        send(sendOnly(RQ_PSN + 2, true));
        byte[] nak = peer.receive(2000);
        assertThat(bth(nak).opcode()).isEqualTo(IbOpcode.RC_ACKNOWLEDGE.code());
        assertThat(bth(nak).psn()).isEqualTo(RQ_PSN);
        assertThat(aeth(nak).syndrome()).isEqualTo(Aeth.TYPE_NAK | Aeth.NAK_PSN_SEQUENCE_ERROR);
        send(sendOnly(RQ_PSN + 3, true));
        peer.assertQuiet(100); // one NAK per gap
        send(sendOnly(RQ_PSN, true));
        byte[] ack = peer.receive(2000);
        assertThat(aeth(ack).isAck()).isTrue();
        assertThat(bth(ack).psn()).isEqualTo(RQ_PSN);
        assertThat(aeth(ack).msn()).isEqualTo(1);
        assertThat(e.poll().wrId()).isEqualTo(1);
    }

    @Test
    void aDuplicateSendIsAckedAgainButNotPlacedTwice() throws Exception {
        e.qp.postRecv(new RecvWr().wrId(1).sg(e.mr, 0, 64));
        e.qp.postRecv(new RecvWr().wrId(2).sg(e.mr, 64, 64));
        send(sendOnly(RQ_PSN, true));
        assertThat(bth(peer.receive(2000)).psn()).isEqualTo(RQ_PSN);
        send(sendOnly(RQ_PSN, true)); // the requester did not see our ACK and retried
        byte[] again = peer.receive(2000);
        assertThat(aeth(again).isAck()).isTrue();
        assertThat(bth(again).psn()).as("ACK of the last executed PSN").isEqualTo(RQ_PSN);
        assertThat(e.poll().wrId()).isEqualTo(1);
        e.assertQuiet(100);
    }

    @Test
    void aDuplicateAtomicIsAnsweredFromTheReplyCacheAndExecutedOnce() throws Exception {
        e.buf.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 100);
        PacketBuilder faa = PacketBuilder.of(IbOpcode.RC_FETCH_ADD, e.qp.qpNum(), RQ_PSN, true, 0)
                .atomic(e.mr.address(), e.mr.rkey(), 5, 0);
        send(faa);
        byte[] first = peer.receive(2000);
        assertThat(bth(first).opcode()).isEqualTo(IbOpcode.RC_ATOMIC_ACKNOWLEDGE.code());
        long orig = new AtomicAckEth().wrap(MemorySegment.ofArray(first), Bth.LENGTH + Aeth.LENGTH).originalData();
        assertThat(orig).isEqualTo(100);
        send(faa);
        byte[] replay = peer.receive(2000);
        assertThat(bth(replay).psn()).isEqualTo(RQ_PSN);
        assertThat(new AtomicAckEth().wrap(MemorySegment.ofArray(replay), Bth.LENGTH + Aeth.LENGTH).originalData())
                .isEqualTo(100);
        assertThat(e.buf.get(ValueLayout.JAVA_LONG_UNALIGNED, 0)).isEqualTo(105);
    }

    @Test
    void aDuplicateReadIsExecutedAgainFromTheRequestedPsn() throws Exception {
        for (int i = 0; i < 3000; i++) {
            e.buf.set(ValueLayout.JAVA_BYTE, i, (byte) i);
        }
        send(PacketBuilder.of(IbOpcode.RC_RDMA_READ_REQUEST, e.qp.qpNum(), RQ_PSN, true, 0)
                .reth(e.mr.address(), e.mr.rkey(), 3000));
        for (int i = 0; i < 3; i++) {
            assertThat(bth(peer.receive(2000)).psn()).isEqualTo(RQ_PSN + i);
        }
        // the last two responses were "lost": ask again from the second packet
        send(PacketBuilder.of(IbOpcode.RC_RDMA_READ_REQUEST, e.qp.qpNum(), RQ_PSN + 1, true, 0)
                .reth(e.mr.address() + 1024, e.mr.rkey(), 3000 - 1024));
        byte[] middle = peer.receive(2000);
        byte[] last = peer.receive(2000);
        assertThat(bth(middle).opcode()).isEqualTo(IbOpcode.RC_RDMA_READ_RESPONSE_MIDDLE.code());
        assertThat(bth(middle).psn()).isEqualTo(RQ_PSN + 1);
        assertThat(middle[Bth.LENGTH]).isEqualTo((byte) 1024);
        assertThat(bth(last).opcode()).isEqualTo(IbOpcode.RC_RDMA_READ_RESPONSE_LAST.code());
        assertThat(bth(last).psn()).isEqualTo(RQ_PSN + 2);
    }

    @Test
    void aMissingReceiveGetsAnRnrNakWithTheMinimumRnrTimer() throws Exception {
        send(sendOnly(RQ_PSN, true));
        byte[] rnr = peer.receive(2000);
        assertThat(aeth(rnr).isRnrNak()).isTrue();
        assertThat(aeth(rnr).value()).isEqualTo(9);
        assertThat(bth(rnr).psn()).isEqualTo(RQ_PSN);
    }

    @Test
    void onlyPacketsWithAckReqAreAcknowledged() throws Exception {
        for (int i = 0; i < 3; i++) {
            e.qp.postRecv(new RecvWr().wrId(i).sg(e.mr, 64L * i, 64));
        }
        send(sendOnly(RQ_PSN, false));
        send(sendOnly(RQ_PSN + 1, false));
        send(sendOnly(RQ_PSN + 2, true));
        byte[] ack = peer.receive(2000);
        assertThat(bth(ack).psn()).isEqualTo(RQ_PSN + 2);
        assertThat(aeth(ack).msn()).isEqualTo(3);
        peer.assertQuiet(100);
        assertThat(e.poll(3, 2000)).hasSize(3);
    }

    @Test
    void oneAckCompletesEveryEarlierRequest() throws Exception {
        for (int i = 0; i < 3; i++) {
            e.qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(e.mr, 0, 8));
        }
        for (int i = 0; i < 3; i++) {
            assertThat(bth(peer.receive(2000)).psn()).isEqualTo(SQ_PSN + i);
        }
        // one ACK for the last PSN (AETH: ACK, credits unlimited, MSN 3)
        byte[] ackBytes = PacketBuilder.of(IbOpcode.RC_ACKNOWLEDGE, e.qp.qpNum(), SQ_PSN + 2, false, 0).bytes();
        new Aeth().wrap(MemorySegment.ofArray(ackBytes), Bth.LENGTH).ack(Aeth.CREDITS_UNLIMITED, 3);
        peer.send(ackBytes, "127.0.0.1");
        List<WorkCompletion> wc = e.poll(3, 2000);
        assertThat(wc).extracting(WorkCompletion::status).containsOnly(WcStatus.SUCCESS);
        assertThat(wc).extracting(WorkCompletion::wrId).containsExactly(0L, 1L, 2L);
    }

    @Test
    void aSequenceNakMakesTheRequesterResendFromTheNakedPsn() throws Exception {
        for (int i = 0; i < 3; i++) {
            e.qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(e.mr, 0, 8));
        }
        for (int i = 0; i < 3; i++) {
            peer.receive(2000);
        }
        byte[] nak = PacketBuilder.of(IbOpcode.RC_ACKNOWLEDGE, e.qp.qpNum(), SQ_PSN + 1, false, 0).bytes();
        new Aeth().wrap(MemorySegment.ofArray(nak), Bth.LENGTH).nak(Aeth.NAK_PSN_SEQUENCE_ERROR, 1);
        peer.send(nak, "127.0.0.1");
        assertThat(bth(peer.receive(2000)).psn()).as("resent from the NAKed PSN").isEqualTo(SQ_PSN + 1);
        assertThat(bth(peer.receive(2000)).psn()).isEqualTo(SQ_PSN + 2);
        assertThat(e.poll().wrId()).as("the NAK acknowledged PSNs before it").isEqualTo(0);
    }

    @Test
    void withoutAnAckTheRequesterRetransmitsTheSamePacketAfterTheInitialRetransmitTimeout() throws Exception {
        // No round trip measured yet: the retransmit timer starts at 20 ms, below the 67 ms ACK
        // timeout (14), and doubles while nothing is acknowledged. Times count from the post: the first
        // transmission is no earlier, so each bound holds however late this thread sees a packet.
        long posted = System.nanoTime();
        e.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sg(e.mr, 0, 8));
        byte[] first = peer.receive(2000);
        byte[] again = peer.receive(2000);
        assertThat(System.nanoTime() - posted).as("no earlier than the 20 ms initial retransmit timeout")
                .isGreaterThanOrEqualTo(18_000_000L);
        assertThat(again).isEqualTo(first);
        byte[] third = peer.receive(2000);
        assertThat(System.nanoTime() - posted).as("backed off to 40 ms: 20 + 40 ms after the post, not 20 + 20")
                .isGreaterThanOrEqualTo(58_000_000L);
        assertThat(third).isEqualTo(first);
    }
}
