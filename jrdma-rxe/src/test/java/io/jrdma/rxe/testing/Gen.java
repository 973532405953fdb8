package io.jrdma.rxe.testing;

import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

/**
 * Seeded generators for property tests (the stand-in for jqwik's arbitraries): uniform values with
 * the edges of each range picked more often, as property runners do, because that is where
 * off-by-one errors live. One instance per property run; not thread-safe.
 */
public final class Gen {
    /** One draw in this many returns an edge of the range instead of a uniform value. */
    private static final int EDGE_ODDS = 16;

    private final RandomGenerator random;

    /** A generator seeded with {@code seed}: the same seed gives the same values. */
    public Gen(long seed) {
        this(new SplittableRandom(seed));
    }

    /** A generator drawing from {@code random} (one try of the test kit's {@code Property}). */
    public Gen(RandomGenerator random) {
        this.random = random;
    }

    /** An int in [min, max], edges favoured. */
    public int intBetween(int min, int max) {
        if (min > max) {
            throw new IllegalArgumentException("empty range " + min + ".." + max);
        }
        if (random.nextInt(EDGE_ODDS) == 0) {
            return switch (random.nextInt(4)) {
                case 0 -> min;
                case 1 -> max;
                case 2 -> min < max ? min + 1 : min;
                default -> min < max ? max - 1 : max;
            };
        }
        return (int) random.nextLong(min, (long) max + 1);
    }

    /** An unsigned value of {@code width} bits (32: any int). */
    public int bits(int width) {
        if (width == 32) {
            return anyInt();
        }
        return intBetween(0, (1 << width) - 1);
    }

    /** Any int, edges (0, ±1, MIN, MAX) favoured. */
    public int anyInt() {
        if (random.nextInt(EDGE_ODDS) == 0) {
            int[] edges = {0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE};
            return edges[random.nextInt(edges.length)];
        }
        return random.nextInt();
    }

    /** Any long, edges favoured. */
    public long anyLong() {
        if (random.nextInt(EDGE_ODDS) == 0) {
            long[] edges = {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE};
            return edges[random.nextInt(edges.length)];
        }
        return random.nextLong();
    }

    /** A fair coin. */
    public boolean bool() {
        return random.nextBoolean();
    }

    /** {@code n} random bytes. */
    public byte[] bytes(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    /** Random bytes of a length in [minLength, maxLength], the edge lengths favoured. */
    public byte[] bytes(int minLength, int maxLength) {
        return bytes(intBetween(minLength, maxLength));
    }

    /** One of {@code choices}. */
    @SafeVarargs
    public final <T> T oneOf(T... choices) {
        return choices[random.nextInt(choices.length)];
    }
}
