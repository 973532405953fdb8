package io.jrdma.verbs;

/**
 * Queue-pair capacities ({@code struct ibv_qp_cap}).
 *
 * @param maxSendWr most outstanding send WRs
 * @param maxRecvWr most outstanding receive WRs (ignored with an SRQ)
 * @param maxSendSge most SGEs per send WR
 * @param maxRecvSge most SGEs per receive WR
 * @param maxInlineData most inline bytes per send WR
 */
public record QpCap(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData) {
    /** Rejects negative values. Linux: {@code struct ibv_qp_cap}. */
    public QpCap {
        if (maxSendWr < 0 || maxRecvWr < 0 || maxSendSge < 0 || maxRecvSge < 0 || maxInlineData < 0) {
            throw new IllegalArgumentException("QP capacities must not be negative: " + this);
        }
    }

    /**
     * Capacities with one SGE each way and no inline data. Linux: an {@code ibv_qp_cap} with one SGE per WR and no
     * inline data.
     */
    public static QpCap of(int maxSendWr, int maxRecvWr) {
        return new QpCap(maxSendWr, maxRecvWr, 1, 1, 0);
    }
}
