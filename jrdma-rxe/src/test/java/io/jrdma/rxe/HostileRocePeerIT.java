package io.jrdma.rxe;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.internal.roce.Aeth;
import io.jrdma.internal.roce.Bth;
import io.jrdma.internal.roce.IbOpcode;
import io.jrdma.spi.DeviceCounters;
import io.jrdma.testkit.CanaryBuffer;
import io.jrdma.testkit.DataPattern;
import io.jrdma.testkit.Hygiene;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AsyncEvent;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.Counter;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The hostile-peer suite on rxe (issue 6, item 1, for the cases that exist in RoCEv2): a
 * {@link ScriptedPeer} sends hand-made RoCEv2 datagrams to an RC QP of rxe0 and checks the answer rxe
 * gives (drop, NAK with its syndrome, RNR NAK), the QP's state and async event, that not one byte of
 * any registered region outside the target changed (canaries around every region), and
 * {@link Hygiene}: no exception escaped, nothing was logged at WARNING, nothing leaked. The receive
 * checks are Linux's {@code rxe_recv.c hdr_check} (transport version, QPN, P_Key, the connected peer's
 * address) and {@code rxe_resp.c} (sequence, opcode, resources, length, rkey).
 */
class HostileRocePeerIT {
    private static final int PEER_QPN = 0x456;
    private static final int RQ_PSN = 0x1000;
    private static final int SQ_PSN = 0x2000;
    private static final int SIZE = 8192;
    private static final String JRDMA = "127.0.0.1";

    @RegisterExtension
    final Hygiene hygiene = new Hygiene();
    private ScriptedPeer peer;
    private Endpoint e;
    private final List<CanaryBuffer> regions = new ArrayList<>();
    private final List<byte[]> before = new ArrayList<>();

    @BeforeEach
    void open() throws Exception {
        peer = new ScriptedPeer();
        e = Endpoint.rc("rxe0", 4096);
        Endpoint.toRts(e, Gid.of(InetAddress.getByName(ScriptedPeer.ADDRESS)), PEER_QPN, SQ_PSN, RQ_PSN,
                new Endpoint.Options().timeout(14).minRnrTimer(9).rdAtomic(2));
    }

    @AfterEach
    void close() throws Exception {
        for (CanaryBuffer r : regions) {
            r.close();
        }
        e.close();
        peer.close();
    }

    // ------------------------------------------------------------------------------------------ helpers

    private CanaryBuffer region(ProtectionDomain pd, int access) {
        CanaryBuffer b = CanaryBuffer.register(pd, SIZE, access, regions.size() + 1);
        regions.add(b);
        before.add(b.snapshot());
        return b;
    }

    private CanaryBuffer region(int access) {
        return region(e.pd, access);
    }

    private void assertUntouched() {
        for (int i = 0; i < regions.size(); i++) {
            regions.get(i).assertUnchanged(before.get(i));
        }
    }

    private static DeviceCounters counters() {
        return ((RxeDevice) ((DeviceImpl) Rdma.device("rxe0")).providerDevice()).counters();
    }

    private void send(PacketBuilder b) throws Exception {
        peer.send(b.bytes(), JRDMA);
    }

    private int qpn() {
        return e.qp.qpNum();
    }

    private PacketBuilder write(int psn, long va, int rkey, int len) {
        return PacketBuilder.of(IbOpcode.RC_RDMA_WRITE_ONLY, qpn(), psn, true, len).reth(va, rkey, len)
                .payload(DataPattern.bytes(0xBAD, len));
    }

    private PacketBuilder read(int psn, long va, int rkey, int len) {
        return PacketBuilder.of(IbOpcode.RC_RDMA_READ_REQUEST, qpn(), psn, true, 0).reth(va, rkey, len);
    }

    private PacketBuilder sendOnly(int psn, int len) {
        return PacketBuilder.of(IbOpcode.RC_SEND_ONLY, qpn(), psn, true, len).payload(DataPattern.bytes(0x5E, len));
    }

    private static Bth bth(byte[] p) {
        return new Bth().wrap(MemorySegment.ofArray(p), 0);
    }

