package io.jrdma.rxe;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.internal.roce.Aeth;
import io.jrdma.internal.roce.Bth;
import io.jrdma.internal.roce.IbOpcode;
import io.jrdma.internal.roce.Icrc;
import io.jrdma.internal.roce.Psn;
import io.jrdma.testkit.Hygiene;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An ACK that arrives late, on a long link, while the requester is already re-sending after a
 * retransmit timeout: a {@link ScriptedPeer} plays the responder and holds back the ACK of a WRITE's
 * first transmission until the go-back-N retry is inside that WRITE. The WRITE must complete on that
 * ACK, and every later packet must keep the PSN of its first transmission (a message shifted by one
 * PSN is an invalid request to a real responder).
 */
class LateAckIT {
    private static final int PEER_QPN = 0x789;
    private static final int SQ_PSN = 0xfffff0; // the messages wrap the 24-bit PSN space
    private static final int RQ_PSN = 0x3000;
    private static final int MTU = 1024;
    /** More packets than the window a retry shrinks to, so that the retry stops inside this WRITE. */
    private static final int BIG = 128 * MTU;
    private static final int SMALL = 2 * MTU;
    private static final String JRDMA = "127.0.0.1";

    @RegisterExtension
    final Hygiene hygiene = new Hygiene();
    private ScriptedPeer peer;
    private Endpoint e;
    private final Bth bth = new Bth();

    @BeforeEach
    void open() throws Exception {
        peer = new ScriptedPeer();
        e = Endpoint.rc("rxe0", 1 << 20);
        Endpoint.toRts(e, Gid.of(InetAddress.getByName(ScriptedPeer.ADDRESS)), PEER_QPN, SQ_PSN, RQ_PSN,
                new Endpoint.Options().timeout(14));
    }

    @AfterEach
    void close() throws Exception {
        e.close();
        peer.close();
    }

    private void write(long id, long off, int len) {
        e.qp.postSend(new SendWr().wrId(id).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                .sg(e.mr, off, len).rdma(0x10_0000L + off, 0x1234));
    }

    private void ack(int psn) throws Exception {
        byte[] p = PacketBuilder.of(IbOpcode.RC_ACKNOWLEDGE, e.qp.qpNum(), psn, false, 0).bytes();
        new Aeth().wrap(MemorySegment.ofArray(p), Bth.LENGTH).ack(Aeth.CREDITS_UNLIMITED, 1);
        peer.send(p, JRDMA);
    }

    private int psn(byte[] p) {
        return bth.wrap(MemorySegment.ofArray(p), 0).psn();
    }

    private int opcode(byte[] p) {
        return bth.wrap(MemorySegment.ofArray(p), 0).opcode();
    }

    private int payload(byte[] p) {
        IbOpcode op = IbOpcode.fromCode(opcode(p));
        return p.length - op.payloadOffset() - bth.wrap(MemorySegment.ofArray(p), 0).padCount() - Icrc.LENGTH;
    }

    /** Receives until a packet of PSN {@code psn} arrives for the {@code nth} time; returns it. */
    private byte[] until(int psn, int nth, int[] seen) throws Exception {
        for (int i = 0; i < 2000; i++) {
            byte[] p = peer.receive(3000);
            if (psn(p) == psn && ++seen[0] == nth) {
                return p;
            }
        }
        throw new AssertionError("PSN " + Integer.toHexString(psn) + " not seen " + nth + " times");
    }

    @Test
    void aLateAckForAWriteTheRetryIsResendingCompletesItAndLaterMessagesKeepTheirPsns() throws Exception {
        int bigLast = Psn.add(SQ_PSN, BIG / MTU - 1);
        int smallFirst = Psn.next(bigLast);
        write(1, 0, BIG);
        write(2, BIG, SMALL);
        // The first transmission, unacknowledged, then the retransmit timeout's retry from the first PSN.
        until(SQ_PSN, 2, new int[1]);
        // The ACK of the first transmission's last packet arrives only now.
        ack(bigLast);
        // The next message goes again after a timeout, and each time at its own PSN: WRITE First, one MTU.
        int[] seen = new int[1];
        for (int n = 1; n <= 2; n++) {
            byte[] p = until(smallFirst, n, seen);
            assertThat(opcode(p)).as("opcode at PSN %x, transmission %d", smallFirst, n)
                    .isEqualTo(IbOpcode.RC_RDMA_WRITE_FIRST.code());
            assertThat(payload(p)).isEqualTo(MTU);
        }
        WorkCompletion wc = e.poll(3000);
        assertThat(wc.wrId()).isEqualTo(1);
        assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
        ack(Psn.next(smallFirst));
        wc = e.poll(3000);
        assertThat(wc.wrId()).isEqualTo(2);
        assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
    }
}
