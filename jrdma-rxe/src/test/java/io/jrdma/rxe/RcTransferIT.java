package io.jrdma.rxe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.verbs.PacketCapture;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.WcFlags;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** RC between rxe0 (127.0.0.1) and rxe1 (127.0.0.2) over real UDP sockets: every operation, verified. */
class RcTransferIT {
    private static final int SIZE = 1 << 20;
    private Endpoint a;
    private Endpoint b;

    @BeforeEach
    void connect() {
        a = Endpoint.rc("rxe0", SIZE);
        b = Endpoint.rc("rxe1", SIZE);
        Endpoint.connect(a, b, new Endpoint.Options());
    }

    @AfterEach
    void close() {
        a.close();
        b.close();
    }

    private static void fill(MemorySegment s, long off, int len, long seed) {
        byte[] bytes = new byte[len];
        new Random(seed).nextBytes(bytes);
        MemorySegment.copy(bytes, 0, s, ValueLayout.JAVA_BYTE, off, len);
    }

    @Test
    void aMultiPacketSendArrivesWholeInTheReceive() {
        int len = 10_000; // 10 packets at MTU 1024
        fill(a.buf, 0, len, 1);
        b.qp.postRecv(new RecvWr().wrId(7).sg(b.mr, 4096, 16_384));
        a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(a.mr, 0, len));
        WorkCompletion s = a.poll();
        assertThat(s.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(s.opcode()).isEqualTo(WcOpcode.SEND);
        WorkCompletion r = b.poll();
        assertThat(r.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(r.wrId()).isEqualTo(7);
        assertThat(r.byteLen()).isEqualTo(len);
        SameBytes.assertSame("SEND", b.buf, 4096, a.buf, 0, len, a, b);
    }

    @Test
    void writeThenReadMoveTheSameBytesBack() throws Exception {
        // a's packets both ways go to a capture, kept only when the bytes are wrong: the evidence of how.
        Path pcap = Files.createDirectories(Path.of("target", "captures"))
                .resolve("RcTransferIT-writeThenRead-" + ProcessHandle.current().pid() + ".pcap");
        boolean keep = true;
        try (PacketCapture capture = a.qp.startCapture(pcap)) {
            int len = 300_000;
            fill(a.buf, 0, len, 2);
            long t0 = System.nanoTime();
            a.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .sg(a.mr, 0, len).rdma(b.mr.address() + 100, b.mr.rkey()));
            assertThat(a.poll().status()).isEqualTo(WcStatus.SUCCESS);
            long us = (System.nanoTime() - t0) / 1_000;
            SameBytes.assertSame("RDMA WRITE (completed " + us + " us after the post; rxe0's packets in "
                    + pcap.toAbsolutePath() + ")", b.buf, 100, a.buf, 0, len, a, b);
            a.qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                    .sg(a.mr, 400_000, len).rdma(b.mr.address() + 100, b.mr.rkey()));
            WorkCompletion rd = a.poll();
            assertThat(rd.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(rd.opcode()).isEqualTo(WcOpcode.RDMA_READ);
            assertThat(rd.byteLen()).isEqualTo(len);
            SameBytes.assertSame("RDMA READ (rxe0's packets in " + pcap.toAbsolutePath() + ")", a.buf, 400_000,
                    a.buf, 0, len, a, b);
            keep = false;
        } finally {
            if (!keep) {
                Files.deleteIfExists(pcap);
            }
        }
    }

    @Test
    void immediateDataArrivesWithSendAndWrite() {
        b.qp.postRecv(new RecvWr().wrId(10).sg(b.mr, 0, 64));
        b.qp.postRecv(new RecvWr().wrId(11).sg(b.mr, 64, 64));
        fill(a.buf, 0, 3000, 3);
        a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND_WITH_IMM).immData(0x12345678).sg(a.mr, 0, 20));
        a.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(0xcafe).sg(a.mr, 0, 3000)
                .rdma(b.mr.address() + 8192, b.mr.rkey()).flags(SendFlags.SIGNALED));
        assertThat(a.poll().wrId()).isEqualTo(2);
        WorkCompletion r1 = b.poll();
        assertThat(r1.wrId()).isEqualTo(10);
        assertThat(r1.immData()).isEqualTo(0x12345678);
        assertThat(r1.wcFlags() & WcFlags.WITH_IMM).isNotZero();
        WorkCompletion r2 = b.poll();
        assertThat(r2.wrId()).isEqualTo(11);
        assertThat(r2.opcode()).isEqualTo(WcOpcode.RECV_RDMA_WITH_IMM);
        assertThat(r2.immData()).isEqualTo(0xcafe);
        assertThat(r2.byteLen()).isEqualTo(3000);
        SameBytes.assertSame("RDMA WRITE with immediate", b.buf, 8192, a.buf, 0, 3000, a, b);
    }

    @Test
    void atomicsReturnTheOriginalValueAndUpdateTheTarget() {
        MemorySegment target = b.buf.asSlice(1024, 8);
        target.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 40);
        a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).flags(SendFlags.SIGNALED)
                .sg(a.mr, 0, 8).atomic(b.mr.address() + 1024, b.mr.rkey(), 2, 0));
        WorkCompletion f = a.poll();
        assertThat(f.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(f.opcode()).isEqualTo(WcOpcode.FETCH_ADD);
        assertThat(a.buf.get(ValueLayout.JAVA_LONG_UNALIGNED, 0)).isEqualTo(40);
        assertThat(target.get(ValueLayout.JAVA_LONG_UNALIGNED, 0)).isEqualTo(42);
        a.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).flags(SendFlags.SIGNALED)
                .sg(a.mr, 8, 8).atomic(b.mr.address() + 1024, b.mr.rkey(), 42, 7));
        assertThat(a.poll().status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(a.buf.get(ValueLayout.JAVA_LONG_UNALIGNED, 8)).isEqualTo(42);
        assertThat(target.get(ValueLayout.JAVA_LONG_UNALIGNED, 0)).isEqualTo(7);
    }

    @Test
    void aWrongTargetIsReportedWithWhereAndWhetherItWasPlacedLate() {
        fill(a.buf, 0, 4096, 4);
        a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sg(a.mr, 0, 4096)
                .rdma(b.mr.address(), b.mr.rkey()));
        assertThat(a.poll().status()).isEqualTo(WcStatus.SUCCESS);
        SameBytes.assertSame("RDMA WRITE", b.buf, 0, a.buf, 0, 4096, a, b);
        byte[] kept = new byte[3];
        MemorySegment.copy(b.buf, ValueLayout.JAVA_BYTE, 1000, kept, 0, 3);
        b.buf.set(ValueLayout.JAVA_BYTE, 1000, (byte) ~kept[0]);
        b.buf.set(ValueLayout.JAVA_BYTE, 1002, (byte) ~kept[2]); // 1001 stays right
        assertThatThrownBy(() -> SameBytes.assertSame("RDMA WRITE", b.buf, 0, a.buf, 0, 4096, a, b))
                .hasMessageContaining("first differing offset 1000, last 1002 (2 of 4096 bytes differ")
                .hasMessageContaining("never placed").hasMessageContaining("comp.psn")
                .hasMessageContaining("resp.psn").hasMessageContaining("rxe1 ");
        assertThatThrownBy(() -> SameBytes.assertSame("RDMA WRITE", b.buf, 0, a.buf, 0, 4096, a, b,
                () -> MemorySegment.copy(kept, 0, b.buf, ValueLayout.JAVA_BYTE, 1000, 3)))
                .hasMessageContaining("first differing offset 1000, last 1002 (2 of 4096 bytes differ")
                .hasMessageContaining("became right");
    }
}
