package io.jrdma.loop;

import io.jrdma.internal.verbs.AccessResult;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.internal.verbs.MrImpl;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.internal.verbs.RecvWqe;
import io.jrdma.internal.verbs.SendWqe;
import io.jrdma.internal.verbs.SgCursor;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.Counter;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.RnrTimer;
import io.jrdma.verbs.WcFlags;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.List;

/**
 * Executes one send WQE end to end: the requester's checks, the responder's checks in rxe's order
 * ({@code check_op_valid}, {@code check_resource}, {@code check_length}, {@code check_rkey},
 * {@code execute}; drivers/infiniband/sw/rxe/rxe_resp.c), the data movement, and both completions.
 * Error classes follow IBTA ch. 9.9 as rxe applies them: RC responder errors are class C (NAK, the
 * responder QP to ERR with an affiliated async event), an absent receive is an RNR NAK (class B),
 * an unreachable responder runs out the transport retries; UD and UC drop what they cannot take.
 */
final class LoopTransfer {
    /** The WQE was retired (successfully or with an error). */
    static final int DONE = 0;
    /** The WQE stays at the head: a retry or RNR timer is armed. */
    static final int WAIT = 1;

    /** Atomics operate on host-order 64-bit words, as rxe does on the host's memory. */
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.nativeOrder());
    /** The size of the GRH placed before a UD payload (IBTA 11.4.1.1). */
    static final int GRH_LENGTH = 40;

    private final LoopEngine engine;
    private final LoopWire wire = new LoopWire();
    private final SgCursor src = new SgCursor(32);
    private final SgCursor dst = new SgCursor(32);
    private final MemorySegment word = MemorySegment.ofArray(new long[1]);
    private final MemorySegment grh = MemorySegment.ofArray(new byte[GRH_LENGTH]);

    LoopTransfer(LoopEngine engine) {
        this.engine = engine;
    }

    int execute(LoopQp lq, SendWqe w) {
        QpImpl qp = lq.qp;
        if (w.opcode == WrOpcode.LOCAL_INV) {
            return localInvalidate(lq, w);
        }
        return switch (qp.type()) {
            case RC -> rc(lq, w);
            case UC -> uc(lq, w);
            case UD -> ud(lq, w);
        };
    }

    // ------------------------------------------------------------------------------------------ local

    private int localInvalidate(LoopQp lq, SendWqe w) {
        QpImpl qp = lq.qp;
        MrImpl mr = qp.deviceImpl().memoryTable().lookup(w.invalidateRkey);
        if (mr == null || mr.pdImpl() != qp.pdImpl()) {
            // rxe_do_local_ops (rxe_req.c): a key that cannot be invalidated fails the WR with
            // IB_WC_LOC_QP_OP_ERR.
            return requesterError(lq, WcStatus.LOC_QP_OP_ERR);
        }
        mr.invalidate();
        return complete(lq, WcStatus.SUCCESS, 0);
    }

    private int complete(LoopQp lq, WcStatus status, int byteLen) {
        lq.qp.completeSend(status, byteLen);
        lq.headDone();
        return DONE;
    }

    /** An RC request succeeded at the responder: its response travels back, the WQE completes. */
    private int rcDone(LoopQp lq, SendWqe w, QpImpl t, int byteLen) {
        wire.response(t, lq, w);
        return complete(lq, WcStatus.SUCCESS, byteLen);
    }

    /** An RC request failed at the responder: a NAK with {@code syndrome} comes back. */
    private int rcNak(LoopQp lq, QpImpl t, int syndrome, WcStatus status) {
        wire.nak(t, lq, syndrome);
        return requesterError(lq, status);
    }

    /** The requester completes the head WQE with an error and its QP goes to ERR (or SQE on UD/UC). */
    private int requesterError(LoopQp lq, WcStatus status) {
        QpImpl qp = lq.qp;
        qp.completeSend(status, 0);
        lq.headDone();
        if (qp.type() == QpType.RC) {
            qp.enterError(null, null);
        } else {
            qp.enterSendQueueError();
        }
        return DONE;
    }

    /** A class C responder error: the responder QP goes to ERR with an affiliated event, and flushes. */
    private static void responderError(QpImpl target, AsyncEventType event, String why) {
        if (target.enterError(event, why)) {
            target.flush();
        }
    }

    // ------------------------------------------------------------------------------------------ routing

    private QpImpl route(QpImpl from, Gid dgid, int qpn, QpType type) {
        DeviceImpl dev = LoopFabric.instance().deviceForGid(dgid, from.deviceImpl().providerDevice());
        if (dev == null) {
            return null;
        }
        QpImpl t = dev.qp(qpn);
        if (t == null || t.isDestroyed() || t.type() != type) {
            return null;
        }
        QpState s = t.state();
        if (s != QpState.RTR && s != QpState.RTS && s != QpState.SQD && s != QpState.SQE) {
            return null; // IBTA 10.3.1: packets to a QP in RESET, INIT or ERR are silently dropped
        }
        if (s == QpState.RTR) {
            t.communicationEstablished();
        }
        return t;
    }

    /** The responder did not answer: retry after the local ACK timeout, up to retry_cnt times. */
    private int noResponse(LoopQp lq) {
        QpImpl qp = lq.qp;
        if (lq.retriesLeft < 0) {
            lq.retriesLeft = qp.attr().retryCnt();
        }
        if (lq.retriesLeft == 0) {
            qp.counters().inc(Counter.RETRY_EXCEEDED_ERR);
            return requesterError(lq, WcStatus.RETRY_EXC_ERR);
        }
        lq.retriesLeft--;
        wire.retry(lq);
        long timeout = RnrTimer.ackTimeoutNanos(qp.attr().timeout());
        lq.waiting = true;
        if (timeout > 0) {
            engine.timers.schedule(lq.timer, timeout);
        }
        // timeout 0 means "wait forever" (IBTA): only a modify to ERR or a destroy ends the wait.
        return WAIT;
    }

    /** The responder answered with an RNR NAK: wait its minimum RNR timer, up to rnr_retry times. */
    private int rnr(LoopQp lq, QpImpl target) {
        QpImpl qp = lq.qp;
        int budget = qp.attr().rnrRetry();
        if (lq.rnrLeft < 0) {
            lq.rnrLeft = budget;
        }
        wire.nak(target, lq, LoopWire.RNR_NAK | target.attr().minRnrTimer());
        if (lq.rnrLeft == 0) {
            qp.counters().inc(Counter.RETRY_RNR_EXCEEDED_ERR);
            return requesterError(lq, WcStatus.RNR_RETRY_EXC_ERR);
        }
        if (budget != 7) { // 7 = retry forever (IBTA 9.7.5.2.8)
            lq.rnrLeft--;
        }
        lq.waiting = true;
        long wait = RnrTimer.nanos(target.attr().minRnrTimer());
        wire.rnrWait(lq, wait);
        engine.timers.schedule(lq.timer, wait);
        return WAIT;
    }

    private int gather(QpImpl qp, SendWqe w) {
        return src.resetForSend(qp.deviceImpl().memoryTable(), qp.pdImpl(), w);
    }

    // ------------------------------------------------------------------------------------------ RC

    private int rc(LoopQp lq, SendWqe w) {
        QpImpl qp = lq.qp;
        WrOpcode op = w.opcode;
        if (op.isReadOrAtomic() && qp.attr().maxRdAtomic() == 0) {
            // The QP may not issue READs or atomics (ORD 0): a local QP operation error.
            return requesterError(lq, WcStatus.LOC_QP_OP_ERR);
        }
        if (op != WrOpcode.RDMA_READ && !op.isAtomic() && gather(qp, w) != AccessResult.OK) {
            return requesterError(lq, WcStatus.LOC_PROT_ERR);
        }
        AhAttr av = qp.attr().ahAttr();
        QpImpl t = av == null ? null : route(qp, av.dgid(), qp.attr().destQpNum(), QpType.RC);
        wire.request(lq, w, t);
        if (t == null) {
            return noResponse(lq);
        }
        int access = t.attr().qpAccessFlags();
        return switch (op) {
            case SEND, SEND_WITH_IMM, SEND_WITH_INV -> rcSend(lq, w, t);
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> {
                if ((access & Access.REMOTE_WRITE) == 0) {
                    yield invalidRequest(lq, t, "RDMA WRITE to a QP without remote write access");
                }
                yield rcWrite(lq, w, t);
            }
            case RDMA_READ -> {
                if ((access & Access.REMOTE_READ) == 0) {
                    yield invalidRequest(lq, t, "RDMA READ from a QP without remote read access");
                }
                yield rcRead(lq, w, t);
            }
            case ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD -> {
                if ((access & Access.REMOTE_ATOMIC) == 0) {
                    yield invalidRequest(lq, t, "atomic on a QP without remote atomic access");
                }
                yield rcAtomic(lq, w, t);
            }
            case LOCAL_INV -> throw new IllegalStateException("handled above");
        };
    }

    private int invalidRequest(LoopQp lq, QpImpl t, String why) {
        responderError(t, AsyncEventType.QP_REQ_ERR, why);
        return rcNak(lq, t, LoopWire.NAK_INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR);
    }

    private int remoteAccess(LoopQp lq, QpImpl t, int result) {
        responderError(t, AsyncEventType.QP_ACCESS_ERR, "remote access violation: " + AccessResult.name(result));
        return rcNak(lq, t, LoopWire.NAK_REMOTE_ACCESS, WcStatus.REM_ACCESS_ERR);
    }

    private int rcSend(LoopQp lq, SendWqe w, QpImpl t) {
        RecvWqe rqe = t.takeRecv();
        if (rqe == null) {
            return rnr(lq, t);
        }
        if (w.length > rqe.length) {
            t.completeRecv(WcStatus.LOC_LEN_ERR, WcOpcode.RECV, 0, 0, 0, 0, false);
            responderError(t, AsyncEventType.QP_REQ_ERR, "message of " + w.length + " bytes exceeds the receive's "
                    + rqe.length);
            return rcNak(lq, t, LoopWire.NAK_INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR);
        }
        int flags = 0;
        int imm = 0;
        if (w.opcode == WrOpcode.SEND_WITH_INV) {
            MrImpl mr = t.deviceImpl().memoryTable().lookup(w.invalidateRkey);
            if (mr == null || mr.pdImpl() != t.pdImpl() || !mr.isValid()) {
                t.completeRecv(WcStatus.REM_INV_REQ_ERR, WcOpcode.RECV, 0, 0, 0, 0, false);
                responderError(t, AsyncEventType.QP_REQ_ERR, "SEND with invalidate of an unknown rkey");
                return rcNak(lq, t, LoopWire.NAK_INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR);
            }
        }
        if (dst.resetForRecv(t.deviceImpl().memoryTable(), t.pdImpl(), rqe, Access.LOCAL_WRITE) != AccessResult.OK) {
            t.completeRecv(WcStatus.LOC_PROT_ERR, WcOpcode.RECV, 0, 0, 0, 0, false);
            responderError(t, AsyncEventType.QP_FATAL, "receive WQE has a bad scatter list");
            return rcNak(lq, t, LoopWire.NAK_REMOTE_OPERATIONAL, WcStatus.REM_OP_ERR);
        }
        src.copyTo(dst, w.length);
        if (w.opcode == WrOpcode.SEND_WITH_IMM) {
            flags = WcFlags.WITH_IMM;
            imm = w.immData;
        } else if (w.opcode == WrOpcode.SEND_WITH_INV) {
            t.deviceImpl().memoryTable().lookup(w.invalidateRkey).invalidate();
            flags = WcFlags.WITH_INV;
            imm = w.invalidateRkey;
        }
        t.completeRecv(WcStatus.SUCCESS, WcOpcode.RECV, (int) w.length, imm, flags, 0, w.solicited());
        return rcDone(lq, w, t, (int) w.length);
    }

    private int rcWrite(LoopQp lq, SendWqe w, QpImpl t) {
        RecvWqe rqe = null;
        if (w.opcode == WrOpcode.RDMA_WRITE_WITH_IMM) {
            rqe = t.takeRecv();
            if (rqe == null) {
                return rnr(lq, t);
            }
        }
        if (w.length > 0) {
            MrImpl mr = t.deviceImpl().memoryTable().lookup(w.rkey);
            int r = mr == null ? AccessResult.INVALID_KEY : mr.check(t.pdImpl(), w.remoteAddr, w.length,
                    Access.REMOTE_WRITE);
            if (r != AccessResult.OK) {
                if (rqe != null) {
                    t.completeRecv(WcStatus.REM_ACCESS_ERR, WcOpcode.RECV_RDMA_WITH_IMM, 0, 0, 0, 0, false);
                }
                return remoteAccess(lq, t, r);
            }
            src.copyTo(mr.segment(), mr.offsetOf(w.remoteAddr), w.length);
        }
        if (rqe != null) {
            t.completeRecv(WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, (int) w.length, w.immData,
                    WcFlags.WITH_IMM, 0, w.solicited());
        }
        return rcDone(lq, w, t, (int) w.length);
    }

    private int rcRead(LoopQp lq, SendWqe w, QpImpl t) {
        QpImpl qp = lq.qp;
        if (t.attr().maxDestRdAtomic() == 0) {
            return invalidRequest(lq, t, "RDMA READ to a QP with no responder resources (IRD 0)");
        }
        MrImpl mr = null;
        if (w.length > 0) {
            mr = t.deviceImpl().memoryTable().lookup(w.rkey);
            int r = mr == null ? AccessResult.INVALID_KEY : mr.check(t.pdImpl(), w.remoteAddr, w.length,
                    Access.REMOTE_READ);
            if (r != AccessResult.OK) {
                return remoteAccess(lq, t, r);
            }
        }
        if (dst.reset(qp.deviceImpl().memoryTable(), qp.pdImpl(), w.sgeAddr, w.sgeLength, w.sgeLkey, w.numSge,
                Access.LOCAL_WRITE) != AccessResult.OK) {
            return requesterError(lq, WcStatus.LOC_PROT_ERR);
        }
        if (mr != null) {
            dst.copyFrom(mr.segment(), mr.offsetOf(w.remoteAddr), w.length);
        }
        return rcDone(lq, w, t, (int) w.length);
    }

    private int rcAtomic(LoopQp lq, SendWqe w, QpImpl t) {
        QpImpl qp = lq.qp;
        if (t.attr().maxDestRdAtomic() == 0) {
            return invalidRequest(lq, t, "atomic to a QP with no responder resources (IRD 0)");
        }
        if ((w.remoteAddr & 7) != 0) {
            return invalidRequest(lq, t, "misaligned atomic at 0x" + Long.toHexString(w.remoteAddr));
        }
        MrImpl mr = t.deviceImpl().memoryTable().lookup(w.rkey);
        int r = mr == null ? AccessResult.INVALID_KEY : mr.check(t.pdImpl(), w.remoteAddr, 8, Access.REMOTE_ATOMIC);
        if (r != AccessResult.OK) {
            return remoteAccess(lq, t, r);
        }
        if (dst.reset(qp.deviceImpl().memoryTable(), qp.pdImpl(), w.sgeAddr, w.sgeLength, w.sgeLkey, w.numSge,
                Access.LOCAL_WRITE) != AccessResult.OK) {
            return requesterError(lq, WcStatus.LOC_PROT_ERR);
        }
        MemorySegment seg = mr.segment();
        long off = mr.offsetOf(w.remoteAddr);
        long orig = seg.get(WORD, off);
        if (w.opcode == WrOpcode.ATOMIC_CMP_AND_SWP) {
            if (orig == w.compareAdd) {
                seg.set(WORD, off, w.swap);
            }
        } else {
            seg.set(WORD, off, orig + w.compareAdd);
        }
        word.set(WORD, 0, orig);
        dst.copyFrom(word, 0, 8);
        wire.atomicResult(orig);
        return rcDone(lq, w, t, 8);
    }

    // ------------------------------------------------------------------------------------------ UC

    private int uc(LoopQp lq, SendWqe w) {
        QpImpl qp = lq.qp;
        if (gather(qp, w) != AccessResult.OK) {
            return requesterError(lq, WcStatus.LOC_PROT_ERR);
        }
        AhAttr av = qp.attr().ahAttr();
        QpImpl t = av == null ? null : route(qp, av.dgid(), qp.attr().destQpNum(), QpType.UC);
        wire.request(lq, w, t);
        if (t != null) {
            ucDeliver(w, t);
        }
        // UC has no acknowledgements: the requester completes once the message left.
        return complete(lq, WcStatus.SUCCESS, (int) w.length);
    }

    private void ucDeliver(SendWqe w, QpImpl t) {
        boolean write = w.opcode == WrOpcode.RDMA_WRITE || w.opcode == WrOpcode.RDMA_WRITE_WITH_IMM;
        if (write && (t.attr().qpAccessFlags() & Access.REMOTE_WRITE) == 0) {
            return;
        }
        RecvWqe rqe = null;
        if (w.opcode != WrOpcode.RDMA_WRITE) {
            rqe = t.takeRecv();
            if (rqe == null) {
                return; // class D: the message is dropped
            }
        }
        if (write) {
            if (w.length > 0) {
                MrImpl mr = t.deviceImpl().memoryTable().lookup(w.rkey);
                if (mr == null || mr.check(t.pdImpl(), w.remoteAddr, w.length, Access.REMOTE_WRITE)
                        != AccessResult.OK) {
                    if (rqe != null) {
                        dropped(t, WcStatus.REM_ACCESS_ERR, WcOpcode.RECV_RDMA_WITH_IMM);
                    }
                    return;
                }
                src.copyTo(mr.segment(), mr.offsetOf(w.remoteAddr), w.length);
            }
            if (rqe != null) {
                t.completeRecv(WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, (int) w.length, w.immData,
                        WcFlags.WITH_IMM, 0, w.solicited());
            }
            return;
        }
        if (w.length > rqe.length) {
            dropped(t, WcStatus.REM_INV_REQ_ERR, WcOpcode.RECV);
            return;
        }
        if (dst.resetForRecv(t.deviceImpl().memoryTable(), t.pdImpl(), rqe, Access.LOCAL_WRITE) != AccessResult.OK) {
            t.completeRecv(WcStatus.LOC_PROT_ERR, WcOpcode.RECV, 0, 0, 0, 0, false);
            return;
        }
        src.copyTo(dst, w.length);
        boolean imm = w.opcode == WrOpcode.SEND_WITH_IMM;
        t.completeRecv(WcStatus.SUCCESS, WcOpcode.RECV, (int) w.length, imm ? w.immData : 0,
                imm ? WcFlags.WITH_IMM : 0, 0, w.solicited());
    }

    // ------------------------------------------------------------------------------------------ UD

    private int ud(LoopQp lq, SendWqe w) {
        QpImpl qp = lq.qp;
        if (w.length > qp.deviceImpl().portAttributes().activeMtu().bytes()) {
            // IBTA C10-93.1.1, as rxe_requester (rxe_req.c) applies it: a UD message longer than the
            // port MTU emits no packet and raises no error; the WR completes successfully.
            return complete(lq, WcStatus.SUCCESS, (int) w.length);
        }
        if (gather(qp, w) != AccessResult.OK) {
            return requesterError(lq, WcStatus.LOC_PROT_ERR);
        }
        Gid dgid = w.ah.attr().dgid();
        // IBTA 10.2.5: a Q_Key with the high bit set means "use the QP's own Q_Key".
        int qkey = w.remoteQkey < 0 ? qp.attr().qkey() : w.remoteQkey;
        if (w.ah.multicast) {
            wire.request(lq, w, null);
            multicast(qp, w, dgid, qkey);
            return complete(lq, WcStatus.SUCCESS, (int) w.length);
        }
        QpImpl t = route(qp, dgid, w.remoteQpn, QpType.UD);
        boolean delivered = t != null && t.attr().qkey() == qkey;
        wire.request(lq, w, delivered ? t : null);
        if (delivered) {
            udDeliver(qp, w, t, dgid);
        }
        return complete(lq, WcStatus.SUCCESS, (int) w.length);
    }

    /**
     * A datagram to a multicast group: a copy for every QP attached to the group on every loop device
     * (the fabric is one subnet), whatever the WR's remote QPN (rxe sends to QPN 0xFFFFFF), except the
     * sending QP itself, as rxe skips the sender of a locally sent multicast ({@code rxe_rcv_mcast_pkt});
     * each copy passes the QP's state and Q_Key checks on its own and a failed one is skipped
     * (rxe: "unreliable datagram service"). Allocation-free.
     */
    private void multicast(QpImpl qp, SendWqe w, Gid mgid, int qkey) {
        List<Device> all = Rdma.devices();
        for (int i = 0; i < all.size(); i++) {
            DeviceImpl dev = LoopFabric.loopDeviceAt(all, i);
            if (dev == null) {
                continue;
            }
            QpImpl[] members = dev.mcastMembers(mgid);
            for (QpImpl t : members) {
                if (t == qp || t.isDestroyed() || t.attr().qkey() != qkey) {
                    continue;
                }
                QpState s = t.state();
                if (s != QpState.RTR && s != QpState.RTS && s != QpState.SQD && s != QpState.SQE) {
                    continue;
                }
                if (s == QpState.RTR) {
                    t.communicationEstablished();
                }
                if (gather(qp, w) != AccessResult.OK) {
                    return;
                }
                t.counters().inc(Counter.RCVD_PKTS);
                udDeliver(qp, w, t, mgid);
            }
        }
    }

    private void udDeliver(QpImpl qp, SendWqe w, QpImpl t, Gid dgid) {
        RecvWqe rqe = t.takeRecv();
        if (rqe == null) {
            return; // UD has no RNR: the datagram is dropped
        }
        long need = GRH_LENGTH + w.length;
        if (need > rqe.length) {
            dropped(t, WcStatus.REM_INV_REQ_ERR, WcOpcode.RECV);
            return;
        }
        if (dst.resetForRecv(t.deviceImpl().memoryTable(), t.pdImpl(), rqe, Access.LOCAL_WRITE) != AccessResult.OK) {
            t.completeRecv(WcStatus.LOC_PROT_ERR, WcOpcode.RECV, 0, 0, 0, 0, false);
            return;
        }
        fillGrh(((LoopDevice) qp.deviceImpl().providerDevice()).gidBytes, w.ah.dgidBytes, (int) w.length);
        dst.copyFrom(grh, 0, GRH_LENGTH);
        src.copyTo(dst, w.length);
        boolean imm = w.opcode == WrOpcode.SEND_WITH_IMM;
        t.completeRecv(WcStatus.SUCCESS, WcOpcode.RECV, (int) need, imm ? w.immData : 0,
                WcFlags.GRH | (imm ? WcFlags.WITH_IMM : 0), qp.qpNum(), w.solicited());
    }

    /**
     * A UC/UD message that took a receive cannot be placed: with an SRQ the receive completes with
     * {@code status} (class E), otherwise the message is dropped and the receive stays posted for the
     * next one (class D), as rxe_resp.c does.
     */
    private static void dropped(QpImpl t, WcStatus status, WcOpcode opcode) {
        if (t.srq() != null) {
            t.completeRecv(status, opcode, 0, 0, 0, 0, false);
        } else {
            t.releaseRecv();
        }
    }

    private static boolean isIpv4Mapped(byte[] g) {
        for (int i = 0; i < 10; i++) {
            if (g[i] != 0) {
                return false;
            }
        }
        return g[10] == (byte) 0xff && g[11] == (byte) 0xff;
    }

    /**
     * Builds the 40 bytes that precede a UD payload: for IPv4-mapped GIDs 20 zero bytes then an IPv4
     * header (as rxe places {@code roce4grh}), otherwise an IPv6 header.
     */
    private void fillGrh(byte[] s, byte[] d, int payload) {
        grh.fill((byte) 0);
        if (isIpv4Mapped(s) && isIpv4Mapped(d)) {
            int total = 20 + 8 + 12 + payload + 4;
            grh.set(ValueLayout.JAVA_BYTE, 20, (byte) 0x45);
            grh.set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 22, (short) total);
            grh.set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 26, (short) 0x4000);
            grh.set(ValueLayout.JAVA_BYTE, 28, (byte) 64);
            grh.set(ValueLayout.JAVA_BYTE, 29, (byte) 17);
            MemorySegment.copy(s, 12, grh, ValueLayout.JAVA_BYTE, 32, 4);
            MemorySegment.copy(d, 12, grh, ValueLayout.JAVA_BYTE, 36, 4);
        } else {
            grh.set(ValueLayout.JAVA_BYTE, 0, (byte) 0x60);
            grh.set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 4,
                    (short) (8 + 12 + payload + 4));
            grh.set(ValueLayout.JAVA_BYTE, 6, (byte) 17);
            grh.set(ValueLayout.JAVA_BYTE, 7, (byte) 64);
            MemorySegment.copy(s, 0, grh, ValueLayout.JAVA_BYTE, 8, 16);
            MemorySegment.copy(d, 0, grh, ValueLayout.JAVA_BYTE, 24, 16);
        }
    }
}
