package io.jrdma.verbs;

/**
 * The IBTA RNR NAK timer encoding (IBTA Vol 1 Table 45, 5-bit code). Code 0 is the longest delay,
 * 655.36 ms; code 1 the shortest, 0.01 ms.
 */
public final class RnrTimer {
    /** Delay in nanoseconds for each code 0..31. */
    private static final long[] NANOS = {
        655_360_000L, 10_000L, 20_000L, 30_000L, 40_000L, 60_000L, 80_000L, 120_000L,
        160_000L, 240_000L, 320_000L, 480_000L, 640_000L, 960_000L, 1_280_000L, 1_920_000L,
        2_560_000L, 3_840_000L, 5_120_000L, 7_680_000L, 10_240_000L, 15_360_000L, 20_480_000L, 30_720_000L,
        40_960_000L, 61_440_000L, 81_920_000L, 122_880_000L, 163_840_000L, 245_760_000L, 327_680_000L,
        491_520_000L,
    };

    private RnrTimer() {
    }

    /**
     * The delay in nanoseconds of {@code code} (0..31). Linux: the IBTA Table 45 values behind
     * {@code ibv_qp_attr.min_rnr_timer} ({@code IBV_RNR_TIMER_*}).
     */
    public static long nanos(int code) {
        if (code < 0 || code > 31) {
            throw new IllegalArgumentException("RNR timer code is 5 bits: " + code);
        }
        return NANOS[code];
    }

    /**
     * The local ACK timeout 4.096 µs × 2^t in nanoseconds, or 0 for t = 0 (infinite). Linux:
     * {@code ibv_qp_attr.timeout}, 4.096 us times 2 to the power {@code t}.
     */
    public static long ackTimeoutNanos(int t) {
        if (t < 0 || t > 31) {
            throw new IllegalArgumentException("ACK timeout is 5 bits: " + t);
        }
        return t == 0 ? 0 : 4096L << t;
    }
}
