package io.jrdma.testkit;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpType;
import java.util.Objects;

/**
 * How a {@link VerbsFixture} builds each side of a pair: the QP type and capacities, the remote
 * access the QPs grant, the RNR and transport retry settings (IBTA codes, as {@code ibv_modify_qp}
 * takes them), whether receives come from an SRQ, the CQ depth, and whether the CQ has a completion
 * channel. Both sides get the same options.
 *
 * @param type RC, UC or UD
 * @param cap the QP capacities
 * @param cqDepth entries of each side's CQ (one CQ per side serves both queues)
 * @param qpAccess the {@link Access} REMOTE_* flags the QPs grant (qp_access_flags)
 * @param minRnrTimer the responder's minimum RNR NAK timer code (5 bits, see {@code RnrTimer})
 * @param rnrRetry the requester's RNR retry count (3 bits, 7 = forever)
 * @param retryCnt the requester's transport retry count (3 bits)
 * @param timeout the local ACK timeout exponent: 4.096 µs × 2^t (0 = wait forever)
 * @param srq whether each side's receives come from a shared receive queue
 * @param srqMaxWr the SRQ's max_wr when {@code srq}
 * @param channel whether each side's CQ has a completion channel
 * @param sqSigAll whether every send WR is signaled
 * @param maxRdAtomic the ORD (outstanding READs/atomics a QP issues)
 * @param maxDestRdAtomic the IRD (outstanding READs/atomics a QP accepts)
 * @param qkey the Q_Key of UD QPs
 */
