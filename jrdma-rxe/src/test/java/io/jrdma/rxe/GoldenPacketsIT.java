package io.jrdma.rxe;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.rxe.cm.CmDecodeResult;
import io.jrdma.rxe.cm.CmMad;
import io.jrdma.rxe.cm.CmMadCodec;
import io.jrdma.rxe.cm.RxeCm;
import io.jrdma.rxe.golden.GoldenFrame;
import io.jrdma.internal.roce.Bth;
import io.jrdma.internal.roce.IbOpcode;
import io.jrdma.internal.roce.Icrc;
import io.jrdma.spi.ibcm.CmMessage;
import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every packet type jrdma's rxe emits, compared with the same frame Linux 6.1 rxe sent in the golden
 * captures: the QP is set up with the capture's QPNs, PSNs, keys and addresses and made to send
 * the same message to a {@link ScriptedPeer}; BTH, extended headers and payload must be
 * byte-identical (the ICRC differs with the addresses and is checked as a receiver would).
 */
class GoldenPacketsIT {
    private static final int PEER_QPN = 0x123;
    private ScriptedPeer peer;
    private Endpoint e;

    @BeforeEach
    void open() throws Exception {
        peer = new ScriptedPeer();
    }

    @AfterEach
    void close() throws Exception {
        if (e != null) {
            e.close();
        }
        peer.close();
    }

    private static Gid peerGid() throws Exception {
        return Gid.of(InetAddress.getByName(ScriptedPeer.ADDRESS));
    }

    /** An RC QP on rxe0 connected to the scripted peer's QP 0x123. */
    private Endpoint rc(int sqPsn, int rqPsn) throws Exception {
        Endpoint ep = Endpoint.rc("rxe0", 1 << 20);
        Endpoint.toRts(ep, peerGid(), PEER_QPN, sqPsn, rqPsn, new Endpoint.Options().timeout(22));
        return ep;
    }

    /** The fixture's UDP payload without the ICRC. */
    private static byte[] body(GoldenFrame f) {
        byte[] p = f.payload().toArray(ValueLayout.JAVA_BYTE);
        return Arrays.copyOf(p, p.length - Icrc.LENGTH);
    }

    private static byte[] payloadOf(GoldenFrame f) {
        byte[] b = body(f);
        IbOpcode op = IbOpcode.fromCode(b[0] & 0xff);
        int pad = (b[1] >> 4) & 3;
        return Arrays.copyOfRange(b, op.payloadOffset(), b.length - pad);
    }

    private static int psnOf(GoldenFrame f) {
        return Bth.destQpn(f.payload(), 4) & 0xffffff; // bytes 9..11: the PSN
    }

    private byte[] received() throws Exception {
        byte[] p = peer.receive(5000);
        assertThat(Icrc.matchedId(peer.lastMatch)).as("IPv4 id of a DF datagram from an unconnected socket")
                .isZero();
        assertThat(Icrc.matchedFlags(peer.lastMatch)).isEqualTo(0x4000);
        return Arrays.copyOf(p, p.length - Icrc.LENGTH);
    }

