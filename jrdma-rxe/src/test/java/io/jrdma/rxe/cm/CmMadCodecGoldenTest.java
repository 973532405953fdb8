package io.jrdma.rxe.cm;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.internal.cm.ib.CmaHeader;
import io.jrdma.cm.RejectReason;
import io.jrdma.rxe.golden.GoldenFrame;
import io.jrdma.internal.roce.Bth;
import io.jrdma.internal.roce.Icrc;
import io.jrdma.spi.ibcm.CmMessage;
import io.jrdma.spi.ibcm.CmPath;
import io.jrdma.spi.ibcm.Drep;
import io.jrdma.spi.ibcm.Dreq;
import io.jrdma.spi.ibcm.Mra;
import io.jrdma.spi.ibcm.Octets;
import io.jrdma.spi.ibcm.Rej;
import io.jrdma.spi.ibcm.Rep;
import io.jrdma.spi.ibcm.Req;
import io.jrdma.spi.ibcm.Rtu;
import io.jrdma.spi.ibcm.SidrRep;
import io.jrdma.spi.ibcm.SidrReq;
import io.jrdma.verbs.Gid;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** CM MADs captured from Linux 6.1 rxe/ib_cm/rdma_cm: decoded field by field and re-encoded byte for byte. */
class CmMadCodecGoldenTest {
    private static final long GUEST_GUID = 0x505400fffe123457L;
    private static final int HOST_COMM_ID = 0x0c0ffee1;

    static List<GoldenFrame> cmFrames() {
        return GoldenFrame.all().stream().filter(f -> f.name().contains("cm-")).toList();
    }

    private static CmMad decode(String name) {
        GoldenFrame f = GoldenFrame.named(name);
        CmDecodeResult r = CmMadCodec.decodeDatagram(f.payload(), 0, f.payloadLength());
        assertThat(r).isInstanceOf(CmDecodeResult.Decoded.class);
        return ((CmDecodeResult.Decoded) r).mad();
    }

    private static InetAddress ip(String dotted) throws Exception {
        return InetAddress.getByName(dotted);
    }

    @Test
    void theFixturesHoldEveryCmMessageLinuxSent() {
        assertThat(cmFrames().stream().filter(GoldenFrame::fromLinux)
                .map(f -> decode(f.name()).message().attributeId()).distinct().sorted().toList())
                .containsExactly(CmMessage.ATTR_REQ, CmMessage.ATTR_MRA, CmMessage.ATTR_REJ, CmMessage.ATTR_REP,
                        CmMessage.ATTR_RTU, CmMessage.ATTR_DREQ, CmMessage.ATTR_DREP, CmMessage.ATTR_SIDR_REQ,
                        CmMessage.ATTR_SIDR_REP);
    }

