package io.jrdma.verbs;

/** Send work-request flags ({@code enum ibv_send_flags}), combined with {@code |}. */
public final class SendFlags {
    /**
     * Wait for all previous RDMA READs and atomics to complete before starting this WR. Linux: {@code IBV_SEND_FENCE}.
     */
    public static final int FENCE = 1;
    /**
     * Generate a completion for this WR (on a QP created with {@code sqSigAll=false}). Linux:
     * {@code IBV_SEND_SIGNALED}.
     */
    public static final int SIGNALED = 1 << 1;
    /**
     * Set the solicited-event bit: the responder's CQ is notified if armed for solicited events. Linux:
     * {@code IBV_SEND_SOLICITED}.
     */
    public static final int SOLICITED = 1 << 2;
    /**
     * Copy the gather list at post time; the lkeys are not checked and the buffers may be reused at once. Linux:
     * {@code IBV_SEND_INLINE}.
     */
    public static final int INLINE = 1 << 3;

    private SendFlags() {
    }
}
