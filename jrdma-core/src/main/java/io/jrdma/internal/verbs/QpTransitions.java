package io.jrdma.internal.verbs;

import static io.jrdma.verbs.QpAttrMask.ACCESS_FLAGS;
import static io.jrdma.verbs.QpAttrMask.ALT_PATH;
import static io.jrdma.verbs.QpAttrMask.AV;
import static io.jrdma.verbs.QpAttrMask.CUR_STATE;
import static io.jrdma.verbs.QpAttrMask.DEST_QPN;
import static io.jrdma.verbs.QpAttrMask.EN_SQD_ASYNC_NOTIFY;
import static io.jrdma.verbs.QpAttrMask.MAX_DEST_RD_ATOMIC;
import static io.jrdma.verbs.QpAttrMask.MAX_QP_RD_ATOMIC;
import static io.jrdma.verbs.QpAttrMask.MIN_RNR_TIMER;
import static io.jrdma.verbs.QpAttrMask.PATH_MIG_STATE;
import static io.jrdma.verbs.QpAttrMask.PATH_MTU;
import static io.jrdma.verbs.QpAttrMask.PKEY_INDEX;
import static io.jrdma.verbs.QpAttrMask.PORT;
import static io.jrdma.verbs.QpAttrMask.QKEY;
import static io.jrdma.verbs.QpAttrMask.RETRY_CNT;
import static io.jrdma.verbs.QpAttrMask.RNR_RETRY;
import static io.jrdma.verbs.QpAttrMask.RQ_PSN;
import static io.jrdma.verbs.QpAttrMask.SQ_PSN;
import static io.jrdma.verbs.QpAttrMask.STATE;
import static io.jrdma.verbs.QpAttrMask.TIMEOUT;

import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;

/**
 * The legal QP state transitions and, for each, the attributes that are required and allowed per
 * QP type: IBTA Vol 1 §11.2.4.2 Table 91/92 as the Linux kernel encodes it in {@code qp_state_table}
 * ({@code ib_modify_qp_is_ok}, drivers/infiniband/core/verbs.c). Behaviour ported, not code.
 */
public final class QpTransitions {
    private static final int N = QpState.values().length;
    private static final int T = 3; // RC, UC, UD
    private static final boolean[][] VALID = new boolean[N][N];
    private static final int[][][] REQUIRED = new int[N][N][T];
    private static final int[][][] OPTIONAL = new int[N][N][T];

    static {
        for (QpState s : QpState.values()) {
            valid(s, QpState.RESET);
            // Every state but RESET may go to ERR: the kernel's qp_state_table has no [RESET][ERR]
            // entry (IBTA Vol 1 §10.3.1, Figure 124: Error is entered from every state except Reset).
            if (s != QpState.RESET) {
                valid(s, QpState.ERR);
            }
        }
        valid(QpState.RESET, QpState.INIT);
        req(QpState.RESET, QpState.INIT, PKEY_INDEX | PORT | ACCESS_FLAGS, PKEY_INDEX | PORT | ACCESS_FLAGS,
                PKEY_INDEX | PORT | QKEY);

        valid(QpState.INIT, QpState.INIT);
        opt(QpState.INIT, QpState.INIT, PKEY_INDEX | PORT | ACCESS_FLAGS, PKEY_INDEX | PORT | ACCESS_FLAGS,
                PKEY_INDEX | PORT | QKEY);

        valid(QpState.INIT, QpState.RTR);
        req(QpState.INIT, QpState.RTR, AV | PATH_MTU | DEST_QPN | RQ_PSN | MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER,
                AV | PATH_MTU | DEST_QPN | RQ_PSN, 0);
        opt(QpState.INIT, QpState.RTR, ALT_PATH | ACCESS_FLAGS | PKEY_INDEX, ALT_PATH | ACCESS_FLAGS | PKEY_INDEX,
                PKEY_INDEX | QKEY);

        valid(QpState.RTR, QpState.RTS);
        req(QpState.RTR, QpState.RTS, TIMEOUT | RETRY_CNT | RNR_RETRY | SQ_PSN | MAX_QP_RD_ATOMIC, SQ_PSN, SQ_PSN);
        opt(QpState.RTR, QpState.RTS, CUR_STATE | ALT_PATH | ACCESS_FLAGS | MIN_RNR_TIMER | PATH_MIG_STATE,
                CUR_STATE | ALT_PATH | ACCESS_FLAGS | PATH_MIG_STATE, CUR_STATE | QKEY);

        valid(QpState.RTS, QpState.RTS);
        opt(QpState.RTS, QpState.RTS, CUR_STATE | ACCESS_FLAGS | ALT_PATH | PATH_MIG_STATE | MIN_RNR_TIMER,
                CUR_STATE | ACCESS_FLAGS | ALT_PATH | PATH_MIG_STATE, CUR_STATE | QKEY);

        valid(QpState.RTS, QpState.SQD);
        opt(QpState.RTS, QpState.SQD, EN_SQD_ASYNC_NOTIFY, EN_SQD_ASYNC_NOTIFY, EN_SQD_ASYNC_NOTIFY);

        valid(QpState.SQD, QpState.RTS);
        opt(QpState.SQD, QpState.RTS, CUR_STATE | ALT_PATH | ACCESS_FLAGS | MIN_RNR_TIMER | PATH_MIG_STATE,
                CUR_STATE | ALT_PATH | ACCESS_FLAGS | PATH_MIG_STATE, CUR_STATE | QKEY);

        valid(QpState.SQD, QpState.SQD);
        opt(QpState.SQD, QpState.SQD, PORT | AV | TIMEOUT | RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC
                | MAX_DEST_RD_ATOMIC | ALT_PATH | ACCESS_FLAGS | PKEY_INDEX | MIN_RNR_TIMER | PATH_MIG_STATE,
                AV | ALT_PATH | ACCESS_FLAGS | PKEY_INDEX | PATH_MIG_STATE, PKEY_INDEX | QKEY);

        valid(QpState.SQE, QpState.RTS);
        opt(QpState.SQE, QpState.RTS, -1, CUR_STATE | ACCESS_FLAGS, CUR_STATE | QKEY);
    }