    @ParameterizedTest
    @MethodSource("cmFrames")
    void reEncodesEveryCapturedDatagramByteForByte(GoldenFrame f) {
        MemorySegment in = f.payload();
        CmMad mad = ((CmDecodeResult.Decoded) CmMadCodec.decodeDatagram(in, 0, f.payloadLength())).mad();
        Bth bth = new Bth().wrap(in, 0);
        MemorySegment out = MemorySegment.ofArray(new byte[CmMadCodec.DATAGRAM_LENGTH]);
        int n = CmMadCodec.encodeDatagram(mad, bth.pkey(), bth.psn(), out, 0);
        assertThat(n).isEqualTo(f.payloadLength());
        byte[] expected = in.toArray(ValueLayout.JAVA_BYTE);
        byte[] actual = out.toArray(ValueLayout.JAVA_BYTE);
        assertThat(Arrays.copyOf(actual, n - Icrc.LENGTH)).as("BTH, DETH and MAD")
                .isEqualTo(Arrays.copyOf(expected, n - Icrc.LENGTH));
        if (f.ipId() == 0) {
            // sent with IPv4 id 0 + DF: the sealed datagram is the captured one, ICRC included
            new Icrc().sealIpv4ForSend(out, 0, n, f.source(), f.destination(), f.sourcePort(), f.destinationPort());
            assertThat(out.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(expected);
        }
    }

    @ParameterizedTest
    @MethodSource("cmFrames")
    void theMadAloneRoundTrips(GoldenFrame f) {
        MemorySegment mad = f.payload().asSlice(CmMadCodec.DATAGRAM_MAD_OFFSET, CmMadCodec.MAD_LENGTH);
        CmDecodeResult r = CmMadCodec.decode(mad, 0, CmMadCodec.MAD_LENGTH);
        assertThat(CmMadCodec.encode(((CmDecodeResult.Decoded) r).mad())).isEqualTo(mad.toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void rdmaCmReqCarriesWhatRpingClientAsked() throws Exception {
        CmMad mad = decode("cm-req-rping-client");
        Req req = (Req) mad.message();
        assertThat(req.serviceId()).as("RDMA_PS_TCP << 16 | 7174").isEqualTo(0x0000000001061c06L);
        assertThat(req.localCaGuid()).isEqualTo(GUEST_GUID);
        assertThat(req.localQkey()).isZero();
        assertThat(req.responderResources()).isEqualTo(1);
        assertThat(req.initiatorDepth()).isEqualTo(1);
        assertThat(req.localEecn()).isZero();
        assertThat(req.remoteEecn()).isZero();
        assertThat(req.remoteCmResponseTimeout()).isEqualTo(20);
        assertThat(req.localCmResponseTimeout()).isEqualTo(20);
        assertThat(req.transportServiceType()).isEqualTo(Req.TRANSPORT_RC);
        assertThat(req.endToEndFlowControl()).isFalse();
        assertThat(req.retryCount()).isEqualTo(7);
        assertThat(req.rnrRetryCount()).isEqualTo(7);
        assertThat(req.maxCmRetries()).isEqualTo(15);
        assertThat(req.partitionKey()).isEqualTo(0xffff);
        assertThat(req.pathMtu()).as("1024, rxe active_mtu on a 1500-byte link").isEqualTo(3);
        assertThat(req.srq()).isFalse();
        assertThat(req.vendorId()).isZero();
        assertThat(req.eceOptions()).isZero();
        assertThat(req.sapSupported()).isFalse();
        CmPath p = req.primaryPath();
        assertThat(p.localLid()).as("permissive LID on routable RoCEv2").isEqualTo(0xffff);
        assertThat(p.remoteLid()).isEqualTo(0xffff);
        assertThat(p.localGid()).isEqualTo(Gid.of(ip("10.0.4.15")));
        assertThat(p.remoteGid()).isEqualTo(Gid.of(ip("10.0.4.2")));
        assertThat(p.hopLimit()).isEqualTo(64);
        assertThat(p.subnetLocal()).isFalse();
        assertThat(p.localAckTimeout()).isEqualTo(19);
        assertThat(req.alternatePath()).isEqualTo(CmPath.NONE);
        CmaHeader h = CmaHeader.decode(req.privateData()).orElseThrow();
        assertThat(h.cmaVersion()).isZero();
        assertThat(h.sourceAddress()).isEqualTo(ip("10.0.4.15"));
        assertThat(h.destinationAddress()).isEqualTo(ip("10.0.4.2"));
        // rdma_cm derives the flow label from its ports: (sport * 31 + dport) & 0xFFFFF
        assertThat(p.flowLabel()).isEqualTo((h.sourcePort() * 31 + 7174) & 0xfffff);
        // ib_cm's TID: agent high word 2, low word = local comm id in little-endian byte order
        assertThat(mad.transactionId() >>> 32).isEqualTo(2);
        assertThat((int) mad.transactionId()).isEqualTo(Integer.reverseBytes(req.localCommId()));
        assertThat(req.privateData().length()).isEqualTo(Req.PRIVATE_DATA_LIMIT);
    }

    @Test
    void theDataQpUsesTheUdpSourcePortDerivedFromTheReqFlowLabel() {
        Req req = (Req) decode("cm-req-rping-client").message();
        int fl = req.primaryPath().flowLabel();
        int sport = 0xc000 | ((fl & 0x3fff) ^ ((fl & 0xfc000) >>> 14));     // rdma_flow_label_to_udp_sport
        assertThat(GoldenFrame.named("rc-send-only").sourcePort()).isEqualTo(sport);
        assertThat(GoldenFrame.named("rc-ack").sourcePort()).isEqualTo(sport);
    }

    @Test
    void repFromRdmaCmAnswersOurReq() {
        CmMad mad = decode("cm-rep-rping-server");
        Rep rep = (Rep) mad.message();
        assertThat(rep.remoteCommId()).isEqualTo(HOST_COMM_ID);
        assertThat(mad.transactionId()).as("the REQ's TID").isEqualTo(0x4a524d4100000101L);
        assertThat(rep.localQkey()).isZero();
        assertThat(rep.localEecn()).isZero();
        assertThat(rep.responderResources()).isEqualTo(1);
        assertThat(rep.initiatorDepth()).isEqualTo(1);
        assertThat(rep.targetAckDelay()).as("rxe local_ca_ack_delay").isEqualTo(15);
        assertThat(rep.failoverAccepted()).isZero();
        assertThat(rep.endToEndFlowControl()).isFalse();
        assertThat(rep.rnrRetryCount()).isEqualTo(7);
        assertThat(rep.srq()).isFalse();
        assertThat(rep.localCaGuid()).isEqualTo(GUEST_GUID);
        assertThat(rep.privateData()).isEqualTo(Octets.of(new byte[Rep.PRIVATE_DATA_LIMIT]));
        // the PSN the guest expects to receive: the host's first SEND of that capture carried it
        // (interop/capture/logs/a-rping-2500.peer.log, "SEND start advert ... psn=0xe9ca85")
        assertThat(rep.startingPsn()).isEqualTo(0xe9ca85);
    }

    @Test
    void rtuDreqAndDrepNameBothEnds() {
        Req req = (Req) decode("cm-req-rping-client").message();
        Rep ourRep = (Rep) decode("host-cm-rep").message();
        Rtu rtu = (Rtu) decode("cm-rtu").message();
        assertThat(rtu.localCommId()).isEqualTo(req.localCommId());
        assertThat(rtu.remoteCommId()).isEqualTo(ourRep.localCommId());
        assertThat(decode("cm-rtu").transactionId()).as("RTU reuses the REQ's TID")
                .isEqualTo(decode("cm-req-rping-client").transactionId());
        Dreq dreq = (Dreq) decode("cm-dreq-active-side").message();
        assertThat(dreq.localCommId()).isEqualTo(req.localCommId());
        assertThat(dreq.remoteQpnEecn()).isEqualTo(ourRep.localQpn());
        Drep drep = (Drep) decode("cm-drep").message();
        assertThat(drep.remoteCommId()).isEqualTo(HOST_COMM_ID);
        assertThat(decode("cm-drep").transactionId()).as("DREP echoes the DREQ's TID")
                .isEqualTo(decode("host-cm-dreq").transactionId());
        Dreq passive = (Dreq) decode("cm-dreq-passive-side").message();
        assertThat(passive.remoteCommId()).isEqualTo(HOST_COMM_ID);
    }

    @Test
    void mraAcknowledgesTheDuplicateMessageWithRdmaCmsServiceTimeout() {
        Mra forReq = (Mra) decode("cm-mra-req").message();
        assertThat(forReq.messageMraed()).isEqualTo(Mra.MRAED_REQ);
        assertThat(forReq.serviceTimeout()).as("CMA_CM_MRA_SETTING & 0x1f").isEqualTo(24);
        assertThat(forReq.remoteCommId()).isEqualTo(HOST_COMM_ID);
        Mra forRep = (Mra) decode("cm-mra-rep").message();
        assertThat(forRep.messageMraed()).isEqualTo(Mra.MRAED_REP);
        assertThat(forRep.serviceTimeout()).isEqualTo(24);
    }

    @Test
    void rejReasonsAndTheirInformation() {
        Rej timeout = (Rej) decode("cm-rej-timeout").message();
        assertThat(timeout.rejectReason()).isEqualTo(RejectReason.TIMEOUT);
        assertThat(timeout.messageRejected()).isEqualTo(Rej.REJECTED_OTHER);
        assertThat(timeout.remoteCommId()).isZero();
        assertThat(timeout.additionalRejectInfo()).as("ARI = the local CA GUID")
                .isEqualTo(Octets.of(HexFormat.of().parseHex("505400fffe123457")));
        Rej noListener = (Rej) decode("cm-rej-invalid-service-id").message();
        assertThat(noListener.rejectReason()).isEqualTo(RejectReason.INVALID_SERVICE_ID);
        assertThat(noListener.messageRejected()).isEqualTo(Rej.REJECTED_REQ);
        assertThat(noListener.localCommId()).isZero();
        assertThat(noListener.remoteCommId()).isEqualTo(0x0c0ffee9);
        assertThat(noListener.additionalRejectInfo().length()).isZero();
        Rej consumer = (Rej) decode("cm-rej-consumer").message();
        assertThat(consumer.reason()).isEqualTo(28);
        assertThat(RejectReason.of(consumer.reason()).message()).isEqualTo("consumer defined");
    }

    @Test
    void sidrResolvesAPsUdpServiceToQpnAndRdmaCmsQkey() throws Exception {
        SidrReq req = (SidrReq) decode("cm-sidr-req").message();
        assertThat(req.serviceId()).as("RDMA_PS_UDP << 16 | 7174").isEqualTo(0x0000000001111c06L);
        assertThat(req.partitionKey()).isEqualTo(0xffff);
        CmaHeader h = CmaHeader.decode(req.privateData()).orElseThrow();
        assertThat(h.sourceAddress()).isEqualTo(ip("10.0.4.15"));
        assertThat(h.destinationAddress()).isEqualTo(ip("10.0.4.2"));
        SidrRep rep = (SidrRep) decode("cm-sidr-rep").message();
        assertThat(rep.status()).isEqualTo(SidrRep.STATUS_VALID);
        assertThat(rep.qkey()).as("RDMA_UDP_QKEY").isEqualTo(0x01234567);
        assertThat(rep.serviceId()).isEqualTo(0x0000000001111c06L);
        assertThat(rep.requestId()).isEqualTo(0x5a5a0001);
        assertThat(rep.additionalInfo().length()).isZero();
        // udaddy's UD replies come from that QPN and carry it as immediate data
        MemorySegment ud = GoldenFrame.named("ud-send-only-imm-server").payload();
        assertThat(ud.get(io.jrdma.internal.roce.BigEndian.U32, 16) & 0xffffff).isEqualTo(rep.qpn());
    }
}
