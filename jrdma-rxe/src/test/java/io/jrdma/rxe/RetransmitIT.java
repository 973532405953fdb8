package io.jrdma.rxe;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.rxe.net.FaultInjector;
import io.jrdma.internal.roce.IbOpcode;
import io.jrdma.verbs.Counter;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.RnrTimer;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How the requester recovers from chosen lost packets: a gap inside a message by the responder's
 * PSN sequence error NAK, a lost last packet (nothing follows it to reveal the gap) by the
 * retransmit timer adapted to the measured round trip, both far sooner than the QP's ACK timeout;
 * and a dead link still ends in RETRY_EXC_ERR only after {@code retry_cnt + 1} ACK timeouts.
 */
class RetransmitIT {
    /** 4.096 µs × 2^20 = 4.3 s: what recovery by the QP's ACK timeout alone would take. */
    private static final int LONG_TIMEOUT = 20;
    private Endpoint a;
    private Endpoint b;

    @AfterEach
    void close() {
        for (String d : new String[] {"rxe0", "rxe1"}) {
            LossIT.device(d).port().faults().loseWhen(null);
            LossIT.device(d).port().faults().refuseWhen(null);
            LossIT.device(d).port().faults().settings(FaultInjector.Settings.NONE);
        }
        if (a != null) {
            a.close();
        }
        if (b != null) {
            b.close();
        }
    }

    /** Loses the {@code nth} (0-based) outgoing packet of opcode {@code op}, once. */
    private static FaultInjector.Chooser loseOnce(IbOpcode op, int nth) {
        AtomicInteger seen = new AtomicInteger();
        return (MemorySegment p, int length) -> (p.get(ValueLayout.JAVA_BYTE, 0) & 0xff) == op.code()
                && seen.getAndIncrement() == nth;
    }

    private void connect(Endpoint.Options o) {
        a = Endpoint.rc("rxe0", 1 << 20);
        b = Endpoint.rc("rxe1", 1 << 20);
        Endpoint.connect(a, b, o);
    }

    private void write(long id, long off, int len) {
        a.qp.postSend(new SendWr().wrId(id).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                .sg(a.mr, off, len).rdma(b.mr.address() + off, b.mr.rkey()));
    }

    private static void fill(MemorySegment s, long off, int len, int seed) {
        for (int i = 0; i < len; i++) {
            s.set(ValueLayout.JAVA_BYTE, off + i, (byte) (seed + i * 31));
        }
    }

    /** Some acknowledged WRITEs, so that the requester has measured the round trip. */
    private void warmUp() {
        for (int i = 0; i < 32; i++) {
            write(i, 0, 64);
            assertThat(a.poll().status()).isEqualTo(WcStatus.SUCCESS);
        }
    }

