package io.jrdma.verbs;

/**
 * Shared receive queue attributes ({@code struct ibv_srq_attr}).
 *
 * @param maxWr most outstanding receive WRs
 * @param maxSge most SGEs per receive WR
 * @param srqLimit the armed limit: when the number of posted receives drops below it, an
 *     {@link AsyncEventType#SRQ_LIMIT_REACHED} event fires once (0 = not armed)
 */
public record SrqAttr(int maxWr, int maxSge, int srqLimit) {
    /** Rejects negative values. Linux: {@code struct ibv_srq_attr}. */
    public SrqAttr {
        if (maxWr < 1 || maxSge < 1 || srqLimit < 0) {
            throw new IllegalArgumentException("SRQ needs maxWr >= 1, maxSge >= 1, srqLimit >= 0: " + this);
        }
    }
}