    private void expectSame(GoldenFrame f) throws Exception {
        assertThat(received()).as("%s: BTH, extended headers and payload", f.name()).isEqualTo(body(f));
    }

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] all = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, all, at, p.length);
            at += p.length;
        }
        return all;
    }

    // ------------------------------------------------------------------------------------------ requester

    @Test
    void aSendOnlyIsRpingsAdvertisementByteForByte() throws Exception {
        GoldenFrame f = GoldenFrame.named("rc-send-only");
        e = rc(psnOf(f), 0);
        byte[] data = payloadOf(f);
        MemorySegment.copy(data, 0, e.buf, ValueLayout.JAVA_BYTE, 0, data.length);
        e.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sg(e.mr, 0, data.length));
        expectSame(f);
    }

    @Test
    void aThreePacketSendIsFirstMiddleLastAsUcmatoseSendsIt() throws Exception {
        GoldenFrame first = GoldenFrame.named("rc-send-first");
        GoldenFrame middle = GoldenFrame.named("rc-send-middle");
        GoldenFrame last = GoldenFrame.named("rc-send-last");
        e = rc(psnOf(first), 0);
        byte[] data = concat(payloadOf(first), payloadOf(middle), payloadOf(last));
        MemorySegment.copy(data, 0, e.buf, ValueLayout.JAVA_BYTE, 0, data.length);
        e.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sg(e.mr, 0, data.length));
        expectSame(first);
        expectSame(middle);
        expectSame(last);
    }

    @Test
    void aThreePacketWriteCarriesTheRethOnlyOnItsFirstPacket() throws Exception {
        GoldenFrame first = GoldenFrame.named("rc-rdma-write-first");
        GoldenFrame middle = GoldenFrame.named("rc-rdma-write-middle");
        GoldenFrame last = GoldenFrame.named("rc-rdma-write-last");
        e = rc(psnOf(first), 0);
        byte[] data = concat(payloadOf(first), payloadOf(middle), payloadOf(last));
        MemorySegment.copy(data, 0, e.buf, ValueLayout.JAVA_BYTE, 0, data.length);
        MemorySegment reth = first.payload().asSlice(Bth.LENGTH, 16);
        long va = reth.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 0);
        int rkey = reth.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 8);
        e.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sg(e.mr, 0, data.length).rdma(va, rkey));
        expectSame(first);
        expectSame(middle);
        expectSame(last);
    }

    @Test
    void aWriteOnlyAndAReadRequestMatchRpings() throws Exception {
        GoldenFrame write = GoldenFrame.named("rc-rdma-write-only");
        e = rc(psnOf(write), 0);
        byte[] data = payloadOf(write);
        MemorySegment.copy(data, 0, e.buf, ValueLayout.JAVA_BYTE, 0, data.length);
        e.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sg(e.mr, 0, data.length)
                .rdma(0x300000, 0x6161));
        expectSame(write);
        e.close();
        GoldenFrame read = GoldenFrame.named("rc-rdma-read-request");
        e = rc(psnOf(read), 0);
        e.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_READ).sg(e.mr, 0, 2500).rdma(0x200000, 0x5151));
        expectSame(read);
    }

    @Test
    void aUdSendWithImmediateIsUdaddysDatagram() throws Exception {
        GoldenFrame f = GoldenFrame.named("ud-send-only-imm-client");
        e = new Endpoint("rxe0", QpType.UD, 4096, QpCap.of(4, 4));
        e.qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(0x01234567));
        e.qp.modify(new QpAttr().qpState(QpState.RTR));
        e.qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(psnOf(f)));
        byte[] data = payloadOf(f);
        MemorySegment.copy(data, 0, e.buf, ValueLayout.JAVA_BYTE, 0, data.length);
        AddressHandle ah = e.pd.createAh(AhAttr.to(peerGid()));
        int qpn = e.qp.qpNum();
        e.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND_WITH_IMM).immData(qpn).sg(e.mr, 0, data.length)
                .ud(ah, PEER_QPN, 0x01234567));
        byte[] got = received();
        // udaddy's QPN (source QP in the DETH, and the immediate) was 0x1b; ours is what core gave us.
        MemorySegment g = MemorySegment.ofArray(got);
        assertThat(g.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 16)).isEqualTo(qpn);
        assertThat(g.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 20)).isEqualTo(qpn);
        byte[] want = body(f);
        System.arraycopy(got, 16, want, 16, 8);
        assertThat(got).isEqualTo(want);
        ah.close();
    }

    // ------------------------------------------------------------------------------------------ responder

    @Test
    void aReadReplyIsFirstMiddleLastWithTheMsnInTheAeth() throws Exception {
        GoldenFrame first = GoldenFrame.named("rc-rdma-read-response-first");
        GoldenFrame middle = GoldenFrame.named("rc-rdma-read-response-middle");
        GoldenFrame last = GoldenFrame.named("rc-rdma-read-response-last");
        int psn = psnOf(first);
        e = rc(0, psn);
        byte[] data = concat(payloadOf(first), payloadOf(middle), payloadOf(last));
        MemorySegment.copy(data, 0, e.buf, ValueLayout.JAVA_BYTE, 8192, data.length);
        peer.send(PacketBuilder.of(IbOpcode.RC_RDMA_READ_REQUEST, e.qp.qpNum(), psn, true, 0)
                .reth(e.mr.address() + 8192, e.mr.rkey(), data.length).bytes(), "127.0.0.1");
        expectSame(first);
        expectSame(middle);
        expectSame(last);
    }

    @Test
    void aReadResponseOnlyThenAnAckMatchRpingsServerSide() throws Exception {
        GoldenFrame only = GoldenFrame.named("rc-rdma-read-response-only");
        GoldenFrame ack = GoldenFrame.named("rc-ack");
        int psn = psnOf(only);
        e = rc(0, psn);
        byte[] data = payloadOf(only);
        MemorySegment.copy(data, 0, e.buf, ValueLayout.JAVA_BYTE, 0, data.length);
        peer.send(PacketBuilder.of(IbOpcode.RC_RDMA_READ_REQUEST, e.qp.qpNum(), psn, true, 0)
                .reth(e.mr.address(), e.mr.rkey(), data.length).bytes(), "127.0.0.1");
        expectSame(only);
        e.qp.postRecv(new RecvWr().wrId(1).sg(e.mr, 4096, 64));
        peer.send(PacketBuilder.of(IbOpcode.RC_SEND_ONLY, e.qp.qpNum(), psnOf(ack), true, 16)
                .payload(new byte[16]).bytes(), "127.0.0.1");
        expectSame(ack);
    }

    // ------------------------------------------------------------------------------------------ QP1

    @Test
    void cmMadsLeaveFromRxesQp1PortAsTheCapturePeerSentThem() throws Exception {
        RxeCm cm = ((RxeDevice) ((DeviceImpl) Rdma.device("rxe0")).providerDevice()).cm();
        String[] names = {"host-cm-req", "host-cm-rep", "host-cm-rtu", "host-cm-dreq", "host-cm-drep",
            "host-cm-sidr-req", "host-cm-sidr-rep"};
        for (String name : names) {
            GoldenFrame f = GoldenFrame.named(name);
            CmMad mad = ((CmDecodeResult.Decoded) CmMadCodec.decodeDatagram(f.payload(), 0, f.payloadLength())).mad();
            CmMessage m = mad.message();
            cm.send(peerGid(), mad.transactionId(), m);
            byte[] got = received();
            assertThat(peer.lastSender.getPort()).as("QP1's UDP source port").isEqualTo(RxeCm.QP1_SOURCE_PORT);
            byte[] want = body(f);
            // the PSN is the sender's per-port QP1 counter
            System.arraycopy(got, 9, want, 9, 3);
            assertThat(got).as(name).isEqualTo(want);
        }
    }
}
