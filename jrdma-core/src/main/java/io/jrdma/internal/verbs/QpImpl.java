package io.jrdma.internal.verbs;

import io.jrdma.internal.capture.PacketTap;
import io.jrdma.spi.CounterSet;
import io.jrdma.spi.ProviderQp;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.Counter;
import io.jrdma.verbs.Counters;
import io.jrdma.verbs.PacketCapture;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.DeviceAttributes;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.TransportType;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Core's queue pair: the state machine, attribute checks, and the send and receive rings the
 * provider's engine consumes. Posting copies WRs into preallocated slots under a per-queue monitor
 * (as libibverbs providers take the QP's lock) and rings the provider's doorbell; the engine
 * completes slots in order and advances the retire counters with release writes.
 *
 * <p>Every posted WR completes exactly once: successfully (reported if signaled), with an error, or
 * with {@link WcStatus#WR_FLUSH_ERR} when the QP is in ERR, is reset, or is destroyed.
 */
public final class QpImpl implements QueuePair {
    private static final VarHandle STATE;
    private static final VarHandle SQ_PRODUCED;
    private static final VarHandle SQ_RETIRED;
    private static final VarHandle RQ_PRODUCED;
    private static final VarHandle RQ_RETIRED;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            STATE = l.findVarHandle(QpImpl.class, "state", QpState.class);
            SQ_PRODUCED = l.findVarHandle(QpImpl.class, "sqProduced", long.class);
            SQ_RETIRED = l.findVarHandle(QpImpl.class, "sqRetired", long.class);
            RQ_PRODUCED = l.findVarHandle(QpImpl.class, "rqProduced", long.class);
            RQ_RETIRED = l.findVarHandle(QpImpl.class, "rqRetired", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final PdImpl pd;
    private final DeviceImpl device;
    private final int qpn;
    private final QpType type;
    private final QpInitAttr initAttr;
    private final CqImpl sendCq;
    private final CqImpl recvCq;
    private final SrqImpl srq;
    private final boolean sqSigAll;
    private final QpAttr attr = new QpAttr();
    private final Object modifyLock = new Object();
    /** The multicast groups the QP is attached to (guarded by {@code modifyLock}). */
    private final List<Gid> mcastGroups = new ArrayList<>(0);
    @SuppressWarnings("unused") // accessed through STATE
    private volatile QpState state = QpState.RESET;
    private volatile boolean destroyed;
    private ProviderQp provider;
    private final CounterSet counters = new CounterSet();
    private volatile PacketTap capture;

    private final SendWqe[] sq;
    private final int sqMask;
    private final int sqDepth;
    private final Object sqLock = new Object();
    @SuppressWarnings("unused") // accessed through SQ_PRODUCED
    private volatile long sqProduced;
    @SuppressWarnings("unused") // accessed through SQ_RETIRED
    private volatile long sqRetired;
    /**
     * Send WQEs whose slot is free again: advanced just before the completion is pushed (and
     * {@link #sqRetired} just after), so an application that polls a completion and posts at once finds
     * room, while a depth of 0 still means every completion is in the CQ.
     */
    private volatile long sqFreed;

    private final RecvWqe[] rq;
    private final int rqMask;
    private final int rqDepth;
    private final Object rqLock = new Object();
    @SuppressWarnings("unused") // accessed through RQ_PRODUCED
    private volatile long rqProduced;
    @SuppressWarnings("unused") // accessed through RQ_RETIRED
    private volatile long rqRetired;
    /** Receive WQEs whose slot is free again (as {@link #sqFreed}). */
    private volatile long rqFreed;
    /** Engine-private: receives handed to the engine and not yet retired. */
    private long rqTaken;
    private final RecvWqe srqWqe;
    private boolean srqWqeOutstanding;
    private boolean commEstablished;

    private QpImpl(PdImpl pd, QpInitAttr init, int qpn) {
        this.pd = pd;
        this.device = pd.contextImpl().deviceImpl();
        this.qpn = qpn;
        this.type = init.qpType();
        this.sendCq = (CqImpl) init.sendCq();
        this.recvCq = (CqImpl) init.recvCq();
        this.srq = (SrqImpl) init.srq();
        this.sqSigAll = init.sqSigAll();
        QpCap cap = init.cap();
        this.sqDepth = Math.max(1, cap.maxSendWr());
        int sqSize = Integer.highestOneBit(Math.max(1, sqDepth - 1)) << 1;
        this.sq = new SendWqe[sqSize];
        for (int i = 0; i < sqSize; i++) {
            sq[i] = new SendWqe(cap.maxSendSge(), cap.maxInlineData());
        }
        this.sqMask = sqSize - 1;
        if (srq == null) {
            this.rqDepth = Math.max(1, cap.maxRecvWr());
            int rqSize = Integer.highestOneBit(Math.max(1, rqDepth - 1)) << 1;
            this.rq = new RecvWqe[rqSize];
            for (int i = 0; i < rqSize; i++) {
                rq[i] = new RecvWqe(cap.maxRecvSge());
            }
            this.rqMask = rqSize - 1;
            this.srqWqe = null;
        } else {
            this.rqDepth = 0;
            this.rq = new RecvWqe[0];
            this.rqMask = 0;
            this.srqWqe = new RecvWqe(srq.maxSge());
        }
        this.initAttr = new QpInitAttr(type, init.sendCq(), init.recvCq(), init.srq(),
                new QpCap(sqDepth, srq == null ? rqDepth : 0, cap.maxSendSge(), srq == null ? cap.maxRecvSge() : 0,
                        cap.maxInlineData()), sqSigAll);
        attr.portNum(1).pkeyIndex(0).pathMtu(device.portAttributes().activeMtu()).qpState(QpState.RESET);
        attr.cap(initAttr.cap());
        attr.clearMask();
    }

    static QpImpl create(PdImpl pd, QpInitAttr init) {
        ContextImpl ctx = pd.contextImpl();
        DeviceImpl dev = ctx.deviceImpl();
        DeviceAttributes da = dev.attributes();
        if (!dev.providerDevice().supportsQpType(init.qpType())) {
            throw new IllegalArgumentException(dev.name() + " does not support " + init.qpType() + " QPs");
        }
        checkCq(init.sendCq(), ctx, "send");
        checkCq(init.recvCq(), ctx, "receive");
        if (init.srq() != null) {
            if (!(init.srq() instanceof SrqImpl s) || s.pdImpl().contextImpl() != ctx) {
                throw new IllegalArgumentException("the SRQ belongs to another context");
            }
        }
        QpCap c = init.cap();
        if (c.maxSendWr() > da.maxQpWr() || (init.srq() == null && c.maxRecvWr() > da.maxQpWr())) {
            throw new IllegalArgumentException("QP capacity " + c + " exceeds max_qp_wr " + da.maxQpWr());
        }
        if (c.maxSendSge() > da.maxSge() || (init.srq() == null && c.maxRecvSge() > da.maxSge())) {
            throw new IllegalArgumentException("QP capacity " + c + " exceeds max_sge " + da.maxSge());
        }
        if (c.maxInlineData() > da.maxInlineData()) {
            throw new IllegalArgumentException("max_inline_data " + c.maxInlineData() + " exceeds the device's "
                    + da.maxInlineData());
        }
        if (c.maxSendWr() < 1 || (init.srq() == null && c.maxRecvWr() < 1)) {
            throw new IllegalArgumentException("a QP needs max_send_wr >= 1 and max_recv_wr >= 1 (or an SRQ): " + c);
        }
        dev.reserve(DeviceImpl.Resource.QP);
        QpImpl qp;
        try {
            qp = new QpImpl(pd, init, dev.allocateQpn());
            qp.provider = dev.providerDevice().createQp(qp);
        } catch (RuntimeException e) {
            dev.release(DeviceImpl.Resource.QP);
            throw e;
        }
        dev.registerQp(qp);
        dev.counters().qpCreated(qp.qpn, qp.counters);
        // One QP is one user of a CQ, whether its send queue, its receive queue or both complete there.
        qp.sendCq.users.add(qp);
        qp.recvCq.users.add(qp);
        if (qp.srq != null) {
            qp.srq.users.add(qp);
        }
        ctx.qpCreated(qp);
        dev.events().qpCreated(qp);
        return qp;
    }

    /**
     * Core's QP behind a QP the SPI hands a provider ({@link io.jrdma.spi.ProviderDevice#createQp},
     * {@link io.jrdma.spi.IwCmProvider}): jrdma's own providers reach its queues, completions and state
     * machine here, outside the SPI. Called when a QP is created or connected, not per WR.
     *
     * @param qp a QP of core
     * @return the same QP as core's
     * @throws IllegalArgumentException if {@code qp} was not created by core
     */
    public static QpImpl of(QueuePair qp) {
        if (qp instanceof QpImpl q) {
            return q;
        }
        throw new IllegalArgumentException("not a QP of jrdma's core: " + qp);
    }

    private static void checkCq(Object cq, ContextImpl ctx, String what) {
        if (!(cq instanceof CqImpl c) || c.contextImpl() != ctx) {
            throw new IllegalArgumentException("the " + what + " CQ belongs to another context");
        }
        if (c.isClosed()) {
            throw new IllegalArgumentException("the " + what + " CQ is closed");
        }
    }

    // ---------------------------------------------------------------- public API

    @Override
    public int qpNum() {
        return qpn;
    }

    @Override
    public QpType type() {
        return type;
    }

    @Override
    public QpState state() {
        return (QpState) STATE.getVolatile(this);
    }

    @Override
    public QpInitAttr initAttr() {
        return initAttr;
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public QpAttr query() {
        synchronized (modifyLock) {
            QpAttr q = new QpAttr(attr);
            q.qpState(state()).curQpState(state());
            q.qpAccessFlags(attr.qpAccessFlags()).pathMtu(attr.pathMtu()).qkey(attr.qkey()).rqPsn(attr.rqPsn())
                    .sqPsn(attr.sqPsn()).destQpNum(attr.destQpNum()).cap(initAttr.cap()).pkeyIndex(attr.pkeyIndex())
                    .maxRdAtomic(attr.maxRdAtomic()).maxDestRdAtomic(attr.maxDestRdAtomic())
                    .minRnrTimer(attr.minRnrTimer()).portNum(attr.portNum()).timeout(attr.timeout())
                    .retryCnt(attr.retryCnt()).rnrRetry(attr.rnrRetry());
            if (attr.ahAttr() != null) {
                q.ahAttr(attr.ahAttr());
            }
            return q;
        }
    }

    @Override
    public void modify(QpAttr a) {
        if (a == null) {
            throw new IllegalArgumentException("attributes must not be null");
        }
        synchronized (modifyLock) {
            if (destroyed) {
                throw new IllegalStateException("QP 0x" + Integer.toHexString(qpn) + " is destroyed");
            }
            QpState cur = state();
            int mask = a.mask();
            if (mask == 0) {
                throw new IllegalArgumentException("empty attribute mask");
            }
            if ((mask & QpAttrMask.CUR_STATE) != 0 && a.curQpState() != cur) {
                throw new IllegalStateException("QP 0x" + Integer.toHexString(qpn) + " is in " + cur
                        + ", not in cur_qp_state " + a.curQpState());
            }
            if (device.transport() == TransportType.IWARP) {
                // iWARP QPs take their path from the connection (iw_cm_init_qp_attr gives only access
                // flags for INIT/RTR): the transition must be legal, the IB attribute masks are not.
                QpTransitions.checkTransition(cur, a.qpState(), mask, type, qpn);
            } else {
                QpTransitions.check(cur, a.qpState(), mask, type, qpn);
            }
            validateValues(a, mask);
            QpState to = (mask & QpAttrMask.STATE) != 0 ? a.qpState() : cur;
            apply(a, mask);
            if (!STATE.compareAndSet(this, cur, to)) {
                // The engine moved the QP to ERR meanwhile; only ERR and RESET remain legal.
                QpState now = state();
                if (to != QpState.ERR && to != QpState.RESET) {
                    throw new IllegalStateException("QP 0x" + Integer.toHexString(qpn) + " moved to " + now
                            + " while being modified to " + to);
                }
                STATE.setVolatile(this, to);
                cur = now;
            }
            attr.qpState(to);
            if (to == QpState.RESET) {
                commEstablished = false;
            }
            device.events().qpStateChanged(this, cur, to);
            provider.modified(cur, to, mask);
        }
    }

    private void validateValues(QpAttr a, int mask) {
        String qp = "QP 0x" + Integer.toHexString(qpn);
        DeviceAttributes da = device.attributes();
        if ((mask & QpAttrMask.PORT) != 0 && a.portNum() != 1) {
            throw new IllegalArgumentException(qp + ": port " + a.portNum()
                    + " does not exist (the device has port 1)");
        }
        if ((mask & QpAttrMask.PKEY_INDEX) != 0 && a.pkeyIndex() != 0) {
            throw new IllegalArgumentException(qp + ": P_Key index " + a.pkeyIndex() + " out of range (table of 1)");
        }
        if ((mask & QpAttrMask.ACCESS_FLAGS) != 0 && (a.qpAccessFlags() & ~Access.ALL) != 0) {
            throw new IllegalArgumentException(qp + ": unknown access flags " + Access.toString(a.qpAccessFlags()));
        }
        if ((mask & QpAttrMask.PATH_MTU) != 0) {
            Mtu max = device.portAttributes().maxMtu();
            if (a.pathMtu() == null || a.pathMtu().bytes() > max.bytes()) {
                throw new IllegalArgumentException(qp + ": path MTU " + a.pathMtu() + " exceeds the port's " + max);
            }
        }
        if ((mask & QpAttrMask.MAX_QP_RD_ATOMIC) != 0
                && (a.maxRdAtomic() < 0 || a.maxRdAtomic() > da.maxQpInitRdAtom())) {
            throw new IllegalArgumentException(qp + ": max_rd_atomic " + a.maxRdAtomic() + " outside 0.."
                    + da.maxQpInitRdAtom());
        }
        if ((mask & QpAttrMask.MAX_DEST_RD_ATOMIC) != 0
                && (a.maxDestRdAtomic() < 0 || a.maxDestRdAtomic() > da.maxQpRdAtom())) {
            throw new IllegalArgumentException(qp + ": max_dest_rd_atomic " + a.maxDestRdAtomic() + " outside 0.."
                    + da.maxQpRdAtom());
        }
        if ((mask & QpAttrMask.TIMEOUT) != 0 && (a.timeout() < 0 || a.timeout() > 31)) {
            throw new IllegalArgumentException(qp + ": timeout " + a.timeout() + " is 5 bits");
        }
        if ((mask & QpAttrMask.RETRY_CNT) != 0 && (a.retryCnt() < 0 || a.retryCnt() > 7)) {
            throw new IllegalArgumentException(qp + ": retry_cnt " + a.retryCnt() + " is 3 bits");
        }
        if ((mask & QpAttrMask.RNR_RETRY) != 0 && (a.rnrRetry() < 0 || a.rnrRetry() > 7)) {
            throw new IllegalArgumentException(qp + ": rnr_retry " + a.rnrRetry() + " is 3 bits");
        }
        if ((mask & QpAttrMask.MIN_RNR_TIMER) != 0 && (a.minRnrTimer() < 0 || a.minRnrTimer() > 31)) {
            throw new IllegalArgumentException(qp + ": min_rnr_timer " + a.minRnrTimer() + " is 5 bits");
        }
        if ((mask & QpAttrMask.AV) != 0 && a.ahAttr() == null) {
            throw new IllegalArgumentException(qp + ": AV set without an address vector");
        }
        if ((mask & QpAttrMask.DEST_QPN) != 0 && (a.destQpNum() & ~0xFFFFFF) != 0) {
            throw new IllegalArgumentException(qp + ": dest QPN 0x" + Integer.toHexString(a.destQpNum())
                    + " is 24 bits");
        }
        if ((mask & QpAttrMask.CAP) != 0 && !initAttr.cap().equals(a.cap())) {
            throw new IllegalArgumentException(qp + ": resizing the queues is not supported");
        }
    }

    private void apply(QpAttr a, int m) {
        if ((m & QpAttrMask.ACCESS_FLAGS) != 0) {
            attr.qpAccessFlags(a.qpAccessFlags());
        }
        if ((m & QpAttrMask.PKEY_INDEX) != 0) {
            attr.pkeyIndex(a.pkeyIndex());
        }
        if ((m & QpAttrMask.PORT) != 0) {
            attr.portNum(a.portNum());
        }
        if ((m & QpAttrMask.QKEY) != 0) {
            attr.qkey(a.qkey());
        }
        if ((m & QpAttrMask.AV) != 0) {
            attr.ahAttr(a.ahAttr());
        }
        if ((m & QpAttrMask.PATH_MTU) != 0) {
            attr.pathMtu(a.pathMtu());
        }
        if ((m & QpAttrMask.TIMEOUT) != 0) {
            attr.timeout(a.timeout());
        }
        if ((m & QpAttrMask.RETRY_CNT) != 0) {
            attr.retryCnt(a.retryCnt());
        }
        if ((m & QpAttrMask.RNR_RETRY) != 0) {
            attr.rnrRetry(a.rnrRetry());
        }
        if ((m & QpAttrMask.RQ_PSN) != 0) {
            attr.rqPsn(a.rqPsn());
        }
        if ((m & QpAttrMask.SQ_PSN) != 0) {
            attr.sqPsn(a.sqPsn());
        }
        if ((m & QpAttrMask.MAX_QP_RD_ATOMIC) != 0) {
            attr.maxRdAtomic(a.maxRdAtomic());
        }
        if ((m & QpAttrMask.MAX_DEST_RD_ATOMIC) != 0) {
            attr.maxDestRdAtomic(a.maxDestRdAtomic());
        }
        if ((m & QpAttrMask.MIN_RNR_TIMER) != 0) {
            attr.minRnrTimer(a.minRnrTimer());
        }
        if ((m & QpAttrMask.DEST_QPN) != 0) {
            attr.destQpNum(a.destQpNum());
        }
        if ((m & QpAttrMask.EN_SQD_ASYNC_NOTIFY) != 0) {
            attr.sqdAsyncNotify(a.sqdAsyncNotify());
        }
    }

    @Override
    public int postSend(SendWr wr) {
        if (wr == null) {
            throw new IllegalArgumentException("work request must not be null");
        }
        QpState s = state();
        if (destroyed) {
            throw new IllegalStateException("QP 0x" + Integer.toHexString(qpn) + " is destroyed");
        }
        if (s == QpState.RESET || s == QpState.INIT || s == QpState.RTR) {
            throw new IllegalStateException("QP 0x" + Integer.toHexString(qpn) + " is in " + s
                    + ": sends can be posted in RTS, SQD, SQE or ERR");
        }
        int posted = 0;
        try {
            synchronized (sqLock) {
                long produced = (long) SQ_PRODUCED.getVolatile(this);
                for (SendWr w = wr; w != null; w = w.next()) {
                    validateSend(w, posted);
                    if (produced - sqFreed >= sqDepth) {
                        break;
                    }
                    SendWqe slot = sq[(int) produced & sqMask];
                    slot.copyFrom(w, sqSigAll, (AhImpl) w.ah());
                    if (slot.inline) {
                        copyInline(w, slot);
                    }
                    produced++;
                    SQ_PRODUCED.setVolatile(this, produced); // volatile: the state check after it must not pass it
                    posted++;
                }
            }
        } finally {
            // Ring even when a later WR of the chain was rejected: the earlier ones are posted
            // (ibv_post_send's bad_wr semantics) and must be processed.
            if (posted > 0) {
                provider.sendPosted();
            }
        }
        return posted;
    }

    /** Where a rejected send WR is, for the exception message (built only when one is thrown). */
    private String where(SendWr w, int earlier) {
        return "send WR " + w.wrId() + " (" + w.opcode() + ") on QP 0x" + Integer.toHexString(qpn)
                + (earlier > 0 ? " (" + earlier + " earlier WRs of the chain were posted)" : "");
    }

    private void validateSend(SendWr w, int earlier) {
        WrOpcode op = w.opcode();
        boolean ok = switch (type) {
            case UD -> op == WrOpcode.SEND || op == WrOpcode.SEND_WITH_IMM;
            case UC -> op == WrOpcode.SEND || op == WrOpcode.SEND_WITH_IMM || op == WrOpcode.RDMA_WRITE
                    || op == WrOpcode.RDMA_WRITE_WITH_IMM || op == WrOpcode.LOCAL_INV;
            case RC -> true;
        };
        if (!ok) {
            throw new IllegalArgumentException(where(w, earlier) + ": opcode not valid on a " + type + " QP");
        }
        if (!device.providerDevice().supportsOpcode(op)) {
            throw new IllegalArgumentException(where(w, earlier) + ": opcode not supported by " + device.name());
        }
        boolean inline = (w.flags() & SendFlags.INLINE) != 0 && op != WrOpcode.RDMA_READ && !op.isAtomic();
        int n = w.numSge();
        if (inline) {
            long total = w.totalLength();
            if (total > initAttr.cap().maxInlineData()) {
                throw new IllegalArgumentException(where(w, earlier) + ": " + total
                        + " inline bytes exceed max_inline_data " + initAttr.cap().maxInlineData());
            }
        } else if (n > initAttr.cap().maxSendSge()) {
            throw new IllegalArgumentException(where(w, earlier) + ": " + n + " SGEs exceed max_send_sge "
                    + initAttr.cap().maxSendSge());
        }
        if (type != QpType.UD && !inline && w.totalLength() > device.providerDevice().portAttributes().maxMsgSize()) {
            // rxe_verbs.c validate_send_wr: "message length too long" (EINVAL at the post). UD is left to the
            // provider: a UD message above the path MTU is dropped unsent (IBTA C10-93.1.1).
            throw new IllegalArgumentException(where(w, earlier) + ": " + w.totalLength()
                    + " bytes exceed the port's max_msg_sz " + device.providerDevice().portAttributes().maxMsgSize());
        }
        if (op == WrOpcode.RDMA_READ && n > device.attributes().maxSgeRd()) {
            throw new IllegalArgumentException(where(w, earlier) + ": " + n + " SGEs exceed max_sge_rd "
                    + device.attributes().maxSgeRd());
        }
        if (op.isAtomic() && (n != 1 || w.sge(0).length() != 8)) {
            throw new IllegalArgumentException(where(w, earlier) + ": an atomic needs exactly one 8-byte SGE");
        }
        if (type == QpType.UD) {
            if (!(w.ah() instanceof AhImpl ah) || ah.isClosed()) {
                throw new IllegalArgumentException(where(w, earlier) + ": a UD send needs an open address handle");
            }
            if (ah.pdImpl() != pd) {
                throw new IllegalArgumentException(where(w, earlier) + ": the address handle belongs to another PD");
            }
        }
        for (int i = 0; i < n; i++) {
            if (w.sge(i).length() < 0) {
                throw new IllegalArgumentException(where(w, earlier) + ": SGE " + i + " has a negative length");
            }
        }
    }

    private void copyInline(SendWr w, SendWqe slot) {
        long off = 0;
        for (int i = 0; i < w.numSge(); i++) {
            Sge s = w.sge(i);
            MrImpl mr = device.memoryTable().lookup(s.lkey());
            if (mr == null || mr.pdImpl() != pd || mr.check(pd, s.addr(), s.length(), 0) != AccessResult.OK) {
                throw new IllegalArgumentException("inline SGE " + i + " of WR " + w.wrId() + ": lkey 0x"
                        + Integer.toHexString(s.lkey()) + " does not name a region of this PD covering [0x"
                        + Long.toHexString(s.addr()) + ", +" + s.length() + ")");
            }
            MemorySegment.copy(mr.segment(), mr.offsetOf(s.addr()), slot.inlineData, off, s.length());
            off += s.length();
        }
        slot.length = off;
    }

    @Override
    public int postRecv(RecvWr wr) {
        if (wr == null) {
            throw new IllegalArgumentException("work request must not be null");
        }
        if (srq != null) {
            throw new IllegalStateException("QP 0x" + Integer.toHexString(qpn)
                    + " uses a shared receive queue: post receives to the SRQ");
        }
        if (destroyed) {
            throw new IllegalStateException("QP 0x" + Integer.toHexString(qpn) + " is destroyed");
        }
        if (state() == QpState.RESET) {
            throw new IllegalStateException("QP 0x" + Integer.toHexString(qpn)
                    + " is in RESET: receives can be posted from INIT on");
        }
        int posted = 0;
        try {
            synchronized (rqLock) {
                long produced = (long) RQ_PRODUCED.getVolatile(this);
                for (RecvWr w = wr; w != null; w = w.next()) {
                    if (w.numSge() > initAttr.cap().maxRecvSge()) {
                        throw new IllegalArgumentException("receive WR " + w.wrId() + " has " + w.numSge()
                                + " SGEs; max_recv_sge is " + initAttr.cap().maxRecvSge() + " (" + posted
                                + " earlier WRs were posted)");
                    }
                    if (produced - rqFreed >= rqDepth) {
                        break;
                    }
                    rq[(int) produced & rqMask].copyFrom(w);
                    produced++;
                    RQ_PRODUCED.setVolatile(this, produced); // volatile: see postSend
                    posted++;
                }
            }
        } finally {
            if (posted > 0) {
                provider.recvPosted();
            }
        }
        return posted;
    }

    @Override
    public Counters queryCounters() {
        return device.counters().qpSnapshot(qpn, counters);
    }

    @Override
    public synchronized PacketCapture startCapture(Path file) {
        if (file == null) {
            throw new IllegalArgumentException("file must not be null");
        }
        if (destroyed) {
            throw new IllegalStateException("QP 0x" + Integer.toHexString(qpn) + " is destroyed");
        }
        PacketTap running = capture;
        if (running != null && !running.isClosed()) {
            throw new IllegalStateException("QP 0x" + Integer.toHexString(qpn) + " is already captured to "
                    + running.file());
        }
        PacketTap[] self = new PacketTap[1];
        PacketTap t = PacketTap.open(file, () -> stopCapture(self[0]));
        self[0] = t;
        capture = t;
        return t;
    }

    private synchronized void stopCapture(PacketTap t) {
        if (capture == t) {
            capture = null;
        }
    }

    /**
     * The QP's running capture, or {@code null} (one volatile read: engines check it per packet).
     *
     * @return the tap
     */
    public PacketTap capture() {
        return capture;
    }

    /**
     * The QP's counters, for its engine to write (owner engine thread only; see {@link CounterSet}).
     *
     * @return the QP's counter set
     */
    public CounterSet counters() {
        return counters;
    }

    @Override
    public int sendQueueDepth() {
        return (int) ((long) SQ_PRODUCED.getVolatile(this) - (long) SQ_RETIRED.getVolatile(this));
    }

    @Override
    public int recvQueueDepth() {
        if (srq != null) {
            return 0;
        }
        return (int) ((long) RQ_PRODUCED.getVolatile(this) - (long) RQ_RETIRED.getVolatile(this));
    }

    @Override
    public void attachMcast(Gid mgid, int mlid) {
        if (mgid == null || !mgid.isMulticast()) {
            throw new IllegalArgumentException("QP 0x" + Integer.toHexString(qpn) + ": " + mgid
                    + " is not a multicast GID (EINVAL)");
        }
        if (type != QpType.UD) {
            throw new IllegalArgumentException("QP 0x" + Integer.toHexString(qpn) + ": only UD QPs join multicast"
                    + " groups, not " + type + " (EINVAL)");
        }
        synchronized (modifyLock) {
            if (destroyed) {
                throw new IllegalStateException("QP 0x" + Integer.toHexString(qpn) + " is destroyed");
            }
            device.attachMcast(this, mgid);
            if (!mcastGroups.contains(mgid)) {
                mcastGroups.add(mgid);
            }
        }
    }

    @Override
    public void detachMcast(Gid mgid, int mlid) {
        synchronized (modifyLock) {
            if (mgid == null || !mcastGroups.remove(mgid)) {
                throw new RdmaException(Errno.EINVAL, "QP 0x" + Integer.toHexString(qpn) + " is not attached to "
                        + mgid);
            }
            device.detachMcast(this, mgid);
        }
    }

    /** The multicast groups the QP is attached to (a copy). */
    public List<Gid> mcastGroups() {
        synchronized (modifyLock) {
            return List.copyOf(mcastGroups);
        }
    }

    @Override
    public void close() {
        synchronized (modifyLock) {
            if (destroyed) {
                return;
            }
            destroyed = true;
            // uverbs detaches a destroyed QP from its groups (ib_uverbs_detach_umcast).
            for (Gid g : mcastGroups) {
                device.detachMcast(this, g);
            }
            mcastGroups.clear();
            QpState cur = state();
            STATE.setVolatile(this, QpState.ERR);
            attr.qpState(QpState.ERR);
            if (cur != QpState.ERR) {
                device.events().qpStateChanged(this, cur, QpState.ERR);
            }
            provider.destroy();
        }
        device.counters().qpDestroyed(qpn, counters);
        device.unregisterQp(this);
        sendCq.users.remove(this);
        recvCq.users.remove(this);
        if (srq != null) {
            srq.users.remove(this);
        }
        device.release(DeviceImpl.Resource.QP);
        pd.qpDestroyed(this);
        pd.contextImpl().qpDestroyed(this);
    }

    // ---------------------------------------------------------------- engine side

    /** Whether the QP is destroyed. */
    public boolean isDestroyed() {
        return destroyed;
    }

    /** The protection domain (internal type). */
    public PdImpl pdImpl() {
        return pd;
    }

    /** The device (internal type). */
    public DeviceImpl deviceImpl() {
        return device;
    }

    /** The provider half. */
    public ProviderQp provider() {
        return provider;
    }

    /**
     * The live attributes. Fields set by a modify are published by the state write that follows
     * them, so an engine that read the new state sees them.
     */
    public QpAttr attr() {
        return attr;
    }

    /** The send CQ. */
    public CqImpl sendCq() {
        return sendCq;
    }

    /** The receive CQ. */
    public CqImpl recvCq() {
        return recvCq;
    }

    /** The SRQ, or {@code null}. */
    public SrqImpl srq() {
        return srq;
    }

    /** The count of send WQEs ever posted (acquire). */
    public long sqProduced() {
        return (long) SQ_PRODUCED.getAcquire(this);
    }

    /** The count of send WQEs retired (completed or flushed). */
    public long sqRetired() {
        return (long) SQ_RETIRED.getAcquire(this);
    }

    /** The send slot of a WQE index in [sqRetired, sqProduced). */
    public SendWqe sqSlot(long index) {
        return sq[(int) index & sqMask];
    }

    /**
     * Retires the oldest outstanding send WQE with {@code status}, reporting it if signaled or if the
     * status is an error. Owner engine thread only. Returns {@code false} if the CQ overflowed.
     */
    public boolean completeSend(WcStatus status, int byteLen) {
        long idx = (long) SQ_RETIRED.getAcquire(this);
        SendWqe w = sq[(int) idx & sqMask];
        boolean report = w.signaled || status != WcStatus.SUCCESS;
        long wrId = w.wrId;
        WcOpcode opcode = w.opcode.completionOpcode();
        if (status == WcStatus.SUCCESS) {
            counters.inc(Counter.RDMA_SENDS);
        }
        // Free the slot before the completion is visible: an application that polls it may post again
        // at once and must find room (perftest and rping repost right after a poll). The fields the
        // completion needs were read above, so a post refilling the slot cannot change them. Retire
        // after the push, so that sendQueueDepth() 0 still means every completion is in the CQ.
        sqFreed = idx + 1;
        boolean ok = !report || sendCq.push(wrId, status, opcode, byteLen, 0, qpn, 0, 0, false);
        SQ_RETIRED.setRelease(this, idx + 1);
        return ok;
    }

    /**
     * Takes the next receive for an incoming message: from the QP's receive queue or from its SRQ.
     * Returns {@code null} if none is posted (RNR). Owner engine thread only; at most the receives
     * taken and not completed stay valid.
     */
    public RecvWqe takeRecv() {
        if (srq != null) {
            if (srqWqeOutstanding) {
                return srqWqe;
            }
            if (srq.take(srqWqe)) {
                srqWqeOutstanding = true;
                return srqWqe;
            }
            return null;
        }
        if (rqTaken < (long) RQ_RETIRED.getAcquire(this)) {
            rqTaken = (long) RQ_RETIRED.getAcquire(this);
        }
        if (rqTaken >= (long) RQ_PRODUCED.getAcquire(this)) {
            return null;
        }
        return rq[(int) rqTaken++ & rqMask];
    }

    /**
     * Puts back, uncompleted, the receive the last {@link #takeRecv()} returned: the message it was
     * taken for was dropped (a UC/UD class D error; rxe_resp.c leaves the receive queue's head in
     * place), so the next message uses it. An SRQ receive simply stays with the QP for its next
     * message. Owner engine thread only.
     */
    public void releaseRecv() {
        if (srq == null && rqTaken > (long) RQ_RETIRED.getAcquire(this)) {
            rqTaken--;
        }
    }

    /** The receive taken first and not completed yet, or {@code null}. Owner engine thread only. */
    public RecvWqe currentRecv() {
        if (srq != null) {
            return srqWqeOutstanding ? srqWqe : null;
        }
        long r = (long) RQ_RETIRED.getAcquire(this);
        return r < rqTaken ? rq[(int) r & rqMask] : null;
    }

    /**
     * Completes the oldest taken receive. Owner engine thread only. Returns {@code false} if the CQ
     * overflowed.
     */
    public boolean completeRecv(WcStatus status, WcOpcode opcode, int byteLen, int immOrInv, int wcFlags, int srcQp,
            boolean solicited) {
        if (status == WcStatus.SUCCESS) {
            counters.inc(Counter.RDMA_RECVS);
        }
        if (srq != null) {
            boolean ok = recvCq.push(srqWqe.wrId, status, opcode, byteLen, immOrInv, qpn, srcQp, wcFlags, solicited);
            srqWqeOutstanding = false;
            return ok;
        }
        long idx = (long) RQ_RETIRED.getAcquire(this);
        long wrId = rq[(int) idx & rqMask].wrId;
        if (rqTaken <= idx) {
            rqTaken = idx + 1;
        }
        // As completeSend: the slot is free before the completion is visible (the application that polls
        // it reposts at once; wrId was read first), retired after it (recvQueueDepth() 0 means every
        // completion is in the CQ).
        rqFreed = idx + 1;
        boolean ok = recvCq.push(wrId, status, opcode, byteLen, immOrInv, qpn, srcQp, wcFlags, solicited);
        RQ_RETIRED.setRelease(this, idx + 1);
        return ok;
    }

    /**
     * Completes every outstanding send and receive WQE with {@link WcStatus#WR_FLUSH_ERR}. Owner
     * engine thread only, and only in ERR or on reset/destroy. Returns how many were flushed.
     */
    public int flush() {
        return flushSend() + flushRecv();
    }

    /** Flushes the send queue only (ERR, or SQE on UD/UC). Owner engine thread only. */
    public int flushSend() {
        int n = 0;
        long produced = (long) SQ_PRODUCED.getAcquire(this);
        while ((long) SQ_RETIRED.getAcquire(this) < produced) {
            completeSend(WcStatus.WR_FLUSH_ERR, 0);
            n++;
        }
        return n;
    }

    /** Flushes the receive queue (or the SRQ receive this QP holds). Owner engine thread only. */
    public int flushRecv() {
        int n = 0;
        if (srq != null) {
            if (srqWqeOutstanding) {
                completeRecv(WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0, 0, 0, 0, false);
                n++;
            }
        } else {
            long rp = (long) RQ_PRODUCED.getAcquire(this);
            while ((long) RQ_RETIRED.getAcquire(this) < rp) {
                completeRecv(WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0, 0, 0, 0, false);
                n++;
            }
        }
        return n;
    }

    /**
     * Moves a UD or UC QP from RTS to SQE after a local send error (IBTA 10.3.1.6): the receive side
     * keeps working; the caller completes the failed WQE and flushes the rest of the send queue.
     */
    public boolean enterSendQueueError() {
        if (type == QpType.RC) {
            return enterError(AsyncEventType.QP_FATAL, "send queue error");
        }
        if (STATE.compareAndSet(this, QpState.RTS, QpState.SQE)) {
            device.events().qpStateChanged(this, QpState.RTS, QpState.SQE);
            return true;
        }
        return false;
    }

    /**
     * Moves the QP to ERR from its engine (a fatal transport error) and reports {@code event} (or
     * nothing if {@code null}). Returns whether this call made the transition. The caller flushes.
     */
    public boolean enterError(AsyncEventType event, String detail) {
        for (;;) {
            QpState cur = state();
            if (cur == QpState.ERR || cur == QpState.RESET) {
                return false;
            }
            if (STATE.compareAndSet(this, cur, QpState.ERR)) {
                device.events().qpStateChanged(this, cur, QpState.ERR);
                if (event != null) {
                    pd.contextImpl().asyncEvent(event, this, null, null, detail);
                }
                if (srq != null) {
                    pd.contextImpl().asyncEvent(AsyncEventType.QP_LAST_WQE_REACHED, this, null, null,
                            "QP attached to an SRQ entered ERR");
                }
                return true;
            }
        }
    }

    /**
     * Moves an iWARP QP to RTS when its connection is handed over (siw's RTS with the LLP handle),
     * from INIT or RTR. Returns whether it did; a QP already in ERR stays there.
     */
    public boolean enterRts() {
        for (;;) {
            QpState cur = state();
            if (cur == QpState.RTS) {
                return true;
            }
            if (cur != QpState.INIT && cur != QpState.RTR) {
                return false;
            }
            if (STATE.compareAndSet(this, cur, QpState.RTS)) {
                attr.qpState(QpState.RTS);
                device.events().qpStateChanged(this, cur, QpState.RTS);
                return true;
            }
        }
    }

    /** Reports COMM_EST once per connection: the first request arrived while the QP was in RTR. */
    public void communicationEstablished() {
        if (!commEstablished) {
            commEstablished = true;
            pd.contextImpl().asyncEvent(AsyncEventType.COMM_EST, this, null, null, "first packet received in RTR");
        }
    }

    @Override
    public String toString() {
        return "QueuePair[0x" + Integer.toHexString(qpn) + " " + type + " " + state() + "]";
    }
}
