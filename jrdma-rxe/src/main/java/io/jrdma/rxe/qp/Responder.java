package io.jrdma.rxe.qp;

import io.jrdma.internal.verbs.AccessResult;
import io.jrdma.internal.verbs.MrImpl;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.internal.verbs.RecvWqe;
import io.jrdma.internal.verbs.SgCursor;
import io.jrdma.verbs.Counter;
import io.jrdma.rxe.net.PacketPool;
import io.jrdma.rxe.net.Peer;
import io.jrdma.rxe.net.RxePacket;
import io.jrdma.internal.roce.Aeth;
import io.jrdma.internal.roce.AtomicAckEth;
import io.jrdma.internal.roce.BigEndian;
import io.jrdma.internal.roce.Bth;
import io.jrdma.internal.roce.IbOpcode;
import io.jrdma.internal.roce.Icrc;
import io.jrdma.internal.roce.Psn;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.WcFlags;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayDeque;

/**
 * The responder (Linux {@code rxe_resp.c}, behaviour ported): checks each request in rxe's order —
 * PSN, opcode sequence, opcode validity against the QP's access flags, resources (receive WQE or
 * IRD), length, rkey — then executes it (places SEND data in the receive WQE, WRITE data in the
 * region, executes an atomic, replies to an RDMA READ), completes receives and acknowledges
 * (coalesced: only packets with AckReq are ACKed). Duplicates are ACKed again, READs re-executed and
 * atomics answered from the reply cache; the first out-of-sequence packet gets one PSN sequence
 * error NAK; a missing receive gets an RNR NAK with the QP's minimum RNR timer.
 *
 * <p>Error classes follow IBTA ch. 9.9 as rxe applies them, with the completion statuses and
 * affiliated events of the loop provider (the oracle): class C errors NAK, complete the receive in
 * progress with an error and move the QP to ERR; UD and UC drop what they cannot take.
 *
 * <p>An RDMA READ reply is sent a budget of packets at a time; requests that arrive meanwhile wait
 * in a queue of pooled buffers (rxe's {@code req_pkts}), so responses stay in PSN order.
 */
