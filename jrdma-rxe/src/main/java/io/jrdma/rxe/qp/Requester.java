package io.jrdma.rxe.qp;

import io.jrdma.internal.verbs.AccessResult;
import io.jrdma.internal.verbs.AhImpl;
import io.jrdma.internal.verbs.MrImpl;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.internal.verbs.SendWqe;
import io.jrdma.internal.verbs.SgCursor;
import io.jrdma.rxe.net.Peer;
import io.jrdma.rxe.net.RxeEngine;
import io.jrdma.internal.roce.AtomicEth;
import io.jrdma.internal.roce.Bth;
import io.jrdma.internal.roce.Deth;
import io.jrdma.internal.roce.IbOpcode;
import io.jrdma.internal.roce.Icrc;
import io.jrdma.internal.roce.Ieth;
import io.jrdma.internal.roce.ImmDt;
import io.jrdma.internal.roce.Psn;
import io.jrdma.internal.roce.Reth;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;

/**
 * The requester (Linux {@code rxe_req.c}, behaviour ported): walks the send queue from its own
 * index, cuts each WQE into packets of the path MTU with the opcode sequence First/Middle/Last or
 * Only, gives them consecutive PSNs (an RDMA READ takes as many PSNs as response packets), sets
 * AckReq on the last packet of a message and at least every {@value #MAX_PKT_PER_ACK} packets (every
 * half window when the window is smaller), and arms the retransmit timer. It stops at the
 * unacknowledged-PSN window (at most {@value #MAX_UNACKED_PSNS}, smaller after losses: {@link #window}),
 * when the initiator depth (ORD) is used up, at a fence, during an RNR wait and in SQD, and
 * rewinds to the oldest unacknowledged PSN when the completer asks for a retry ({@code req_retry}).
 */
final class Requester {
    /** rxe's {@code RXE_MAX_UNACKED_PSNS}: the largest window. */
    static final int MAX_UNACKED_PSNS = 128;
    /** The smallest window a loss shrinks it to. */
    static final int MIN_UNACKED_PSNS = 16;
    /** How many PSNs the window grows by per window's worth acknowledged. */
    private static final int WINDOW_GROWTH = 8;
    /** rxe's {@code RXE_MAX_PKT_PER_ACK}. */
    static final int MAX_PKT_PER_ACK = 64;

    private final RxeQp q;
    private final SgCursor gather = new SgCursor(4);
    private final Bth bth = new Bth();
    private final Reth reth = new Reth();
    private final Deth deth = new Deth();
    private final ImmDt immDt = new ImmDt();
    private final Ieth ieth = new Ieth();
    private final AtomicEth atomicEth = new AtomicEth();

    /** {@code qp->req.psn}: the next PSN to send. */
    int psn;
    /** {@code qp->req.wqe_index}: the next WQE to work on. */
    long index;
    /**
     * The unacknowledged-PSN window: {@link #MAX_UNACKED_PSNS} while nothing is lost, halved (down
     * to {@link #MIN_UNACKED_PSNS}) by each retry, grown again as acknowledgements come (AIMD), so
     * that under loss each go-back-N retry resends less.
     */
    int window = MAX_UNACKED_PSNS;
    private int windowCredit;
    /** {@code qp->req.opcode}: the last opcode sent, -1 between messages. */
    private int opcode = -1;
    private int noackPkts;
    /** Initiator depth credits left ({@code qp->req.rd_atomic}). */
    int rdAtomic;
    boolean needRdAtomic;
    boolean waitFence;
    boolean waitPsn;
    /** Set by the completer: rewind to the oldest unacknowledged PSN before sending more. */
    boolean needRetry;
    private boolean waitRnr;
    /** The WQE index the gather cursor points into, at {@link SendWqe#txOffset}; -1: none. */
    private long cursorFor = -1;

    Requester(RxeQp q) {
        this.q = q;
    }

