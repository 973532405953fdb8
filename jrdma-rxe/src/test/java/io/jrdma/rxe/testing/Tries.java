package io.jrdma.rxe.testing;

import java.util.SplittableRandom;

/**
 * Runs a property a fixed number of times on values from one seeded {@link Gen} (the stand-in for
 * jqwik's {@code @Property}). The seed comes from {@code -Djrdma.seed=N} or is random; a failure
 * reports the property, the try and the seed, so {@code -Djrdma.seed=N} replays the same values.
 */
public final class Tries {
    /** The system property that fixes the seed. */
    public static final String SEED_PROPERTY = "jrdma.seed";

    private Tries() {
    }

    /** One try of a property. */
    @FunctionalInterface
    public interface Body {
        /** Checks the property on values drawn from {@code gen}. */
        void check(Gen gen) throws Exception;
    }

    /** The seed for this run: {@code jrdma.seed} if set, else a fresh random one. */
    public static long seed() {
        Long fixed = Long.getLong(SEED_PROPERTY);
        return fixed != null ? fixed : new SplittableRandom().nextLong();
    }

    /**
     * Checks {@code body} {@code tries} times with values from a generator seeded by {@link #seed()}.
     *
     * @throws AssertionError naming the property, the failing try and the seed
     */
    public static void run(String property, int tries, Body body) {
        long seed = seed();
        Gen gen = new Gen(seed);
        for (int i = 0; i < tries; i++) {
            try {
                body.check(gen);
            } catch (Exception | AssertionError t) {
                AssertionError e = new AssertionError("property '" + property + "' failed on try " + (i + 1) + " of "
                        + tries + " (seed " + seed + "; replay with -D" + SEED_PROPERTY + "=" + seed + "): " + t, t);
                System.err.println(e.getMessage());
                throw e;
            }
        }
    }
}
