package io.jrdma.internal.roce;

/**
 * 24-bit packet sequence number arithmetic (IBTA Vol 1 §9.7.1: PSNs wrap modulo 2^24 and compare
 * within half the space). Like rxe's {@code psn_compare()} ({@code rxe.h}), a comparison is the
 * sign of the 24-bit difference shifted into the top of an int.
 */
public final class Psn {
    /** The 24 bits of a PSN. */
    public static final int MASK = 0x00ff_ffff;
    /** Number of distinct PSNs. */
    public static final int MODULUS = 1 << 24;

    private Psn() {
    }

    /**
     * {@code psn + n} modulo 2^24.
     *
     * @param psn a PSN
     * @param n a signed increment
     * @return the sum as a PSN
     */
    public static int add(int psn, int n) {
        return (psn + n) & MASK;
    }

    /**
     * The next PSN.
     *
     * @param psn a PSN
     * @return {@code psn + 1} modulo 2^24
     */
    public static int next(int psn) {
        return (psn + 1) & MASK;
    }

    /**
     * Signed distance {@code a - b} in [-2^23, 2^23).
     *
     * @param a a PSN
     * @param b a PSN
     * @return how far {@code a} is after {@code b} (negative: before)
     */
    public static int diff(int a, int b) {
        return ((a - b) << 8) >> 8;
    }

    /**
     * Compares two PSNs within the 24-bit window.
     *
     * @param a a PSN
     * @param b a PSN
     * @return negative, zero or positive as {@code a} is before, equal to or after {@code b}
     */
    public static int compare(int a, int b) {
        return Integer.signum(diff(a, b));
    }

    /**
     * Whether {@code a} comes before {@code b}.
     *
     * @param a a PSN
     * @param b a PSN
     * @return {@code diff(a, b) < 0}
     */
    public static boolean isBefore(int a, int b) {
        return diff(a, b) < 0;
    }

    /**
     * Whether {@code a} comes after {@code b}.
     *
     * @param a a PSN
     * @param b a PSN
     * @return {@code diff(a, b) > 0}
     */
    public static boolean isAfter(int a, int b) {
        return diff(a, b) > 0;
    }
}