    /** RTS: start from the QP's send PSN. */
    void reset(QpAttr a) {
        clear();
        psn = a.sqPsn() & Psn.MASK;
        index = q.qp.sqRetired();
        rdAtomic = a.maxRdAtomic();
    }

    void clear() {
        psn = 0;
        index = q.qp.sqRetired();
        opcode = -1;
        noackPkts = 0;
        rdAtomic = 0;
        needRdAtomic = false;
        waitFence = false;
        waitPsn = false;
        needRetry = false;
        waitRnr = false;
        cursorFor = -1;
        window = MAX_UNACKED_PSNS;
        windowCredit = 0;
    }

    /** {@code n} more PSNs were acknowledged: the window grows by {@value #WINDOW_GROWTH} per window's worth. */
    void acknowledged(int n) {
        if (window >= MAX_UNACKED_PSNS) {
            return;
        }
        windowCredit += n * WINDOW_GROWTH;
        while (windowCredit >= window && window < MAX_UNACKED_PSNS) {
            windowCredit -= window;
            window++;
        }
    }

    /** A retry: halve the window. */
    void shrinkWindow() {
        window = Math.max(MIN_UNACKED_PSNS, window >> 1);
        windowCredit = 0;
    }

    void rnrTimerFired() {
        waitRnr = false;
    }

    /** An RNR NAK arrived: retry, but only once the responder's RNR timer has run out. */
    void rnrWait() {
        needRetry = true;
        waitRnr = true;
    }

    /** SQD: nothing that has begun is outstanding (a retry may have rewound the index to it). */
    boolean drained() {
        QpImpl qp = q.qp;
        if (qp.sqRetired() != index) {
            return false;
        }
        return index >= qp.sqProduced() || !WqeState.started(q.slot(index));
    }

    /** Sends up to {@code budget} packets; returns how many. Engine holder. */
    int run(int budget) {
        if (waitRnr) {
            return 0;
        }
        if (needRetry) {
            retry();
            needRetry = false;
        }
        QpImpl qp = q.qp;
        int sent = 0;
        while (sent < budget) {
            if (index >= qp.sqProduced()) {
                return sent;
            }
            SendWqe w = q.slot(index);
            if (qp.state() == QpState.SQD && !WqeState.started(w)) {
                return sent; // draining: finish what has begun, start nothing new (IBTA 10.3.1)
            }
            if (w.fenced() && index != qp.sqRetired()) {
                waitFence = true;
                return sent;
            }
            if (w.opcode == WrOpcode.LOCAL_INV) {
                localInvalidate(w);
                index++;
                q.completerWanted = true;
                sent++;
                continue;
            }
            if (qp.type() == QpType.RC
                    && Psn.diff(psn, Psn.add(q.completer.psn, window)) > 0) {
                waitPsn = true;
                return sent;
            }
            if (w.opcode.isReadOrAtomic()) {
                if (qp.attr().maxRdAtomic() == 0) {
                    // No initiator depth at all: a local QP operation error, as the loop provider says.
                    fail(w, WcStatus.LOC_QP_OP_ERR);
                    return sent;
                }
                if (!WqeState.hasRdAtomic(w)) {
                    if (rdAtomic <= 0) {
                        needRdAtomic = true;
                        return sent;
                    }
                    rdAtomic--;
                    WqeState.hasRdAtomic(w, true);
                }
            }
            int r = sendOne(w);
            if (r == BLOCKED) {
                q.ring();
                return sent;
            }
            if (r == FAILED) {
                return sent;
            }
            sent++;
        }
        q.ring(); // more may be ready: yield to other QPs first
        return sent;
    }

    private void localInvalidate(SendWqe w) {
        QpImpl qp = q.qp;
        MrImpl mr = qp.deviceImpl().memoryTable().lookup(w.invalidateRkey);
        if (mr == null || mr.pdImpl() != qp.pdImpl()) {
            WqeState.fail(w, WcStatus.LOC_QP_OP_ERR); // rxe_do_local_ops
            return;
        }
        mr.invalidate();
        WqeState.state(w, WqeState.DONE);
    }

