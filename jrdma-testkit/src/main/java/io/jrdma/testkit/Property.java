package io.jrdma.testkit;

import java.util.Objects;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

/**
 * jrdma's in-house property runner: runs a check with seeded random generators a number of times,
 * growing a size parameter from {@link #sizes(int, int) min} to max across the tries. On the first
 * failing try it re-runs the same seed with every smaller size, and throws an {@link AssertionError}
 * that names the property, the try, the seed, the size that failed and the smallest size that still
 * fails with that seed, with the original failure of that smallest run as its cause.
 *
 * <pre>{@code
 * Property.of("every WR completes once").tries(200).sizes(1, 64).check((random, size) -> {
 *     ... use random.nextInt(...), size ...
 * });
 * }</pre>
 *
 * <p>System properties: {@value #TRIES_PROPERTY} overrides the number of tries;
 * {@value #SEED_PROPERTY} (decimal or {@code 0x} hex) runs only that seed, at the size given by
 * {@value #SIZE_PROPERTY} (default: the maximum size), which is how a reported failure is re-run.
 */
public final class Property {
    /** System property: the number of tries, overriding {@link #tries(int)}. */
    public static final String TRIES_PROPERTY = "jrdma.prop.tries";
    /** System property: run only this seed (as printed in a failure). */
    public static final String SEED_PROPERTY = "jrdma.prop.seed";
    /** System property: the size to run {@link #SEED_PROPERTY} at. */
    public static final String SIZE_PROPERTY = "jrdma.prop.size";
    /** Tries when neither {@link #tries(int)} nor {@value #TRIES_PROPERTY} says otherwise. */
    public static final int DEFAULT_TRIES = 100;

    /** The body of a property: one try with a seeded generator and a size. */
    @FunctionalInterface
    public interface Check {
        /**
         * Runs one try. Throw (an assertion error or any exception) to report a failure.
         *
         * @param random the generator of this try, seeded with the try's seed
         * @param size the size parameter of this try (how many steps, how large the inputs)
         */
        void run(RandomGenerator random, int size) throws Exception;
    }

    private final String name;
    private int tries = DEFAULT_TRIES;
    private int minSize = 1;
    private int maxSize = 100;
    private long baseSeed;
    private boolean baseSeedSet;

    private Property(String name) {
        this.name = Objects.requireNonNull(name, "name");
    }

    /** A property called {@code name} (the name appears in failure messages). */
    public static Property of(String name) {
        return new Property(name);
    }

    /** The number of tries unless {@value #TRIES_PROPERTY} is set. */
    public Property tries(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("a property needs at least one try: " + n);
        }
        this.tries = n;
        return this;
    }

    /** The range the size parameter grows through, first try to last. */
    public Property sizes(int min, int max) {
        if (min < 0 || max < min) {
            throw new IllegalArgumentException("bad size range " + min + ".." + max);
        }
        this.minSize = min;
        this.maxSize = max;
        return this;
    }

    /** Fixes the seed the try seeds derive from (otherwise a fresh one per run). */
    public Property baseSeed(long seed) {
        this.baseSeed = seed;
        this.baseSeedSet = true;
        return this;
    }

    /** The number of tries this run makes (the system property wins). */
    public int effectiveTries() {
        String p = System.getProperty(TRIES_PROPERTY);
        if (p == null || p.isBlank()) {
            return tries;
        }
        int n = Integer.parseInt(p.strip());
        if (n < 1) {
            throw new IllegalArgumentException(TRIES_PROPERTY + " must be at least 1: " + n);
        }
        return n;
    }

    /** The seed of try {@code i} (0-based) for a base seed: a SplitMix64 step, so seeds are spread. */
    static long seedOf(long base, int i) {
        long z = base + (i + 1) * 0x9E37_79B9_7F4A_7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return z ^ (z >>> 31);
    }

    /** The size of try {@code i} of {@code n}: grows linearly from min to max. */
    int sizeOf(int i, int n) {
        if (n == 1) {
            return maxSize;
        }
        return minSize + (int) ((long) (maxSize - minSize) * i / (n - 1));
    }

    /**
     * Runs the property.
     *
     * @throws AssertionError naming the seed, try and smallest failing size on the first failure
     */
    public void check(Check check) {
        Objects.requireNonNull(check, "check");
        String fixed = System.getProperty(SEED_PROPERTY);
        if (fixed != null && !fixed.isBlank()) {
            long seed = parseSeed(fixed.strip());
            String sz = System.getProperty(SIZE_PROPERTY);
            int size = sz == null || sz.isBlank() ? maxSize : Integer.parseInt(sz.strip());
            Throwable t = runOnce(check, seed, size);
            if (t != null) {
                throw failure(check, 0, 1, seed, size, t);
            }
            return;
        }
        long base = baseSeedSet ? baseSeed : System.nanoTime() ^ Thread.currentThread().threadId() << 32;
        int n = effectiveTries();
        for (int i = 0; i < n; i++) {
            long seed = seedOf(base, i);
            int size = sizeOf(i, n);
            Throwable t = runOnce(check, seed, size);
            if (t != null) {
                throw failure(check, i, n, seed, size, t);
            }
        }
    }

    private AssertionError failure(Check check, int i, int n, long seed, int size, Throwable original) {
        int smallest = size;
        Throwable smallestCause = original;
        // Shrink: the same seed at every smaller size, smallest first; the first that fails is the answer.
        for (int s = minSize; s < size; s++) {
            Throwable t = runOnce(check, seed, s);
            if (t != null) {
                smallest = s;
                smallestCause = t;
                break;
            }
        }
        String msg = "property '" + name + "' failed at try " + (i + 1) + " of " + n + " with seed 0x"
                + Long.toHexString(seed) + " at size " + size + "; smallest failing size with this seed: " + smallest
                + ". Re-run with -D" + SEED_PROPERTY + "=0x" + Long.toHexString(seed) + " -D" + SIZE_PROPERTY + "="
                + smallest + ". Cause: " + smallestCause;
        AssertionError e = new AssertionError(msg, smallestCause);
        if (smallestCause != original) {
            e.addSuppressed(original);
        }
        return e;
    }

    private Throwable runOnce(Check check, long seed, int size) {
        RandomGenerator random = new SplittableRandom(seed);
        try {
            check.run(random, size);
            return null;
        } catch (org.opentest4j.TestAbortedException e) {
            throw e; // an assumption that does not hold skips the property: it is not a counterexample
        } catch (Exception | AssertionError e) {
            return e;
        }
    }

    static long parseSeed(String s) {
        if (s.startsWith("0x") || s.startsWith("0X")) {
            return Long.parseUnsignedLong(s.substring(2), 16);
        }
        return Long.parseLong(s);
    }
}
