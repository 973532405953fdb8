package io.jrdma.rxe;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.internal.roce.Icrc;
import io.jrdma.testkit.Pcap;
import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.PacketCapture;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * RoCEv2 over IPv6 (rxe6 on ::1): the GID is the address itself, the ICRC masks IPv6's fields, a UD
 * receive starts with the IPv6 header, and a capture holds IPv6/UDP frames whose ICRC checks and which
 * tshark decodes as InfiniBand (data and the CM's MADs).
 */
class Ipv6IT {
    @TempDir
    Path dir;

    /** The ICRC of a captured IPv6 RoCEv2 packet (no extension headers), recomputed as rxe does. */
    private static void assertIcrc(byte[] ip) {
        assertThat(ip[0] >>> 4 & 0xf).as("an IPv6 packet").isEqualTo(6);
        assertThat(ip[6]).as("next header UDP").isEqualTo((byte) 17);
        MemorySegment s = MemorySegment.ofArray(ip);
        ValueLayout.OfLong be64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
        int sport = (ip[40] & 0xff) << 8 | ip[41] & 0xff;
        int dport = (ip[42] & 0xff) << 8 | ip[43] & 0xff;
        int len = ip.length - 48;
        MemorySegment pkt = MemorySegment.ofArray(Arrays.copyOfRange(ip, 48, ip.length));
        assertThat(new Icrc().ipv6(pkt, 0, len, s.get(be64, 8), s.get(be64, 16), s.get(be64, 24), s.get(be64, 32),
                sport, dport)).as("ICRC of a captured packet").isEqualTo(Icrc.stored(pkt, 0, len));
    }

    @Test
    void aCaptureOverIpv6HoldsIpv6FramesWithAValidIcrcThatTsharkDecodes() throws Exception {
        Path file = dir.resolve("rxe6.pcap");
        try (Endpoint a = Endpoint.rc("rxe6", 1 << 16); Endpoint b = Endpoint.rc("rxe6", 1 << 16)) {
            Endpoint.connect(a, b, new Endpoint.Options());
            PacketCapture cap = a.ctx.startCapture(file);
            b.qp.postRecv(new RecvWr().wrId(1).sg(b.mr, 0, 4096));
            a.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(a.mr, 0, 3000));
            assertThat(a.poll().status()).isEqualTo(WcStatus.SUCCESS);
            cap.close();
        }
        List<byte[]> recs = Pcap.records(file);
        assertThat(recs).isNotEmpty();
        for (byte[] r : recs) {
            assertIcrc(r);
        }
        String v = Pcap.tshark(file, "-V");
        assertThat(v).contains("Internet Protocol Version 6, Src: ::1, Dst: ::1", "Dst Port: 4791", "InfiniBand",
                "Reliable Connection (RC) - SEND First", "Reliable Connection (RC) - Acknowledge");
    }

    @Test
    void theCmMadsOfARejectedConnectTravelInIpv6AndCarryAnIpv6RdmaCmHeader() throws Exception {
        Path file = dir.resolve("cm6.pcap");
        InetAddress lo = InetAddress.getByName("::1");
        try (RdmaCm cm = RdmaCm.open("rxe6"); EventChannel ch = cm.createEventChannel()) {
            CmId client = ch.createId("client", PortSpace.TCP, QpType.RC);
            PacketCapture cap = null;
            try {
                client.resolveAddr(null, new InetSocketAddress(lo, 7398), Duration.ofSeconds(5));
                ch.ackEvent(ch.getEvent(Duration.ofSeconds(5)));
                client.resolveRoute(Duration.ofSeconds(5));
                ch.ackEvent(ch.getEvent(Duration.ofSeconds(5)));
                assertThat(client.localAddress().getAddress()).isEqualTo(lo);
                cap = client.verbs().startCapture(file);
                ProtectionDomain pd = client.verbs().allocPd();
                CompletionQueue cq = client.verbs().createCq(4);
                client.createQp(pd, QpInitAttr.rc(cq, QpCap.of(2, 2)));
                client.connect(ConnParam.defaults());
                CmEvent rej = ch.getEvent(Duration.ofSeconds(10));
                assertThat(rej.type()).isEqualTo(CmEventType.REJECTED);
                ch.ackEvent(rej);
            } finally {
                if (cap != null) {
                    cap.close();
                }
                client.destroyQp();
                client.destroy();
            }
        }
        List<byte[]> recs = Pcap.records(file);
        assertThat(recs).hasSizeGreaterThanOrEqualTo(2);
        for (byte[] r : recs) {
            assertIcrc(r);
        }
        // The REQ's private data starts with rdma_cm's header: version 0, IP version 6, then the source
        // port and the two 16-byte addresses (::1 both). BTH 12 + DETH 8 + MAD header 24 + REQ up to its
        // private data at offset 140 of the MAD payload (IBTA 12.6.5).
        byte[] req = recs.get(0);
        int pd = 48 + 12 + 8 + 24 + 140;
        assertThat(req[pd + 1] & 0xff).as("cma_hdr IP version nibble").isEqualTo(0x60);
        assertThat(Arrays.copyOfRange(req, pd + 4, pd + 20)).isEqualTo(lo.getAddress());
        assertThat(Arrays.copyOfRange(req, pd + 20, pd + 36)).isEqualTo(lo.getAddress());
        String v = Pcap.tshark(file, "-V");
        assertThat(v).contains("Internet Protocol Version 6", "MAD Header - Common Management Datagram",
                "ConnectRequest", "ConnectReject");
    }
    @Test
    void rcMovesDataOverIpv6() throws Exception {
        try (Endpoint a = Endpoint.rc("rxe6", 1 << 16); Endpoint b = Endpoint.rc("rxe6", 1 << 16)) {
            assertThat(a.gid()).isEqualTo(Gid.of(InetAddress.getByName("::1")));
            assertThat(a.gid().isIpv4Mapped()).isFalse();
            Endpoint.connect(a, b, new Endpoint.Options());
            for (int i = 0; i < 5000; i++) {
                a.buf.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 13));
            }
            b.qp.postRecv(new RecvWr().wrId(1).sg(b.mr, 0, 8192));
            a.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(a.mr, 0, 5000));
            assertThat(a.poll().status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(b.poll().byteLen()).isEqualTo(5000);
            a.qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                    .sg(a.mr, 16384, 5000).rdma(b.mr.address(), b.mr.rkey()));
            assertThat(a.poll().status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(a.buf.asSlice(16384, 5000).toArray(ValueLayout.JAVA_BYTE))
                    .isEqualTo(a.buf.asSlice(0, 5000).toArray(ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void aUdReceiveOverIpv6StartsWithTheSendersIpv6Header() throws Exception {
        try (Endpoint a = new Endpoint("rxe6", QpType.UD, 4096, QpCap.of(4, 4));
                Endpoint b = new Endpoint("rxe6", QpType.UD, 4096, QpCap.of(4, 4))) {
            for (Endpoint e : new Endpoint[] {a, b}) {
                e.qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(0x11111111));
                e.qp.modify(new QpAttr().qpState(QpState.RTR));
                e.qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(0));
            }
            b.qp.postRecv(new RecvWr().wrId(1).sg(b.mr, 0, 1024));
            AddressHandle ah = a.pd.createAh(AhAttr.to(InetAddress.getByName("::1")));
            a.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sg(a.mr, 0, 64)
                    .ud(ah, b.qp.qpNum(), 0x11111111));
            WorkCompletion r = b.poll();
            assertThat(r.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(r.byteLen()).isEqualTo(40 + 64);
            assertThat(r.srcQp()).isEqualTo(a.qp.qpNum());
            assertThat(b.buf.get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 0x60);
            assertThat(b.buf.get(ValueLayout.JAVA_BYTE, 23)).as("source ::1").isEqualTo((byte) 1);
            ah.close();
        }
    }
}
