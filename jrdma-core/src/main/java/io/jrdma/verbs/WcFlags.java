package io.jrdma.verbs;

/** Work-completion flags ({@code enum ibv_wc_flags}). */
public final class WcFlags {
    /** A GRH is present (UD receives). Linux: {@code IBV_WC_GRH}. */
    public static final int GRH = 1;
    /** {@link WorkCompletion#immData()} holds immediate data. Linux: {@code IBV_WC_WITH_IMM}. */
    public static final int WITH_IMM = 1 << 1;
    /**
     * {@link WorkCompletion#invalidatedRkey()} holds the rkey the message invalidated. Linux: {@code IBV_WC_WITH_INV}.
     */
    public static final int WITH_INV = 1 << 3;

    private WcFlags() {
    }
}