public record QpOptions(QpType type, QpCap cap, int cqDepth, int qpAccess, int minRnrTimer, int rnrRetry,
        int retryCnt, int timeout, boolean srq, int srqMaxWr, boolean channel, boolean sqSigAll, int maxRdAtomic,
        int maxDestRdAtomic, int qkey) {

    /** The Q_Key {@link #ud()} uses. */
    public static final int DEFAULT_QKEY = 0x1111_1111;
    /** The minimum RNR timer code the defaults use: 1 = 0.01 ms, the shortest (IBTA Table 45). */
    public static final int FAST_RNR_TIMER = 1;
    /** The ACK timeout exponent the defaults use: 14 = 67 ms. */
    public static final int DEFAULT_TIMEOUT = 14;

    /** Validates the ranges. */
    public QpOptions {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(cap, "cap");
        if (cqDepth < 1 || minRnrTimer < 0 || minRnrTimer > 31 || rnrRetry < 0 || rnrRetry > 7 || retryCnt < 0
                || retryCnt > 7 || timeout < 0 || timeout > 31 || srqMaxWr < 0 || maxRdAtomic < 0
                || maxDestRdAtomic < 0) {
            throw new IllegalArgumentException("bad QP options " + this);
        }
    }

    /**
     * RC defaults: 16 send and receive WRs, 4 SGEs each way, no inline, a 64-entry CQ, remote read,
     * write and atomic access, the shortest RNR timer with infinite RNR retries, 7 transport retries,
     * ORD/IRD 4.
     */
    public static QpOptions rc() {
        return new QpOptions(QpType.RC, new QpCap(16, 16, 4, 4, 0), 64,
                Access.REMOTE_READ | Access.REMOTE_WRITE | Access.REMOTE_ATOMIC, FAST_RNR_TIMER, 7, 7,
                DEFAULT_TIMEOUT, false, 0, false, false, 4, 4, 0);
    }

    /** UC defaults: as {@link #rc()} with remote write only. */
    public static QpOptions uc() {
        return rc().withType(QpType.UC).withQpAccess(Access.REMOTE_WRITE).withRd(0, 0);
    }

    /** UD defaults: as {@link #rc()} with the Q_Key {@link #DEFAULT_QKEY} and no remote access. */
    public static QpOptions ud() {
        return rc().withType(QpType.UD).withQpAccess(0).withRd(0, 0).withQkey(DEFAULT_QKEY);
    }

    /** A copy with another QP type. */
    public QpOptions withType(QpType t) {
        return new QpOptions(t, cap, cqDepth, qpAccess, minRnrTimer, rnrRetry, retryCnt, timeout, srq, srqMaxWr,
                channel, sqSigAll, maxRdAtomic, maxDestRdAtomic, qkey);
    }

    /** A copy with other capacities. */
    public QpOptions withCap(QpCap c) {
        return new QpOptions(type, c, cqDepth, qpAccess, minRnrTimer, rnrRetry, retryCnt, timeout, srq, srqMaxWr,
                channel, sqSigAll, maxRdAtomic, maxDestRdAtomic, qkey);
    }

    /** A copy with another CQ depth. */
    public QpOptions withCqDepth(int d) {
        return new QpOptions(type, cap, d, qpAccess, minRnrTimer, rnrRetry, retryCnt, timeout, srq, srqMaxWr,
                channel, sqSigAll, maxRdAtomic, maxDestRdAtomic, qkey);
    }

    /** A copy granting other remote access. */
    public QpOptions withQpAccess(int access) {
        return new QpOptions(type, cap, cqDepth, access, minRnrTimer, rnrRetry, retryCnt, timeout, srq, srqMaxWr,
                channel, sqSigAll, maxRdAtomic, maxDestRdAtomic, qkey);
    }

    /** A copy with another minimum RNR timer code. */
    public QpOptions withMinRnrTimer(int code) {
        return new QpOptions(type, cap, cqDepth, qpAccess, code, rnrRetry, retryCnt, timeout, srq, srqMaxWr,
                channel, sqSigAll, maxRdAtomic, maxDestRdAtomic, qkey);
    }

    /** A copy with another RNR retry count. */
    public QpOptions withRnrRetry(int n) {
        return new QpOptions(type, cap, cqDepth, qpAccess, minRnrTimer, n, retryCnt, timeout, srq, srqMaxWr,
                channel, sqSigAll, maxRdAtomic, maxDestRdAtomic, qkey);
    }

    /** A copy with another transport retry count and ACK timeout exponent. */
    public QpOptions withRetry(int count, int timeoutExponent) {
        return new QpOptions(type, cap, cqDepth, qpAccess, minRnrTimer, rnrRetry, count, timeoutExponent, srq,
                srqMaxWr, channel, sqSigAll, maxRdAtomic, maxDestRdAtomic, qkey);
    }

    /** A copy whose receives come from an SRQ of {@code maxWr} entries ({@code 0} = no SRQ). */
    public QpOptions withSrq(int maxWr) {
        return new QpOptions(type, cap, cqDepth, qpAccess, minRnrTimer, rnrRetry, retryCnt, timeout, maxWr > 0,
                maxWr, channel, sqSigAll, maxRdAtomic, maxDestRdAtomic, qkey);
    }

    /** A copy with or without a completion channel. */
    public QpOptions withChannel(boolean c) {
        return new QpOptions(type, cap, cqDepth, qpAccess, minRnrTimer, rnrRetry, retryCnt, timeout, srq, srqMaxWr,
                c, sqSigAll, maxRdAtomic, maxDestRdAtomic, qkey);
    }

    /** A copy with sqSigAll set or not. */
    public QpOptions withSqSigAll(boolean all) {
        return new QpOptions(type, cap, cqDepth, qpAccess, minRnrTimer, rnrRetry, retryCnt, timeout, srq, srqMaxWr,
                channel, all, maxRdAtomic, maxDestRdAtomic, qkey);
    }

    /** A copy with another ORD and IRD. */
    public QpOptions withRd(int ord, int ird) {
        return new QpOptions(type, cap, cqDepth, qpAccess, minRnrTimer, rnrRetry, retryCnt, timeout, srq, srqMaxWr,
                channel, sqSigAll, ord, ird, qkey);
    }

    /** A copy with another Q_Key. */
    public QpOptions withQkey(int k) {
        return new QpOptions(type, cap, cqDepth, qpAccess, minRnrTimer, rnrRetry, retryCnt, timeout, srq, srqMaxWr,
                channel, sqSigAll, maxRdAtomic, maxDestRdAtomic, k);
    }
}
