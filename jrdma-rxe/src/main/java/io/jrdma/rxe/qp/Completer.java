package io.jrdma.rxe.qp;

import io.jrdma.internal.obs.Trace;
import io.jrdma.internal.verbs.AccessResult;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.internal.verbs.SendWqe;
import io.jrdma.internal.verbs.SgCursor;
import io.jrdma.rxe.net.RxePacket;
import io.jrdma.internal.roce.Aeth;
import io.jrdma.internal.roce.IbOpcode;
import io.jrdma.internal.roce.Psn;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.Counter;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.RnrTimer;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The completer (Linux {@code rxe_comp.c}, behaviour ported): matches ACKs, NAKs, RDMA READ
 * responses and atomic ACKs against the oldest outstanding send WQEs, places READ data and atomic
 * results, completes WQEs in order (an ACK acknowledges every earlier PSN), and decides on retries:
 * a PSN sequence error NAK or a retransmit timeout rewinds the requester (up to {@code retry_cnt}
 * times in a row, then {@link WcStatus#RETRY_EXC_ERR}); an RNR NAK waits the responder's timer (up
 * to {@code rnr_retry} times, 7 = forever, then {@link WcStatus#RNR_RETRY_EXC_ERR}); other NAKs fail
 * the WQE and move the QP to ERR.
 *
 * <p>The retransmit timer is adapted to the round trip ({@link RetransmitTimeout}); a timeout before
 * a whole ACK timeout has passed without progress retransmits without spending {@code retry_cnt}, so
 * the QP still fails after {@code retry_cnt + 1} ACK timeouts of silence, as the application set.
 *
 * <p>As rxe (and unlike the loop provider, which counts seven), {@code retry_cnt} 7 retries
 * forever: rdma_cm asks for 7 by default, so a connection survives any loss rate as it does on Linux,
 * and only smaller counts end in {@link WcStatus#RETRY_EXC_ERR}. Unlike rxe, a PSN sequence error
 * NAK that acknowledges new PSNs counts as forward progress and resets the budget (IBTA
 * 9.7.6.1.3 counts retries without progress).
 */
final class Completer {
    /** Atomics operate on host-order 64-bit words, as rxe on the host's memory (and the loop provider). */
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.nativeOrder());

    /** The steps of one completer run ({@code enum comp_state}). */
    enum Step {
        /** Look at the oldest outstanding WQE. */
        GET_WQE,
        /** Complete a WQE that needs no (more) acknowledgement. */
        COMP_WQE,
        /** Complete the WQE this response acknowledges. */
        COMP_ACK,
        /** Where does the response's PSN fall? */
        CHECK_PSN,
        /** Is the response valid for the WQE, and what does it say? */
        CHECK_ACK,
        /** Place RDMA READ response data. */
        READ,
        /** Place an atomic's original value. */
        ATOMIC,
        /** An ACK for a SEND or WRITE. */
        WRITE_SEND,
        /** Advance the expected PSN past the response. */
        UPDATE_COMP,
        /** Ask the requester to retransmit. */
        ERROR_RETRY,
        /** Wait the RNR timer, then retransmit. */
        RNR_RETRY,
        /** Fail the WQE; the QP goes to ERR (SQE on UD/UC). */
        ERROR,
        /** Nothing more for this response. */
        DONE,
        /** Nothing to do; keep the retransmit timer running while something is outstanding. */
        EXIT
    }

    private final RxeQp q;
    private final SgCursor scatter = new SgCursor(4);
    private final MemorySegment word = MemorySegment.ofArray(new long[1]);

    /** {@code qp->comp.psn}: the next PSN a response is expected for. */
    int psn;
    /** {@code qp->comp.opcode}: the last READ response opcode inside a message, -1 otherwise. */
    private int opcode = -1;
    private int retryCnt;
    private int rnrRetry;
    private boolean startedRetry;
    private boolean timeout;
    private boolean timeoutRetry;
    private WcStatus status = WcStatus.SUCCESS;

    Completer(RxeQp q) {
        this.q = q;
    }

    void reset(QpAttr a) {
        clear();
        psn = a.sqPsn() & Psn.MASK;
        retryCnt = a.retryCnt();
        rnrRetry = a.rnrRetry();
    }

    void clear() {
        psn = 0;
        opcode = -1;
        startedRetry = false;
        timeout = false;
        timeoutRetry = false;
    }

    /** The retransmit timer fired. */
    void timeout() {
        timeout = true;
    }

    /** Whether a timeout waits to be handled. */
    boolean timedOut() {
        return timeout;
    }

    private void resetRetryCounters() {
        QpAttr a = q.qp.attr();
        retryCnt = a.retryCnt();
        rnrRetry = a.rnrRetry();
        startedRetry = false;
    }

    /**
     * One completer run ({@code rxe_completer}): for a response packet, or with {@code null} after a
     * timeout or when WQEs finished without an ACK. Engine holder.
     */
    void run(RxePacket pkt) {
        timeoutRetry = timeout;
        timeout = false;
        if (pkt != null) {
            timeoutRetry = false;
        }
        if (q.requester.needRetry) {
            return;
        }
        QpImpl qp = q.qp;
        SendWqe w = null;
        Step s = Step.GET_WQE;
        for (;;) {
            switch (s) {
                case GET_WQE -> {
                    long head = qp.sqRetired();
                    w = head < qp.sqProduced() ? q.slot(head) : null;
                    s = getWqe(pkt, w);
                }
                case CHECK_PSN -> s = checkPsn(pkt, w);
                case CHECK_ACK -> s = checkAck(pkt, w);
                case READ -> s = doRead(pkt, w);
                case ATOMIC -> s = doAtomic(pkt, w);
                case WRITE_SEND -> s = writeSend(pkt, w);
                case COMP_ACK -> s = completeAck(pkt, w);
                case COMP_WQE -> s = completeWqe(pkt, w);
                case UPDATE_COMP -> {
                    opcode = pkt.opcode().isEnd() ? -1 : pkt.opcode().code();
                    if (Psn.diff(pkt.psn(), psn) >= 0) {
                        psn = Psn.next(pkt.psn());
                    }
                    wakeRequesterForPsn();
                    s = Step.DONE;
                }
                case DONE -> {
                    return;
                }
                case EXIT -> {
                    if (timeoutRetry && w != null) {
                        s = Step.ERROR_RETRY;
                        break;
                    }
                    // Something sent is unacknowledged: keep the retransmit timer running.
                    if (qp.type() == QpType.RC && Psn.diff(q.requester.psn, psn) > 0 && sending()) {
                        q.armRetransmit(true);
                    }
                    return;
                }
                case ERROR_RETRY -> {
                    if (w == null || WqeState.state(w) == WqeState.POSTED) {
                        return;
                    }
                    if (startedRetry && !timeoutRetry) {
                        return; // a retry is already under way; only a timeout starts another
                    }
                    // A timeout before a full ACK timeout has passed without progress is the adapted
                    // retransmit timer's: it retransmits without spending retry_cnt.
                    boolean counts = !timeoutRetry || q.timeoutCounts();
                    if (!counts || retryCnt > 0) {
                        if (counts && retryCnt != 7) { // 7 = retry forever, as rxe_comp.c does
                            retryCnt--;
                        }
                        if (Psn.diff(q.requester.psn, psn) > 0) {
                            q.counters.inc(Counter.COMPLETER_RETRY_ERR);
                            Trace.retransmit(q.port.name(), qp.qpNum(), psn, timeoutRetry ? "timeout"
                                    : "sequence error NAK", retryCnt);
                            q.requester.needRetry = true;
                            q.requester.shrinkWindow();
                            startedRetry = true;
                            q.ring();
                        }
                        return;
                    }
                    q.counters.inc(Counter.RETRY_EXCEEDED_ERR);
                    status = WcStatus.RETRY_EXC_ERR;
                    s = Step.ERROR;
                }
                case RNR_RETRY -> {
                    if (rnrRetry > 0) {
                        if (rnrRetry != 7) { // 7 = retry forever (IBTA 9.7.5.2.8)
                            rnrRetry--;
                        }
                        q.requester.rnrWait();
                        q.armRnr(pkt.aeth.value());
                        Trace.rnrWait(q.port.name(), qp.qpNum(), pkt.psn(), RnrTimer.nanos(pkt.aeth.value()),
                                rnrRetry);
                        return;
                    }
                    q.counters.inc(Counter.RETRY_RNR_EXCEEDED_ERR);
                    status = WcStatus.RNR_RETRY_EXC_ERR;
                    s = Step.ERROR;
                }
                case ERROR -> {
                    if (w != null) {
                        WcStatus st = WqeState.state(w) == WqeState.ERROR ? WqeState.status(w) : status;
                        qp.completeSend(st == WcStatus.SUCCESS ? WcStatus.GENERAL_ERR : st, 0);
                    }
                    status = WcStatus.SUCCESS;
                    q.sendQueueError();
                    return;
                }
                default -> throw new IllegalStateException("completer step " + s);
            }
        }
    }

    private boolean sending() {
        QpState s = q.qp.state();
        return s == QpState.RTS || s == QpState.SQD;
    }

    private Step getWqe(RxePacket pkt, SendWqe w) {
        if (w == null) {
            return pkt != null ? Step.DONE : Step.EXIT;
        }
        return switch (WqeState.state(w)) {
            case WqeState.POSTED -> pkt != null ? Step.DONE : Step.EXIT;
            case WqeState.DONE -> Step.COMP_WQE;
            case WqeState.ERROR -> Step.ERROR;
            default -> pkt != null ? Step.CHECK_PSN : Step.EXIT;
        };
    }

    /** {@code check_psn}. */
    private Step checkPsn(RxePacket pkt, SendWqe w) {
        boolean readOrAtomic = w.opcode.isReadOrAtomic();
        if (Psn.diff(pkt.psn(), w.txLastSeq) > 0) {
            // The response is beyond the oldest WQE: a SEND/WRITE is implicitly acknowledged, a
            // READ/atomic response went missing.
            if (WqeState.state(w) == WqeState.PENDING) {
                if (readOrAtomic) {
                    return Step.ERROR_RETRY;
                }
                resetRetryCounters();
                return Step.COMP_WQE;
            }
            if (WqeState.state(w) == WqeState.PROCESSING && !readOrAtomic && q.wasSent(pkt.psn())) {
                // A retry is re-sending this SEND or WRITE, but the responder has all of it (its ACK
                // is beyond the last PSN): complete it, and let the requester start again after it
                // rather than re-send the rest of what is already acknowledged.
                restartAfter();
                return Step.COMP_WQE;
            }
            return Step.DONE;
        }
        int diff = Psn.diff(pkt.psn(), psn);
        if (diff < 0) {
            // Most likely a retried packet's response: complete the WQE if it is its last.
            return pkt.psn() == w.txLastSeq ? Step.COMP_ACK : Step.DONE;
        }
        if (diff > 0 && readOrAtomic) {
            return Step.DONE;
        }
        return Step.CHECK_ACK;
    }

    /**
     * An ACK for a SEND or WRITE: its last PSN completes the WQE. A WQE a retry is re-sending
     * (PROCESSING) completes too: the ACK answers the first transmission, so the responder has all of
     * it, and the requester starts again after it. The completer's PSN never passes the last PSN of
     * a WQE it has not completed: a retry would otherwise resume that WQE past its end and send the
     * following messages one PSN off, which the responder rejects as an invalid request.
     */
    private Step writeSend(RxePacket pkt, SendWqe w) {
        if (w.txLastSeq != pkt.psn()) {
            return Step.UPDATE_COMP;
        }
        int st = WqeState.state(w);
        if (st == WqeState.PROCESSING) {
            restartAfter();
            return Step.COMP_ACK;
        }
        return st == WqeState.PENDING ? Step.COMP_ACK : Step.UPDATE_COMP;
    }

    /** The requester is re-sending a WQE the responder has all of: it starts again after it. */
    private void restartAfter() {
        resetRetryCounters();
        q.requester.needRetry = true;
        q.ring();
    }

    /** {@code check_ack}. */
    private Step checkAck(RxePacket pkt, SendWqe w) {
        int op = pkt.opcode().code();
        if (opcode == -1) {
            if (!pkt.opcode().isStart()) {
                status = WcStatus.BAD_RESP_ERR;
                return Step.ERROR;
            }
        } else if (opcode == IbOpcode.RC_RDMA_READ_RESPONSE_FIRST.code()
                || opcode == IbOpcode.RC_RDMA_READ_RESPONSE_MIDDLE.code()) {
            if (op != IbOpcode.RC_RDMA_READ_RESPONSE_MIDDLE.code()
                    && op != IbOpcode.RC_RDMA_READ_RESPONSE_LAST.code()) {
                // A retried READ may restart with First (or Only).
                boolean restart = pkt.psn() == w.txFirstSeq && op == IbOpcode.RC_RDMA_READ_RESPONSE_FIRST.code()
                        || w.txFirstSeq == w.txLastSeq && op == IbOpcode.RC_RDMA_READ_RESPONSE_ONLY.code();
                if (!restart) {
                    status = WcStatus.BAD_RESP_ERR;
                    return Step.ERROR;
                }
            }
        }
        IbOpcode ioc = pkt.opcode();
        switch (ioc) {
            case RC_RDMA_READ_RESPONSE_FIRST, RC_RDMA_READ_RESPONSE_LAST, RC_RDMA_READ_RESPONSE_ONLY,
                    RC_RDMA_READ_RESPONSE_MIDDLE -> {
                if (ioc != IbOpcode.RC_RDMA_READ_RESPONSE_MIDDLE && !pkt.aeth.isAck()) {
                    status = WcStatus.BAD_RESP_ERR;
                    return Step.ERROR;
                }
                if (w.opcode != WrOpcode.RDMA_READ) {
                    status = WcStatus.FATAL_ERR;
                    return Step.ERROR;
                }
                resetRetryCounters();
                return Step.READ;
            }
            case RC_ATOMIC_ACKNOWLEDGE -> {
                if (!pkt.aeth.isAck() || !w.opcode.isAtomic()) {
                    status = WcStatus.BAD_RESP_ERR;
                    return Step.ERROR;
                }
                resetRetryCounters();
                return Step.ATOMIC;
            }
            case RC_ACKNOWLEDGE -> {
                return checkAeth(pkt, w);
            }
            default -> {
                status = WcStatus.BAD_RESP_ERR;
                return Step.ERROR;
            }
        }
    }

    private Step checkAeth(RxePacket pkt, SendWqe w) {
        Aeth aeth = pkt.aeth;
        switch (aeth.type()) {
            case Aeth.TYPE_ACK -> {
                resetRetryCounters();
                return Step.WRITE_SEND;
            }
            case Aeth.TYPE_RNR_NAK -> {
                q.counters.inc(Counter.RCVD_RNR_ERR);
                return Step.RNR_RETRY;
            }
            case Aeth.TYPE_NAK -> {
                switch (aeth.value()) {
                    case Aeth.NAK_PSN_SEQUENCE_ERROR -> {
                        // A NAK implicitly acknowledges every earlier PSN. Forward progress resets the
                        // retry budget (IBTA 9.7.6.1.3 counts retries without progress; rxe 6.1 does
                        // not reset here but treats retry_cnt 7 as infinite, which this does not).
                        if (Psn.diff(pkt.psn(), psn) > 0) {
                            q.counters.inc(Counter.RCVD_SEQ_ERR);
                            psn = pkt.psn();
                            resetRetryCounters();
                            wakeRequesterForPsn();
                        }
                        return Step.ERROR_RETRY;
                    }
                    case Aeth.NAK_INVALID_REQUEST -> status = WcStatus.REM_INV_REQ_ERR;
                    case Aeth.NAK_REMOTE_ACCESS_ERROR -> status = WcStatus.REM_ACCESS_ERR;
                    default -> status = WcStatus.REM_OP_ERR;
                }
                return Step.ERROR;
            }
            default -> {
                status = WcStatus.BAD_RESP_ERR;
                return Step.ERROR;
            }
        }
    }

    /** {@code do_read}: READ response data lands after what already arrived. */
    private Step doRead(RxePacket pkt, SendWqe w) {
        QpImpl qp = q.qp;
        if (scatter.reset(qp.deviceImpl().memoryTable(), qp.pdImpl(), w.sgeAddr, w.sgeLength, w.sgeLkey, w.numSge,
                Access.LOCAL_WRITE) != AccessResult.OK) {
            status = WcStatus.LOC_PROT_ERR;
            return Step.ERROR;
        }
        int n = pkt.payloadLength();
        if (w.txOffset + n > scatter.total()) {
            status = WcStatus.LOC_LEN_ERR;
            return Step.ERROR;
        }
        scatter.skip(w.txOffset);
        scatter.copyFrom(pkt.segment(), pkt.payloadOffset(), n);
        w.txOffset += n;
        return w.txOffset == w.length && pkt.opcode().isEnd() ? Step.COMP_ACK : Step.UPDATE_COMP;
    }

    /** {@code do_atomic}: the original value lands in the WQE's 8-byte buffer. */
    private Step doAtomic(RxePacket pkt, SendWqe w) {
        QpImpl qp = q.qp;
        if (scatter.reset(qp.deviceImpl().memoryTable(), qp.pdImpl(), w.sgeAddr, w.sgeLength, w.sgeLkey, w.numSge,
                Access.LOCAL_WRITE) != AccessResult.OK) {
            status = WcStatus.LOC_PROT_ERR;
            return Step.ERROR;
        }
        word.set(WORD, 0, pkt.atomicAckEth.originalData());
        scatter.copyFrom(word, 0, 8);
        return Step.COMP_ACK;
    }

    /** {@code complete_ack}. */
    private Step completeAck(RxePacket pkt, SendWqe w) {
        if (WqeState.hasRdAtomic(w)) {
            WqeState.hasRdAtomic(w, false);
            Requester r = q.requester;
            r.rdAtomic++;
            if (r.needRdAtomic) {
                r.needRdAtomic = false;
                q.ring();
            }
        }
        complete(w);
        return Psn.diff(pkt.psn(), psn) >= 0 ? Step.UPDATE_COMP : Step.DONE;
    }

    /** {@code complete_wqe}. */
    private Step completeWqe(RxePacket pkt, SendWqe w) {
        int st = WqeState.state(w);
        if (pkt != null && (st == WqeState.PENDING || st == WqeState.PROCESSING)) {
            if (Psn.diff(w.txLastSeq, psn) >= 0) {
                psn = Psn.next(w.txLastSeq);
                opcode = -1;
            }
            wakeRequesterForPsn();
        }
        complete(w);
        return Step.GET_WQE;
    }

    private void complete(SendWqe w) {
        q.qp.completeSend(WcStatus.SUCCESS, (int) w.length);
        Requester r = q.requester;
        if (r.waitFence) {
            r.waitFence = false;
            q.ring();
        }
        if (r.waitPsn) {
            q.ring();
        }
    }

    private void wakeRequesterForPsn() {
        Requester r = q.requester;
        if (r.waitPsn) {
            r.waitPsn = false;
            q.ring();
        }
    }
}
