package io.jrdma.siw.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.siw.SiwDevice;
import io.jrdma.testkit.CmVerbsFixture;
import io.jrdma.testkit.EndpointPair;
import io.jrdma.testkit.Features;
import io.jrdma.testkit.Pcap;
import io.jrdma.testkit.QpOptions;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.PacketCapture;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Packet capture on siw over IPv6: a device capture of a connection on ::1 holds IPv6/TCP segments (the
 * handshake, MPA request and reply, FPDUs) that tshark reassembles and decodes as MPA, DDP and RDMAP.
 */
class CaptureIpv6IT {
    @TempDir
    Path dir;

    private static WorkCompletion poll(CompletionQueue cq) {
        WorkCompletion[] wc = {new WorkCompletion()};
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (cq.poll(wc) == 1) {
                return wc[0];
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no completion within 10 s");
    }

    @Test
    void aCaptureOverIpv6HoldsIpv6TcpSegmentsThatTsharkDecodesAsIwarp() throws Exception {
        Path file = dir.resolve("siw0-v6.pcap");
        PacketCapture cap;
        try (Context dev = Rdma.device("siw0").open();
                CmVerbsFixture f = new CmVerbsFixture("siw0", Features.iwarp(SiwDevice.MAX_INLINE), "::1");
                Arena arena = Arena.ofShared()) {
            cap = dev.startCapture(file);
            try (EndpointPair p = f.connect(QpOptions.rc())) {
                MemorySegment a = arena.allocate(8192);
                MemorySegment b = arena.allocate(8192);
                MemoryRegion ma = p.a().pd().registerMemory(a, Access.LOCAL_WRITE);
                MemoryRegion mb = p.b().pd().registerMemory(b, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
                p.b().qp().postRecv(new RecvWr().wrId(1).sg(mb, 0, 4096));
                p.a().qp().postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
                        .sg(ma, 0, 3000));
                assertThat(poll(p.a().cq()).status()).isEqualTo(WcStatus.SUCCESS);
                assertThat(poll(p.b().cq()).byteLen()).isEqualTo(3000);
                p.a().qp().postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                        .sg(ma, 0, 2000).rdma(mb.address() + 4096, mb.rkey()));
                assertThat(poll(p.a().cq()).status()).isEqualTo(WcStatus.SUCCESS);
            }
            cap.close();
        }
        List<byte[]> recs = Pcap.records(file);
        assertThat(recs).isNotEmpty().allSatisfy(r -> {
            assertThat(r[0] >>> 4 & 0xf).as("IPv6").isEqualTo(6);
            assertThat(r[6]).as("next header TCP").isEqualTo((byte) 6);
        });
        String v = Pcap.tshark(file, "-V");
        assertThat(v).contains("Internet Protocol Version 6, Src: ::1, Dst: ::1",
                "iWARP Marker Protocol data unit Aligned framing", "Request frame header", "Reply frame header",
                "iWARP Direct Data Placement and Remote Direct Memory Access Protocol", "OpCode: Send (0x3)",
                "OpCode: Write (0x0)");
        assertThat(v).doesNotContain("Malformed", "Previous segment not captured");
    }
}
