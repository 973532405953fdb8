package io.jrdma.kernel;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.jrdma.internal.verbs.QpTransitions;
import io.jrdma.verbs.Counters;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.PacketCapture;
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
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Map;

/**
 * A queue pair ({@code struct ibv_qp}). Posting writes the WR chain into {@code ibv_send_wr} /
 * {@code ibv_recv_wr} / {@code ibv_sge} arrays allocated once with the QP (chains longer than the
 * arrays go in several calls) and calls the context's {@code ops.post_send} / {@code ops.post_recv}:
 * nothing is allocated per WR.
 *
 * <p>The state of a QP on an iWARP device is the one this QP keeps: Linux siw's query does not fill in the
 * state ({@code siw_query_qp} leaves {@code qp_state} as the kernel's buffer had it, and libibverbs then
 * caches that value in {@code ibv_qp.state}), and siw maps RESET, INIT and RTR to one state of its own
 * (IDLE). The kept state is the target of the last accepted modify, RTS once the iWARP CM has connected
 * the QP, and ERR once the connection is gone; on IB and RoCE the kernel's query is the state. libsiw
 * takes receives in any state (it writes them into the queue it shares with the kernel), and sends too,
 * ringing the kernel's doorbell, which refuses them before RTS.
 */
@SuppressWarnings("checkstyle:IllegalCatch") // MethodHandle.invokeExact declares Throwable
final class NativeQp extends NativeResource implements QueuePair, NativeContext.Addressed {
    /** WRs one post call carries at most. */
    static final int SLOTS = 16;

    private final NativePd pd;
    final MemorySegment qp;
    final int qpNum;
    private final QpType type;
    private final QpInitAttr initAttr;
    private final NativeCq sendCq;
    private final NativeCq recvCq;
    final NativeSrq srq;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment sendWrs;
    private final MemorySegment sendSges;
    private final MemorySegment recvWrs;
    private final MemorySegment recvSges;
    private final MemorySegment badWr;
    private final int sendSgeCap;
    private final int recvSgeCap;
    private final boolean sigAll;
    private final Object sendLock = new Object();
    private final Object recvLock = new Object();
    private volatile int sendDepth;
    private volatile int recvDepth;
    /** Whether the device is iWARP, whose kernel query does not report the state (see the class comment). */
    private final boolean keepsState;
    /** The state the QP is in, as this QP knows it (iWARP devices). */
    private volatile QpState kept = QpState.RESET;

    private NativeQp(NativePd pd, MemorySegment qp, QpInitAttr attr, QpCap granted) {
        this.pd = pd;
        this.qp = qp;
        this.qpNum = qp.get(JAVA_INT, Ibv.QP_QP_NUM);
        this.type = attr.qpType();
        this.sendCq = (NativeCq) attr.sendCq();
        this.recvCq = (NativeCq) attr.recvCq();
        this.srq = (NativeSrq) attr.srq();
        this.initAttr = new QpInitAttr(attr.qpType(), attr.sendCq(), attr.recvCq(), attr.srq(), granted,
                attr.sqSigAll());
        this.sigAll = attr.sqSigAll();
        this.sendSgeCap = Math.max(1, granted.maxSendSge());
        this.recvSgeCap = Math.max(1, granted.maxRecvSge());
        this.sendWrs = arena.allocate(Ibv.SEND_WR_SIZE * SLOTS, 8);
        this.sendSges = arena.allocate(Ibv.SGE_SIZE * SLOTS * sendSgeCap, 8);
        this.recvWrs = arena.allocate(Ibv.RECV_WR_SIZE * SLOTS, 8);
        this.recvSges = arena.allocate(Ibv.SGE_SIZE * SLOTS * recvSgeCap, 8);
        this.badWr = arena.allocate(8, 8);
        this.keepsState = pd.context.device().transport() == io.jrdma.verbs.TransportType.IWARP;
    }

    /** The state libibverbs caches for the QP, or on an iWARP device the one this QP keeps. */
    private QpState cachedState() {
        return keepsState ? kept : QpState.values()[Math.min(6, qp.get(JAVA_INT, Ibv.QP_STATE))];
    }

    /**
     * The iWARP CM has connected the QP (the kernel moved it to RTS) or the connection is gone (the kernel
     * moved it to ERR); no effect on IB and RoCE, whose query reports the state.
     */
    void connectionIs(boolean up) {
        if (keepsState) {
            synchronized (this) {
                if (up && (kept == QpState.INIT || kept == QpState.RTR)) {
                    kept = QpState.RTS;
                } else if (!up && kept != QpState.RESET) {
                    kept = QpState.ERR;
                }
            }
        }
    }