    @Test
    void aPacketLostInsideAMessageIsRecoveredByNakLongBeforeTheAckTimeout() {
        connect(new Endpoint.Options().timeout(LONG_TIMEOUT));
        warmUp();
        int len = 16 << 10; // 16 packets at MTU 1024
        fill(a.buf, 4096, len, 7);
        long seqErr = a.qp.queryCounters().get(Counter.RCVD_SEQ_ERR);
        LossIT.device("rxe0").port().faults().loseWhen(loseOnce(IbOpcode.RC_RDMA_WRITE_MIDDLE, 3));
        long t0 = System.nanoTime();
        write(100, 4096, len);
        WorkCompletion wc = a.poll();
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(a.qp.queryCounters().get(Counter.RCVD_SEQ_ERR) - seqErr).as("sequence error NAKs").isEqualTo(1);
        assertThat(ms).as("ms to recover, against an ACK timeout of %d ms",
                RnrTimer.ackTimeoutNanos(LONG_TIMEOUT) / 1_000_000).isLessThan(1000);
        assertThat(b.buf.asSlice(4096, len).toArray(ValueLayout.JAVA_BYTE))
                .isEqualTo(a.buf.asSlice(4096, len).toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void aLostLastPacketIsRecoveredByTheAdaptedTimerLongBeforeTheAckTimeout() {
        connect(new Endpoint.Options().timeout(LONG_TIMEOUT));
        warmUp();
        fill(a.buf, 8192, 512, 3);
        long seqErr = a.qp.queryCounters().get(Counter.RCVD_SEQ_ERR);
        long retries = a.qp.queryCounters().get(Counter.COMPLETER_RETRY_ERR);
        // The only packet of the last message: no later packet makes the responder NAK.
        LossIT.device("rxe0").port().faults().loseWhen(loseOnce(IbOpcode.RC_RDMA_WRITE_ONLY, 0));
        long t0 = System.nanoTime();
        write(200, 8192, 512);
        WorkCompletion wc = a.poll();
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(a.qp.queryCounters().get(Counter.RCVD_SEQ_ERR) - seqErr).as("sequence error NAKs").isZero();
        assertThat(a.qp.queryCounters().get(Counter.COMPLETER_RETRY_ERR) - retries).as("retransmissions")
                .isEqualTo(1);
        assertThat(ms).as("ms to recover, against an ACK timeout of %d ms",
                RnrTimer.ackTimeoutNanos(LONG_TIMEOUT) / 1_000_000).isLessThan(1000);
        assertThat(b.buf.asSlice(8192, 512).toArray(ValueLayout.JAVA_BYTE))
                .isEqualTo(a.buf.asSlice(8192, 512).toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void aDeadLinkEndsInRetryExcErrAfterRetryCntPlusOneAckTimeoutsNotSooner() {
        int timeout = 14; // 67 ms
        int retryCnt = 2;
        connect(new Endpoint.Options().timeout(timeout).retryCnt(retryCnt));
        warmUp();
        long retries = a.qp.queryCounters().get(Counter.COMPLETER_RETRY_ERR);
        LossIT.device("rxe0").port().faults().settings(FaultInjector.Settings.loss(1.0, 1));
        long t0 = System.nanoTime();
        write(300, 0, 64);
        write(301, 0, 64);
        List<WorkCompletion> wc = a.poll(2, 20_000);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertThat(wc.get(0).status()).isEqualTo(WcStatus.RETRY_EXC_ERR);
        assertThat(wc.get(1).status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(a.qp.state()).isEqualTo(QpState.ERR);
        long budget = (retryCnt + 1) * RnrTimer.ackTimeoutNanos(timeout) / 1_000_000;
        assertThat(ms).as("ms until RETRY_EXC_ERR").isGreaterThanOrEqualTo(budget - 2);
        // The adapted timer retransmitted sooner than the ACK timeout, without spending retry_cnt.
        assertThat(a.qp.queryCounters().get(Counter.COMPLETER_RETRY_ERR) - retries).as("retransmissions")
                .isGreaterThan(retryCnt);
    }

    @Test
    void aRetryCutShortByTheWindowCompletesAMessageTheResponderAcknowledgedBeyond() {
        // Default PSNs: a sends from 0x100. A 200-packet WRITE, then a 1-packet one; the responder's
        // first ACK for each PSN from +150 on is lost, so the requester times out, rewinds into the
        // long WRITE, and its shrunken window stops it inside that WRITE, while every duplicate is
        // answered with an ACK for the second WRITE's PSN, beyond the first's last PSN.
        connect(new Endpoint.Options().timeout(LONG_TIMEOUT));
        int base = 0x100;
        int len = 200 << 10;
        fill(a.buf, 0, len, 11);
        fill(a.buf, len, 64, 12);
        java.util.Set<Integer> lost = java.util.concurrent.ConcurrentHashMap.newKeySet();
        LossIT.device("rxe1").port().faults().loseWhen((MemorySegment p, int length) -> {
            if ((p.get(ValueLayout.JAVA_BYTE, 0) & 0xff) != IbOpcode.RC_ACKNOWLEDGE.code()) {
                return false;
            }
            int psn = (p.get(ValueLayout.JAVA_BYTE, 9) & 0xff) << 16 | (p.get(ValueLayout.JAVA_BYTE, 10) & 0xff) << 8
                    | p.get(ValueLayout.JAVA_BYTE, 11) & 0xff;
            return psn - base >= 150 && psn - base <= 200 && lost.add(psn);
        });
        long t0 = System.nanoTime();
        write(400, 0, len);
        write(401, len, 64);
        List<WorkCompletion> wc = a.poll(2, 10_000);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertThat(wc).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS, WcStatus.SUCCESS);
        assertThat(lost).as("ACKs lost").isNotEmpty();
        assertThat(ms).as("ms to complete, against an ACK timeout of %d ms",
                RnrTimer.ackTimeoutNanos(LONG_TIMEOUT) / 1_000_000).isLessThan(2000);
        assertThat(b.buf.asSlice(0, len + 64).toArray(ValueLayout.JAVA_BYTE))
                .isEqualTo(a.buf.asSlice(0, len + 64).toArray(ValueLayout.JAVA_BYTE));
    }

    private static int psnOf(MemorySegment p) {
        return (p.get(ValueLayout.JAVA_BYTE, 9) & 0xff) << 16 | (p.get(ValueLayout.JAVA_BYTE, 10) & 0xff) << 8
                | p.get(ValueLayout.JAVA_BYTE, 11) & 0xff;
    }

    /** Refuses, as a full socket does, the packets of opcode {@code op} at each PSN {@code times} times. */
    private static FaultInjector.Chooser refuse(IbOpcode op, java.util.Map<Integer, Integer> times,
            AtomicInteger refused) {
        return (MemorySegment p, int length) -> {
            if ((p.get(ValueLayout.JAVA_BYTE, 0) & 0xff) != op.code()) {
                return false;
            }
            int[] left = {0};
            times.computeIfPresent(psnOf(p), (k, n) -> {
                left[0] = n;
                return n > 1 ? n - 1 : null;
            });
            if (left[0] > 0) {
                refused.incrementAndGet();
                return true;
            }
            return false;
        };
    }

    @Test
    void packetsTheSocketRefusesGoOutLaterInPlace() {
        // A full send buffer (DatagramChannel.send returns 0): the requester keeps the packet and sends
        // it again on a later pass, from the same place, and so does the responder with an RDMA READ reply;
        // the bytes arrive whole either way.
        connect(new Endpoint.Options().timeout(LONG_TIMEOUT));
        int base = 0x100;
        int len = 300_000; // 293 packets at MTU 1024
        fill(a.buf, 0, len, 13);
        AtomicInteger refused = new AtomicInteger();
        var first = new java.util.concurrent.ConcurrentHashMap<>(java.util.Map.of(base, 2));
        var middle = new java.util.concurrent.ConcurrentHashMap<>(java.util.Map.of(base + 1, 1, base + 64, 3,
                base + 65, 1, base + 200, 1));
        var last = new java.util.concurrent.ConcurrentHashMap<>(java.util.Map.of(base + 292, 2));
        FaultInjector.Chooser f = refuse(IbOpcode.RC_RDMA_WRITE_FIRST, first, refused);
        FaultInjector.Chooser m = refuse(IbOpcode.RC_RDMA_WRITE_MIDDLE, middle, refused);
        FaultInjector.Chooser l = refuse(IbOpcode.RC_RDMA_WRITE_LAST, last, refused);
        LossIT.device("rxe0").port().faults().refuseWhen((p, n) -> f.lose(p, n) || m.lose(p, n) || l.lose(p, n));
        a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sg(a.mr, 0, len)
                .rdma(b.mr.address() + 100, b.mr.rkey()));
        assertThat(a.poll().status()).isEqualTo(WcStatus.SUCCESS);
        SameBytes.assertSame("RDMA WRITE", b.buf, 100, a.buf, 0, len, a, b);
        assertThat(refused).as("packets refused").hasValue(10);
        // The READ's responses: the first, a middle one and the last refused.
        int readBase = base + 293;
        var rFirst = new java.util.concurrent.ConcurrentHashMap<>(java.util.Map.of(readBase, 1));
        var rMiddle = new java.util.concurrent.ConcurrentHashMap<>(java.util.Map.of(readBase + 100, 2));
        var rLast = new java.util.concurrent.ConcurrentHashMap<>(java.util.Map.of(readBase + 292, 1));
        FaultInjector.Chooser rf = refuse(IbOpcode.RC_RDMA_READ_RESPONSE_FIRST, rFirst, refused);
        FaultInjector.Chooser rm = refuse(IbOpcode.RC_RDMA_READ_RESPONSE_MIDDLE, rMiddle, refused);
        FaultInjector.Chooser rl = refuse(IbOpcode.RC_RDMA_READ_RESPONSE_LAST, rLast, refused);
        LossIT.device("rxe1").port().faults().refuseWhen((p, n) -> rf.lose(p, n) || rm.lose(p, n) || rl.lose(p, n));
        a.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                .sg(a.mr, 400_000, len).rdma(b.mr.address() + 100, b.mr.rkey()));
        WorkCompletion rd = a.poll();
        assertThat(rd.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(rd.byteLen()).isEqualTo(len);
        SameBytes.assertSame("RDMA READ", a.buf, 400_000, a.buf, 0, len, a, b);
        assertThat(refused).as("packets refused").hasValue(14);
    }
}
