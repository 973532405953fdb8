package io.jrdma.rxe;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.verbs.Counter;
import io.jrdma.rxe.net.FaultInjector;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * RC over a lossy link: the fault injector of both devices loses (and duplicates and reorders) data
 * packets; every message must still arrive exactly once, in order and intact, every atomic execute
 * once, and a dead link must end in RETRY_EXC_ERR.
 */
class LossIT {
    private static final int MESSAGES = 150;
    private static final int SLOT = 8192;
    private Endpoint a;
    private Endpoint b;

    static RxeDevice device(String name) {
        return (RxeDevice) ((DeviceImpl) Rdma.device(name)).providerDevice();
    }

    @AfterEach
    void close() {
        device("rxe0").port().faults().settings(FaultInjector.Settings.NONE);
        device("rxe1").port().faults().settings(FaultInjector.Settings.NONE);
        if (a != null) {
            a.close();
        }
        if (b != null) {
            b.close();
        }
    }

    private static int sizeOf(int i) {
        return 1 + (i * 977) % 5000; // 1 .. 5000 bytes: one to five packets at MTU 1024
    }

    private static void pattern(MemorySegment s, long off, int len, int seed) {
        byte[] bytes = new byte[len];
        new Random(seed).nextBytes(bytes);
        MemorySegment.copy(bytes, 0, s, ValueLayout.JAVA_BYTE, off, len);
    }

    @ParameterizedTest(name = "loss {0}, duplicate {1}, reorder {2}")
    @CsvSource({"0.01, 0, 0", "0.05, 0, 0", "0.20, 0, 0", "0.05, 0.05, 0.05"})
    void everyMessageArrivesOnceAndIntactDespiteTheFaults(double loss, double dup, double reorder) {
        a = new Endpoint("rxe0", io.jrdma.verbs.QpType.RC, 4 << 20, io.jrdma.verbs.QpCap.of(512, 512));
        b = new Endpoint("rxe1", io.jrdma.verbs.QpType.RC, 4 << 20, io.jrdma.verbs.QpCap.of(512, 512));
        Endpoint.connect(a, b, new Endpoint.Options().timeout(11)); // 8.4 ms ACK timeout
        long seed = Long.getLong("jrdma.lossit.seed", 42);
        device("rxe0").port().faults().settings(new FaultInjector.Settings(loss, dup, reorder, seed));
        device("rxe1").port().faults().settings(new FaultInjector.Settings(loss, dup, reorder, seed + 1));
        long t0 = System.nanoTime();
        long injected = device("rxe0").counters().get(Counter.INJECTED_LOSS)
                + device("rxe1").counters().get(Counter.INJECTED_LOSS);

        // SENDs of 1..5 packets
        for (int i = 0; i < MESSAGES; i++) {
            b.qp.postRecv(new RecvWr().wrId(i).sg(b.mr, (long) i * SLOT, SLOT));
            pattern(a.buf, (long) i * SLOT, sizeOf(i), i);
            a.qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
                    .sg(a.mr, (long) i * SLOT, sizeOf(i)));
        }
        List<WorkCompletion> sent = a.poll(MESSAGES, 120_000);
        List<WorkCompletion> recv = b.poll(MESSAGES, 120_000);
        for (int i = 0; i < MESSAGES; i++) {
            assertThat(sent.get(i).status()).as("send %d", i).isEqualTo(WcStatus.SUCCESS);
            assertThat(sent.get(i).wrId()).isEqualTo(i);
            WorkCompletion r = recv.get(i);
            assertThat(r.status()).as("receive %d", i).isEqualTo(WcStatus.SUCCESS);
            assertThat(r.wrId()).isEqualTo(i);
            assertThat(r.byteLen()).isEqualTo(sizeOf(i));
            assertThat(b.buf.asSlice((long) i * SLOT, sizeOf(i)).toArray(ValueLayout.JAVA_BYTE))
                    .as("message %d", i)
                    .isEqualTo(a.buf.asSlice((long) i * SLOT, sizeOf(i)).toArray(ValueLayout.JAVA_BYTE));
        }

        // a 256 KiB WRITE, then READ it back elsewhere
        int big = 256 << 10;
        pattern(a.buf, 2 << 20, big, 99);
        a.qp.postSend(new SendWr().wrId(1000).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                .sg(a.mr, 2 << 20, big).rdma(b.mr.address() + (2 << 20), b.mr.rkey()));
        a.qp.postSend(new SendWr().wrId(1001).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                .sg(a.mr, 3 << 20, big).rdma(b.mr.address() + (2 << 20), b.mr.rkey()));
        List<WorkCompletion> rw = a.poll(2, 120_000);
        assertThat(rw.get(0).status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(rw.get(1).status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(a.buf.asSlice(3 << 20, big).toArray(ValueLayout.JAVA_BYTE))
                .isEqualTo(a.buf.asSlice(2 << 20, big).toArray(ValueLayout.JAVA_BYTE));

        // atomics execute exactly once even when requests or ACKs are lost
        MemorySegment counter = b.buf.asSlice((4 << 20) - 64, 8);
        counter.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 0);
        for (int i = 0; i < 50; i++) {
            a.qp.postSend(new SendWr().wrId(2000 + i).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                    .flags(SendFlags.SIGNALED).sg(a.mr, (4 << 20) - 4096 + 8L * i, 8)
                    .atomic(b.mr.address() + (4 << 20) - 64, b.mr.rkey(), 1, 0));
        }
        List<WorkCompletion> at = a.poll(50, 120_000);
        long[] seen = new long[50];
        for (int i = 0; i < 50; i++) {
            assertThat(at.get(i).status()).isEqualTo(WcStatus.SUCCESS);
            seen[i] = a.buf.get(ValueLayout.JAVA_LONG_UNALIGNED, (4 << 20) - 4096 + 8L * i);
            assertThat(seen[i]).as("fetch-add %d returned the count before it", i).isEqualTo(i);
        }
        assertThat(counter.get(ValueLayout.JAVA_LONG_UNALIGNED, 0)).isEqualTo(50);
        long injectedNow = device("rxe0").counters().get(Counter.INJECTED_LOSS)
                + device("rxe1").counters().get(Counter.INJECTED_LOSS);
        assertThat(injectedNow - injected).as("packets the injector lost").isGreaterThan(0);
        System.out.printf("loss %.2f dup %.2f reorder %.2f seed %d: %d ms; rxe0 %s; rxe1 %s%n", loss, dup, reorder,
                seed, (System.nanoTime() - t0) / 1_000_000, device("rxe0").counters(), device("rxe1").counters());
    }

    @Test
    void aLinkThatLosesEverythingEndsInRetryExcErr() {
        a = Endpoint.rc("rxe0", 1 << 16);
        b = Endpoint.rc("rxe1", 1 << 16);
        Endpoint.connect(a, b, new Endpoint.Options().timeout(8).retryCnt(2));
        device("rxe0").port().faults().settings(FaultInjector.Settings.loss(1.0, 1));
        b.qp.postRecv(new RecvWr().wrId(1).sg(b.mr, 0, 64));
        a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sg(a.mr, 0, 64));
        a.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sg(a.mr, 0, 64));
        List<WorkCompletion> wc = a.poll(2, 10_000);
        assertThat(wc.get(0).status()).isEqualTo(WcStatus.RETRY_EXC_ERR);
        assertThat(wc.get(1).status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(a.qp.state()).isEqualTo(QpState.ERR);
    }
}