    private void fail(SendWqe w, WcStatus status) {
        WqeState.fail(w, status);
        index++;
        q.completerWanted = true;
    }

    private static final int SENT = 0;
    private static final int BLOCKED = 1;
    private static final int FAILED = 2;

    /** Builds and sends the next packet of {@code w} ({@code init_req_packet} + {@code finish_packet}). */
    private int sendOne(SendWqe w) {
        QpImpl qp = q.qp;
        boolean ud = qp.type() == QpType.UD;
        int mtu = q.mtu;
        boolean read = w.opcode == WrOpcode.RDMA_READ;
        boolean atomic = w.opcode.isAtomic();
        long resid = read ? w.length - w.txOffset : w.length - w.txOffset;
        if (ud && w.length > mtu) {
            // IBTA C10-93.1.1 as rxe_requester applies it: a UD message longer than the port MTU
            // emits no packet and raises no error; the WR completes successfully.
            w.txFirstSeq = psn;
            w.txLastSeq = psn;
            psn = Psn.next(psn);
            opcode = IbOpcode.UD_SEND_ONLY.code();
            WqeState.state(w, WqeState.DONE);
            index++;
            q.completerWanted = true;
            return SENT;
        }
        int op = nextOpcode(w, resid <= mtu);
        IbOpcode ioc = IbOpcode.fromCode(op);
        int payload = ioc.hasPayload() ? (int) Math.min(resid, mtu) : 0;
        if (!read && !atomic && cursorFor != index) {
            if (gather.resetForSend(qp.deviceImpl().memoryTable(), qp.pdImpl(), w) != AccessResult.OK) {
                cursorFor = -1;
                fail(w, WcStatus.LOC_PROT_ERR);
                return FAILED;
            }
            gather.skip(w.txOffset);
            cursorFor = index;
        }
        boolean end = ioc.isEnd();
        // AckReq only on RC (rxe_req.c init_req_packet; UD and UC packets of Linux 6.1 rxe carry none,
        // see the golden ud-send-only-imm-* frames).
        // Every half window at most, so a shrunken window never waits for an ACK nobody asked for
        // (rxe: every MAX_PKT_PER_ACK, half the largest window).
        boolean ackReq = qp.type() == QpType.RC && (end || noackPkts > Math.min(MAX_PKT_PER_ACK, window >> 1));
        Peer peer = ud ? peerOf(w) : q.peer;
        if (peer == null) {
            // No address: nothing can be sent; the packet is as good as lost (RC retries and fails).
            gather.skip(payload);
            return afterSend(w, ioc, op, payload, resid, ackReq);
        }
        MemorySegment tx = q.engine.txSegment();
        int pad = -payload & 3;
        boolean se = w.solicited() && end && (ioc.has(IbOpcode.Flags.SEND)
                || ioc.has(IbOpcode.Flags.WRITE | IbOpcode.Flags.IMMDT));
        // rxe init_req_packet: a datagram to a multicast group goes to IB_MULTICAST_QPN whatever the WR says.
        int destQpn = ud ? (w.ah.multicast ? RxeEngine.MULTICAST_QPN : w.remoteQpn) : qp.attr().destQpNum();
        bth.wrap(tx, 0).init(op, se, false, pad, Bth.DEFAULT_PKEY, destQpn, ackReq, psn);
        if (ioc.rethOffset() >= 0) {
            reth.wrap(tx, ioc.rethOffset()).va(w.remoteAddr + w.txOffset).rkey(w.rkey).dmaLength((int) resid);
        }
        if (ioc.immDtOffset() >= 0) {
            immDt.wrap(tx, ioc.immDtOffset()).immediate(w.immData);
        }
        if (ioc.iethOffset() >= 0) {
            ieth.wrap(tx, ioc.iethOffset()).rkey(w.invalidateRkey);
        }
        if (ioc.atomicEthOffset() >= 0) {
            atomicEth.wrap(tx, ioc.atomicEthOffset()).va(w.remoteAddr).rkey(w.rkey);
            if (w.opcode == WrOpcode.ATOMIC_CMP_AND_SWP) {
                atomicEth.swapAdd(w.swap).compare(w.compareAdd);
            } else {
                atomicEth.swapAdd(w.compareAdd).compare(0);
            }
        }
        if (ioc.dethOffset() >= 0) {
            // IBTA 10.2.5: a Q_Key with the high bit set means "use the QP's own Q_Key".
            int qkey = w.remoteQkey < 0 ? qp.attr().qkey() : w.remoteQkey;
            deth.wrap(tx, ioc.dethOffset()).qkey(qkey).srcQpn(qp.qpNum());
        }
        int at = ioc.payloadOffset();
        if (payload > 0) {
            gather.copyTo(tx, at, payload);
        }
        for (int i = 0; i < pad; i++) {
            tx.set(java.lang.foreign.ValueLayout.JAVA_BYTE, at + payload + i, (byte) 0);
        }
        int length = at + payload + pad + Icrc.LENGTH;
        if (!q.transmit(peer, length)) {
            cursorFor = -1; // the cursor moved: rebuild it at txOffset next time
            return BLOCKED;
        }
        return afterSend(w, ioc, op, payload, resid, ackReq);
    }