    private QpTransitions() {
    }

    private static void valid(QpState from, QpState to) {
        VALID[from.ordinal()][to.ordinal()] = true;
    }

    private static void req(QpState from, QpState to, int rc, int uc, int ud) {
        REQUIRED[from.ordinal()][to.ordinal()][0] = rc;
        REQUIRED[from.ordinal()][to.ordinal()][1] = uc;
        REQUIRED[from.ordinal()][to.ordinal()][2] = ud;
    }

    private static void opt(QpState from, QpState to, int rc, int uc, int ud) {
        OPTIONAL[from.ordinal()][to.ordinal()][0] = rc;
        OPTIONAL[from.ordinal()][to.ordinal()][1] = uc;
        OPTIONAL[from.ordinal()][to.ordinal()][2] = ud;
    }

    private static int t(QpType type) {
        return switch (type) {
            case RC -> 0;
            case UC -> 1;
            case UD -> 2;
        };
    }

    /** Whether {@code from → to} is a legal transition for {@code type}. */
    public static boolean isValid(QpState from, QpState to, QpType type) {
        if (!VALID[from.ordinal()][to.ordinal()]) {
            return false;
        }
        // SQE→RTS exists for UC and UD only; RC has no SQE (IBTA 10.3.1).
        return !(from == QpState.SQE && type == QpType.RC && to == QpState.RTS);
    }

    /** The attributes a transition requires (without STATE). */
    public static int required(QpState from, QpState to, QpType type) {
        return REQUIRED[from.ordinal()][to.ordinal()][t(type)];
    }

    /** The attributes a transition allows besides the required ones (without STATE). */
    public static int optional(QpState from, QpState to, QpType type) {
        return OPTIONAL[from.ordinal()][to.ordinal()][t(type)];
    }

    /** Checks only that the transition is legal (iWARP devices, where the IB masks do not apply). */
    public static void checkTransition(QpState current, QpState target, int mask, QpType type, int qpn) {
        QpState to = (mask & STATE) != 0 ? target : current;
        if (!isValid(current, to, type)) {
            throw new IllegalStateException("QP 0x" + Integer.toHexString(qpn) + " (" + type
                    + "): illegal transition " + current + " -> " + to);
        }
    }

    /**
     * Checks a modify of a QP of {@code type} in state {@code current} with {@code mask} (and target
     * {@code target} if STATE is set), throwing a clear exception naming what is wrong.
     */
    public static void check(QpState current, QpState target, int mask, QpType type, int qpn) {
        QpState to = (mask & STATE) != 0 ? target : current;
        String qp = "QP 0x" + Integer.toHexString(qpn) + " (" + type + ")";
        if (!isValid(current, to, type)) {
            throw new IllegalStateException(qp + ": illegal transition " + current + " -> " + to);
        }
        int required = required(current, to, type);
        int allowed = required | optional(current, to, type) | STATE;
        int missing = required & ~mask;
        if (missing != 0) {
            throw new IllegalArgumentException(qp + ": " + current + " -> " + to + " requires "
                    + QpAttrMask.toString(missing));
        }
        int extra = mask & ~allowed;
        if (extra != 0) {
            throw new IllegalArgumentException(qp + ": " + current + " -> " + to + " does not allow "
                    + QpAttrMask.toString(extra));
        }
    }
}
