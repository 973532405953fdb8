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
 *
 * <p>Each queue's WRs are kept in a {@link WrRing} until their completions retire them, which gives the depths
 * and tells which queue an error completion belongs to. On IB and RoCE the QP finishes what the API promises
 * where the kernel does not: a QP in ERR flushes every WR, also a receive posted after the QP failed (Linux rxe's
 * responder runs only when a packet or a state change wakes it, so the post is followed by a modify to ERR,
 * which wakes it), and destroying or resetting a QP flushes its outstanding WRs (the kernel drops them silently):
 * the QP is moved to ERR first and waits, bounded by {@link #FLUSH_WAIT_NANOS}, until its flushed completions
 * are in its CQs. A QP in ERR learns that a flush is over from a marker WR of its own, posted last and flushed
 * last, whose completion is not delivered; it also retires the unsignaled WRs that finished before the error.
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
    /** The send WRs not yet retired. */
    private final WrRing sends;
    /** The receive WRs not yet retired; null with an SRQ. */
    private final WrRing recvs;
    /** An error completion of this QP was taken (an RC QP is then in ERR); cleared by RESET. */
    private volatile boolean errorSeen;
    /** A marker WR is in the send / receive queue. */
    private volatile boolean sendMarker;
    private volatile boolean recvMarker;
    /** Whether the device is iWARP, whose kernel query does not report the state (see the class comment). */
    private final boolean keepsState;
    /** The state the QP is in, as this QP knows it (iWARP devices; on IB and RoCE the target of the last modify). */
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
        this.sends = new WrRing(granted.maxSendWr() + SLOTS + 1);
        this.recvs = srq == null ? new WrRing(granted.maxRecvWr() + SLOTS + 1) : null;
    }

    /** How long a reset or destroy waits for the kernel to flush the QP's WRs at most. */
    static final long FLUSH_WAIT_NANOS = 2_000_000_000L;
    /** The pause between two looks at the CQs while waiting for a flush. */
    private static final long FLUSH_POLL_NANOS = 1_000_000L;
    /** The wr_id of a marker WR (improbable for a program's own WR; a marker is known by its ring entry). */
    static final long MARKER_ID = 0x6A72646D614D524BL;
    /** {@code IBV_WC_SUCCESS}, and the bit {@code ibv_wc_opcode} sets for the receive opcodes. */
    private static final int WC_SUCCESS = 0;
    private static final int WC_RECV_BIT = 0x80;

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
        NativeQpAttrs.checkCap(pd.context.attrs(), attr.cap());
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ia = a.allocate(Ibv.QP_INIT_ATTR_SIZE, 8);
            ia.set(ADDRESS, Ibv.QPI_SEND_CQ, scq.cq);
            ia.set(ADDRESS, Ibv.QPI_RECV_CQ, rcq.cq);
            ia.set(ADDRESS, Ibv.QPI_SRQ, srq == null ? MemorySegment.NULL : srq.srq);
            QpCap c = attr.cap();
            NativeQpAttrs.writeCap(ia, Ibv.QPI_CAP, c);
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
                throw Ibv.fail("ibv_create_qp", e, pd.context.nativeDevice().queueCreationHint());
            }
            QpCap granted = NativeQpAttrs.grantedCap(a, qp, ia);
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
            NativeQpAttrs.validate(attr, mask, pd.context.attrs(), what());
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
            if (to == QpState.RESET && from != QpState.RESET) {
                flushOutstanding();
            }
            try (Arena a = Arena.ofConfined()) {
                MemorySegment s = a.allocate(Ibv.QP_ATTR_SIZE, 8);
                NativeQpAttrs.write(s, attr);
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
                        forgetWork();
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
                    RuntimeException bad = null;
                    while (w != null && n < SLOTS) {
                        try {
                            writeSend(n, w, n + 1 < SLOTS && w.next() != null);
                        } catch (RuntimeException e) {
                            // the WRs before it are posted, as libibverbs posts a chain up to its bad WR
                            bad = e;
                            break;
                        }
                        n++;
                        w = w.next();
                    }
                    if (n > 0) {
                        if (bad != null) {
                            sendWrs.set(JAVA_LONG, (n - 1) * Ibv.SEND_WR_SIZE + Ibv.SWR_NEXT, 0L);
                        }
                        for (int i = 0; i < n; i++) {
                            long o = i * Ibv.SEND_WR_SIZE;
                            boolean signaled = sigAll || (sendWrs.get(JAVA_INT, o + Ibv.SWR_SEND_FLAGS)
                                    & SendFlags.SIGNALED) != 0;
                            sends.add(sendWrs.get(JAVA_LONG, o + Ibv.SWR_WR_ID), signaled ? WrRing.SIGNALED : 0);
                        }
                        int rc = (int) Ibv.OP_POST_SEND.invokeExact(pd.context.postSendFn, qp, sendWrs, badWr);
                        if (rc != 0) {
                            int ok = (int) ((badWr.get(JAVA_LONG, 0) - sendWrs.address()) / Ibv.SEND_WR_SIZE);
                            ok = ok < 0 || ok > n ? 0 : ok;
                            sends.dropNewest(n - ok);
                            posted += ok;
                            if (rc == 12 || rc == -12) { // libsiw returns negated errno values
                                return posted;
                            }
                            throw postError("ibv_post_send", rc, posted, first, true);
                        }
                        posted += n;
                    }
                    if (bad != null) {
                        throw bad;
                    }
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
        int posted = 0;
        boolean wake = false;
        synchronized (recvLock) {
            check();
            RecvWr w = wr;
            try {
                while (w != null) {
                    int n = 0;
                    RecvWr first = w;
                    RuntimeException bad = null;
                    while (w != null && n < SLOTS) {
                        try {
                            writeRecv(pd, recvWrs, recvSges, recvSgeCap, n, w, n + 1 < SLOTS && w.next() != null);
                        } catch (RuntimeException e) {
                            bad = e;
                            break;
                        }
                        n++;
                        w = w.next();
                    }
                    if (n > 0) {
                        if (bad != null) {
                            recvWrs.set(JAVA_LONG, (n - 1) * Ibv.RECV_WR_SIZE + Ibv.RWR_NEXT, 0L);
                        }
                        for (int i = 0; i < n; i++) {
                            recvs.add(recvWrs.get(JAVA_LONG, i * Ibv.RECV_WR_SIZE + Ibv.RWR_WR_ID), 0);
                        }
                        int rc = (int) Ibv.OP_POST_RECV.invokeExact(pd.context.postRecvFn, qp, recvWrs, badWr);
                        if (rc != 0) {
                            int ok = (int) ((badWr.get(JAVA_LONG, 0) - recvWrs.address()) / Ibv.RECV_WR_SIZE);
                            ok = ok < 0 || ok > n ? 0 : ok;
                            recvs.dropNewest(n - ok);
                            posted += ok;
                            if (rc == 12 || rc == -12) { // libsiw returns negated errno values
                                break;
                            }
                            throw postError("ibv_post_recv", rc, posted, first, false);
                        }
                        posted += n;
                    }
                    if (bad != null) {
                        throw bad;
                    }
                }
            } catch (Throwable t) {
                throw Ibv.rethrow(t);
            }
            wake = posted > 0 && inError();
        }
        if (wake) {
            wakeFlush();
        }
        return posted;
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

    /**
     * Retires the WR a completion the CQ {@code cq} took from the kernel names.
     *
     * @return false for the completion of the QP's own marker WR, which is not delivered
     */
    boolean account(NativeCq cq, long wrId, int status, int opcode) {
        boolean recv;
        if (status == WC_SUCCESS) {
            recv = (opcode & WC_RECV_BIT) != 0;
        } else {
            errorSeen = true;
            if (sendCq != recvCq) {
                recv = cq == recvCq;
            } else {
                // an error completion's opcode is undefined: each queue completes in order, so a receive's is
                // its ring's oldest entry, a send's is in its ring (after the unsignaled WRs that retired)
                boolean inSend = sends.holds(wrId);
                boolean inRecv = recvs != null ? recvs.oldestIs(wrId) : !inSend;
                recv = inRecv && (!inSend || !sends.oldestIs(wrId));
            }
        }
        if (recv) {
            if (recvs == null) {
                if (srq != null) {
                    srq.consumed();
                }
                return true;
            }
            int f = recvs.retire(wrId, false);
            if (f >= 0 && (f & WrRing.MARKER) != 0) {
                recvMarker = false;
                return false;
            }
            return true;
        }
        int f = sends.retire(wrId, status == WC_SUCCESS);
        if (f >= 0 && (f & WrRing.MARKER) != 0) {
            sendMarker = false;
            return false;
        }
        return true;
    }

    /**
     * Whether the QP is in ERR as far as it knows (IB and RoCE): modified there, or an RC QP that had an error
     * completion. Read from its own fields, so a racing destroy cannot make it read freed memory.
     */
    private boolean inError() {
        return !keepsState && (kept == QpState.ERR || (type == QpType.RC && errorSeen));
    }

    /**
     * Makes the kernel finish the flush of a QP in ERR (IB and RoCE): a marker WR at the end of each queue
     * that holds WRs, whose flush means every WR before it completed or retired, and a modify to ERR that wakes
     * the responder for the receives posted after the QP failed.
     */
    private void settle() {
        if (!inError()) {
            return;
        }
        if (type != QpType.UD && !sendMarker && sends.size() > 0) {
            synchronized (sendLock) {
                if (!closed && !sendMarker) {
                    sendWrs.set(JAVA_LONG, Ibv.SWR_WR_ID, MARKER_ID);
                    sendWrs.set(JAVA_LONG, Ibv.SWR_NEXT, 0L);
                    sendWrs.set(JAVA_INT, Ibv.SWR_NUM_SGE, 0);
                    sendWrs.set(JAVA_INT, Ibv.SWR_OPCODE, WrOpcode.RDMA_WRITE.value());
                    sendWrs.set(JAVA_INT, Ibv.SWR_SEND_FLAGS, SendFlags.SIGNALED);
                    sendWrs.set(JAVA_LONG, Ibv.SWR_REMOTE_ADDR, 0L);
                    sendWrs.set(JAVA_INT, Ibv.SWR_RDMA_RKEY, 0);
                    sendMarker = true;
                    sends.add(MARKER_ID, WrRing.SIGNALED | WrRing.MARKER);
                    if (!postOne(Ibv.OP_POST_SEND, pd.context.postSendFn, sendWrs)) {
                        sends.dropNewest(1);
                        sendMarker = false;
                    }
                }
            }
        }
        if (recvs != null && !recvMarker && recvs.size() > 0) {
            boolean posted = false;
            synchronized (recvLock) {
                if (!closed && !recvMarker) {
                    recvWrs.set(JAVA_LONG, Ibv.RWR_WR_ID, MARKER_ID);
                    recvWrs.set(JAVA_LONG, Ibv.RWR_NEXT, 0L);
                    recvWrs.set(JAVA_INT, Ibv.RWR_NUM_SGE, 0);
                    recvMarker = true;
                    recvs.add(MARKER_ID, WrRing.MARKER);
                    posted = postOne(Ibv.OP_POST_RECV, pd.context.postRecvFn, recvWrs);
                    if (!posted) {
                        recvs.dropNewest(1);
                        recvMarker = false;
                    }
                }
            }
            if (posted) {
                wakeFlush();
            }
        }
    }

    /** Posts the one WR in slot 0 of {@code wrs}; whether the library took it. */
    private boolean postOne(java.lang.invoke.MethodHandle post, MemorySegment fn, MemorySegment wrs) {
        try {
            return (int) post.invokeExact(fn, qp, wrs, badWr) == 0;
        } catch (Throwable t) {
            throw Ibv.rethrow(t);
        }
    }

    /** Modifies the QP to ERR (again), which makes Linux rxe's responder flush the receive queue. */
    private void wakeFlush() {
        synchronized (this) {
            if (closed) {
                return;
            }
            try (Arena a = Arena.ofConfined()) {
                MemorySegment s = a.allocate(Ibv.QP_ATTR_SIZE, 8);
                s.set(JAVA_INT, Ibv.QPA_STATE, QpState.ERR.ordinal());
                int rc = (int) Ibv.MODIFY_QP.invokeExact(qp, s, QpAttrMask.STATE);
                if (rc == 0) {
                    kept = QpState.ERR;
                }
            } catch (Throwable t) {
                throw Ibv.rethrow(t);
            }
        }
    }

    /**
     * Flushes the outstanding WRs before a reset or destroy (IB and RoCE, whose kernel drops them silently):
     * moves the QP to ERR and takes the flushed completions into its CQs until its rings are empty, for at most
     * {@link #FLUSH_WAIT_NANOS}. The caller holds the QP's lock.
     */
    private void flushOutstanding() {
        if (keepsState || outstanding() == 0) {
            return;
        }
        QpState s = cachedState();
        if (s == QpState.RESET) {
            return;
        }
        if (s != QpState.ERR) {
            wakeFlush();
        }
        long deadline = System.nanoTime() + FLUSH_WAIT_NANOS;
        while (true) {
            settle();
            sendCq.drain();
            if (recvCq != sendCq) {
                recvCq.drain();
            }
            if (outstanding() == 0 || System.nanoTime() - deadline > 0) {
                return;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(FLUSH_POLL_NANOS);
        }
    }

    private int outstanding() {
        return sends.size() + (recvs == null ? 0 : recvs.size());
    }

    /** The QP was reset: nothing is outstanding. */
    private void forgetWork() {
        sends.clear();
        if (recvs != null) {
            recvs.clear();
        }
        sendMarker = false;
        recvMarker = false;
        errorSeen = false;
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
     * Send WRs posted and not yet completed. The kernel reports no queue depth: the CQ's completions are taken
     * from the kernel (they stay to be polled) and retire their WRs; an unsignaled WR counts until a later
     * completion retires it, or in ERR the flush of the QP's marker.
     */
    @Override
    public int sendQueueDepth() {
        check();
        settle();
        sendCq.drain();
        return sends.size() - (sendMarker ? 1 : 0);
    }

    /** Receive WRs posted and not yet completed, counted as {@link #sendQueueDepth()} counts sends; 0 with an SRQ. */
    @Override
    public int recvQueueDepth() {
        check();
        if (recvs == null) {
            return 0;
        }
        settle();
        recvCq.drain();
        return recvs.size() - (recvMarker ? 1 : 0);
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
        flushOutstanding();
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
