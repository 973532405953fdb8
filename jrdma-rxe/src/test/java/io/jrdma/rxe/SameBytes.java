package io.jrdma.rxe;

import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.rxe.qp.RxeQp;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;

/**
 * A whole-buffer comparison that explains itself: when the bytes a completed transfer moved differ from
 * the source, the error names the first and last differing offsets and how many bytes differ, shows the
 * bytes there, says whether the target became right within {@value #LATE_MS} ms after the completion
 * (data placed after its completion) or never did, and gives both QPs' transport state and counters and
 * both devices' counters (retransmissions, duplicates, out-of-sequence requests, RNR, injected faults).
 * It never retries: a difference at the completion fails, whatever follows.
 */
final class SameBytes {
    /** How long after a mismatch the target is watched for the missing bytes. */
    static final long LATE_MS = 200;
    private static final int SHOWN = 16;

    private SameBytes() {
    }

    /**
     * Asserts that {@code len} bytes of {@code target} at {@code targetOff} equal {@code source} at
     * {@code sourceOff}, right now; {@code a} and {@code b} are the two ends, for the report.
     */
    static void assertSame(String what, MemorySegment target, long targetOff, MemorySegment source, long sourceOff,
            int len, Endpoint a, Endpoint b) {
        assertSame(what, target, targetOff, source, sourceOff, len, a, b, () -> { });
    }

    /** As above; {@code onMismatch} runs once a mismatch is recorded, before the target is watched (tests). */
    static void assertSame(String what, MemorySegment target, long targetOff, MemorySegment source, long sourceOff,
            int len, Endpoint a, Endpoint b, Runnable onMismatch) {
        long first = MemorySegment.mismatch(target, targetOff, targetOff + len, source, sourceOff, sourceOff + len);
        if (first < 0) {
            return;
        }
        // Everything about the moment of the mismatch first, before anything can change.
        long last = lastMismatch(target, targetOff, source, sourceOff, len);
        long differing = 0;
        long zeros = 0;
        for (long i = first; i <= last; i++) {
            byte t = target.get(ValueLayout.JAVA_BYTE, targetOff + i);
            if (t != source.get(ValueLayout.JAVA_BYTE, sourceOff + i)) {
                differing++;
                if (t == 0) {
                    zeros++;
                }
            }
        }
        String at = "first differing offset " + first + ", last " + last + " (" + differing + " of " + len
                + " bytes differ, " + zeros + " of them zero in the target)\n  target at first: "
                + hex(target, targetOff + first) + "\n  source at first: " + hex(source, sourceOff + first)
                + "\n  target at last:  " + hex(target, targetOff + Math.max(first, last - SHOWN + 1))
                + "\n  source at last:  " + hex(source, sourceOff + Math.max(first, last - SHOWN + 1));
        String state = "\n  " + describe(a) + "\n  " + describe(b);
        onMismatch.run();
        long t0 = System.nanoTime();
        long deadline = t0 + LATE_MS * 1_000_000L;
        long settled = -1;
        while (System.nanoTime() < deadline) {
            if (MemorySegment.mismatch(target, targetOff, targetOff + len, source, sourceOff, sourceOff + len) < 0) {
                settled = (System.nanoTime() - t0) / 1_000;
                break;
            }
            Thread.onSpinWait();
        }
        String after = settled >= 0 ? "the target became right " + settled + " µs after the check: data placed after"
                + " its completion was visible" : "the target was still wrong " + LATE_MS + " ms later: never placed"
                + " (first differing offset now " + MemorySegment.mismatch(target, targetOff, targetOff + len, source,
                        sourceOff, sourceOff + len) + ")";
        throw new AssertionError(what + ": the completed transfer's bytes differ from the source; " + at + "\n  "
                + after + state + "\n  rxe0 " + LossIT.device("rxe0").counters() + "\n  rxe1 "
                + LossIT.device("rxe1").counters());
    }

    private static long lastMismatch(MemorySegment target, long targetOff, MemorySegment source, long sourceOff,
            int len) {
        for (long i = len - 1; i >= 0; i--) {
            if (target.get(ValueLayout.JAVA_BYTE, targetOff + i) != source.get(ValueLayout.JAVA_BYTE, sourceOff + i)) {
                return i;
            }
        }
        return -1;
    }

    private static String hex(MemorySegment s, long off) {
        long n = Math.min(SHOWN, s.byteSize() - off);
        return HexFormat.ofDelimiter(" ").formatHex(s.asSlice(off, n).toArray(ValueLayout.JAVA_BYTE));
    }

    private static String describe(Endpoint e) {
        QpImpl qp = QpImpl.of(e.qp);
        String transport = qp.provider() instanceof RxeQp r ? r.describe() : String.valueOf(qp.provider());
        return transport + "\n    counters " + e.qp.queryCounters();
    }
}
