package io.jrdma.siw.qp;

import io.jrdma.internal.verbs.AccessResult;
import io.jrdma.internal.verbs.MemoryTable;
import io.jrdma.internal.verbs.MrImpl;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.internal.verbs.RecvWqe;
import io.jrdma.internal.verbs.SendWqe;
import io.jrdma.internal.verbs.SgCursor;
import io.jrdma.siw.wire.FpduCheck;
import io.jrdma.siw.wire.FpduHeader;
import io.jrdma.siw.wire.MpaCrc;
import io.jrdma.siw.wire.RdmapOpcode;
import io.jrdma.siw.wire.ReadRequestHeader;
import io.jrdma.siw.wire.TermError;
import io.jrdma.siw.wire.TermLayout;
import io.jrdma.siw.wire.Terminate;
import io.jrdma.siw.wire.TerminateResult;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.Counter;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.WcFlags;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The receive stream of a siw QP (Linux {@code siw_qp_rx.c}): parses FPDUs from the link's byte stream,
 * checks each as siw does ({@code siw_get_hdr}, {@code siw_send_check_ntoh}, {@code siw_rresp_check_ntoh},
 * {@code siw_write_check_ntoh}), places payload into registered memory or the receive WQE, checks the CRC,
 * and completes what a message's last segment completes: a receive, an RDMA READ of this side's ORQ, or a
 * READ request queued in the IRQ for the transmit side.
 *
 * <p>The machine is a loop over {@link Step}s, as rxe's responder is: each step consumes bytes and says
 * where to go next, or returns -1 to wait for more. Its only input is {@link SiwLink#in}, so a recorded
 * stream fed from memory, cut anywhere, drives it exactly as the socket does. Small FPDUs are read in
 * batches into the engine's staging buffer (one system call for many messages); a large payload with
 * nothing staged is read straight into its target. The few bytes of an FPDU a read cut off (a header or
 * a trailer) wait in the carry for the next read. Engine thread only.
 */
final class SiwRx {
    /** A payload at least this long, with nothing staged, is read straight into its target. */
    static final int DIRECT_READ_THRESHOLD = 8 * 1024;
    /** Bytes kept of an FPDU header (a READ request is the largest, 28). */
    static final int HEADER_SLOT = 48;
    /** The carry's first size: a cut header (at most 28 bytes) or trailer (at most 7). */
    static final int CARRY = 64;
    /**
     * Most bytes read from the socket per readable event, so one busy QP does not starve the others.
     * What was read is always parsed to the end before the QP returns: only a cut header or trailer
     * may stay behind, in the carry. The system property {@code jrdma.siw.rxBudgetBytes} overrides it
     * for QPs created afterwards (tests use a tiny one).
     */
    static final int RX_BUDGET_BYTES = 4 << 20;
    private static final byte[] EMPTY_BYTES = new byte[0];

    /** Where the machine is in the current FPDU ({@code siw_rx_state}). */
    enum Step {
        /** Reading and checking a header ({@code SIW_GET_HDR}). */
        HEADER,
        /** Placing the payload ({@code SIW_GET_DATA_START}, {@code SIW_GET_DATA_MORE}). */
        PAYLOAD,
        /** Pad and CRC, then what the FPDU completes ({@code SIW_GET_TRAILER}). */
        TRAILER
    }

    private final SiwQp owner;
    private final QpImpl qp;
    private final QpContext context;
    private final MemoryTable keys;
    private final EngineBuffers buffers;
    private final SiwLink link;
    private final ReadQueues queues;
    private final Termination errors;

    /** The engine's staging buffer while the QP receives ({@code null} in between). */
    private ByteBuffer rxBuf;
    private MemorySegment rxSeg;
    /** Bytes of a cut FPDU kept from one receive to the next. */
    private byte[] carry = EMPTY_BYTES;
    private int carryLength;
    private int rxStart;
    private int rxEnd;
    /** Socket bytes the current receive may still read. */
    private int rxBudget;
    /** The receive budget per readable event ({@link #RX_BUDGET_BYTES} or {@code jrdma.siw.rxBudgetBytes}). */
    private final int rxBudgetBytes = Math.max(1, Integer.getInteger("jrdma.siw.rxBudgetBytes", RX_BUDGET_BYTES));
    /** The receive machine stopped on its budget and must run again without a readiness event. */
    private boolean rxResume;
    /**
     * A read of the current receive came back short: the socket is empty for now, and trying again
     * would only cost a system call (the selector reports it readable again when more arrives).
     */
    private boolean rxDry;
    private Step rxState = Step.HEADER;
    private final FpduHeader rxFh = new FpduHeader();
    private final ReadRequestHeader rxRr = new ReadRequestHeader();
    private final CRC32C rxCrc = new CRC32C();
    /** A copy of the current FPDU's header: the staging buffer is the engine's, and TERMINATE quotes it. */
    private final MemorySegment rxHeaderSeg = MemorySegment.ofArray(new byte[HEADER_SLOT]);
    private int rxOpcode;
    private boolean rxLast;
    private int rxMpaLength;
    private int rxHeaderLength;
    private int rxPayloadLeft;
    private int rxPayloadLength;
    private int rxTrailerLength;
    private MrImpl rxMr;
    private long rxMrOff;
    private RecvWqe rxWqe;
    private final SgCursor rxCursor = new SgCursor(8);
    private int rxSendMsn = 1;
    private int rxReadMsn = 1;
    private long rxMessageOffset;
    private int rxSendOpcode;
    private long rxMessageLength;

    SiwRx(SiwQp owner, QpContext context, EngineBuffers buffers, SiwLink link, ReadQueues queues,
            Termination errors) {
        this.owner = owner;
        this.qp = owner.qp;
        this.context = context;
        this.keys = qp.deviceImpl().memoryTable();
        this.buffers = buffers;
        this.link = link;
        this.queues = queues;
        this.errors = errors;
    }

    /** Back to the start of a connection: MSNs 1, nothing staged or carried, no message in progress. */
    void reset() {
        rxSendMsn = 1;
        rxReadMsn = 1;
        rxResume = false;
        rxStart = 0;
        rxEnd = 0;
        carryLength = 0;
        rxState = Step.HEADER;
        rxWqe = null;
    }

    /** Forgets the carry for good (the QP is destroyed). */
    void release() {
        carry = EMPTY_BYTES;
        carryLength = 0;
    }

    /** Bytes that came behind the MPA frames: they wait in the carry for the first receive. */
    void early(ByteBuffer early) {
        carry = new byte[early.remaining()];
        carryLength = carry.length;
        early.get(carry);
    }

    /** Whether bytes wait in the carry. */
    boolean carrying() {
        return carryLength > 0;
    }

    /** Whether the machine stopped on its budget and must run again (clears the flag). */
    boolean takeResume() {
        boolean r = rxResume;
        rxResume = false;
        return r;
    }

    /** The receive message in progress is abandoned (a fatal error flushes it). */
    void dropMessage() {
        rxWqe = null;
    }

    /** The current FPDU's payload length (a TERMINATE's DDP Segment Length quotes it). */
    int payloadLength() {
        return rxPayloadLength;
    }

    /** Where the machine is (tests). */
    Step step() {
        return rxState;
    }

    /**
     * The socket (or stream) is readable: runs the machine over what the link has, within the receive
     * budget. Returns the steps made.
     */
    int onReadable() {
        if (link.gone()) {
            return 0;
        }
        // Borrow the engine's staging buffer; the carry goes in front of what the socket adds.
        rxBuf = buffers.rxBuffer();
        rxSeg = buffers.rxSegment();
        rxStart = 0;
        rxEnd = carryLength;
        if (carryLength > 0) {
            MemorySegment.copy(carry, 0, rxSeg, ValueLayout.JAVA_BYTE, 0, carryLength);
            carryLength = 0;
        }
        try {
            QpState s = qp.state();
            if (s == QpState.ERR || s == QpState.RESET) {
                return discardInput();
            }
            rxBudget = rxBudgetBytes;
            rxDry = false;
            int work = 0;
            while (rxStep() >= 0) {
                work++;
            }
            if (rxBudget <= 0 && !rxDry && link.state != SiwLink.State.CLOSED) {
                // Out of budget, other QPs get their turn. Do not count on a readiness event for what
                // the socket still holds (nor for anything staged): resume from the doorbell.
                rxResume = true;
                owner.engine.ring(owner.bell());
            }
            return work; // nothing more now, the budget is spent, or the connection went away
        } finally {
            keepCarry();
        }
    }

    /** Keeps what is left of a cut FPDU for the next receive and gives the staging buffer back. */
    private void keepCarry() {
        int left = rxEnd - rxStart;
        if (left > 0 && link.state != SiwLink.State.CLOSED) {
            if (carry.length < left) {
                carry = new byte[Math.max(CARRY, left)]; // once, or for an unusually long TERMINATE
            }
            MemorySegment.copy(rxSeg, ValueLayout.JAVA_BYTE, rxStart, carry, 0, left);
            carryLength = left;
        }
        rxStart = 0;
        rxEnd = 0;
        rxBuf = null;
        rxSeg = null;
    }

    /**
     * A QP in ERROR places nothing more (siw suspends its receive side on {@code siw_qp_cm_drop}): what
     * still arrives before the peer closes is read and dropped, so its FIN is seen.
     */
    private int discardInput() {
        int n = 0;
        try {
            for (int i = 0; i < 64; i++) {
                rxBuf.clear();
                int r = link.in.read(rxBuf);
                if (r < 0) {
                    link.close(0, false);
                    break;
                }
                if (r == 0) {
                    break;
                }
                n += r;
            }
        } catch (IOException e) {
            link.close(io.jrdma.verbs.Errno.ECONNRESET.status(), true);
        }
        rxStart = 0;
        rxEnd = 0;
        rxState = Step.HEADER;
        return n;
    }

    /** Ensures at least {@code n} staged bytes; returns false when they are not there yet. */
    private boolean stage(int n) throws IOException {
        if (rxEnd - rxStart >= n) {
            return true;
        }
        if (rxStart == rxEnd) {
            rxStart = 0;
            rxEnd = 0;
        } else if (rxBuf.capacity() - rxStart < n + HEADER_SLOT) {
            // Compact: move the partial FPDU head to the front.
            MemorySegment.copy(rxSeg, rxStart, rxSeg, 0, rxEnd - rxStart);
            rxEnd -= rxStart;
            rxStart = 0;
        }
        if (rxBudget <= 0 || rxDry) {
            return false; // the next readable event goes on
        }
        rxBuf.limit(rxBuf.capacity()).position(rxEnd);
        int space = rxBuf.remaining();
        int r = link.in.read(rxBuf);
        if (r < 0) {
            errors.peerClosed();
            return false;
        }
        rxDry = r < space;
        link.taps.rx(rxSeg, rxEnd, r);
        rxEnd += r;
        rxBudget -= r;
        if (r > 0) {
            link.progress();
        }
        return rxEnd - rxStart >= n;
    }

    /** One step of the receive machine; returns bytes consumed, or -1 when it must wait. */
    private int rxStep() {
        try {
            return switch (rxState) {
                case Step.HEADER -> rxHeader();
                case Step.PAYLOAD -> rxPayload();
                case TRAILER -> rxTrailer();
            };
        } catch (IOException e) {
            errors.linkLost(e);
            return -1;
        }
    }

    private int rxHeader() throws IOException {
        link.taps.rxBoundary(context.tap(), qp.capture(), rxSeg, rxStart, rxEnd - rxStart);
        if (!stage(FpduHeader.MIN_PEEK_LENGTH)) {
            return -1;
        }
        int opcode = FpduHeader.opcode(rxSeg, rxStart);
        int headerLength = RdmapOpcode.headerLength(opcode);
        FpduCheck check = FpduHeader.check(rxSeg, rxStart, rxEnd - rxStart);
        if (check == FpduCheck.NEED_MORE) {
            if (!stage(headerLength < 0 ? FpduHeader.UNTAGGED_LENGTH : headerLength)) {
                return -1;
            }
            check = FpduHeader.check(rxSeg, rxStart, rxEnd - rxStart);
        }
        if (check != FpduCheck.OK) {
            saveHeader(Math.min(rxEnd - rxStart, FpduHeader.UNTAGGED_LENGTH));
            errors.fatal(check.termError(), AsyncEventType.QP_FATAL, "malformed FPDU: " + check, rxHeaderSeg);
            return -1;
        }
        rxFh.wrap(rxSeg, rxStart);
        rxOpcode = opcode;
        rxHeaderLength = headerLength;
        rxMpaLength = rxFh.mpaLength();
        rxLast = rxFh.last();
        rxPayloadLength = rxFh.payloadLength();
        rxPayloadLeft = rxPayloadLength;
        rxTrailerLength = FpduHeader.padLength(rxMpaLength) + FpduHeader.CRC_LENGTH;
        saveHeader(headerLength);
        if (opcode == RdmapOpcode.TERMINATE.value()) {
            // Take the whole (short) TERMINATE from staging and decode it at once.
            if (!stage(FpduHeader.fpduLength(rxMpaLength))) {
                return -1;
            }
            TerminateResult r = Terminate.decode(rxSeg, rxStart, rxEnd - rxStart, TermLayout.SIW_LITTLE_ENDIAN);
            rxStart = rxEnd;
            errors.terminateReceived(r);
            return -1;
        }
        if (link.crc) {
            rxCrc.reset();
            rxCrc.update(rxBuf.limit(rxStart + headerLength).position(rxStart));
            rxBuf.limit(rxBuf.capacity());
        }
        rxStart += headerLength;
        if (link.rtrPending) {
            link.rtrPending = false;
            SiwQp.Link l = link.cm;
            if (l != null) {
                l.rtrReceived();
            }
        }
        if (!beginPlacement()) {
            return -1;
        }
        rxState = rxPayloadLeft > 0 ? Step.PAYLOAD : Step.TRAILER;
        return headerLength;
    }

    /** Keeps a copy of the current header (it may move in the staging buffer; TERMINATE copies it). */
    private void saveHeader(int len) {
        MemorySegment.copy(rxSeg, rxStart, rxHeaderSeg, 0, Math.min(len, HEADER_SLOT));
        rxFh.wrap(rxHeaderSeg, 0);
        rxRr.wrap(rxHeaderSeg, 0);
    }

    /** Resolves where the payload of the FPDU goes; on error sends TERMINATE and returns false. */
    private boolean beginPlacement() {
        RdmapOpcode op = RdmapOpcode.of(rxOpcode);
        rxMr = null;
        switch (op) {
            case RDMA_WRITE -> {
                if (rxPayloadLength > 0) {
                    long to = rxFh.taggedOffset();
                    MrImpl mr = keys.lookup(rxFh.stag());
                    int r = mr == null ? AccessResult.INVALID_KEY : mr.check(qp.pdImpl(), to, rxPayloadLength,
                            Access.REMOTE_WRITE);
                    if (r == AccessResult.OK && (qp.attr().qpAccessFlags() & Access.REMOTE_WRITE) == 0) {
                        // Linux siw ignores the QP's access flags; jrdma enforces them (IBTA 10.2.3).
                        r = AccessResult.ACCESS_RIGHTS;
                    }
                    if (r != AccessResult.OK) {
                        // siw_proc_write: TERMINATE DDP / tagged buffer, QP_ACCESS_ERR.
                        errors.fatal(Termination.taggedError(r), AsyncEventType.QP_ACCESS_ERR, "RDMA WRITE: "
                                + AccessResult.name(r), rxHeaderSeg);
                        return false;
                    }
                    rxMr = mr;
                    rxMrOff = mr.offsetOf(to);
                }
                return true;
            }
            case RDMA_READ_RESPONSE -> {
                return beginReadResponse();
            }
            case SEND, SEND_SE, SEND_INVALIDATE, SEND_SE_INVALIDATE -> {
                return beginSend(op);
            }
            case RDMA_READ_REQUEST -> {
                return rxPayloadLength == 0 || fatalFalse(TermError.DDP_UNTAGGED_MESSAGE_TOO_LONG,
                        "READ request with payload");
            }
            case TERMINATE -> {
                return true; // handled whole in rxHeader
            }
            default -> {
                return fatalFalse(TermError.RDMAP_UNEXPECTED_OPCODE, "unexpected opcode " + rxOpcode);
            }
        }
    }

    private boolean fatalFalse(TermError e, String why) {
        errors.fatal(e, AsyncEventType.QP_FATAL, why, rxHeaderSeg);
        return false;
    }
    /**
     * siw_proc_rresp / siw_rresp_check_ntoh: a READ response must answer the oldest outstanding READ,
     * at its sink STag and the next offset, and end exactly at its length. Errors: no READ outstanding
     * is a DDP catastrophic error; another STag is an invalid STag; another offset or length is a base
     * or bounds violation.
     */
    private boolean beginReadResponse() {
        if (queues.orqCount() == 0) {
            return fatalFalse(TermError.DDP_LOCAL_CATASTROPHIC, "READ response without a request");
        }
        long head = queues.orqHead();
        if (head == ReadQueues.RTR_READ) {
            // The response to our zero-length READ RTR: zero bytes at sink STag 0, offset 0.
            if (rxFh.stag() != 0 || rxPayloadLength != 0) {
                return fatalFalse(TermError.DDP_TAGGED_BASE_BOUNDS, "RTR READ response with data");
            }
            return true;
        }
        SendWqe w = qp.sqSlot(head);
        long sinkAddr = w.numSge > 0 ? w.sgeAddr[0] : 0;
        int sinkKey = w.numSge > 0 ? w.sgeLkey[0] : 0;
        long to = rxFh.taggedOffset();
        if (rxFh.stag() != sinkKey) {
            return fatalFalse(TermError.DDP_TAGGED_INVALID_STAG, "READ response STag does not match the request");
        }
        long end = w.txOffset + rxPayloadLength;
        if (to != sinkAddr + w.txOffset || end > w.length || rxLast && end != w.length) {
            return fatalFalse(TermError.DDP_TAGGED_BASE_BOUNDS, "READ response does not match the request");
        }
        if (rxPayloadLength > 0) {
            MrImpl mr = keys.lookup(sinkKey);
            int r = mr == null ? AccessResult.INVALID_KEY : mr.check(qp.pdImpl(), to, rxPayloadLength,
                    Access.LOCAL_WRITE);
            if (r != AccessResult.OK) {
                // The sink went away since the request was sent: LOC_PROT_ERR (siw_proc_rresp).
                errors.fatal(Termination.taggedError(r), AsyncEventType.QP_ACCESS_ERR, "READ response sink: "
                        + AccessResult.name(r), rxHeaderSeg, () -> errors.failOrqHead(WcStatus.LOC_PROT_ERR));
                return false;
            }
            rxMr = mr;
            rxMrOff = mr.offsetOf(to);
        }
        return true;
    }

    private boolean beginSend(RdmapOpcode op) {
        int qn = rxFh.queueNumber();
        int msn = rxFh.messageSequenceNumber();
        long mo = Integer.toUnsignedLong(rxFh.messageOffset());
        if (qn != RdmapOpcode.QN_SEND) {
            return fatalFalse(TermError.DDP_UNTAGGED_INVALID_QN, "SEND on queue " + qn);
        }
        if (msn != rxSendMsn) {
            return fatalFalse(TermError.DDP_UNTAGGED_INVALID_MSN_RANGE, "SEND MSN " + msn + ", expected "
                    + rxSendMsn);
        }
        if (rxWqe == null) {
            if (mo != 0) {
                return fatalFalse(TermError.DDP_UNTAGGED_INVALID_MO, "first SEND segment at MO " + mo);
            }
            RecvWqe w = qp.takeRecv();
            if (w == null) {
                // RFC 5041: an untagged message with no buffer posted terminates the stream.
                return fatalFalse(TermError.DDP_UNTAGGED_INVALID_MSN_NO_BUFFER, "SEND with no receive posted");
            }
            if (rxCursor.resetForRecv(keys, qp.pdImpl(), w, Access.LOCAL_WRITE) != AccessResult.OK) {
                // siw_proc_send: TERMINATE DDP catastrophic, QP_ACCESS_ERR. siw completes the receive
                // with GENERAL_ERR; jrdma says what went wrong (LOC_PROT_ERR, IBTA).
                errors.fatal(TermError.DDP_LOCAL_CATASTROPHIC, AsyncEventType.QP_ACCESS_ERR,
                        "receive WQE has a bad scatter list", rxHeaderSeg,
                        () -> qp.completeRecv(WcStatus.LOC_PROT_ERR, WcOpcode.RECV, 0, 0, 0, 0, false));
                return false;
            }
            rxWqe = w;
            rxMessageOffset = 0;
            rxMessageLength = 0;
            rxSendOpcode = rxOpcode;
        } else if (mo != rxMessageOffset) {
            return fatalFalse(TermError.DDP_UNTAGGED_INVALID_MO, "SEND segment at MO " + mo + ", expected "
                    + rxMessageOffset);
        }
        if (rxMessageOffset + rxPayloadLength > rxWqe.length) {
            // siw_send_check_ntoh: LOC_LEN_ERR, and DDP "invalid MSN - no buffer" on the wire (not RFC
            // 5041's "message too long", 0x05, which siw never sends).
            errors.fatal(TermError.DDP_UNTAGGED_INVALID_MSN_NO_BUFFER, AsyncEventType.QP_FATAL,
                    "SEND longer than the receive buffer", rxHeaderSeg,
                    () -> qp.completeRecv(WcStatus.LOC_LEN_ERR, WcOpcode.RECV, 0, 0, 0, 0, false));
            return false;
        }
        return true;
    }

    private int rxPayload() throws IOException {
        int staged = rxEnd - rxStart;
        if (staged == 0) {
            if (rxPayloadLeft >= DIRECT_READ_THRESHOLD) {
                return readDirect();
            }
            if (!stage(1)) {
                return -1;
            }
            staged = rxEnd - rxStart;
        }
        int c = Math.min(staged, rxPayloadLeft);
        placeFromStaging(c);
        rxStart += c;
        rxPayloadLeft -= c;
        if (rxPayloadLeft == 0) {
            rxState = Step.TRAILER;
        }
        return c;
    }

    private void placeFromStaging(int c) {
        if (link.crc) {
            rxCrc.update(rxBuf.limit(rxStart + c).position(rxStart));
            rxBuf.limit(rxBuf.capacity());
        }
        RdmapOpcode op = RdmapOpcode.of(rxOpcode);
        if (op.isSend()) {
            rxCursor.copyFrom(rxSeg, rxStart, c);
            rxMessageOffset += c;
        } else if (rxMr != null) {
            long done = rxPayloadLength - rxPayloadLeft;
            MemorySegment.copy(rxSeg, rxStart, rxMr.segment(), rxMrOff + done, c);
        }
    }

    /**
     * Reads a large payload from the socket straight into its target (no staging copy), which
     * {@link #beginPlacement} validated for the whole payload. With CRC on, the CRC is computed over
     * the bytes as placed (they are checked against the trailer like staged ones; a mismatch
     * terminates, and what was placed stays inside the validated range, as with Linux siw).
     */
    private int readDirect() throws IOException {
        if (rxBudget <= 0 || rxDry) {
            return -1;
        }
        RdmapOpcode op = RdmapOpcode.of(rxOpcode);
        ByteBuffer target;
        if (op.isSend()) {
            long c = rxCursor.nextChunk(rxPayloadLeft);
            MrImpl mr = rxCursor.chunkRegion();
            target = buffers.view(mr, rxCursor.chunkOffset(), (int) c);
        } else if (rxMr == null) {
            return stage(1) ? 0 : -1;
        } else {
            long done = rxPayloadLength - rxPayloadLeft;
            target = buffers.view(rxMr, rxMrOff + done, rxPayloadLeft);
        }
        int want = target.remaining();
        int n = link.in.read(target);
        if (n < 0) {
            errors.peerClosed();
            return -1;
        }
        rxDry = n < want;
        if (n == 0) {
            return -1;
        }
        rxBudget -= n;
        link.progress();
        int end = target.position();
        link.taps.rx(target, end - n, end);
        if (link.crc) {
            rxCrc.update(target.limit(end).position(end - n));
        }
        if (op.isSend()) {
            rxCursor.skip(n);
            rxMessageOffset += n;
        }
        rxPayloadLeft -= n;
        if (rxPayloadLeft == 0) {
            rxState = Step.TRAILER;
        }
        return n;
    }

    private int rxTrailer() throws IOException {
        RdmapOpcode op = RdmapOpcode.of(rxOpcode);
        if (!stage(rxTrailerLength)) {
            return -1;
        }
        if (link.crc) {
            int pad = rxTrailerLength - FpduHeader.CRC_LENGTH;
            for (int i = 0; i < pad; i++) {
                rxCrc.update(rxSeg.get(java.lang.foreign.ValueLayout.JAVA_BYTE, rxStart + i));
            }
            int got = MpaCrc.trailer(rxSeg, rxStart + pad);
            if (got != (int) rxCrc.getValue()) {
                qp.counters().inc(Counter.CRC_ERRORS);
                errors.fatal(TermError.MPA_CRC_ERROR, AsyncEventType.QP_FATAL, "FPDU CRC mismatch", rxHeaderSeg);
                return -1;
            }
        }
        rxStart += rxTrailerLength;
        rxState = Step.HEADER;
        qp.counters().inc(Counter.FPDUS_RECEIVED);
        finishFpdu(op);
        return rxTrailerLength;
    }

    private void finishFpdu(RdmapOpcode op) {
        switch (op) {
            case RDMA_READ_REQUEST -> onReadRequest();
            case RDMA_READ_RESPONSE -> {
                if (queues.orqHead() == ReadQueues.RTR_READ) {
                    queues.orqPop();
                    owner.checkDrained();
                    return;
                }
                SendWqe w = qp.sqSlot(queues.orqHead());
                w.txOffset += rxPayloadLength;
                if (rxLast) {
                    w.txState = SiwTx.TX_DONE;
                    queues.orqPop();
                    owner.tx.retire();
                    owner.engine.ring(owner.bell()); // a fenced WQE or a READ held back by the ORD may go now
                }
            }
            case SEND, SEND_SE, SEND_INVALIDATE, SEND_SE_INVALIDATE -> {
                rxMessageLength += rxPayloadLength;
                if (rxLast) {
                    completeSend(op);
                }
            }
            default -> {
                // RDMA WRITE: nothing to complete at the responder
            }
        }
    }

    private void completeSend(RdmapOpcode op) {
        rxSendMsn++;
        int flags = 0;
        int inv = 0;
        if (op == RdmapOpcode.SEND_INVALIDATE || op == RdmapOpcode.SEND_SE_INVALIDATE) {
            int stag = rxFh.invalidateStag();
            MrImpl mr = keys.lookup(stag);
            if (mr == null || mr.pdImpl() != qp.pdImpl()) {
                // siw_rdmap_complete: REM_INV_REQ_ERR; remote protection for another PD (-EACCES), remote
                // operation for an unknown STag. siw keeps the stream running; jrdma terminates it (RFC
                // 5040 §7.2 lists "STag cannot be invalidated" as a TERMINATE error).
                errors.fatal(mr == null ? TermError.RDMAP_OPERATION_CANNOT_INVALIDATE
                        : TermError.RDMAP_CANNOT_INVALIDATE,
                        AsyncEventType.QP_FATAL, "SEND with invalidate of an STag it may not invalidate", rxHeaderSeg,
                        () -> qp.completeRecv(WcStatus.REM_INV_REQ_ERR, WcOpcode.RECV, 0, 0, 0, 0, false));
                return;
            }
            mr.invalidate();
            flags = WcFlags.WITH_INV;
            inv = stag;
        }
        boolean solicited = op == RdmapOpcode.SEND_SE || op == RdmapOpcode.SEND_SE_INVALIDATE;
        qp.completeRecv(WcStatus.SUCCESS, WcOpcode.RECV, (int) rxMessageLength, inv, flags, 0, solicited);
        rxWqe = null;
    }

    /**
     * siw_proc_rreq + siw_init_rresp: an inbound READ request joins the IRQ (RFC 5040 §4.4). The MSN must be
     * the next one of queue 1; more outstanding requests than the negotiated IRD is an RDMAP remote
     * operation error, "catastrophic error, localized to RDMAP stream" (siw: IRQ overflow). The source is
     * checked at once, and a bad one is reported as siw reports it when it builds the response: RDMAP
     * remote protection with the request's headers, and QP_REQ_ERR. Linux siw checks STag, PD and bounds
     * but neither the region's REMOTE_READ right nor the QP's access flags; jrdma checks both.
     */
    private void onReadRequest() {
        int qn = rxFh.queueNumber();
        int msn = rxFh.messageSequenceNumber();
        if (qn != RdmapOpcode.QN_READ_REQUEST) {
            errors.fatal(TermError.DDP_UNTAGGED_INVALID_QN, AsyncEventType.QP_FATAL, "READ request on queue " + qn,
                    rxHeaderSeg);
            return;
        }
        if (msn != rxReadMsn) {
            errors.fatal(TermError.DDP_UNTAGGED_INVALID_MSN_RANGE, AsyncEventType.QP_FATAL, "READ request MSN " + msn,
                    rxHeaderSeg);
            return;
        }
        rxReadMsn++;
        if (queues.irqCount() >= Math.max(link.ird, 1)) {
            errors.fatal(TermError.RDMAP_CATASTROPHIC_STREAM, AsyncEventType.QP_REQ_ERR, "READ requests beyond IRD "
                    + link.ird, rxHeaderSeg);
            return;
        }
        int size = rxRr.readSize();
        long srcTo = rxRr.sourceTo();
        MrImpl src = null;
        long srcOff = 0;
        if (size != 0) {
            src = keys.lookup(rxRr.sourceStag());
            int r = size < 0 ? AccessResult.BOUNDS : src == null ? AccessResult.INVALID_KEY
                    : src.check(qp.pdImpl(), srcTo, Integer.toUnsignedLong(size), Access.REMOTE_READ);
            if (r == AccessResult.OK && (qp.attr().qpAccessFlags() & Access.REMOTE_READ) == 0) {
                r = AccessResult.ACCESS_RIGHTS;
            }
            if (r != AccessResult.OK) {
                errors.fatal(Termination.rdmapError(r), AsyncEventType.QP_REQ_ERR, "READ request source: "
                        + AccessResult.name(r),
                        rxHeaderSeg);
                return;
            }
            srcOff = src.offsetOf(srcTo);
        }
        queues.irqAdd(rxRr.sinkStag(), rxRr.sinkTo(), size, src, srcOff);
        owner.engine.ring(owner.bell());
    }
}