final class Responder {
    /** Atomics operate on host-order 64-bit words, as rxe on the host's memory (and the loop provider). */
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.nativeOrder());
    /** The GRH placed before a UD payload (IBTA 11.4.1.1): 40 bytes. */
    static final int GRH_LENGTH = 40;
    /** Requests queued behind an RDMA READ reply at most; later ones are dropped (RC retransmits them). */
    static final int MAX_QUEUED = 128;
    private static final int TWO_GIB = 1 << 31;

    /** The steps of handling one request ({@code enum resp_states}). */
    enum Step {
        /** Expected, duplicate or out-of-sequence PSN. */
        CHK_PSN,
        /** First/middle/last in the right order. */
        CHK_OP_SEQ,
        /** The QP's access flags allow the operation. */
        CHK_OP_VALID,
        /** A receive WQE, or a responder resource, is there. */
        CHK_RESOURCE,
        /** Payload lengths fit the MTU and the opcode. */
        CHK_LENGTH,
        /** The rkey names a region that allows the access. */
        CHK_RKEY,
        /** Move the data. */
        EXECUTE,
        /** Send (more of) an RDMA READ reply. */
        READ_REPLY,
        /** Execute an atomic (or answer it from the cache). */
        ATOMIC_REPLY,
        /** Complete the receive WQE. */
        COMPLETE,
        /** ACK or NAK. */
        ACKNOWLEDGE,
        /** Forget the request. */
        CLEANUP,
        /** A request seen before. */
        DUPLICATE_REQUEST,
        /** The receive WQE's scatter list is unusable (class A). */
        ERR_MALFORMED_WQE,
        /** The QP may not do this operation (class C). */
        ERR_UNSUPPORTED_OPCODE,
        /** An atomic not on an 8-byte boundary (class C). */
        ERR_MISALIGNED_ATOMIC,
        /** A PSN ahead of the expected one (class B). */
        ERR_PSN_OUT_OF_SEQ,
        /** A middle or last packet without a first (class C). */
        ERR_MISSING_OPCODE_FIRST,
        /** A new message before the last one ended, RC (class C). */
        ERR_MISSING_OPCODE_LAST_C,
        /** A new message before the last one ended, UC (class D1/E). */
        ERR_MISSING_OPCODE_LAST_D1E,
        /** An RDMA READ or atomic with no responder resources (class C). */
        ERR_TOO_MANY_RDMA_ATM_REQ,
        /** No receive WQE (class B for RC). */
        ERR_RNR,
        /** The rkey does not allow the access (class C for RC). */
        ERR_RKEY_VIOLATION,
        /** SEND with invalidate of a key that cannot be invalidated. */
        ERR_INVALIDATE_RKEY,
        /** A length that does not fit (class C for RC). */
        ERR_LENGTH,
        /** The receive CQ overflowed (class G). */
        ERR_CQ_OVERFLOW,
        /** Move the QP to ERR. */
        ERROR,
        /** Finished with this request. */
        DONE,
        /** An RDMA READ reply continues in a later duty cycle. */
        MORE
    }

    private final RxeQp q;
    private final SgCursor scatter = new SgCursor(4);
    private final Bth bth = new Bth();
    private final Aeth aeth = new Aeth();
    private final AtomicAckEth atomicAck = new AtomicAckEth();
    private final ArrayDeque<PacketPool.Buffer> queue = new ArrayDeque<>(MAX_QUEUED);

    /** {@code qp->resp.psn}: the expected PSN. */
    private int psn;
    private int ackPsn;
    private int msn;
    private int opcode = -1;
    private boolean sentPsnNak;
    private boolean dropMsg;
    private RecvWqe wqe;
    private long va;
    private int rkey;
    private long resid;
    private long length;
    private MrImpl mr;
    private ResponderResource[] resources = new ResponderResource[0];
    private int resHead;
    private ResponderResource res;
    private int syndrome = Aeth.CREDITS_UNLIMITED;
    private WcStatus status = WcStatus.SUCCESS;
    private boolean gotoError;
    private AsyncEventType errorEvent;
    private String errorWhy;
    private int budget;

    Responder(RxeQp q) {
        this.q = q;
    }

    /** RTR: expect the QP's receive PSN; size the responder resources. */
    void reset(QpAttr a) {
        clear();
        psn = a.rqPsn() & Psn.MASK;
        ackPsn = psn;
        int n = Math.max(1, a.maxDestRdAtomic());
        if (resources.length != n) {
            resources = new ResponderResource[n];
            for (int i = 0; i < n; i++) {
                resources[i] = new ResponderResource();
            }
        }
        for (ResponderResource r : resources) {
            r.type = ResponderResource.NONE;
        }
    }

    /** Forgets everything in progress and gives queued packets back (ERR, RESET, destroy). */
    void clear() {
        PacketPool.Buffer b;
        while ((b = queue.poll()) != null) {
            q.engine.pool().give(b);
        }
        res = null;
        wqe = null;
        mr = null;
        opcode = -1;
        msn = 0;
        sentPsnNak = false;
        dropMsg = false;
        resHead = 0;
        gotoError = false;
        syndrome = Aeth.CREDITS_UNLIMITED;
        status = WcStatus.SUCCESS;
    }

    String describe() {
        return "resp.psn " + Integer.toHexString(psn) + " msn " + msn + " queued " + queue.size() + " read "
                + (res == null ? "none" : Integer.toHexString(res.curPsn) + " resid " + res.resid);
    }

    /** A request arrived (engine holder; the packet is valid for this call only). */
    void receive(RxePacket p) {
        if (readInProgress() || !queue.isEmpty()) {
            PacketPool.Buffer b = queue.size() < MAX_QUEUED ? q.engine.pool().take() : null;
            if (b == null) {
                q.counters.inc(Counter.RESP_QUEUE_FULL);
                return;
            }
            b.copyFrom(p.segment(), p.offset(), p.length());
            b.sourceIpv4 = p.sourceIpv4();
            b.sourceHigh = p.sourceHigh();
            b.sourceLow = p.sourceLow();
            b.sourcePort = p.sourcePort();
            b.ipv4Match = p.ipv4Match();
            queue.add(b);
            q.ring();
            return;
        }
        budget = RxeQp.BUDGET;
        run(p, Step.CHK_PSN);
        if (readInProgress()) {
            q.ring();
        }
    }

    /** Continues a READ reply and then the queued requests, up to {@code max} packets. */
    int resume(int max) {
        int work = 0;
        budget = max;
        while (budget > 0) {
            if (readInProgress()) {
                run(null, Step.READ_REPLY);
                work++;
                if (readInProgress()) {
                    break;
                }
                continue;
            }
            PacketPool.Buffer b = queue.poll();
            if (b == null) {
                return work;
            }
            RxePacket p = q.engine.replayPacket();
            if (p.parse(b.segment, 0, b.length)) {
                p.source(b.sourceIpv4, b.sourceHigh, b.sourceLow, b.sourcePort, b.ipv4Match);
                run(p, Step.CHK_PSN);
            }
            q.engine.pool().give(b);
            budget--;
            work++;
        }
        if (readInProgress() || !queue.isEmpty()) {
            q.ring();
        }
        return work;
    }

    private boolean readInProgress() {
        return res != null && res.type == ResponderResource.READ;
    }

    private boolean rc() {
        return q.qp.type() == QpType.RC;
    }

    /** {@code rxe_responder}'s step loop for one request (or a READ reply's continuation). */
    private void run(RxePacket p, Step start) {
        syndrome = Aeth.CREDITS_UNLIMITED;
        Step s = start;
        for (;;) {
            switch (s) {
                case CHK_PSN -> s = checkPsn(p);
                case CHK_OP_SEQ -> s = checkOpSeq(p);
                case CHK_OP_VALID -> s = checkOpValid(p);
                case CHK_RESOURCE -> s = checkResource(p);
                case CHK_LENGTH -> s = checkLength(p);
                case CHK_RKEY -> s = checkRkey(p);
                case EXECUTE -> s = execute(p);
                case COMPLETE -> s = complete(p);
                case READ_REPLY -> s = readReply(p);
                case ATOMIC_REPLY -> s = atomicReply(p);
                case ACKNOWLEDGE -> s = acknowledge(p);
                case CLEANUP -> {
                    mr = null;
                    if (res != null && res.type == ResponderResource.ATOMIC) {
                        res = null;
                    }
                    s = Step.DONE;
                }
                case DUPLICATE_REQUEST -> s = duplicate(p);
                case ERR_PSN_OUT_OF_SEQ -> {
                    // RC, class B: one NAK per gap, carrying the expected PSN.
                    sendAck(Aeth.TYPE_NAK | Aeth.NAK_PSN_SEQUENCE_ERROR, psn);
                    s = Step.CLEANUP;
                }
                case ERR_TOO_MANY_RDMA_ATM_REQ -> s = classC(Aeth.NAK_INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR,
                        AsyncEventType.QP_REQ_ERR, "RDMA READ or atomic to a QP with no responder resources (IRD 0)");
                case ERR_MISSING_OPCODE_FIRST, ERR_MISSING_OPCODE_LAST_C -> s = classC(Aeth.NAK_INVALID_REQUEST,
                        WcStatus.REM_INV_REQ_ERR, AsyncEventType.QP_REQ_ERR, "opcode out of sequence");
                case ERR_UNSUPPORTED_OPCODE -> s = classC(Aeth.NAK_INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR,
                        AsyncEventType.QP_REQ_ERR, "operation not allowed by the QP's access flags");
                case ERR_MISALIGNED_ATOMIC -> s = classC(Aeth.NAK_INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR,
                        AsyncEventType.QP_REQ_ERR, "misaligned atomic at 0x" + Long.toHexString(va));
                case ERR_MISSING_OPCODE_LAST_D1E -> s = classD1e();
                case ERR_RNR -> {
                    if (rc()) {
                        // RC, class B: RNR NAK with this QP's minimum RNR timer.
                        q.counters.inc(Counter.SEND_RNR_ERR);
                        sendAck(Aeth.TYPE_RNR_NAK | q.qp.attr().minRnrTimer() & Aeth.MASK_VALUE, p.psn());
                    } else {
                        dropMsg = true; // UD/UC, class D
                    }
                    s = Step.CLEANUP;
                }
                case ERR_RKEY_VIOLATION -> {
                    if (rc()) {
                        s = classC(Aeth.NAK_REMOTE_ACCESS_ERROR, WcStatus.REM_ACCESS_ERR, AsyncEventType.QP_ACCESS_ERR,
                                "remote access violation on rkey 0x" + Integer.toHexString(rkey));
                        if (p == null) {
                            // during a READ reply's continuation: NAK with the reply's PSN
                            sendAck(Aeth.TYPE_NAK | Aeth.NAK_REMOTE_ACCESS_ERROR, res.curPsn);
                            res = null;
                        }
                    } else {
                        dropMsg = true;
                        if (q.qp.srq() != null && wqe != null) {
                            status = WcStatus.REM_ACCESS_ERR; // UC with SRQ, class D
                            s = Step.COMPLETE;
                        } else {
                            s = Step.CLEANUP; // UC, class E
                        }
                    }
                }
                case ERR_INVALIDATE_RKEY -> s = classC(Aeth.NAK_INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR,
                        AsyncEventType.QP_REQ_ERR, "SEND with invalidate of an unknown rkey");
                case ERR_LENGTH -> {
                    if (rc()) {
                        s = classC(Aeth.NAK_INVALID_REQUEST, WcStatus.LOC_LEN_ERR, AsyncEventType.QP_REQ_ERR,
                                "message longer than the receive or the MTU allows");
                    } else if (q.qp.srq() != null && wqe != null) {
                        status = WcStatus.REM_INV_REQ_ERR; // UD/UC with SRQ, class E
                        s = Step.COMPLETE;
                    } else {
                        dropMsg = true; // UD/UC, class D: the receive stays for the next message
                        s = Step.CLEANUP;
                    }
                }
                case ERR_MALFORMED_WQE -> s = classC(Aeth.NAK_REMOTE_OPERATIONAL_ERROR, WcStatus.LOC_PROT_ERR,
                        AsyncEventType.QP_FATAL, "receive WQE has a bad scatter list");
                case ERR_CQ_OVERFLOW -> s = Step.ERROR;
                case DONE -> {
                    if (!gotoError) {
                        return;
                    }
                    s = Step.ERROR;
                }
                case MORE -> {
                    return;
                }
                case ERROR -> {
                    gotoError = false;
                    q.fatal(errorEvent, errorWhy);
                    return;
                }
                default -> throw new IllegalStateException("responder step " + s);
            }
        }
    }

    /** Class A or C (rxe treats them alike): NAK, error completion, QP to ERR with an affiliated event. */
    private Step classC(int nakCode, WcStatus recvStatus, AsyncEventType event, String why) {
        syndrome = Aeth.TYPE_NAK | nakCode;
        status = recvStatus;
        gotoError = true;
        errorEvent = event;
        errorWhy = why;
        return Step.COMPLETE;
    }

    /** UC: a message cut short is dropped; with an SRQ its receive completes in error. */
    private Step classD1e() {
        if (q.qp.srq() != null) {
            dropMsg = true;
            if (wqe != null) {
                status = WcStatus.REM_INV_REQ_ERR;
                return Step.COMPLETE;
            }
            return Step.CLEANUP;
        }
        opcode = -1;
        mr = null;
        return Step.CLEANUP; // the receive WQE stays for the next message, placed from the start
    }

    /** {@code check_psn}. */
    private Step checkPsn(RxePacket p) {
        int diff = Psn.diff(p.psn(), psn);
        switch (q.qp.type()) {
            case RC -> {
                if (diff > 0) {
                    if (sentPsnNak) {
                        return Step.CLEANUP;
                    }
                    sentPsnNak = true;
                    q.counters.inc(Counter.OUT_OF_SEQ_REQUEST);
                    return Step.ERR_PSN_OUT_OF_SEQ;
                }
                if (diff < 0) {
                    q.counters.inc(Counter.DUPLICATE_REQUEST);
                    return Step.DUPLICATE_REQUEST;
                }
                sentPsnNak = false;
            }
            case UC -> {
                if (dropMsg || diff != 0) {
                    if (p.opcode().isStart()) {
                        dropMsg = false;
                        return Step.CHK_OP_SEQ;
                    }
                    dropMsg = true;
                    return Step.CLEANUP;
                }
            }
            default -> {
                // UD: no sequence
            }
        }
        return Step.CHK_OP_SEQ;
    }

    /** {@code check_op_seq}. */
    private Step checkOpSeq(RxePacket p) {
        QpType t = q.qp.type();
        if (t == QpType.UD) {
            return Step.CHK_OP_VALID;
        }
        int base = t == QpType.UC ? 0x20 : 0;
        int op = p.opcode().code() - base;
        int last = opcode - base;
        boolean inSend = opcode >= 0
                && (last == IbOpcode.RC_SEND_FIRST.code() || last == IbOpcode.RC_SEND_MIDDLE.code());
        boolean inWrite = opcode >= 0 && (last == IbOpcode.RC_RDMA_WRITE_FIRST.code()
                || last == IbOpcode.RC_RDMA_WRITE_MIDDLE.code());
        boolean sendCont = op == IbOpcode.RC_SEND_MIDDLE.code() || op == IbOpcode.RC_SEND_LAST.code()
                || op == IbOpcode.RC_SEND_LAST_WITH_IMMEDIATE.code()
                || t == QpType.RC && op == IbOpcode.RC_SEND_LAST_WITH_INVALIDATE.code();
        boolean writeCont = op == IbOpcode.RC_RDMA_WRITE_MIDDLE.code() || op == IbOpcode.RC_RDMA_WRITE_LAST.code()
                || op == IbOpcode.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE.code();
        if (inSend) {
            return sendCont ? Step.CHK_OP_VALID : lastMissing(t);
        }
        if (inWrite) {
            return writeCont ? Step.CHK_OP_VALID : lastMissing(t);
        }
        if (sendCont || writeCont) {
            if (t == QpType.UC) {
                dropMsg = true;
                return Step.CLEANUP;
            }
            return Step.ERR_MISSING_OPCODE_FIRST;
        }
        return Step.CHK_OP_VALID;
    }

    private static Step lastMissing(QpType t) {
        return t == QpType.UC ? Step.ERR_MISSING_OPCODE_LAST_D1E : Step.ERR_MISSING_OPCODE_LAST_C;
    }

    /** {@code check_op_valid}: the QP's access flags against the operation. */
    private Step checkOpValid(RxePacket p) {
        int access = q.qp.attr().qpAccessFlags();
        switch (q.qp.type()) {
            case RC -> {
                if (p.has(IbOpcode.Flags.READ) && (access & Access.REMOTE_READ) == 0
                        || p.has(IbOpcode.Flags.WRITE) && (access & Access.REMOTE_WRITE) == 0
                        || p.has(IbOpcode.Flags.ATOMIC) && (access & Access.REMOTE_ATOMIC) == 0) {
                    return Step.ERR_UNSUPPORTED_OPCODE;
                }
            }
            case UC -> {
                if (p.has(IbOpcode.Flags.WRITE) && (access & Access.REMOTE_WRITE) == 0) {
                    dropMsg = true;
                    return Step.CLEANUP;
                }
            }
            default -> {
                // UD: SENDs only
            }
        }
        return Step.CHK_RESOURCE;
    }

    /** {@code check_resource}: responder resources for READ/atomic, a receive WQE for what consumes one. */
    private Step checkResource(RxePacket p) {
        QpImpl qp = q.qp;
        if (p.hasAny(IbOpcode.Flags.READ | IbOpcode.Flags.ATOMIC)) {
            return qp.attr().maxDestRdAtomic() > 0 ? Step.CHK_LENGTH : Step.ERR_TOO_MANY_RDMA_ATM_REQ;
        }
        if (p.has(IbOpcode.Flags.CONSUMES_RWR)) {
            // A receive taken for a message that was then dropped stays current and takes the next one.
            RecvWqe w = qp.currentRecv();
            if (w == null) {
                w = qp.takeRecv();
            }
            if (w == null) {
                return Step.ERR_RNR;
            }
            wqe = w;
            if (p.has(IbOpcode.Flags.SEND)
                    && scatter.resetForRecv(qp.deviceImpl().memoryTable(), qp.pdImpl(), w, Access.LOCAL_WRITE)
                            != AccessResult.OK) {
                return Step.ERR_MALFORMED_WQE;
            }
        } else if (p.has(IbOpcode.Flags.SEND) && wqe == null) {
            return Step.ERR_MISSING_OPCODE_FIRST;
        }
        return Step.CHK_LENGTH;
    }

    /** {@code check_length}: first and middle packets carry exactly the MTU, last and only at most. */
    private Step checkLength(RxePacket p) {
        int mtu = q.mtu;
        int payload = p.payloadLength();
        IbOpcode op = p.opcode();
        if (op.isOnly()) {
            if (payload > mtu) {
                return Step.ERR_LENGTH;
            }
        } else if (op.isFirst() || op.isMiddle()) {
            if (payload != mtu) {
                return Step.ERR_LENGTH;
            }
        } else if (op.isLast()) {
            if (payload == 0 || payload > mtu) {
                return Step.ERR_LENGTH;
            }
        }
        if (op.rethOffset() >= 0 && p.hasAny(IbOpcode.Flags.WRITE | IbOpcode.Flags.READ)
                && Integer.compareUnsigned(p.reth.dmaLength(), TWO_GIB) > 0) {
            return Step.ERR_LENGTH;
        }
        return Step.CHK_RKEY;
    }

    /** {@code check_rkey}: the region behind the rkey allows the access over the whole range. */
    private Step checkRkey(RxePacket p) {
        int access;
        if (p.hasAny(IbOpcode.Flags.READ | IbOpcode.Flags.WRITE)) {
            if (p.opcode().rethOffset() >= 0) {
                va = p.reth.va();
                rkey = p.reth.rkey();
                resid = p.reth.dmaLength() & 0xffff_ffffL;
                length = resid;
                if (resid == 0) {
                    return Step.EXECUTE; // a zero-byte operation need not name memory
                }
            }
            access = p.has(IbOpcode.Flags.READ) ? Access.REMOTE_READ : Access.REMOTE_WRITE;
        } else if (p.has(IbOpcode.Flags.ATOMIC)) {
            va = p.atomicEth.va();
            rkey = p.atomicEth.rkey();
            resid = 8;
            length = 8;
            access = Access.REMOTE_ATOMIC;
            if ((va & 7) != 0) {
                return Step.ERR_MISALIGNED_ATOMIC; // checked before the key, as the loop provider does
            }
        } else {
            return Step.EXECUTE;
        }
        QpImpl qp = q.qp;
        MrImpl m = qp.deviceImpl().memoryTable().lookup(rkey);
        if (m == null || m.check(qp.pdImpl(), va, resid, access) != AccessResult.OK) {
            return Step.ERR_RKEY_VIOLATION;
        }
        if (p.has(IbOpcode.Flags.WRITE)) {
            int pktlen = p.payloadLength();
            if (resid > q.mtu) {
                if (pktlen != q.mtu || p.pad() != 0) {
                    return Step.ERR_LENGTH;
                }
            } else if (pktlen != resid || p.pad() != (-(int) resid & 3)) {
                return Step.ERR_LENGTH;
            }
        }
        mr = m;
        return Step.EXECUTE;
    }

    /** {@code execute}: moves the data of a new request. */
    private Step execute(RxePacket p) {
        QpImpl qp = q.qp;
        if (p.has(IbOpcode.Flags.SEND)) {
            if (p.opcode().isStart() && p.has(IbOpcode.Flags.DETH)) {
                if (scatter.remaining() < GRH_LENGTH + p.payloadLength()) {
                    return Step.ERR_LENGTH;
                }
                placeGrh(p);
            }
            if (p.payloadLength() > scatter.remaining()) {
                return Step.ERR_LENGTH;
            }
            scatter.copyFrom(p.segment(), p.payloadOffset(), p.payloadLength());
        } else if (p.has(IbOpcode.Flags.WRITE)) {
            int n = p.payloadLength();
            if (n > 0) {
                MemorySegment.copy(p.segment(), p.payloadOffset(), mr.segment(), mr.offsetOf(va), n);
                va += n;
                resid -= n;
            }
        } else if (p.has(IbOpcode.Flags.READ)) {
            msn = (msn + 1) & Psn.MASK; // C9-148: the READ counts as done now
            return Step.READ_REPLY;
        } else if (p.has(IbOpcode.Flags.ATOMIC)) {
            return Step.ATOMIC_REPLY;
        }
        if (p.opcode().iethOffset() >= 0) {
            int key = p.ieth.rkey();
            MrImpl m = qp.deviceImpl().memoryTable().lookup(key);
            if (m == null || m.pdImpl() != qp.pdImpl() || !m.isValid()) {
                return Step.ERR_INVALIDATE_RKEY;
            }
            m.invalidate();
        }
        if (p.opcode().isEnd()) {
            msn = (msn + 1) & Psn.MASK;
        }
        psn = Psn.next(p.psn());
        ackPsn = psn;
        opcode = p.opcode().code();
        if (p.opcode().isEnd()) {
            opcode = -1;
        }
        status = WcStatus.SUCCESS;
        if (p.has(IbOpcode.Flags.COMPLETES)) {
            return Step.COMPLETE;
        }
        return rc() ? Step.ACKNOWLEDGE : Step.CLEANUP;
    }

    /**
     * The 40 bytes before a UD payload: for IPv4, 20 zero bytes and the IPv4 header (as rxe places
     * {@code roce4grh}; the identification is the one the ICRC check solved, TTL 64 and TOS 0 as
     * rxe sends), otherwise the IPv6 header.
     */
    private void placeGrh(RxePacket p) {
        MemorySegment g = q.engine.grh();
        g.fill((byte) 0);
        int udpLength = 8 + p.length();
        if (!q.port.udp().isIpv6()) {
            long match = p.ipv4Match();
            int id = match == Icrc.NO_MATCH ? 0 : Icrc.matchedId(match);
            int flags = match == Icrc.NO_MATCH ? 0x4000 : Icrc.matchedFlags(match);
            BigEndian.putU8(g, 20, 0x45);
            BigEndian.putU16(g, 22, 20 + udpLength);
            BigEndian.putU16(g, 24, id);
            BigEndian.putU16(g, 26, flags);
            BigEndian.putU8(g, 28, 64);
            BigEndian.putU8(g, 29, 17);
            BigEndian.putU32(g, 32, p.sourceIpv4());
            BigEndian.putU32(g, 36, q.port.udp().ipv4());
            int sum = 0;
            for (int i = 20; i < 40; i += 2) {
                sum += BigEndian.u16(g, i);
            }
            sum = (sum & 0xffff) + (sum >>> 16);
            sum = (sum & 0xffff) + (sum >>> 16);
            BigEndian.putU16(g, 30, ~sum & 0xffff);
        } else {
            BigEndian.putU32(g, 0, 0x6000_0000);
            BigEndian.putU16(g, 4, udpLength);
            BigEndian.putU8(g, 6, 17);
            BigEndian.putU8(g, 7, 64);
            BigEndian.putU64(g, 8, p.sourceHigh());
            BigEndian.putU64(g, 16, p.sourceLow());
            BigEndian.putU64(g, 24, q.port.udp().high());
            BigEndian.putU64(g, 32, q.port.udp().low());
        }
        scatter.copyFrom(g, 0, GRH_LENGTH);
    }

    /** {@code do_complete}: the receive WQE's completion. */
    private Step complete(RxePacket p) {
        RecvWqe w = wqe;
        if (w != null) {
            QpImpl qp = q.qp;
            boolean writeImm = p != null && p.has(IbOpcode.Flags.WRITE | IbOpcode.Flags.IMMDT);
            WcOpcode op = writeImm ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV;
            boolean ok;
            if (status == WcStatus.SUCCESS) {
                int byteLen = writeImm ? (int) length : (int) scatter.position();
                int flags = 0;
                int imm = 0;
                if (p.has(IbOpcode.Flags.DETH)) {
                    flags |= WcFlags.GRH;
                }
                if (p.opcode().immDtOffset() >= 0) {
                    flags |= WcFlags.WITH_IMM;
                    imm = p.immDt.immediate();
                }
                if (p.opcode().iethOffset() >= 0) {
                    flags |= WcFlags.WITH_INV;
                    imm = p.ieth.rkey();
                }
                int srcQp = p.has(IbOpcode.Flags.DETH) ? p.deth.srcQpn() : 0;
                ok = qp.completeRecv(WcStatus.SUCCESS, op, byteLen, imm, flags, srcQp, p.solicited());
            } else {
                ok = qp.completeRecv(status, op, 0, 0, 0, 0, false);
            }
            wqe = null;
            if (!ok) {
                return Step.ERR_CQ_OVERFLOW;
            }
        }
        if (p == null) {
            return Step.DONE;
        }
        return rc() ? Step.ACKNOWLEDGE : Step.CLEANUP;
    }

    /** {@code acknowledge}: a NAK, an atomic ACK, or an ACK where the requester asked for one. */
    private Step acknowledge(RxePacket p) {
        if (!rc()) {
            return Step.CLEANUP;
        }
        if (syndrome != Aeth.CREDITS_UNLIMITED) {
            sendAck(syndrome, p.psn());
        } else if (p.has(IbOpcode.Flags.ATOMIC)) {
            sendAtomicAck(p.psn(), res.originalValue);
            res = null;
        } else if (p.ackReq()) {
            sendAck(Aeth.CREDITS_UNLIMITED, p.psn());
        }
        return Step.CLEANUP;
    }

    /** {@code duplicate_request} (C9-105): ACK again, re-execute a READ, answer an atomic from the cache. */
    private Step duplicate(RxePacket p) {
        if (p.hasAny(IbOpcode.Flags.SEND | IbOpcode.Flags.WRITE)) {
            sendAck(Aeth.CREDITS_UNLIMITED, Psn.add(ackPsn, -1));
            return Step.CLEANUP;
        }
        ResponderResource r = find(p.psn());
        if (r == null) {
            return Step.CLEANUP; // class D: drop
        }
        if (p.has(IbOpcode.Flags.READ)) {
            if (r.type != ResponderResource.READ) {
                return Step.CLEANUP;
            }
            long iova = p.reth.va();
            long len = p.reth.dmaLength() & 0xffff_ffffL;
            if (Long.compareUnsigned(iova, r.vaOrg) < 0 || len > r.length
                    || Long.compareUnsigned(iova + len, r.vaOrg + r.length) > 0 || p.reth.rkey() != r.rkey) {
                return Step.CLEANUP; // not the READ we answered, nor part of it
            }
            r.curPsn = p.psn();
            r.fresh = p.psn() == r.firstPsn;
            r.replay = true;
            r.vaOrg = iova;
            r.va = iova;
            r.resid = len;
            res = r;
            return Step.READ_REPLY;
        }
        if (r.type != ResponderResource.ATOMIC) {
            return Step.CLEANUP;
        }
        r.replay = true;
        r.curPsn = p.psn();
        res = r;
        return Step.ATOMIC_REPLY;
    }

    private ResponderResource find(int psnToFind) {
        for (ResponderResource r : resources) {
            if (r.covers(psnToFind)) {
                return r;
            }
        }
        return null;
    }

    private ResponderResource prepare(RxePacket p, int type) {
        ResponderResource r = resources[resHead];
        resHead = (resHead + 1) % resources.length;
        r.type = type;
        r.replay = false;
        if (type == ResponderResource.READ) {
            r.va = va;
            r.vaOrg = va;
            r.resid = resid;
            r.length = resid;
            r.rkey = rkey;
            int pkts = (int) Math.max(1, ((p.reth.dmaLength() & 0xffff_ffffL) + q.mtu - 1) / q.mtu);
            r.firstPsn = p.psn();
            r.curPsn = p.psn();
            r.lastPsn = Psn.add(p.psn(), pkts - 1);
            r.fresh = true;
        } else {
            r.firstPsn = p.psn();
            r.lastPsn = p.psn();
            r.curPsn = p.psn();
        }
        return r;
    }

    /** {@code read_reply}: one packet per step, until the budget or the reply ends. */
    private Step readReply(RxePacket p) {
        ResponderResource r = res;
        if (r == null) {
            r = prepare(p, ResponderResource.READ);
            res = r;
        }
        int mtu = q.mtu;
        IbOpcode op;
        if (r.fresh) {
            op = r.resid <= mtu ? IbOpcode.RC_RDMA_READ_RESPONSE_ONLY : IbOpcode.RC_RDMA_READ_RESPONSE_FIRST;
        } else {
            op = r.resid > mtu ? IbOpcode.RC_RDMA_READ_RESPONSE_MIDDLE : IbOpcode.RC_RDMA_READ_RESPONSE_LAST;
        }
        int payload = (int) Math.min(r.resid, mtu);
        MrImpl m = null;
        if (payload > 0) {
            // The region may have been invalidated or deregistered since the request: look again.
            QpImpl qp = q.qp;
            m = qp.deviceImpl().memoryTable().lookup(r.rkey);
            if (m == null || m.check(qp.pdImpl(), r.va, payload, Access.REMOTE_READ) != AccessResult.OK) {
                rkey = r.rkey;
                return Step.ERR_RKEY_VIOLATION;
            }
        }
        Peer peer = q.peer;
        if (peer != null) {
            MemorySegment tx = q.engine.txSegment();
            int pad = -payload & 3;
            bth.wrap(tx, 0).init(op.code(), false, false, pad, Bth.DEFAULT_PKEY, q.qp.attr().destQpNum(), false,
                    r.curPsn);
            if (op.aethOffset() >= 0) {
                aeth.wrap(tx, op.aethOffset()).ack(Aeth.CREDITS_UNLIMITED, msn);
            }
            int at = op.payloadOffset();
            if (payload > 0) {
                MemorySegment.copy(m.segment(), m.offsetOf(r.va), tx, at, payload);
            }
            for (int i = 0; i < pad; i++) {
                tx.set(ValueLayout.JAVA_BYTE, at + payload + i, (byte) 0);
            }
            if (!q.transmit(peer, at + payload + pad + Icrc.LENGTH)) {
                return Step.MORE; // the socket is full: the same packet next time
            }
        }
        r.fresh = false;
        r.va += payload;
        r.resid -= payload;
        r.curPsn = Psn.next(r.curPsn);
        budget--;
        if (r.resid > 0) {
            return budget > 0 ? Step.READ_REPLY : Step.MORE;
        }
        res = null;
        if (!r.replay) {
            opcode = -1;
        }
        if (Psn.diff(r.curPsn, psn) >= 0) {
            psn = r.curPsn;
        }
        return Step.CLEANUP;
    }

    /** {@code atomic_reply}: executes a new atomic once; a duplicate is answered from the cache. */
    private Step atomicReply(RxePacket p) {
        ResponderResource r = res;
        if (r == null) {
            r = prepare(p, ResponderResource.ATOMIC);
            res = r;
        }
        if (!r.replay) {
            MrImpl m = mr;
            if (m == null || !m.isValid()) {
                return Step.ERR_RKEY_VIOLATION;
            }
            MemorySegment seg = m.segment();
            long off = m.offsetOf(va);
            long value = seg.get(WORD, off);
            r.originalValue = value;
            if (p.opcode() == IbOpcode.RC_COMPARE_SWAP) {
                if (value == p.atomicEth.compare()) {
                    seg.set(WORD, off, p.atomicEth.swapAdd());
                }
            } else {
                seg.set(WORD, off, value + p.atomicEth.swapAdd());
            }
            msn = (msn + 1) & Psn.MASK;
            psn = Psn.next(p.psn());
            ackPsn = psn;
            opcode = -1;
            status = WcStatus.SUCCESS;
        }
        return Step.ACKNOWLEDGE;
    }

    private void sendAck(int syn, int ackedPsn) {
        Peer peer = q.peer;
        if (peer == null) {
            return;
        }
        MemorySegment tx = q.engine.txSegment();
        IbOpcode op = IbOpcode.RC_ACKNOWLEDGE;
        bth.wrap(tx, 0).init(op.code(), false, false, 0, Bth.DEFAULT_PKEY, q.qp.attr().destQpNum(), false, ackedPsn);
        aeth.wrap(tx, op.aethOffset()).set(syn, msn);
        q.transmit(peer, op.headerLength() + Icrc.LENGTH);
    }

    private void sendAtomicAck(int ackedPsn, long original) {
        Peer peer = q.peer;
        if (peer == null) {
            return;
        }
        MemorySegment tx = q.engine.txSegment();
        IbOpcode op = IbOpcode.RC_ATOMIC_ACKNOWLEDGE;
        bth.wrap(tx, 0).init(op.code(), false, false, 0, Bth.DEFAULT_PKEY, q.qp.attr().destQpNum(), false, ackedPsn);
        aeth.wrap(tx, op.aethOffset()).ack(Aeth.CREDITS_UNLIMITED, msn);
        atomicAck.wrap(tx, op.atomicAckEthOffset()).originalData(original);
        q.transmit(peer, op.headerLength() + Icrc.LENGTH);
    }
}