    static NativeQp create(NativePd pd, QpInitAttr attr) {
        NativeCq scq = cq(pd, attr.sendCq(), "send");
        NativeCq rcq = cq(pd, attr.recvCq(), "receive");
        NativeSrq srq = null;
        if (attr.srq() != null) {
            if (!(attr.srq() instanceof NativeSrq s) || s.pd.context != pd.context) {
                throw new IllegalArgumentException("the SRQ is not one of this context's");
            }
            s.check();
            srq = s;
        }
        checkCap(pd, attr.cap(), srq != null);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ia = a.allocate(Ibv.QP_INIT_ATTR_SIZE, 8);
            ia.set(ADDRESS, Ibv.QPI_SEND_CQ, scq.cq);
            ia.set(ADDRESS, Ibv.QPI_RECV_CQ, rcq.cq);
            ia.set(ADDRESS, Ibv.QPI_SRQ, srq == null ? MemorySegment.NULL : srq.srq);
            QpCap c = attr.cap();
            writeCap(ia, Ibv.QPI_CAP, c);
            ia.set(JAVA_INT, Ibv.QPI_QP_TYPE, attr.qpType().value());
            ia.set(JAVA_INT, Ibv.QPI_SQ_SIG_ALL, attr.sqSigAll() ? 1 : 0);
            MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
            MemorySegment qp = (MemorySegment) Ibv.CREATE_QP.invokeExact(errno, pd.pd, ia);
            if (qp.address() == 0) {
                int e = Ibv.errno(errno);
                if (e == 22 || e == 95) {
                    throw new IllegalArgumentException("ibv_create_qp refused " + attr.qpType() + " " + c + " (errno "
                            + e + (e == 95 ? ", EOPNOTSUPP: the device has no " + attr.qpType() + " QPs" : ", EINVAL")
                            + ")");
                }
                throw Ibv.fail("ibv_create_qp", e);
            }
            QpCap granted = new QpCap(ia.get(JAVA_INT, Ibv.QPI_CAP + Ibv.CAP_MAX_SEND_WR),
                    ia.get(JAVA_INT, Ibv.QPI_CAP + Ibv.CAP_MAX_RECV_WR),
                    ia.get(JAVA_INT, Ibv.QPI_CAP + Ibv.CAP_MAX_SEND_SGE),
                    ia.get(JAVA_INT, Ibv.QPI_CAP + Ibv.CAP_MAX_RECV_SGE),
                    ia.get(JAVA_INT, Ibv.QPI_CAP + Ibv.CAP_MAX_INLINE));
            NativeQp r = new NativeQp(pd, qp.reinterpret(Ibv.QP_SIZE), attr, granted);
            scq.addUser(r);
            if (rcq != scq) {
                rcq.addUser(r);
            }
            if (srq != null) {
                srq.users++;
            }
            return r;
        } catch (Throwable t) {
            throw Ibv.rethrow(t);
        }
    }

    private static NativeCq cq(NativePd pd, Object cq, String which) {
        if (!(cq instanceof NativeCq c) || c.isClosed()) {
            throw new IllegalArgumentException("the " + which + " CQ is not an open CQ of native:"
                    + pd.context.device().name());
        }
        if (c.owner() != pd.context) {
            throw new IllegalArgumentException("the " + which + " CQ belongs to another context than the PD");
        }
        return c;
    }

    /** The device limits a QP's capacities must keep (the kernel refuses more with a bare EINVAL). */
    private static void checkCap(NativePd pd, QpCap c, boolean srq) {
        io.jrdma.verbs.DeviceAttributes da = pd.context.attrs();
        if (c.maxSendWr() < 1) {
            throw new IllegalArgumentException("max_send_wr " + c.maxSendWr() + ": a QP needs a send queue");
        }
        if (c.maxSendWr() > da.maxQpWr() || c.maxRecvWr() > da.maxQpWr()) {
            throw new IllegalArgumentException("max_send_wr " + c.maxSendWr() + " / max_recv_wr " + c.maxRecvWr()
                    + " exceed the device's max_qp_wr " + da.maxQpWr());
        }
        if (c.maxSendSge() > da.maxSge() || c.maxRecvSge() > da.maxSge()) {
            throw new IllegalArgumentException("max_send_sge " + c.maxSendSge() + " / max_recv_sge " + c.maxRecvSge()
                    + " exceed the device's max_sge " + da.maxSge());
        }
        if (c.maxInlineData() > da.maxInlineData()) {
            throw new IllegalArgumentException("max_inline_data " + c.maxInlineData() + " exceeds the device's "
                    + da.maxInlineData() + " inline bytes");
        }
    }

    private static void writeCap(MemorySegment s, long off, QpCap c) {
        s.set(JAVA_INT, off + Ibv.CAP_MAX_SEND_WR, c.maxSendWr());
        s.set(JAVA_INT, off + Ibv.CAP_MAX_RECV_WR, c.maxRecvWr());
        s.set(JAVA_INT, off + Ibv.CAP_MAX_SEND_SGE, c.maxSendSge());
        s.set(JAVA_INT, off + Ibv.CAP_MAX_RECV_SGE, c.maxRecvSge());
        s.set(JAVA_INT, off + Ibv.CAP_MAX_INLINE, c.maxInlineData());
    }

    @Override
    String what() {
        return "QP 0x" + Integer.toHexString(qpNum);
    }

    @Override
    public long address() {
        return qp.address();
    }

    @Override
    public int qpNum() {
        return qpNum;
    }

    @Override
    public QpType type() {
        return type;
    }

    @Override
    public QpState state() {
        if (keepsState) {
            check();
            return kept;
        }
        return query().qpState();
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
        synchronized (this) {
            check();
            try (Arena a = Arena.ofConfined()) {
                MemorySegment at = a.allocate(Ibv.QP_ATTR_SIZE, 8);
                MemorySegment ia = a.allocate(Ibv.QP_INIT_ATTR_SIZE, 8);
                int mask = (1 << 21) - 1 & ~(QpAttrMask.ALT_PATH | QpAttrMask.PATH_MIG_STATE);
                int rc = (int) Ibv.QUERY_QP.invokeExact(qp, at, mask, ia);
                if (rc != 0) {
                    throw Ibv.fail("ibv_query_qp", rc);
                }
                QpAttr r = keepsState ? new QpAttr().qpState(kept).curQpState(kept)
                        : new QpAttr().qpState(QpState.values()[Math.min(6, at.get(JAVA_INT, Ibv.QPA_STATE))])
                                .curQpState(QpState.values()[Math.min(6, at.get(JAVA_INT, Ibv.QPA_CUR_STATE))]);
                int mtu = at.get(JAVA_INT, Ibv.QPA_PATH_MTU);
                if (mtu >= 1 && mtu <= 5) {
                    r.pathMtu(Mtu.ofValue(mtu));
                }
                r.qkey(at.get(JAVA_INT, Ibv.QPA_QKEY)).rqPsn(at.get(JAVA_INT, Ibv.QPA_RQ_PSN))
                        .sqPsn(at.get(JAVA_INT, Ibv.QPA_SQ_PSN)).destQpNum(at.get(JAVA_INT, Ibv.QPA_DEST_QP_NUM))
                        .qpAccessFlags(at.get(JAVA_INT, Ibv.QPA_ACCESS))
                        .cap(new QpCap(at.get(JAVA_INT, Ibv.QPA_CAP), at.get(JAVA_INT, Ibv.QPA_CAP + 4),
                                at.get(JAVA_INT, Ibv.QPA_CAP + 8), at.get(JAVA_INT, Ibv.QPA_CAP + 12),
                                at.get(JAVA_INT, Ibv.QPA_CAP + 16)))
                        .pkeyIndex(Short.toUnsignedInt(at.get(JAVA_SHORT, Ibv.QPA_PKEY_INDEX)))
                        .sqdAsyncNotify(at.get(JAVA_BYTE, Ibv.QPA_SQD_NOTIFY) != 0)
                        .maxRdAtomic(u8(at, Ibv.QPA_MAX_RD_ATOMIC)).maxDestRdAtomic(u8(at, Ibv.QPA_MAX_DEST_RD_ATOMIC))
                        .minRnrTimer(u8(at, Ibv.QPA_MIN_RNR_TIMER)).portNum(Math.max(1, u8(at, Ibv.QPA_PORT_NUM)))
                        .timeout(u8(at, Ibv.QPA_TIMEOUT)).retryCnt(u8(at, Ibv.QPA_RETRY_CNT))
                        .rnrRetry(u8(at, Ibv.QPA_RNR_RETRY));
                try {
                    r.ahAttr(NativePd.readAh(at.asSlice(Ibv.QPA_AH, Ibv.AH_ATTR_SIZE)));
                } catch (IllegalArgumentException e) {
                    // no address vector yet (RESET/INIT)
                }
                return r;
            } catch (Throwable t) {
                throw Ibv.rethrow(t);
            }
        }
    }

    private static int u8(MemorySegment s, long off) {
        return Byte.toUnsignedInt(s.get(JAVA_BYTE, off));
    }

    /**
     * {@code ibv_modify_qp}. What the caller gets wrong is named before the kernel sees it, as on every jrdma
     * device: an empty mask, a value outside its IBTA field or the device's limits (the kernel's drivers take
     * some of them unchecked: Linux rxe keeps a retry count of 8 or an RNR timer of 32), a current state that
     * is not the QP's, an illegal transition ({@link IllegalStateException}). The required and allowed
     * attributes of a transition are the kernel's to check ({@code ib_modify_qp_is_ok}); when it refuses with
     * EINVAL, the IBTA table ({@link QpTransitions}) names the attribute that is missing or not allowed.
     */
    @Override
    public void modify(QpAttr attr) {
        if (attr == null) {
            throw new IllegalArgumentException("attr must not be null");
        }
        int mask = attr.mask();
        if (mask == 0) {
            throw new IllegalArgumentException(what() + ": an empty attribute mask (no attribute to modify)");
        }
        synchronized (this) {
            check();
            validateValues(attr, mask);
            QpState from = cachedState();
            if ((mask & QpAttrMask.CUR_STATE) != 0) {
                from = state();
                if (attr.curQpState() != from) {
                    throw new IllegalStateException(what() + ": the current state given is " + attr.curQpState()
                            + " but the QP is in " + from);
                }
            }
            QpState to = (mask & QpAttrMask.STATE) != 0 ? attr.qpState() : from;
            if (!QpTransitions.isValid(from, to, type)) {
                from = state();
                to = (mask & QpAttrMask.STATE) != 0 ? attr.qpState() : from;
                if (!QpTransitions.isValid(from, to, type)) {
                    throw new IllegalStateException(what() + " (" + type + "): no transition " + from + " -> " + to);
                }
            }
            try (Arena a = Arena.ofConfined()) {
                MemorySegment s = a.allocate(Ibv.QP_ATTR_SIZE, 8);
                write(s, attr);
                int rc = (int) Ibv.MODIFY_QP.invokeExact(qp, s, mask);
                if (rc == 22) {
                    explainRefusal(attr, mask);
                }
                if (rc != 0) {
                    throw Ibv.fail("ibv_modify_qp(" + QpAttrMask.toString(mask) + ")", rc);
                }
                if ((mask & QpAttrMask.STATE) != 0) {
                    kept = attr.qpState();
                    if (attr.qpState() == QpState.RESET) {
                        sendDepth = 0;
                        recvDepth = 0;
                    }
                }
            } catch (Throwable t) {
                throw Ibv.rethrow(t);
            }
        }
    }

    /** Throws the exception that says why the kernel refused a modify with EINVAL. */
    private void explainRefusal(QpAttr attr, int mask) {
        QpState now = state();
        QpState to = (mask & QpAttrMask.STATE) != 0 ? attr.qpState() : now;
        if (pd.context.device().transport() != io.jrdma.verbs.TransportType.IWARP) {
            QpTransitions.check(now, to, mask, type, qpNum);
        } else {
            QpTransitions.checkTransition(now, to, mask, type, qpNum);
        }
        throw new IllegalArgumentException("ibv_modify_qp(" + what() + ", " + QpAttrMask.toString(mask)
                + ") refused " + attr + " in " + now + " (EINVAL: the device does not take these values)");
    }

    /** The range checks of the attributes in {@code mask}: IBTA's field widths and the device's limits. */
    private void validateValues(QpAttr a, int mask) {
        io.jrdma.verbs.DeviceAttributes da = pd.context.attrs();
        if ((mask & QpAttrMask.STATE) != 0 && a.qpState() == null) {
            throw new IllegalArgumentException(what() + ": STATE set without a state");
        }
        if ((mask & QpAttrMask.CUR_STATE) != 0 && a.curQpState() == null) {
            throw new IllegalArgumentException(what() + ": CUR_STATE set without a state");
        }
        if ((mask & QpAttrMask.PORT) != 0 && (a.portNum() < 1 || a.portNum() > da.physPortCnt())) {
            throw new IllegalArgumentException(what() + ": port " + a.portNum() + " does not exist (the device has "
                    + da.physPortCnt() + ")");
        }
        if ((mask & QpAttrMask.ACCESS_FLAGS) != 0 && (a.qpAccessFlags() & ~io.jrdma.verbs.Access.ALL) != 0) {
            throw new IllegalArgumentException(what() + ": unknown access flags 0x"
                    + Integer.toHexString(a.qpAccessFlags() & ~io.jrdma.verbs.Access.ALL));
        }
        if ((mask & QpAttrMask.PATH_MTU) != 0 && a.pathMtu() == null) {
            throw new IllegalArgumentException(what() + ": PATH_MTU set without a path MTU");
        }
        if ((mask & QpAttrMask.MAX_QP_RD_ATOMIC) != 0
                && (a.maxRdAtomic() < 0 || a.maxRdAtomic() > da.maxQpInitRdAtom())) {
            throw new IllegalArgumentException(what() + ": max_rd_atomic " + a.maxRdAtomic() + " outside 0.."
                    + da.maxQpInitRdAtom());
        }
        if ((mask & QpAttrMask.MAX_DEST_RD_ATOMIC) != 0
                && (a.maxDestRdAtomic() < 0 || a.maxDestRdAtomic() > da.maxQpRdAtom())) {
            throw new IllegalArgumentException(what() + ": max_dest_rd_atomic " + a.maxDestRdAtomic() + " outside 0.."
                    + da.maxQpRdAtom());
        }
        bits(mask, QpAttrMask.TIMEOUT, a.timeout(), 5, "timeout");
        bits(mask, QpAttrMask.RETRY_CNT, a.retryCnt(), 3, "retry_cnt");
        bits(mask, QpAttrMask.RNR_RETRY, a.rnrRetry(), 3, "rnr_retry");
        bits(mask, QpAttrMask.MIN_RNR_TIMER, a.minRnrTimer(), 5, "min_rnr_timer");
        if ((mask & QpAttrMask.AV) != 0 && a.ahAttr() == null) {
            throw new IllegalArgumentException(what() + ": AV set without an address vector");
        }
        if ((mask & QpAttrMask.DEST_QPN) != 0 && (a.destQpNum() & ~0xFFFFFF) != 0) {
            throw new IllegalArgumentException(what() + ": dest qpn 0x" + Integer.toHexString(a.destQpNum())
                    + " is 24 bits");
        }
        if ((mask & QpAttrMask.CAP) != 0 && a.cap() == null) {
            throw new IllegalArgumentException(what() + ": CAP set without capacities");
        }
    }

    private void bits(int mask, int bit, int value, int width, String name) {
        if ((mask & bit) != 0 && (value < 0 || value >= 1 << width)) {
            throw new IllegalArgumentException(what() + ": " + name + " " + value + " is " + width + " bits");
        }
    }

    /**
     * ibv_modify_qp with an {@code ibv_qp_attr} and mask written elsewhere (by {@code rdma_init_qp_attr}, for
     * the connection manager), under the same lock as {@link #modify}.
     */
    void modifyRaw(MemorySegment attr, int mask) {
        synchronized (this) {
            check();
            try {
                int rc = (int) Ibv.MODIFY_QP.invokeExact(qp, attr, mask);
                if (rc != 0) {
                    throw Ibv.fail("ibv_modify_qp(" + what() + ", " + QpAttrMask.toString(mask) + ")", rc);
                }
                if ((mask & QpAttrMask.STATE) != 0) {
                    kept = QpState.values()[Math.min(6, attr.get(JAVA_INT, Ibv.QPA_STATE))];
                }
            } catch (Throwable t) {
                throw Ibv.rethrow(t);
            }
        }
    }

    private static void write(MemorySegment s, QpAttr a) {
        if (a.qpState() != null) {
            s.set(JAVA_INT, Ibv.QPA_STATE, a.qpState().ordinal());
        }
        if (a.curQpState() != null) {
            s.set(JAVA_INT, Ibv.QPA_CUR_STATE, a.curQpState().ordinal());
        }
        if (a.pathMtu() != null) {
            s.set(JAVA_INT, Ibv.QPA_PATH_MTU, a.pathMtu().value());
        }
        s.set(JAVA_INT, Ibv.QPA_QKEY, a.qkey());
        s.set(JAVA_INT, Ibv.QPA_RQ_PSN, a.rqPsn());
        s.set(JAVA_INT, Ibv.QPA_SQ_PSN, a.sqPsn());
        s.set(JAVA_INT, Ibv.QPA_DEST_QP_NUM, a.destQpNum());
        s.set(JAVA_INT, Ibv.QPA_ACCESS, a.qpAccessFlags());
        if (a.cap() != null) {
            writeCap(s, Ibv.QPA_CAP, a.cap());
        }
        if (a.ahAttr() != null) {
            NativePd.writeAh(s.asSlice(Ibv.QPA_AH, Ibv.AH_ATTR_SIZE), a.ahAttr());
        }
        s.set(JAVA_SHORT, Ibv.QPA_PKEY_INDEX, (short) a.pkeyIndex());
        s.set(JAVA_BYTE, Ibv.QPA_SQD_NOTIFY, (byte) (a.sqdAsyncNotify() ? 1 : 0));
        s.set(JAVA_BYTE, Ibv.QPA_MAX_RD_ATOMIC, (byte) a.maxRdAtomic());
        s.set(JAVA_BYTE, Ibv.QPA_MAX_DEST_RD_ATOMIC, (byte) a.maxDestRdAtomic());
        s.set(JAVA_BYTE, Ibv.QPA_MIN_RNR_TIMER, (byte) a.minRnrTimer());
        s.set(JAVA_BYTE, Ibv.QPA_PORT_NUM, (byte) a.portNum());
        s.set(JAVA_BYTE, Ibv.QPA_TIMEOUT, (byte) a.timeout());
        s.set(JAVA_BYTE, Ibv.QPA_RETRY_CNT, (byte) a.retryCnt());
        s.set(JAVA_BYTE, Ibv.QPA_RNR_RETRY, (byte) a.rnrRetry());
    }

    @Override
    public int postSend(SendWr wr) {
        if (wr == null) {
            throw new IllegalArgumentException("wr must not be null");
        }
        synchronized (sendLock) {
            check();
            int posted = 0;
            SendWr w = wr;
            try {
                while (w != null) {
                    int n = 0;
                    SendWr first = w;
                    while (w != null && n < SLOTS) {
                        writeSend(n, w, n + 1 < SLOTS && w.next() != null);
                        n++;
                        w = w.next();
                    }
                    int rc = (int) Ibv.OP_POST_SEND.invokeExact(pd.context.postSendFn, qp, sendWrs, badWr);
                    if (rc == 0) {
                        posted += n;
                        sendDepth += n;
                        continue;
                    }
                    int ok = (int) ((badWr.get(JAVA_LONG, 0) - sendWrs.address()) / Ibv.SEND_WR_SIZE);
                    ok = ok < 0 || ok > n ? 0 : ok;
                    posted += ok;
                    sendDepth += ok;
                    if (rc == 12 || rc == -12) { // libsiw returns negated errno values
                        return posted;
                    }
                    throw postError("ibv_post_send", rc, posted, first, true);
                }
            } catch (Throwable t) {
                throw Ibv.rethrow(t);
            }
            return posted;
        }
    }

    private RuntimeException postError(String call, int returned, int posted, Object wr, boolean send) {
        int rc = Math.abs(returned); // libsiw returns negated errno values
        QpState s = cachedState();
        if (keepsState && send && rc != 22 && (s == QpState.RESET || s == QpState.INIT || s == QpState.RTR)) {
            // siw refuses the doorbell of a QP that is not connected (EPERM, ENOTCONN); libsiw's own EINVAL
            // is a WR it cannot take, in any state
            return new IllegalStateException(call + ": " + what() + " is in " + s + " (WR " + posted
                    + " of the chain refused, errno " + rc + ")");
        }
        if (rc == 22 && !keepsState && (s == QpState.RESET || (send && (s == QpState.INIT || s == QpState.RTR)))) {
            return new IllegalStateException(call + ": " + what() + " is in " + s + " (WR " + posted
                    + " of the chain refused, EINVAL)");
        }
        if (rc == 22) {
            return new IllegalArgumentException(call + ": WR " + posted + " of the chain refused (EINVAL: bad opcode"
                    + " for a " + type + " QP, too many SGEs, or inline data too long)");
        }
        return Ibv.fail(call, rc);
    }

    private void writeSend(int i, SendWr w, boolean linkNext) {
        WrOpcode op = w.opcode();
        if (op == null) {
            throw new IllegalArgumentException("send WR without an opcode");
        }
        if (!allowed(type, op)) {
            throw new IllegalArgumentException(op + " is not a " + type + " operation (IBTA 11.4.1.1: UD QPs send "
                    + "only SEND and SEND_WITH_IMM; UC QPs add RDMA_WRITE, RDMA_WRITE_WITH_IMM and LOCAL_INV)");
        }
        int nsge = w.numSge();
        if (nsge > sendSgeCap) {
            throw new IllegalArgumentException("send WR has " + nsge + " SGEs; the QP's max_send_sge is " + sendSgeCap);
        }
        if (op.isAtomic() && (nsge != 1 || w.sge(0).length() != 8)) {
            throw new IllegalArgumentException(op + " needs exactly one 8-byte SGE (IBTA 9.4.5), got " + nsge
                    + (nsge == 1 ? " of " + w.sge(0).length() + " bytes" : " SGEs"));
        }
        long o = i * Ibv.SEND_WR_SIZE;
        long sgeBase = (long) i * sendSgeCap * Ibv.SGE_SIZE;
        boolean inline = (w.flags() & SendFlags.INLINE) != 0;
        for (int k = 0; k < nsge; k++) {
            Sge g = w.sge(k);
            if (inline && !inlineReadable(g)) {
                throw new IllegalArgumentException("inline send: SGE " + k + " (0x" + Long.toHexString(g.addr()) + ", "
                        + g.length() + " B) is not inside a live region of this PD; the library would copy from it");
            }
            pd.reapIfFreed(g.lkey());
            long so = sgeBase + k * Ibv.SGE_SIZE;
            sendSges.set(JAVA_LONG, so, g.addr());
            sendSges.set(JAVA_INT, so + 8, g.length());
            sendSges.set(JAVA_INT, so + 12, g.lkey());
        }
        sendWrs.set(JAVA_LONG, o + Ibv.SWR_WR_ID, w.wrId());
        sendWrs.set(JAVA_LONG, o + Ibv.SWR_NEXT, linkNext ? sendWrs.address() + o + Ibv.SEND_WR_SIZE : 0L);
        sendWrs.set(JAVA_LONG, o + Ibv.SWR_SG_LIST, sendSges.address() + sgeBase);
        sendWrs.set(JAVA_INT, o + Ibv.SWR_NUM_SGE, nsge);
        sendWrs.set(JAVA_INT, o + Ibv.SWR_OPCODE, op.value());
        sendWrs.set(JAVA_INT, o + Ibv.SWR_SEND_FLAGS, w.flags());
        int imm = switch (op) {
            case SEND_WITH_IMM, RDMA_WRITE_WITH_IMM -> Integer.reverseBytes(w.immData());
            case SEND_WITH_INV, LOCAL_INV -> w.invalidateRkey();
            default -> 0;
        };
        sendWrs.set(JAVA_INT, o + Ibv.SWR_IMM, imm);
        switch (op) {
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ -> {
                sendWrs.set(JAVA_LONG, o + Ibv.SWR_REMOTE_ADDR, w.remoteAddr());
                sendWrs.set(JAVA_INT, o + Ibv.SWR_RDMA_RKEY, w.rkey());
            }
            case ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD -> {
                sendWrs.set(JAVA_LONG, o + Ibv.SWR_REMOTE_ADDR, w.remoteAddr());
                sendWrs.set(JAVA_LONG, o + Ibv.SWR_COMPARE_ADD, w.compareAdd());
                sendWrs.set(JAVA_LONG, o + Ibv.SWR_SWAP, w.swap());
                sendWrs.set(JAVA_INT, o + Ibv.SWR_ATOMIC_RKEY, w.rkey());
            }
            default -> {
                if (type == QpType.UD) {
                    if (!(w.ah() instanceof NativeAh ah) || ah.isClosed()) {
                        throw new IllegalArgumentException("a UD send needs an open address handle of this device");
                    }
                    if (ah.pd() != pd) {
                        throw new IllegalArgumentException("the UD send's address handle is of another PD than the QP");
                    }
                    sendWrs.set(ADDRESS, o + Ibv.SWR_UD_AH, ah.ah);
                    sendWrs.set(JAVA_INT, o + Ibv.SWR_UD_QPN, w.remoteQpn());
                    sendWrs.set(JAVA_INT, o + Ibv.SWR_UD_QKEY, w.remoteQkey());
                } else {
                    sendWrs.set(JAVA_LONG, o + Ibv.SWR_REMOTE_ADDR, 0L);
                    sendWrs.set(JAVA_LONG, o + Ibv.SWR_COMPARE_ADD, 0L);
                }
            }
        }
    }

    /** The operations each transport service has (the kernel refuses the others with a bare EINVAL). */
    static boolean allowed(QpType type, WrOpcode op) {
        return switch (type) {
            case RC -> true;
            case UC -> switch (op) {
                case SEND, SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM, LOCAL_INV -> true;
                default -> false;
            };
            case UD -> op == WrOpcode.SEND || op == WrOpcode.SEND_WITH_IMM;
        };
    }

    private boolean inlineReadable(Sge g) {
        if (g.length() == 0) {
            return true;
        }
        for (NativeMr m : pd.mrs) {
            if (m.covers(g.addr(), Integer.toUnsignedLong(g.length()))) {
                return true;
            }
        }
        return false;
    }

    @Override
    public int postRecv(RecvWr wr) {
        if (wr == null) {
            throw new IllegalArgumentException("wr must not be null");
        }
        if (srq != null) {
            throw new IllegalStateException(what() + " receives from a shared receive queue: post receives there");
        }
        synchronized (recvLock) {
            check();
            int posted = 0;
            RecvWr w = wr;
            try {
                while (w != null) {
                    int n = 0;
                    RecvWr first = w;
                    while (w != null && n < SLOTS) {
                        writeRecv(pd, recvWrs, recvSges, recvSgeCap, n, w, n + 1 < SLOTS && w.next() != null);
                        n++;
                        w = w.next();
                    }
                    int rc = (int) Ibv.OP_POST_RECV.invokeExact(pd.context.postRecvFn, qp, recvWrs, badWr);
                    if (rc == 0) {
                        posted += n;
                        recvDepth += n;
                        continue;
                    }
                    int ok = (int) ((badWr.get(JAVA_LONG, 0) - recvWrs.address()) / Ibv.RECV_WR_SIZE);
                    ok = ok < 0 || ok > n ? 0 : ok;
                    posted += ok;
                    recvDepth += ok;
                    if (rc == 12 || rc == -12) { // libsiw returns negated errno values
                        return posted;
                    }
                    throw postError("ibv_post_recv", rc, posted, first, false);
                }
            } catch (Throwable t) {
                throw Ibv.rethrow(t);
            }
            return posted;
        }
    }

    /** Writes {@code w} into slot {@code i} of {@code wrs} (and its SGEs); shared with the SRQ. */
    static void writeRecv(NativePd pd, MemorySegment wrs, MemorySegment sges, int sgeCap, int i, RecvWr w,
            boolean linkNext) {
        int nsge = w.numSge();
        if (nsge > sgeCap) {
            throw new IllegalArgumentException("receive WR has " + nsge + " SGEs; the queue's max_recv_sge is "
                    + sgeCap);
        }
        long o = i * Ibv.RECV_WR_SIZE;
        long sgeBase = (long) i * sgeCap * Ibv.SGE_SIZE;
        for (int k = 0; k < nsge; k++) {
            Sge g = w.sge(k);
            pd.reapIfFreed(g.lkey());
            long so = sgeBase + k * Ibv.SGE_SIZE;
            sges.set(JAVA_LONG, so, g.addr());
            sges.set(JAVA_INT, so + 8, g.length());
            sges.set(JAVA_INT, so + 12, g.lkey());
        }
        wrs.set(JAVA_LONG, o + Ibv.RWR_WR_ID, w.wrId());
        wrs.set(JAVA_LONG, o + Ibv.RWR_NEXT, linkNext ? wrs.address() + o + Ibv.RECV_WR_SIZE : 0L);
        wrs.set(JAVA_LONG, o + Ibv.RWR_SG_LIST, sges.address() + sgeBase);
        wrs.set(JAVA_INT, o + Ibv.RWR_NUM_SGE, nsge);
    }

    /** A completion of this QP was polled. */
    void completed(WcOpcode op) {
        if (op == WcOpcode.RECV || op == WcOpcode.RECV_RDMA_WITH_IMM) {
            if (srq != null) {
                srq.consumed();
            } else if (recvDepth > 0) {
                recvDepth--;
            }
        } else if (sendDepth > 0) {
            sendDepth--;
        }
    }

    @Override
    public Counters queryCounters() {
        return new Counters(pd.context.device().name(), qpNum, System.nanoTime(), Map.of());
    }

    @Override
    public PacketCapture startCapture(Path file) {
        throw new UnsupportedOperationException(what() + " is a kernel QP: capture with tcpdump on the device's netdev"
                + " or ibdump");
    }

    /**
     * Send WRs posted and not yet completed. The kernel reports no queue depth: this counts posts minus polled
     * send completions, so unsignaled WRs stay counted until the QP is reset.
     */
    @Override
    public int sendQueueDepth() {
        return sendDepth;
    }

    @Override
    public int recvQueueDepth() {
        return recvDepth;
    }

    @Override
    public void attachMcast(Gid mgid, int mlid) {
        mcast(Ibv.ATTACH_MCAST, "ibv_attach_mcast", mgid, mlid);
        synchronized (this) {
            attached.add(new Attachment(mgid, mlid));
        }
    }

    @Override
    public void detachMcast(Gid mgid, int mlid) {
        mcast(Ibv.DETACH_MCAST, "ibv_detach_mcast", mgid, mlid);
        synchronized (this) {
            attached.remove(new Attachment(mgid, mlid));
        }
    }

    /** A multicast group the QP is attached to (guarded by the QP's monitor). */
    private record Attachment(Gid mgid, int mlid) {
    }

    /**
     * The groups the QP is attached to: detached before the QP is destroyed, since the kernel refuses to destroy a
     * QP that still has attachments (EBUSY), and jrdma's QPs leave their groups when destroyed.
     */
    private final java.util.List<Attachment> attached = new java.util.ArrayList<>(0);

    private void detachAll() {
        java.util.List<Attachment> all;
        synchronized (this) {
            all = new java.util.ArrayList<>(attached);
            attached.clear();
        }
        for (Attachment a : all) {
            try {
                mcast(Ibv.DETACH_MCAST, "ibv_detach_mcast", a.mgid(), a.mlid());
            } catch (RuntimeException e) {
                System.getLogger("io.jrdma.kernel").log(System.Logger.Level.DEBUG, what() + ": detach before destroy: "
                        + e.getMessage());
            }
        }
    }

    private void mcast(java.lang.invoke.MethodHandle h, String call, Gid mgid, int mlid) {
        if (type != QpType.UD) {
            throw new IllegalArgumentException(call + ": " + what() + " is " + type + ", not UD");
        }
        if (mgid == null || !mgid.isMulticast()) {
            throw new IllegalArgumentException(call + ": " + mgid + " is not a multicast GID");
        }
        synchronized (this) {
            check();
            try (Arena a = Arena.ofConfined()) {
                MemorySegment g = a.allocate(16, 8);
                MemorySegment.copy(mgid.raw(), 0, g, JAVA_BYTE, 0, 16);
                int rc = (int) h.invokeExact(qp, g, (short) mlid);
                if (rc != 0) {
                    throw Ibv.fail(call, rc);
                }
            } catch (Throwable t) {
                throw Ibv.rethrow(t);
            }
        }
    }

    @Override
    void destroy() {
        detachAll();
        synchronized (sendLock) {
            synchronized (recvLock) {
                try {
                    int rc = (int) Ibv.DESTROY_QP.invokeExact(qp);
                    if (rc != 0) {
                        throw Ibv.fail("ibv_destroy_qp", rc);
                    }
                } catch (Throwable t) {
                    throw Ibv.rethrow(t);
                }
                closed = true;
                arena.close();
            }
        }
    }

    @Override
    void forget() {
        sendCq.removeUser(this);
        recvCq.removeUser(this);
        if (srq != null) {
            srq.users--;
        }
        pd.qps.remove(this);
        pd.context.qps.remove(this);
    }

    @Override
    public String toString() {
        return what() + " on native:" + pd.context.device().name();
    }
}
