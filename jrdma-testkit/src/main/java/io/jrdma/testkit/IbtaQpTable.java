package io.jrdma.testkit;

import static io.jrdma.verbs.QpAttrMask.ACCESS_FLAGS;
import static io.jrdma.verbs.QpAttrMask.AV;
import static io.jrdma.verbs.QpAttrMask.CUR_STATE;
import static io.jrdma.verbs.QpAttrMask.DEST_QPN;
import static io.jrdma.verbs.QpAttrMask.EN_SQD_ASYNC_NOTIFY;
import static io.jrdma.verbs.QpAttrMask.MAX_DEST_RD_ATOMIC;
import static io.jrdma.verbs.QpAttrMask.MAX_QP_RD_ATOMIC;
import static io.jrdma.verbs.QpAttrMask.MIN_RNR_TIMER;
import static io.jrdma.verbs.QpAttrMask.PATH_MTU;
import static io.jrdma.verbs.QpAttrMask.PKEY_INDEX;
import static io.jrdma.verbs.QpAttrMask.PORT;
import static io.jrdma.verbs.QpAttrMask.QKEY;
import static io.jrdma.verbs.QpAttrMask.RETRY_CNT;
import static io.jrdma.verbs.QpAttrMask.RNR_RETRY;
import static io.jrdma.verbs.QpAttrMask.RQ_PSN;
import static io.jrdma.verbs.QpAttrMask.SQ_PSN;
import static io.jrdma.verbs.QpAttrMask.TIMEOUT;

import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;

/**
 * The suite's own statement of IBTA Vol 1 §10.3.1 / §11.2.4.2 (the QP state diagram and the
 * required and optional attributes of each Modify QP transition), written from the Linux kernel's
 * {@code qp_state_table} ({@code drivers/infiniband/core/verbs.c}) and kept apart from the
 * implementation it checks. Only the attributes {@link io.jrdma.verbs.QpAttr} can set are listed
 * (no alternate path, no path migration state).
 *
 * <p>Legal: any state to RESET; any state but RESET to ERR; RESET→INIT, INIT→INIT, INIT→RTR,
 * RTR→RTS, RTS→RTS, RTS→SQD, SQD→RTS, SQD→SQD, and SQE→RTS for UC and UD (an RC QP has no SQE).
 */
final class IbtaQpTable {
    private IbtaQpTable() {
    }

    /** Whether {@code from → to} is legal for {@code type}. */
    static boolean legal(QpState from, QpState to, QpType type) {
        if (to == QpState.RESET) {
            return true;
        }
        if (to == QpState.ERR) {
            return from != QpState.RESET;
        }
        return switch (from) {
            case RESET -> to == QpState.INIT;
            case INIT -> to == QpState.INIT || to == QpState.RTR;
            case RTR -> to == QpState.RTS;
            case RTS -> to == QpState.RTS || to == QpState.SQD;
            case SQD -> to == QpState.RTS || to == QpState.SQD;
            case SQE -> to == QpState.RTS && type != QpType.RC;
            case ERR -> false;
        };
    }

    /** The attributes {@code from → to} requires (without STATE). */
    static int required(QpState from, QpState to, QpType type) {
        if (from == QpState.RESET && to == QpState.INIT) {
            return type == QpType.UD ? PKEY_INDEX | PORT | QKEY : PKEY_INDEX | PORT | ACCESS_FLAGS;
        }
        if (from == QpState.INIT && to == QpState.RTR) {
            return switch (type) {
                case RC -> AV | PATH_MTU | DEST_QPN | RQ_PSN | MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER;
                case UC -> AV | PATH_MTU | DEST_QPN | RQ_PSN;
                case UD -> 0;
            };
        }
        if (from == QpState.RTR && to == QpState.RTS) {
            return type == QpType.RC ? SQ_PSN | TIMEOUT | RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC : SQ_PSN;
        }
        return 0;
    }

    /** The settable attributes {@code from → to} allows besides the required ones. */
    static int optional(QpState from, QpState to, QpType type) {
        if (from == QpState.INIT && to == QpState.INIT) {
            return required(QpState.RESET, QpState.INIT, type);
        }
        if (from == QpState.INIT && to == QpState.RTR) {
            return type == QpType.UD ? PKEY_INDEX | QKEY : ACCESS_FLAGS | PKEY_INDEX;
        }
        if ((from == QpState.RTR || from == QpState.RTS || from == QpState.SQD) && to == QpState.RTS) {
            return switch (type) {
                case RC -> CUR_STATE | ACCESS_FLAGS | MIN_RNR_TIMER;
                case UC -> CUR_STATE | ACCESS_FLAGS;
                case UD -> CUR_STATE | QKEY;
            };
        }
        if (from == QpState.SQE && to == QpState.RTS) {
            return type == QpType.UD ? CUR_STATE | QKEY : CUR_STATE | ACCESS_FLAGS;
        }
        if (from == QpState.RTS && to == QpState.SQD) {
            return EN_SQD_ASYNC_NOTIFY;
        }
        if (from == QpState.SQD && to == QpState.SQD) {
            return switch (type) {
                case RC -> PORT | AV | TIMEOUT | RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC | MAX_DEST_RD_ATOMIC
                        | ACCESS_FLAGS | PKEY_INDEX | MIN_RNR_TIMER;
                case UC -> AV | ACCESS_FLAGS | PKEY_INDEX;
                case UD -> PKEY_INDEX | QKEY;
            };
        }
        return 0;
    }
}
