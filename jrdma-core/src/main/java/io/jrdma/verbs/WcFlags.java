package io.jrdma.verbs;

/** Work-completion flags ({@code enum ibv_wc_flags}). */
public final class WcFlags {
    /** A GRH is present (UD receives). */
    public static final int GRH = 1;
    /** {@link WorkCompletion#immData()} holds immediate data. */
    public static final int WITH_IMM = 1 << 1;
    /** {@link WorkCompletion#invalidatedRkey()} holds the rkey the message invalidated. */
    public static final int WITH_INV = 1 << 3;

    private WcFlags() {
    }
}
