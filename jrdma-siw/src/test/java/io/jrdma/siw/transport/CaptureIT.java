package io.jrdma.siw.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.siw.SiwConfig;
import io.jrdma.testkit.Pcap;
import io.jrdma.verbs.PacketCapture;
import io.jrdma.verbs.WcStatus;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Packet capture on siw: a device capture started before the connection and a QP capture started on
 * the passive QP while the connection runs both write a TCP stream that opens with a handshake and the
 * MPA request and reply, then the FPDUs, with sequence numbers tshark reassembles; tshark decodes MPA,
 * DDP and RDMAP (SEND, RDMA WRITE, RDMA READ request and response, TERMINATE).
 */
class CaptureIT {
    @TempDir
    Path dir;
    private final Testbed tb = new Testbed();

    @AfterEach
    void close() {
        tb.close();
    }

    @Test
    void deviceAndQpCapturesDecodeAsIwarpInTshark() throws Exception {
        Path devFile = dir.resolve("siw0.pcap");
        Path qpFile = dir.resolve("qp.pcap");
        PacketCapture dev = tb.ctx.startCapture(devFile);
        Testbed.Connected link = tb.connected(tb.cm(SiwConfig.defaults().withMaxSegment(1024)), 4);
        QpImpl a = link.active();
        QpImpl b = link.passive();
        Testbed.Buffer src = tb.buffer(8192, Testbed.ALL);
        Testbed.Buffer dst = tb.buffer(8192, Testbed.ALL);
        Testbed.recv(b, 1, dst, 0, 4096);
        Testbed.post(a, Testbed.send(2, src, 0, 100));
        assertThat(tb.completion().status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(tb.completion().status()).isEqualTo(WcStatus.SUCCESS);
        PacketCapture qp = b.startCapture(qpFile); // joins a running connection
        Testbed.recv(b, 3, dst, 0, 4096);
        Testbed.post(a, Testbed.send(4, src, 0, 3000));
        Testbed.post(a, Testbed.write(5, src, 0, 2000, dst.mr().rkey(), dst.addr(4096)));
        Testbed.post(a, Testbed.read(6, src, 4096, 2500, dst.mr().rkey(), dst.addr(0)));
        for (int i = 0; i < 4; i++) {
            assertThat(tb.completion().status()).isEqualTo(WcStatus.SUCCESS);
        }
        Testbed.post(a, Testbed.write(7, src, 0, 64, 0x7fff_ff00, 0)); // an unknown STag: TERMINATE
        assertThat(tb.completion().status()).isEqualTo(WcStatus.SUCCESS);
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (a.queryCounters().terminateReceived() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        qp.close();
        dev.close();
        List<byte[]> recs = Pcap.records(devFile);
        assertThat(recs).hasSize((int) dev.packets());
        assertThat(recs.get(0)[33] & 0x3f).as("the first segment is a SYN").isEqualTo(0x02);
        String v = Pcap.tshark(devFile, "-V");
        assertThat(v).contains("iWARP Marker Protocol data unit Aligned framing", "Request frame header",
                "Reply frame header", "iWARP Direct Data Placement and Remote Direct Memory Access Protocol");
        assertThat(v).contains("OpCode: Send (0x3)", "OpCode: Write (0x0)", "OpCode: Read Request (0x1)",
                "OpCode: Read Response (0x2)", "OpCode: Terminate (0x7)", "Layer: DDP (0x1)",
                "Error Code for DDP Tagged Buffer: Invalid STag (0x00)", "[Reassembled iWarp RDMA Send length: 3000]");
        assertThat(v).doesNotContain("Malformed", "Spurious Retransmission", "Previous segment not captured");
        String q = Pcap.tshark(qpFile, "-V");
        assertThat(q).contains("Request frame header", "Reply frame header", "OpCode: Write (0x0)",
                "OpCode: Read Request (0x1)", "OpCode: Terminate (0x7)");
        assertThat(q).doesNotContain("Malformed", "Previous segment not captured");
    }
}
