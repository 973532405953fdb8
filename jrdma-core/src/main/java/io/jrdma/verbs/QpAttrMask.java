package io.jrdma.verbs;

/**
 * Attribute mask bits ({@code enum ibv_qp_attr_mask}, libibverbs' values). {@link QpAttr} sets them
 * as its setters are called; {@link QueuePair#modify} checks them against IBTA's table of required
 * and optional attributes per transition.
 */
public final class QpAttrMask {
    /** qp_state. Linux: {@code IBV_QP_STATE}. */
    public static final int STATE = 1;
    /** cur_qp_state. Linux: {@code IBV_QP_CUR_STATE}. */
    public static final int CUR_STATE = 1 << 1;
    /** en_sqd_async_notify. Linux: {@code IBV_QP_EN_SQD_ASYNC_NOTIFY}. */
    public static final int EN_SQD_ASYNC_NOTIFY = 1 << 2;
    /** qp_access_flags. Linux: {@code IBV_QP_ACCESS_FLAGS}. */
    public static final int ACCESS_FLAGS = 1 << 3;
    /** pkey_index. Linux: {@code IBV_QP_PKEY_INDEX}. */
    public static final int PKEY_INDEX = 1 << 4;
    /** port_num. Linux: {@code IBV_QP_PORT}. */
    public static final int PORT = 1 << 5;
    /** qkey. Linux: {@code IBV_QP_QKEY}. */
    public static final int QKEY = 1 << 6;
    /** ah_attr (the address vector). Linux: {@code IBV_QP_AV}. */
    public static final int AV = 1 << 7;
    /** path_mtu. Linux: {@code IBV_QP_PATH_MTU}. */
    public static final int PATH_MTU = 1 << 8;
    /** timeout (local ACK timeout). Linux: {@code IBV_QP_TIMEOUT}. */
    public static final int TIMEOUT = 1 << 9;
    /** retry_cnt. Linux: {@code IBV_QP_RETRY_CNT}. */
    public static final int RETRY_CNT = 1 << 10;
    /** rnr_retry. Linux: {@code IBV_QP_RNR_RETRY}. */
    public static final int RNR_RETRY = 1 << 11;
    /** rq_psn. Linux: {@code IBV_QP_RQ_PSN}. */
    public static final int RQ_PSN = 1 << 12;
    /** max_rd_atomic (ORD). Linux: {@code IBV_QP_MAX_QP_RD_ATOMIC}. */
    public static final int MAX_QP_RD_ATOMIC = 1 << 13;
    /** alt_ah_attr and friends. Linux: {@code IBV_QP_ALT_PATH}. */
    public static final int ALT_PATH = 1 << 14;
    /** min_rnr_timer. Linux: {@code IBV_QP_MIN_RNR_TIMER}. */
    public static final int MIN_RNR_TIMER = 1 << 15;
    /** sq_psn. Linux: {@code IBV_QP_SQ_PSN}. */
    public static final int SQ_PSN = 1 << 16;
    /** max_dest_rd_atomic (IRD). Linux: {@code IBV_QP_MAX_DEST_RD_ATOMIC}. */
    public static final int MAX_DEST_RD_ATOMIC = 1 << 17;
    /** path_mig_state. Linux: {@code IBV_QP_PATH_MIG_STATE}. */
    public static final int PATH_MIG_STATE = 1 << 18;
    /** cap. Linux: {@code IBV_QP_CAP}. */
    public static final int CAP = 1 << 19;
    /** dest_qp_num. Linux: {@code IBV_QP_DEST_QPN}. */
    public static final int DEST_QPN = 1 << 20;

    private static final String[] NAMES = {"STATE", "CUR_STATE", "EN_SQD_ASYNC_NOTIFY", "ACCESS_FLAGS", "PKEY_INDEX",
        "PORT", "QKEY", "AV", "PATH_MTU", "TIMEOUT", "RETRY_CNT", "RNR_RETRY", "RQ_PSN", "MAX_QP_RD_ATOMIC",
        "ALT_PATH", "MIN_RNR_TIMER", "SQ_PSN", "MAX_DEST_RD_ATOMIC", "PATH_MIG_STATE", "CAP", "DEST_QPN"};

    private QpAttrMask() {
    }

    /**
     * The names of the bits set in {@code mask}, e.g. {@code STATE|PORT}. Bits by their libibverbs names without the
     * {@code IBV_QP_} prefix.
     */
    public static String toString(int mask) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < NAMES.length; i++) {
            if ((mask & (1 << i)) != 0) {
                sb.append(sb.isEmpty() ? "" : "|").append(NAMES[i]);
            }
        }
        return sb.isEmpty() ? "NONE" : sb.toString();
    }
}
