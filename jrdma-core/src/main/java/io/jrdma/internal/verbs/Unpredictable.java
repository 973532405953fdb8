package io.jrdma.internal.verbs;

import java.security.SecureRandom;

/**
 * The values a peer must not be able to guess, drawn from one {@link SecureRandom}: IB CM communication
 * ids, starting PSNs, where this process starts handing out QP numbers. An off-path sender that could
 * predict them could forge CM messages or packets for other hosts' connections; a value shared by every
 * process (a first QPN of 0x11, say) makes a second client from one address look like a stale copy of the
 * first. Linux draws the same from {@code get_random_u32} (cm.c's comm ids, cma.c's PSNs).
 *
 * <p>Control plane only: one draw costs about a microsecond and may take the generator's lock.
 */
public final class Unpredictable {
    private static final SecureRandom RANDOM = new SecureRandom();

    private Unpredictable() {
    }

    /**
     * A uniformly random int.
     *
     * @return any int
     */
    public static int nextInt() {
        return RANDOM.nextInt();
    }

    /**
     * A uniformly random int in {@code [0, bound)}.
     *
     * @param bound the exclusive upper bound, positive
     * @return the value
     */
    public static int nextInt(int bound) {
        return RANDOM.nextInt(bound);
    }

    /**
     * A starting PSN: 24 random bits ({@code get_random_u32() & 0xffffff}, as cma.c picks one per id).
     *
     * @return the PSN
     */
    public static int psn() {
        return RANDOM.nextInt() & 0xFFFFFF;
    }
}
