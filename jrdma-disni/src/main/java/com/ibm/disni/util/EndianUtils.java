package com.ibm.disni.util;

/** Byte swaps. */
public class EndianUtils {
    /** Not needed: the methods are static. */
    public EndianUtils() {
    }

    /**
     * Swaps the two bytes.
     *
     * @param x the value
     * @return {@code x} with its bytes reversed
     */
    public static short swap(short x) {
        return Short.reverseBytes(x);
    }

    /**
     * Swaps the two bytes.
     *
     * @param x the value
     * @return {@code x} with its bytes reversed
     */
    public static char swap(char x) {
        return Character.reverseBytes(x);
    }

    /**
     * Reverses the four bytes.
     *
     * @param x the value
     * @return {@code x} with its bytes reversed
     */
    public static int swap(int x) {
        return Integer.reverseBytes(x);
    }

    /**
     * Reverses the eight bytes.
     *
     * @param x the value
     * @return {@code x} with its bytes reversed
     */
    public static long swap(long x) {
        return Long.reverseBytes(x);
    }
}