    private static Aeth aeth(byte[] p) {
        return new Aeth().wrap(MemorySegment.ofArray(p), Bth.LENGTH);
    }

    /** The next datagram must be a NAK of {@code code} for {@code psn}. */
    private void expectNak(int code, int psn) throws Exception {
        byte[] nak = peer.receive(2000);
        assertThat(bth(nak).opcode()).isEqualTo(IbOpcode.RC_ACKNOWLEDGE.code());
        assertThat(aeth(nak).syndrome()).as("AETH syndrome").isEqualTo(Aeth.TYPE_NAK | code);
        assertThat(bth(nak).psn()).isEqualTo(psn);
    }

    /** The QP failed: ERROR, the async event, nothing more on the wire. */
    private void expectFatal(AsyncEventType event) throws Exception {
        AsyncEvent ev = e.ctx.getAsyncEvent(Duration.ofSeconds(5));
        assertThat(ev).as("async event").isNotNull();
        assertThat(ev.type()).isEqualTo(event);
        assertThat(ev.qp().qpNum()).isEqualTo(qpn());
        assertThat(e.qp.state()).isEqualTo(QpState.ERR);
        peer.assertQuiet(50);
    }

    /** Dropped without an answer; the QP still works: a SEND at {@code psn} is ACKed and completes. */
    private void expectDroppedAndStillServing(int psn, long droppedBefore, int dropped) throws Exception {
        peer.assertQuiet(100);
        assertThat(counters().get(Counter.RCVD_DROPPED) - droppedBefore).as("datagrams dropped")
                .isGreaterThanOrEqualTo(dropped);
        assertThat(e.qp.state()).isEqualTo(QpState.RTS);
        e.qp.postRecv(new RecvWr().wrId(77).sg(e.mr, 0, 64));
        send(sendOnly(psn, 16));
        byte[] ack = peer.receive(2000);
        assertThat(aeth(ack).isAck()).isTrue();
        WorkCompletion wc = e.poll();
        assertThat(wc.wrId()).isEqualTo(77);
        assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
    }

    // ================================================================================== framing

    @Test
    void everyUndefinedOrForeignOpcodeIsDroppedAndTheQpKeepsServing() throws Exception {
        CanaryBuffer rw = region(Endpoint.ALL_ACCESS);
        long dropped = counters().get(Counter.RCVD_DROPPED);
        int sent = 0;
        for (int code = 0; code < 256; code++) {
            IbOpcode op = IbOpcode.fromCode(code);
            if (op != null && op.service() == IbOpcode.Service.RC) {
                continue;
            }
            byte[] p = write(RQ_PSN, rw.addr(0), rw.mr().rkey(), 64).bytes();
            p[0] = (byte) code;
            peer.send(p, JRDMA);
            sent++;
        }
        assertThat(sent).isGreaterThan(200);
        expectDroppedAndStillServing(RQ_PSN, dropped, sent);
        assertUntouched();
    }

    @Test
    void aWrongTransportVersionIsDropped() throws Exception {
        CanaryBuffer rw = region(Endpoint.ALL_ACCESS);
        long dropped = counters().get(Counter.RCVD_DROPPED);
        for (int tver = 1; tver < 16; tver++) {
            byte[] p = write(RQ_PSN, rw.addr(0), rw.mr().rkey(), 64).bytes();
            bth(p).tver(tver);
            peer.send(p, JRDMA);
        }
        expectDroppedAndStillServing(RQ_PSN, dropped, 15);
        assertUntouched();
    }

    @Test
    void aPacketFromAnAddressOtherThanTheConnectedPeerIsDropped() throws Exception {
        // rxe check_addr: an RC QP takes packets only from the address its AV names, so an off-path
        // sender that guessed the QPN and PSN still cannot write.
        CanaryBuffer rw = region(Endpoint.ALL_ACCESS);
        long dropped = counters().get(Counter.RCVD_DROPPED);
        try (ScriptedPeer intruder = new ScriptedPeer("127.0.0.4")) {
            intruder.send(write(RQ_PSN, rw.addr(0), rw.mr().rkey(), 64).bytes(), JRDMA);
            intruder.send(sendOnly(RQ_PSN, 16).bytes(), JRDMA);
            intruder.assertQuiet(100);
        }
        expectDroppedAndStillServing(RQ_PSN, dropped, 2);
        assertUntouched();
    }

