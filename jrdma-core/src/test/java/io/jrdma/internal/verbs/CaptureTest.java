package io.jrdma.internal.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jrdma.verbs.PacketCapture;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Packet capture on loop0: the loop provider writes the RoCEv2 packets it would have sent (IPv4,
 * UDP 4791, BTH and the extension headers, payload, ICRC) to a pcap file per QP or per device; the
 * file's records are what {@link PacketCapture#packets()} counted, and tshark (where installed)
 * decodes them as InfiniBand with the right opcodes, PSNs and payload.
 */
class CaptureTest {
    @TempDir
    Path dir;

    /** The records of a pcap file: their IP packets. */
    static List<byte[]> records(Path file) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(b.getInt()).as("pcap magic").isEqualTo(0xa1b2c3d4);
        assertThat(b.getShort()).isEqualTo((short) 2);
        assertThat(b.getShort()).isEqualTo((short) 4);
        b.position(20);
        assertThat(b.getInt()).as("LINKTYPE_RAW").isEqualTo(101);
        List<byte[]> out = new ArrayList<>();
        while (b.remaining() >= 16) {
            b.getInt();
            b.getInt();
            int incl = b.getInt();
            int orig = b.getInt();
            assertThat(incl).isEqualTo(orig);
            byte[] p = new byte[incl];
            b.get(p);
            out.add(p);
        }
        assertThat(b.remaining()).isZero();
        return out;
    }

    /** tshark's verbose decode of {@code file}, or a skipped test when tshark is not installed. */
    static String tshark(Path file, String... extra) throws Exception {
        boolean found = false;
        for (String p : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            found |= Files.isExecutable(Path.of(p, "tshark"));
        }
        assumeTrue(found, "tshark is not on PATH");
        List<String> cmd = new ArrayList<>(List.of("tshark", "-n", "-r", file.toString()));
        cmd.addAll(List.of(extra));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("tshark finishes").isTrue();
        String s = new String(out, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(s).isZero();
        return s;
    }

    @Test
    void theCaptureDirectoryPropertyStartsOneCapturePerDevice() throws Exception {
        DeviceImpl loop0 = (DeviceImpl) io.jrdma.verbs.Rdma.device("loop0");
        String old = System.getProperty(DeviceRegistry.CAPTURE_DIR);
        System.setProperty(DeviceRegistry.CAPTURE_DIR, dir.resolve("caps").toString());
        List<PacketCapture> started;
        try {
            started = DeviceRegistry.captureAtStartup(List.of(loop0));
        } finally {
            if (old == null) {
                System.clearProperty(DeviceRegistry.CAPTURE_DIR);
            } else {
                System.setProperty(DeviceRegistry.CAPTURE_DIR, old);
            }
        }
        assertThat(started).hasSize(1);
        try (LoopPair p = new LoopPair()) {
            p.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sg(p.mrA, 0, 10)
                    .rdma(p.mrB.address(), p.mrB.rkey()));
            assertThat(LoopPair.poll(p.cqA).status()).isEqualTo(WcStatus.SUCCESS);
        } finally {
            started.forEach(PacketCapture::close);
        }
        assertThat(started.get(0).file()).isEqualTo(dir.resolve("caps").resolve("loop0.pcap"));
        assertThat(records(started.get(0).file())).as("WRITE and its ACK").hasSize(2);
    }

    @Test
    void aQpCaptureHoldsTheSyntheticRoceV2PacketsOfEveryOperation() throws Exception {
        Path file = dir.resolve("qp.pcap");
        Path devFile = dir.resolve("loop0.pcap");
        try (LoopPair p = new LoopPair()) {
            PacketCapture cap = p.a.startCapture(file);
            PacketCapture dev = p.ctx.startCapture(devFile);
            for (int i = 0; i < 3000; i++) {
                p.mrA.segment().set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) i);
            }
            p.b.postRecv(new RecvWr().wrId(1).sg(p.mrB, 0, 4096));
            p.a.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(p.mrA, 0, 3000));
            assertThat(LoopPair.poll(p.cqA).status()).isEqualTo(WcStatus.SUCCESS);
            p.a.postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sg(p.mrA, 0, 100)
                    .rdma(p.mrB.address() + 8192, p.mrB.rkey()));
            assertThat(LoopPair.poll(p.cqA).status()).isEqualTo(WcStatus.SUCCESS);
            p.a.postSend(new SendWr().wrId(4).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                    .sg(p.mrA, 16384, 2500).rdma(p.mrB.address(), p.mrB.rkey()));
            assertThat(LoopPair.poll(p.cqA).status()).isEqualTo(WcStatus.SUCCESS);
            p.a.postSend(new SendWr().wrId(5).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).flags(SendFlags.SIGNALED)
                    .sg(p.mrA, 32768, 8).atomic(p.mrB.address() + 64, p.mrB.rkey(), 5, 0));
            assertThat(LoopPair.poll(p.cqA).status()).isEqualTo(WcStatus.SUCCESS);
            cap.close();
            dev.close();
            assertThat(cap.packets()).as("SEND 3 + ACK, WRITE + ACK, READ + 3 responses, FetchAdd + ACK")
                    .isEqualTo(12);
            assertThat(dev.packets()).as("both QPs are on loop0: each packet once").isEqualTo(12);
            assertThat(records(devFile)).hasSize(12);
            PacketCapture again = p.a.startCapture(dir.resolve("again.pcap"));
            assertThatThrownBy(() -> p.a.startCapture(dir.resolve("third.pcap")))
                    .isInstanceOf(IllegalStateException.class);
            again.close();
        }
        List<byte[]> recs = records(file);
        assertThat(recs).hasSize(12);
        byte[] first = recs.get(0);
        assertThat(first[0]).as("IPv4").isEqualTo((byte) 0x45);
        assertThat(first[9]).as("UDP").isEqualTo((byte) 17);
        assertThat(((first[22] & 0xff) << 8) | (first[23] & 0xff)).as("to port 4791").isEqualTo(4791);
        assertThat(first[28]).as("BTH opcode RC SEND First").isEqualTo((byte) 0x00);
        String v = tshark(file, "-V");
        assertThat(v).contains("InfiniBand", "Base Transport Header", "RDMA Extended Transport Header",
                "ACK Extended Transport Header", "Atomic Extended Transport Header");
        assertThat(v).contains("Reliable Connection (RC) - SEND First", "Reliable Connection (RC) - SEND Middle",
                "Reliable Connection (RC) - SEND Last", "Reliable Connection (RC) - RDMA WRITE Only",
                "Reliable Connection (RC) - RDMA READ Request", "Reliable Connection (RC) - RDMA READ response First",
                "Reliable Connection (RC) - Acknowledge", "Reliable Connection (RC) - FetchAdd");
    }
}
