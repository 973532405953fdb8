package io.jrdma.rxe;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.internal.capture.PacketTap;
import io.jrdma.internal.capture.RoceFrames;
import io.jrdma.internal.roce.IbOpcode;
import io.jrdma.internal.roce.Icrc;
import io.jrdma.testkit.Await;
import io.jrdma.testkit.Pcap;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.PacketCapture;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Packet capture on rxe: a device capture of rxe0 and a QP capture on rxe1 hold the RoCEv2 packets as
 * they crossed the sockets (IPv4 with the identification the ICRC covers, UDP 4791, BTH to ICRC),
 * the CM's MADs on QP1 included; every captured ICRC checks; tshark decodes them as InfiniBand with
 * their opcodes and the CM's ConnectRequest and ConnectReject.
 */
class CaptureIT {
    @TempDir
    Path dir;
    private Endpoint a;
    private Endpoint b;

    @AfterEach
    void close() {
        if (a != null) {
            a.close();
        }
        if (b != null) {
            b.close();
        }
    }

    /** The ICRC of a captured IPv4 RoCEv2 packet, recomputed with rxe's implementation. */
    private static void assertIcrc(byte[] ip) {
        MemorySegment s = MemorySegment.ofArray(ip);
        int src = s.get(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 12);
        int dst = s.get(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 16);
        int sport = (ip[20] & 0xff) << 8 | ip[21] & 0xff;
        int dport = (ip[22] & 0xff) << 8 | ip[23] & 0xff;
        int id = (ip[4] & 0xff) << 8 | ip[5] & 0xff;
        int flags = (ip[6] & 0xff) << 8 | ip[7] & 0xff;
        int len = ip.length - 28;
        MemorySegment pkt = MemorySegment.ofArray(java.util.Arrays.copyOfRange(ip, 28, ip.length));
        assertThat(new Icrc().ipv4(pkt, 0, len, src, dst, sport, dport, id, flags))
                .as("ICRC of a captured packet (id 0x%04x)", id).isEqualTo(Icrc.stored(pkt, 0, len));
    }

    @Test
    void deviceAndQpCapturesHoldEveryPacketWithAValidIcrc() throws Exception {
        a = Endpoint.rc("rxe0", 1 << 16);
        b = Endpoint.rc("rxe1", 1 << 16);
        Endpoint.connect(a, b, new Endpoint.Options());
        Path devFile = dir.resolve("rxe0.pcap");
        Path qpFile = dir.resolve("rxe1-qp.pcap");
        PacketCapture dev = a.ctx.startCapture(devFile);
        PacketCapture qp = b.qp.startCapture(qpFile);
        b.qp.postRecv(new RecvWr().wrId(1).sg(b.mr, 0, 4096));
        a.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(a.mr, 0, 3000));
        assertThat(a.poll().status()).isEqualTo(WcStatus.SUCCESS);
        a.qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                .sg(a.mr, 8192, 2500).rdma(b.mr.address(), b.mr.rkey()));
        assertThat(a.poll().status()).isEqualTo(WcStatus.SUCCESS);
        // The completion need not be the last packet: a READ request re-sent on a timeout that fired while
        // its reply was on the way (a loaded host) is answered a second time, and that reply reaches rxe0
        // after the READ completed. Close once both captures hold the same packets, so neither misses it.
        Await.until("rxe0's device capture and rxe1's QP capture to hold the same packets", Duration.ofSeconds(5),
                () -> dev.packets() == qp.packets());
        dev.close();
        qp.close();
        List<byte[]> devRecs = Pcap.records(devFile);
        List<byte[]> qpRecs = Pcap.records(qpFile);
        assertThat(devRecs).hasSize((int) dev.packets());
        assertThat(qpRecs).hasSize((int) qp.packets());
        assertThat(qpRecs.size()).as("what rxe1's QP saw is what rxe0 sent and received").isEqualTo(devRecs.size());
        for (byte[] r : devRecs) {
            assertIcrc(r);
        }
        for (byte[] r : qpRecs) {
            assertIcrc(r);
        }
        String v = Pcap.tshark(devFile, "-V");
        assertThat(v).contains("InfiniBand", "Base Transport Header", "Reliable Connection (RC) - SEND First",
                "Reliable Connection (RC) - SEND Last", "Reliable Connection (RC) - Acknowledge",
                "Reliable Connection (RC) - RDMA READ Request", "Reliable Connection (RC) - RDMA READ response Last",
                "Src: 127.0.0.1, Dst: 127.0.0.2", "Dst Port: 4791");
    }

    @Test
    void aDeviceCaptureHoldsTheCmMadsOfARejectedConnect() throws Exception {
        Path file = dir.resolve("cm.pcap");
        try (RdmaCm cm = RdmaCm.open("rxe0", "rxe1"); EventChannel ch = cm.createEventChannel()) {
            CmId client = ch.createId("client", PortSpace.TCP, QpType.RC);
            PacketCapture cap = null;
            try {
                client.resolveAddr(new InetSocketAddress("127.0.0.1", 0), new InetSocketAddress("127.0.0.2", 7398),
                        Duration.ofSeconds(5));
                ch.ackEvent(ch.getEvent(Duration.ofSeconds(5)));
                client.resolveRoute(Duration.ofSeconds(5));
                ch.ackEvent(ch.getEvent(Duration.ofSeconds(5)));
                cap = client.verbs().startCapture(file);
                ProtectionDomain pd = client.verbs().allocPd();
                CompletionQueue cq = client.verbs().createCq(4);
                client.createQp(pd, QpInitAttr.rc(cq, QpCap.of(2, 2)));
                client.connect(ConnParam.defaults());
                var rej = ch.getEvent(Duration.ofSeconds(10));
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
        String v = Pcap.tshark(file, "-V");
        assertThat(v).contains("MAD Header - Common Management Datagram", "ConnectRequest", "ConnectReject");
    }

    @Test
    void coresSyntheticFramesCarryTheIcrcRxeComputes() {
        PacketTap sink = PacketTap.open(dir.resolve("synthetic.pcap"), () -> { });
        RoceFrames f = new RoceFrames();
        f.bth(IbOpcode.RC_RDMA_WRITE_ONLY.code(), false, 0x12, true, 0x123456).reth(0x1000, 0x77, 5);
        int at = f.payload(5);
        f.segment().asSlice(at, 5).fill((byte) 0x5a);
        f.emit(sink, 0x7f000001, 0x7f000002, 0xC011, 4791);
        sink.close();
        try {
            assertIcrc(Pcap.records(dir.resolve("synthetic.pcap")).get(0));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