    @Test
    void aBadIcrcIsDroppedAndCounted() throws Exception {
        CanaryBuffer rw = region(Endpoint.ALL_ACCESS);
        long bad = counters().get(Counter.RCVD_ICRC_ERR);
        peer.send(write(RQ_PSN, rw.addr(0), rw.mr().rkey(), 64).bytes(), JRDMA, 0x0100_0000);
        peer.assertQuiet(100);
        assertThat(counters().get(Counter.RCVD_ICRC_ERR) - bad).isEqualTo(1);
        expectDroppedAndStillServing(RQ_PSN, 0, 0);
        assertUntouched();
    }

    @Test
    void truncatedPacketsAreDropped() throws Exception {
        CanaryBuffer rw = region(Endpoint.ALL_ACCESS);
        long dropped = counters().get(Counter.RCVD_DROPPED);
        byte[] w = write(RQ_PSN, rw.addr(0), rw.mr().rkey(), 64).bytes();
        int[] cuts = {Bth.LENGTH + 4, Bth.LENGTH + 8, Bth.LENGTH + 15}; // inside the RETH
        for (int cut : cuts) {
            peer.send(java.util.Arrays.copyOf(w, cut), JRDMA);
        }
        peer.sendRaw(new byte[] {0x04, 0, (byte) 0xff}, JRDMA); // shorter than a BTH
        peer.sendRaw(new byte[0], JRDMA);
        expectDroppedAndStillServing(RQ_PSN, dropped, cuts.length);
        assertUntouched();
    }

    @Test
    void aPayloadAboveThePathMtuIsNakedAsAnInvalidRequest() throws Exception {
        // The negotiated maximum of RoCE is the path MTU (1024 here): rxe check_length.
        CanaryBuffer rw = region(Endpoint.ALL_ACCESS);
        CanaryBuffer rq = region(Access.LOCAL_WRITE);
        e.qp.postRecv(new RecvWr().wrId(1).sg(rq.mr(), 0, SIZE));
        send(sendOnly(RQ_PSN, 2048));
        expectNak(Aeth.NAK_INVALID_REQUEST, RQ_PSN);
        expectFatal(AsyncEventType.QP_REQ_ERR);
        WorkCompletion wc = e.poll();
        assertThat(wc.wrId()).isEqualTo(1);
        assertThat(wc.status()).isEqualTo(WcStatus.LOC_LEN_ERR);
        assertThat(rw).isNotNull();
        assertUntouched();
    }

    @Test
    void oversizedAndNegativeDmaLengthsAreNakedAsInvalidRequests() throws Exception {
        CanaryBuffer rw = region(Endpoint.ALL_ACCESS);
        // A READ of 0xFFFFFFFF bytes ("-1"): above the 2 GiB rxe allows.
        send(read(RQ_PSN, rw.addr(0), rw.mr().rkey(), -1));
        expectNak(Aeth.NAK_INVALID_REQUEST, RQ_PSN);
        expectFatal(AsyncEventType.QP_REQ_ERR);
        assertUntouched();
    }

    @Test
    void aWriteWhoseDmaLengthDisagreesWithItsPayloadIsNakedAsAnInvalidRequest() throws Exception {
        CanaryBuffer rw = region(Endpoint.ALL_ACCESS);
        send(PacketBuilder.of(IbOpcode.RC_RDMA_WRITE_ONLY, qpn(), RQ_PSN, true, 64).reth(rw.addr(0), rw.mr().rkey(),
                32).payload(DataPattern.bytes(1, 64)));
        expectNak(Aeth.NAK_INVALID_REQUEST, RQ_PSN);
        expectFatal(AsyncEventType.QP_REQ_ERR);
        assertUntouched();
    }

    // ================================================================================== rkeys

    @Test
    void anUnknownRkeyIsARemoteAccessError() throws Exception {
        region(Endpoint.ALL_ACCESS);
        send(write(RQ_PSN, e.mr.address(), 0x00FEED01, 64));
        expectNak(Aeth.NAK_REMOTE_ACCESS_ERROR, RQ_PSN);
        expectFatal(AsyncEventType.QP_ACCESS_ERR);
        assertUntouched();
    }