    /** update_wqe_state + update_wqe_psn + update_state, after the packet left. */
    private int afterSend(SendWqe w, IbOpcode ioc, int op, int payload, long resid, boolean ackReq) {
        QpImpl qp = q.qp;
        int sentPsn = psn;
        noackPkts = ackReq ? 0 : noackPkts + 1;
        WqeState.started(w, true);
        boolean end = ioc.isEnd();
        boolean rc = qp.type() == QpType.RC;
        if (end) {
            WqeState.state(w, rc ? WqeState.PENDING : WqeState.DONE);
        } else {
            WqeState.state(w, WqeState.PROCESSING);
        }
        int mtu = q.mtu;
        int numPkt = (int) Math.max(1, (resid + mtu - 1) / mtu);
        if (ioc.isStart()) {
            w.txFirstSeq = psn;
            w.txLastSeq = Psn.add(psn, numPkt - 1);
        }
        if (ioc.has(IbOpcode.Flags.READ)) {
            psn = Psn.add(w.txFirstSeq, numPkt);
        } else {
            psn = Psn.next(psn);
            w.txOffset += payload;
        }
        opcode = op;
        if (end) {
            index++;
            cursorFor = -1;
        }
        if (rc) {
            q.sentRc(sentPsn, Psn.add(psn, -1), ackReq);
        } else if (end) {
            q.completerWanted = true;
        }
        return SENT;
    }

    private Peer peerOf(SendWqe w) {
        AhImpl ah = w.ah;
        if (ah == null) {
            return null;
        }
        Object r = ah.resolved;
        if (r instanceof Peer p) {
            return p;
        }
        Peer p = q.port.peer(ah.attr().dgid()); // once per address handle
        ah.resolved = p;
        return p;
    }

