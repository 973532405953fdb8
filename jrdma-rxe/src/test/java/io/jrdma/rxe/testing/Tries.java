package io.jrdma.rxe.testing;

import io.jrdma.testkit.Property;

/**
 * rxe's property tests on the test kit's runner ({@link Property}): each try gets a {@link Gen} over that
 * try's seeded generator, and a failure names the property, the try and the seed to replay it with
 * ({@code -Djrdma.prop.seed=...}; {@code -Djrdma.prop.tries=N} changes every property's count).
 */
public final class Tries {

    private Tries() {
    }

    /** One try of a property. */
    @FunctionalInterface
    public interface Body {
        /** Checks the property on values drawn from {@code gen}. */
        void check(Gen gen) throws Exception;
    }

    /**
     * Checks {@code body} {@code tries} times, each on values from a freshly seeded generator.
     *
     * @throws AssertionError naming the property, the failing try and the seed
     */
    public static void run(String property, int tries, Body body) {
        Property.of(property).tries(tries).sizes(1, 1).check((random, size) -> body.check(new Gen(random)));
    }
}