    @Test
    void anRkeyOfAnotherPdIsARemoteAccessError() throws Exception {
        ProtectionDomain pd2 = e.ctx.allocPd();
        CanaryBuffer foreign = region(pd2, Endpoint.ALL_ACCESS);
        send(read(RQ_PSN, foreign.addr(0), foreign.mr().rkey(), 64));
        expectNak(Aeth.NAK_REMOTE_ACCESS_ERROR, RQ_PSN);
        expectFatal(AsyncEventType.QP_ACCESS_ERR);
        assertUntouched();
        foreign.mr().close();
        pd2.close();
    }

    @Test
    void aDeregisteredRkeyIsARemoteAccessError() throws Exception {
        CanaryBuffer gone = region(Endpoint.ALL_ACCESS);
        int rkey = gone.mr().rkey();
        gone.mr().close();
        send(write(RQ_PSN, gone.addr(0), rkey, 64));
        expectNak(Aeth.NAK_REMOTE_ACCESS_ERROR, RQ_PSN);
        expectFatal(AsyncEventType.QP_ACCESS_ERR);
        assertUntouched();
    }

    @Test
    void anInvalidatedRkeyIsARemoteAccessError() throws Exception {
        CanaryBuffer victim = region(Endpoint.ALL_ACCESS);
        CanaryBuffer rq = region(Access.LOCAL_WRITE);
        e.qp.postRecv(new RecvWr().wrId(1).sg(rq.mr(), 0, 64));
        send(PacketBuilder.of(IbOpcode.RC_SEND_ONLY_WITH_INVALIDATE, qpn(), RQ_PSN, true, 8).payload(new byte[8])
                .ieth(victim.mr().rkey()));
        byte[] answer = peer.receive(2000);
        if (!aeth(answer).isAck()) {
            // rxe invalidates only memory windows and fast-registered regions: the SEND is refused whole.
            assertThat(aeth(answer).syndrome()).isEqualTo(Aeth.TYPE_NAK | Aeth.NAK_INVALID_REQUEST);
            assertThat(e.poll().status()).isEqualTo(WcStatus.REM_INV_REQ_ERR);
            expectFatal(AsyncEventType.QP_REQ_ERR);
            assertThat(victim.mr().isValid()).isTrue();
            assertUntouched();
            return;
        }
        assertThat(e.poll().status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(victim.mr().isValid()).isFalse();
        before.set(1, rq.snapshot());
        send(write(RQ_PSN + 1, victim.addr(0), victim.mr().rkey(), 64));
        expectNak(Aeth.NAK_REMOTE_ACCESS_ERROR, RQ_PSN + 1);
        expectFatal(AsyncEventType.QP_ACCESS_ERR);
        assertUntouched();
    }

    @Test
    void offsetPlusLengthBeyondTheRegionIsARemoteAccessErrorAndNothingIsPlaced() throws Exception {
        CanaryBuffer rw = region(Endpoint.ALL_ACCESS);
        send(write(RQ_PSN, rw.addr(SIZE - 8), rw.mr().rkey(), 16));
        expectNak(Aeth.NAK_REMOTE_ACCESS_ERROR, RQ_PSN);
        expectFatal(AsyncEventType.QP_ACCESS_ERR);
        assertUntouched();
    }

    @Test
    void aReadBeyondTheRegionOrBeforeItIsARemoteAccessError() throws Exception {
        CanaryBuffer rw = region(Endpoint.ALL_ACCESS);
        send(read(RQ_PSN, rw.addr(0) - 8, rw.mr().rkey(), 16));
        expectNak(Aeth.NAK_REMOTE_ACCESS_ERROR, RQ_PSN);
        expectFatal(AsyncEventType.QP_ACCESS_ERR);
        assertUntouched();
    }

    @Test
    void aWriteToAReadOnlyRegionIsARemoteAccessError() throws Exception {
        CanaryBuffer ro = region(Access.LOCAL_WRITE | Access.REMOTE_READ);
        send(write(RQ_PSN, ro.addr(0), ro.mr().rkey(), 64));
        expectNak(Aeth.NAK_REMOTE_ACCESS_ERROR, RQ_PSN);
        expectFatal(AsyncEventType.QP_ACCESS_ERR);
        assertUntouched();
    }

    @Test
    void aReadFromARegionWithoutRemoteReadIsARemoteAccessErrorAndReturnsNoData() throws Exception {
        CanaryBuffer wo = region(Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        send(read(RQ_PSN, wo.addr(0), wo.mr().rkey(), 64));
        expectNak(Aeth.NAK_REMOTE_ACCESS_ERROR, RQ_PSN);
        expectFatal(AsyncEventType.QP_ACCESS_ERR);
        assertUntouched();
    }

    // ================================================================================== resources, sequence

    @Test
    void moreReadsThanTheResponderResourcesAreServedInOrderAsRxeDoes() throws Exception {
        // rxe keeps max_dest_rd_atomic (2 here) replay records and recycles the oldest; it does not NAK a
        // third outstanding READ. What matters: every answer carries the right bytes, in PSN order.
        CanaryBuffer rw = region(Endpoint.ALL_ACCESS);
        for (int i = 0; i < 4; i++) {
            send(read(RQ_PSN + i, rw.addr(100L * i), rw.mr().rkey(), 64));
        }
        for (int i = 0; i < 4; i++) {
            byte[] r = peer.receive(2000);
            assertThat(bth(r).opcode()).isEqualTo(IbOpcode.RC_RDMA_READ_RESPONSE_ONLY.code());
            assertThat(bth(r).psn()).isEqualTo(RQ_PSN + i);
            byte[] data = java.util.Arrays.copyOfRange(r, Bth.LENGTH + Aeth.LENGTH, Bth.LENGTH + Aeth.LENGTH + 64);
            assertThat(data).isEqualTo(java.util.Arrays.copyOfRange(before.get(0), 100 * i, 100 * i + 64));
        }
        assertThat(e.qp.state()).isEqualTo(QpState.RTS);
        assertUntouched();
    }

    @Test
    void aReadToAQpWithoutResponderResourcesIsAnInvalidRequest() throws Exception {
        e.close();
        e = Endpoint.rc("rxe0", 4096);
        Endpoint.toRts(e, Gid.of(InetAddress.getByName(ScriptedPeer.ADDRESS)), PEER_QPN, SQ_PSN, RQ_PSN,
                new Endpoint.Options().rdAtomic(0));
        CanaryBuffer rw = region(Endpoint.ALL_ACCESS);
        send(read(RQ_PSN, rw.addr(0), rw.mr().rkey(), 64));
        expectNak(Aeth.NAK_INVALID_REQUEST, RQ_PSN);
        expectFatal(AsyncEventType.QP_REQ_ERR);
        assertUntouched();
    }

    @Test
    void anOutOfOrderPsnGetsOneSequenceNakAndPlacesNothing() throws Exception {
        CanaryBuffer rw = region(Endpoint.ALL_ACCESS);
        send(write(RQ_PSN + 3, rw.addr(0), rw.mr().rkey(), 64));
        expectNak(Aeth.NAK_PSN_SEQUENCE_ERROR, RQ_PSN);
        send(write(RQ_PSN + 7, rw.addr(64), rw.mr().rkey(), 64));
        peer.assertQuiet(100);
        assertThat(e.qp.state()).as("class B: the QP stays usable").isEqualTo(QpState.RTS);
        assertUntouched();
        expectDroppedAndStillServing(RQ_PSN, 0, 0);
    }

    @Test
    void aSendWithNoReceivePostedGetsAnRnrNakAndPlacesNothing() throws Exception {
        region(Access.LOCAL_WRITE);
        send(sendOnly(RQ_PSN, 32));
        byte[] rnr = peer.receive(2000);
        assertThat(aeth(rnr).isRnrNak()).isTrue();
        assertThat(e.qp.state()).isEqualTo(QpState.RTS);
        assertUntouched();
        expectDroppedAndStillServing(RQ_PSN, 0, 0);
    }
}