    /** {@code next_opcode}: the opcode of the next packet given the last one sent. */
    private int nextOpcode(SendWqe w, boolean fits) {
        QpType t = q.qp.type();
        if (t == QpType.UD) {
            return w.opcode == WrOpcode.SEND_WITH_IMM ? IbOpcode.UD_SEND_ONLY_WITH_IMMEDIATE.code()
                    : IbOpcode.UD_SEND_ONLY.code();
        }
        boolean uc = t == QpType.UC;
        int base = uc ? 0x20 : 0;
        int last = opcode;
        boolean inWrite = last == base + IbOpcode.RC_RDMA_WRITE_FIRST.code()
                || last == base + IbOpcode.RC_RDMA_WRITE_MIDDLE.code();
        boolean inSend = last == base + IbOpcode.RC_SEND_FIRST.code() || last == base + IbOpcode.RC_SEND_MIDDLE.code();
        return switch (w.opcode) {
            case RDMA_WRITE -> base + (inWrite ? (fits ? IbOpcode.RC_RDMA_WRITE_LAST : IbOpcode.RC_RDMA_WRITE_MIDDLE)
                    : (fits ? IbOpcode.RC_RDMA_WRITE_ONLY : IbOpcode.RC_RDMA_WRITE_FIRST)).code();
            case RDMA_WRITE_WITH_IMM -> base + (inWrite
                    ? (fits ? IbOpcode.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE : IbOpcode.RC_RDMA_WRITE_MIDDLE)
                    : (fits ? IbOpcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE : IbOpcode.RC_RDMA_WRITE_FIRST)).code();
            case SEND -> base + (inSend ? (fits ? IbOpcode.RC_SEND_LAST : IbOpcode.RC_SEND_MIDDLE)
                    : (fits ? IbOpcode.RC_SEND_ONLY : IbOpcode.RC_SEND_FIRST)).code();
            case SEND_WITH_IMM -> base + (inSend
                    ? (fits ? IbOpcode.RC_SEND_LAST_WITH_IMMEDIATE : IbOpcode.RC_SEND_MIDDLE)
                    : (fits ? IbOpcode.RC_SEND_ONLY_WITH_IMMEDIATE : IbOpcode.RC_SEND_FIRST)).code();
            case SEND_WITH_INV -> (inSend ? (fits ? IbOpcode.RC_SEND_LAST_WITH_INVALIDATE : IbOpcode.RC_SEND_MIDDLE)
                    : (fits ? IbOpcode.RC_SEND_ONLY_WITH_INVALIDATE : IbOpcode.RC_SEND_FIRST)).code();
            case RDMA_READ -> IbOpcode.RC_RDMA_READ_REQUEST.code();
            case ATOMIC_CMP_AND_SWP -> IbOpcode.RC_COMPARE_SWAP.code();
            case ATOMIC_FETCH_AND_ADD -> IbOpcode.RC_FETCH_ADD.code();
            case LOCAL_INV -> throw new IllegalStateException("local operations send nothing");
        };
    }

    /**
     * {@code req_retry}: rewinds to the oldest unacknowledged PSN. The first unfinished WQE resumes
     * after the packets the completer saw acknowledged, at the PSN of its first transmission and
     * never past its last packet (a READ after the bytes it received); later ones start over.
     */
    private void retry() {
        QpImpl qp = q.qp;
        long cons = qp.sqRetired();
        long prod = qp.sqProduced();
        index = cons;
        psn = q.completer.psn;
        q.retrying();
        opcode = -1;
        cursorFor = -1;
        int mtu = q.mtu;
        boolean first = true;
        for (long i = cons; i < prod; i++) {
            SendWqe w = q.slot(i);
            int st = WqeState.state(w);
            if (st == WqeState.POSTED) {
                break;
            }
            if (st == WqeState.DONE || st == WqeState.ERROR) {
                continue;
            }
            boolean read = w.opcode == WrOpcode.RDMA_READ;
            if (!first || !read) {
                w.txOffset = 0;
            }
            if (first) {
                first = false;
                boolean writeOrSend = !read && !w.opcode.isAtomic();
                if (writeOrSend) {
                    // Skip what the responder acknowledged, but never the last packet: each packet goes
                    // again at its own PSN, even should the completer's PSN be past the message.
                    int npsn = Math.max(0, Psn.diff(q.completer.psn, w.txFirstSeq));
                    int k = 0;
                    while (k < npsn && w.length - w.txOffset > mtu) {
                        opcode = nextOpcode(w, false);
                        w.txOffset += mtu;
                        k++;
                    }
                    psn = Psn.add(w.txFirstSeq, k);
                }
            }
            WqeState.state(w, WqeState.POSTED);
        }
    }
}
