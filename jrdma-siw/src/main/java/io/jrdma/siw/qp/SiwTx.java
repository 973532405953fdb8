package io.jrdma.siw.qp;

import io.jrdma.internal.verbs.AccessResult;
import io.jrdma.internal.verbs.MemoryTable;
import io.jrdma.internal.verbs.MrImpl;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.internal.verbs.SendWqe;
import io.jrdma.internal.verbs.SgCursor;
import io.jrdma.siw.wire.FpduHeader;
import io.jrdma.siw.wire.MpaCrc;
import io.jrdma.siw.wire.RdmapOpcode;
import io.jrdma.siw.wire.ReadRequestHeader;
import io.jrdma.siw.wire.TermError;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.Counter;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The transmit side of a siw QP (Linux {@code siw_qp_tx.c}): turns send WQEs and the peer's RDMA READ
 * requests waiting in the IRQ into FPDUs, many to a batch, and writes each batch to the link with one
 * call; large payloads from regions registered as direct {@link ByteBuffer}s stay in place and go out in
 * the same call as a gathering write ({@link TxBatch} says why only those). It completes send WQEs in
 * order once their last byte is handed to TCP (RDMAP has no acknowledgement) and, for RDMA READs, once
 * the receive side has placed the response.
 *
 * <p>A WQE's progress is kept in the core's {@link SendWqe#txState} as one of the {@code TX_} values
 * below (the field is the core's, shared with the other providers, hence an {@code int}). Engine thread
 * only.
 */
final class SiwTx {
    /** Not started. */
    static final int TX_NEW = 0;
    /** Some of its FPDUs are queued or written. */
    static final int TX_SENDING = 1;
    /** All of it is written (or, for a READ, its response placed): completes successfully. */
    static final int TX_DONE = 2;
    /** An RDMA READ whose request went out; the response completes it. */
    static final int TX_READ_SENT = 3;
    /** Failed; {@link SendWqe#txLastSeq} holds the status. */
    static final int TX_FAILED = 4;

    /** Most FPDUs per socket write. */
    static final int MAX_BATCH_FPDUS = TxBatch.MAX_FPDUS;
    /** Copied payload bytes after which no further FPDU joins a socket write. */
    static final int MAX_BATCH_BYTES = TxBatch.MAX_BYTES;

    private final SiwQp owner;
    private final QpImpl qp;
    private final QpContext context;
    private final MemoryTable keys;
    /** The engine's staging buffer, batches and region views. */
    private final EngineBuffers buffers;
    private final SiwLink link;
    private final ReadQueues queues;
    private final Termination errors;

    /** The batch being built or written; {@code null} when there is none (an idle QP holds none). */
    private TxBatch tx;
    /** Bytes of FPDUs in the batch (the stream it writes, region views included). */
    private int txLength;
    /** Bytes of the batch's own memory in use (equal to {@link #txLength} without region views). */
    private int txFill;
    /** Bytes of the batch not written yet. */
    private int txPending;
    /** The unwritten rest of the batch is a tail kept back for the next post ({@link #transmit(boolean)}). */
    private boolean holding;
    private int batchFpdus;
    /** Payload bytes copied into the batch's memory (payload written from region views is not counted). */
    private long batchBytes;
    /** Send WQEs whose last FPDU is in the batch, and how many of them were written. */
    private int batchDoneCount;
    private int batchDoneWritten;
    /** IRQ entries whose last READ response FPDU is in the batch, and how many of them were written. */
    private int batchIrqDone;
    private int batchIrqWritten;
    private final FpduHeader txFh = new FpduHeader();
    private final ReadRequestHeader txRr = new ReadRequestHeader();
    private final CRC32C txCrc = new CRC32C();
    private final SgCursor txCursor = new SgCursor(8);
    /** The send queue index of the next WQE to start (or the one in progress). */
    long txNext;
    private int sendMsn = 1;
    private int readMsn = 1;

    SiwTx(SiwQp owner, QpContext context, EngineBuffers buffers, SiwLink link, ReadQueues queues,
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

    /** Back to the start of a connection: MSNs 1, nothing queued, the next WQE the SQ's head. */
    void reset() {
        sendMsn = 1;
        readMsn = 1;
        txNext = qp.sqRetired();
        releaseTx();
    }

    /** Bytes queued and not yet taken by the socket. */
    int pending() {
        return txPending;
    }

    /**
     * Sends the RTR FPDU of peer-to-peer mode ({@code siw_qp_mpa_rts}): a zero-length RDMA WRITE, or a
     * zero-length RDMA READ whose (zero-length) response the receive machine consumes without a
     * completion. Like siw, the RTR names STag 1 at offset 0 ("some HW may treat STag 0 special") and
     * consumes no send queue slot.
     *
     * @param read a READ (needs ORD 1, which the CM guarantees) instead of a WRITE
     */
    void sendRtr(boolean read) {
        byte[] ctrl = new byte[SiwRx.HEADER_SLOT + 8]; // once per connection: the heap will do
        MemorySegment seg = MemorySegment.ofArray(ctrl);
        int len;
        if (read) {
            txFh.wrap(seg, 0).start(RdmapOpcode.RDMA_READ_REQUEST, true, 0).invalidateStag(0)
                    .queueNumber(RdmapOpcode.QN_READ_REQUEST).messageSequenceNumber(readMsn++).messageOffset(0);
            txRr.wrap(seg, 0).sinkStag(0).sinkTo(0).readSize(0).sourceStag(SiwQp.RTR_STAG).sourceTo(0);
            queues.orqAdd(ReadQueues.RTR_READ);
        } else {
            txFh.wrap(seg, 0).start(RdmapOpcode.RDMA_WRITE, true, 0).stag(SiwQp.RTR_STAG).taggedOffset(0);
        }
        len = FpduHeader.fpduLength(txFh.mpaLength());
        int hl = read ? ReadRequestHeader.LENGTH : FpduHeader.TAGGED_LENGTH;
        seg.asSlice(hl, len - hl).fill((byte) 0);
        if (link.crc) {
            new MpaCrc().seal(seg, 0);
        }
        link.writeFully(ByteBuffer.wrap(ctrl, 0, len));
        qp.counters().inc(Counter.FPDUS_SENT);
    }

    int transmit() {
        return transmit(false);
    }

    /**
     * Writes the batch and builds the next until the send queue is done or the socket is full.
     *
     * <p>{@code posted}: this runs in the posting thread's own cycle for a post to this QP
     * (application-driven mode). A batch of at least one TCP segment is then written only up to its
     * last full segment, and the tail stays in the batch for the next post to join ({@link #holding}):
     * a stream of 64 KiB WRITEs posted one by one otherwise goes out as one socket write per message
     * (65,556 bytes: a full segment and a 73-byte one), and loopback TCP streams such writes at 2.6-4.2
     * GB/s against 4.9-5.0 GB/s for writes of whole segments (measured here, 2026-11-30). Any other
     * cycle writes the tail: the application's CQ poll that finds the CQ empty, its CQ arming, another
     * QP's post on this engine, or the engine thread after its park (at most ~1 ms in this mode).
     */
    int transmit(boolean posted) {
        if (!link.writable()) {
            return 0;
        }
        boolean mayHold = posted && SiwQp.HOLD_TAIL && link.taps.idle(context.tap(), qp.capture());
        int work = 0;
        for (int round = 0; round < 64; round++) {
            if (txPending > 0 && !(holding && mayHold && roomToAppend())) {
                holding = false;
                if (!writeBatch(txLength)) {
                    return work;
                }
                work++;
            }
            QpState st = qp.state();
            if (link.state != SiwLink.State.UP || st != QpState.RTS && st != QpState.SQD) {
                return work;
            }
            if (!buildBatch()) {
                if (holding) {
                    holding = false; // nothing joined the tail: write it
                    continue;
                }
                return work;
            }
            if (mayHold && txPending >= link.tcpMss && roomToAppend()) {
                int written = txLength - txPending;
                if (!writeBatch(written + txPending / link.tcpMss * link.tcpMss)) {
                    holding = false;
                    return work; // the socket is full: the rest goes when it drains
                }
                work++;
                if (txPending > 0) {
                    holding = true;
                    qp.counters().inc(Counter.TX_TAILS_HELD);
                    owner.engine.hold(owner.bell());
                    return work;
                }
            }
        }
        owner.engine.ring(owner.bell());
        return work;
    }

    /** Whether the batch can take another message behind a held tail. */
    private boolean roomToAppend() {
        return batchFpdus < MAX_BATCH_FPDUS - 2 && batchBytes < MAX_BATCH_BYTES;
    }

    /**
     * Writes the batch up to stream offset {@code end} ({@link #txLength}: all of it); returns true when
     * it went out that far. A batch written completely is given back.
     */
    private boolean writeBatch(int end) {
        TxBatch t = tx;
        ByteBuffer b = t.buffer;
        try {
            while (txLength - txPending < end) {
                long n;
                if (t.vecCount == 0) {
                    b.limit(end).position(txLength - txPending);
                    n = link.out.write(b);
                } else {
                    n = t.write(link.out, end - (txLength - txPending));
                }
                if (n <= 0) {
                    link.wantWritable();
                    return false;
                }
                txPending -= (int) n;
                link.progress();
                if (txPending > 0) {
                    written();
                }
            }
        } catch (IOException e) {
            errors.linkLost(e);
            return false;
        }
        if (txPending == 0) {
            finishBatch();
        }
        return true;
    }

    /**
     * Retires what the socket took so far. An IRQ entry must be free once its last response byte is
     * on the wire: the peer may then reuse its ORD credit, and its next READ request must find room
     * in the IRQ even while the rest of the batch waits for the socket (RFC 5040 §4.4; siw frees it
     * when the response's WQE is sent).
     */
    private void written() {
        TxBatch b = tx;
        int w = txLength - txPending;
        boolean any = false;
        while (batchDoneWritten < batchDoneCount && b.doneEnd[batchDoneWritten] <= w) {
            SendWqe s = qp.sqSlot(b.done[batchDoneWritten++]);
            if (s.txState == TX_SENDING) {
                s.txState = TX_DONE;
            }
            any = true;
        }
        while (batchIrqWritten < batchIrqDone && b.irqEnd[batchIrqWritten] <= w) {
            batchIrqWritten++;
            queues.irqPop();
        }
        if (any) {
            retire();
        }
    }

    private void finishBatch() {
        written();
        releaseTx();
        retire();
    }

    /** Gives the batch back to the engine and forgets what it held. */
    void releaseTx() {
        TxBatch b = tx;
        if (b != null) {
            tx = null;
            b.clearVector();
            buffers.release(b);
        }
        txLength = 0;
        txFill = 0;
        txPending = 0;
        holding = false;
        batchFpdus = 0;
        batchBytes = 0;
        batchDoneCount = 0;
        batchDoneWritten = 0;
        batchIrqDone = 0;
        batchIrqWritten = 0;
    }

    /** Completes, in order, every head WQE whose work is over. */
    void retire() {
        long produced = qp.sqProduced();
        while (qp.sqRetired() < produced && qp.sqRetired() < txNext) {
            SendWqe w = qp.sqSlot(qp.sqRetired());
            if (w.txState == TX_DONE) {
                qp.completeSend(WcStatus.SUCCESS, (int) w.length);
            } else if (w.txState == TX_FAILED) {
                qp.completeSend(WcStatus.ofValue(w.txLastSeq), 0);
            } else {
                break;
            }
        }
        owner.checkDrained();
    }

    /** Fills the batch with FPDUs; returns whether there is something to write. */
    private boolean buildBatch() {
        if (queues.irqCount() == 0 && txNext >= qp.sqProduced()) {
            retire();
            return false;
        }
        if (tx == null) {
            tx = buffers.acquire();
        } else if (tx.vecCount == 0) {
            tx.pieceStart = txLength - txPending; // a held tail: a vector started now begins at it
        }
        int before = txLength;
        // Inbound READ responses first: the peer waits for them (siw serves the IRQ before the SQ). Behind a
        // held tail, the IRQ's head entries whose responses are already whole in this batch stay in the IRQ
        // until written (written() pops them): skip them, or each would go out again as an empty last
        // response, answering the peer's next READ, and be popped twice.
        int irqQueued = batchIrqDone - batchIrqWritten;
        while (irqQueued < queues.irqCount() && batchFpdus < MAX_BATCH_FPDUS - 1 && batchBytes < MAX_BATCH_BYTES) {
            int i = queues.irqIndex(irqQueued);
            if (!queueReadResponse(i)) {
                break;
            }
            if (queues.irqSent(i) >= queues.irqLength(i)) {
                irqQueued++;
                tx.irqEnd[batchIrqDone++] = txLength;
            }
        }
        long produced = qp.sqProduced();
        while (txNext < produced && batchFpdus < MAX_BATCH_FPDUS - 1 && batchBytes < MAX_BATCH_BYTES) {
            SendWqe w = qp.sqSlot(txNext);
            if (w.txState == TX_NEW && w.fenced() && queues.orqCount() > 0) {
                break; // a fenced WQE waits for every RDMA READ before it (siw: SIW_WQE_READ_FENCE)
            }
            if (w.txState == TX_NEW && qp.state() != QpState.RTS) {
                break; // SQD (or on the way to ERR): no new WQE starts
            }
            if (!queueWqe(w)) {
                break;
            }
            if (w.txState != TX_SENDING || w.txOffset >= w.length && w.opcode != WrOpcode.RDMA_READ) {
                txNext++;
            }
            QpState st = qp.state();
            if (st != QpState.RTS && st != QpState.SQD) {
                break;
            }
        }
        retire();
        if (txLength == 0) {
            releaseTx();
            return false;
        }
        if (txLength == before) {
            return false; // nothing joined the held tail
        }
        if (tx.vecCount > 0) {
            tx.seal(txFill);
            link.taps.tx(context.tap(), qp.capture(), tx.vec, tx.vecCount);
        } else {
            link.taps.tx(context.tap(), qp.capture(), tx.buffer.limit(txLength).position(txLength - txPending));
        }
        return true;
    }

    /** Queues the next FPDU(s) of {@code w}; returns false if the WQE cannot make progress now. */
    private boolean queueWqe(SendWqe w) {
        switch (w.opcode) {
            case LOCAL_INV -> {
                // The whole STag must name a region of this PD (siw_invalidate_stag looks up the index
                // only and would invalidate a region whose key differs: jrdma refuses a wrong key).
                MrImpl mr = keys.lookup(w.invalidateRkey);
                if (mr == null || mr.pdImpl() != qp.pdImpl()) {
                    failWqe(w, WcStatus.LOC_QP_OP_ERR, null); // siw: a failed local WQE, no TERMINATE
                    return false;
                }
                mr.invalidate();
                w.txState = TX_DONE;
                w.txOffset = w.length;
                return true;
            }
            case RDMA_READ -> {
                return queueReadRequest(w);
            }
            case SEND, SEND_WITH_INV, RDMA_WRITE -> {
                return queueData(w);
            }
            default -> {
                failWqe(w, WcStatus.LOC_QP_OP_ERR, null);
                return false;
            }
        }
    }

    private boolean queueData(SendWqe w) {
        if (w.txState == TX_NEW) {
            if (txCursor.resetForSend(keys, qp.pdImpl(), w) != AccessResult.OK) {
                failWqe(w, WcStatus.LOC_PROT_ERR, TermError.RDMAP_CATASTROPHIC_UNSPECIFIED);
                return false;
            }
            w.txState = TX_SENDING;
            w.txOffset = 0;
            w.txFirstSeq = w.opcode == WrOpcode.RDMA_WRITE ? 0 : sendMsn;
        } else if (txCursor.position() != w.txOffset) {
            // Resume a WQE split across batches: re-validate and skip what went out.
            if (txCursor.resetForSend(keys, qp.pdImpl(), w) != AccessResult.OK) {
                failWqe(w, WcStatus.LOC_PROT_ERR, TermError.RDMAP_CATASTROPHIC_UNSPECIFIED);
                return false;
            }
            txCursor.skip(w.txOffset);
        }
        RdmapOpcode op = switch (w.opcode) {
            case RDMA_WRITE -> RdmapOpcode.RDMA_WRITE;
            case SEND_WITH_INV -> w.solicited() ? RdmapOpcode.SEND_SE_INVALIDATE : RdmapOpcode.SEND_INVALIDATE;
            default -> w.solicited() ? RdmapOpcode.SEND_SE : RdmapOpcode.SEND;
        };
        int maxPayload = FpduHeader.maxPayload(op, link.maxSegment);
        do {
            if (batchFpdus >= MAX_BATCH_FPDUS || batchBytes >= MAX_BATCH_BYTES) {
                return true;
            }
            long left = w.length - w.txOffset;
            int payload = (int) Math.min(left, maxPayload);
            boolean last = w.txOffset + payload >= w.length;
            MemorySegment h = tx.segment;
            long hoff = txFill;
            txFh.wrap(h, hoff).start(op, last, payload);
            if (op.tagged()) {
                txFh.stag(w.rkey).taggedOffset(w.remoteAddr + w.txOffset);
            } else {
                txFh.invalidateStag(w.opcode == WrOpcode.SEND_WITH_INV ? w.invalidateRkey : 0)
                        .queueNumber(RdmapOpcode.QN_SEND).messageSequenceNumber(sendMsn)
                        .messageOffset((int) w.txOffset);
            }
            addFpdu(op.headerLength(), payload, txCursor);
            w.txOffset += payload;
            if (last) {
                if (!op.tagged()) {
                    sendMsn++;
                }
                tx.done[batchDoneCount] = txNext;
                tx.doneEnd[batchDoneCount++] = txLength;
                return true;
            }
        } while (true);
    }

    private boolean queueReadRequest(SendWqe w) {
        if (w.txState != TX_NEW) {
            return true; // already requested; waiting for the response
        }
        if (link.ord == 0) {
            failWqe(w, WcStatus.LOC_QP_OP_ERR, null); // ORD 0 was negotiated: no READs at all
            return false;
        }
        if (queues.orqCount() >= link.ord) {
            return false; // ORD reached: wait for a response (RFC 5040 §4.4)
        }
        // siw allows one sink SGE for an RDMA READ (max_sge_rd 1): its lkey is the sink STag.
        long sinkAddr = w.numSge > 0 ? w.sgeAddr[0] : 0;
        int sinkKey = w.numSge > 0 ? w.sgeLkey[0] : 0;
        if (w.length > 0) {
            MrImpl sink = keys.lookup(sinkKey);
            int r = sink == null ? AccessResult.INVALID_KEY : sink.check(qp.pdImpl(), sinkAddr, w.length,
                    Access.LOCAL_WRITE);
            if (r != AccessResult.OK) {
                // siw finds this only when the response arrives; jrdma checks the sink before asking.
                failWqe(w, WcStatus.LOC_PROT_ERR, TermError.RDMAP_CATASTROPHIC_UNSPECIFIED);
                return false;
            }
        }
        MemorySegment h = tx.segment;
        long hoff = txFill;
        txFh.wrap(h, hoff).start(RdmapOpcode.RDMA_READ_REQUEST, true, 0).invalidateStag(0)
                .queueNumber(RdmapOpcode.QN_READ_REQUEST).messageSequenceNumber(readMsn++).messageOffset(0);
        txRr.wrap(h, hoff).sinkStag(sinkKey).sinkTo(sinkAddr).readSize((int) w.length).sourceStag(w.rkey)
                .sourceTo(w.remoteAddr);
        addFpdu(ReadRequestHeader.LENGTH, 0, null);
        w.txState = TX_READ_SENT;
        w.txOffset = 0;
        queues.orqAdd(txNext);
        return true;
    }

    private boolean queueReadResponse(int i) {
        int sent = queues.irqSent(i);
        int left = queues.irqLength(i) - sent;
        int maxPayload = FpduHeader.maxPayload(RdmapOpcode.RDMA_READ_RESPONSE, link.maxSegment);
        do {
            if (batchFpdus >= MAX_BATCH_FPDUS - 1 || batchBytes >= MAX_BATCH_BYTES) {
                return false;
            }
            int payload = Math.min(left, maxPayload);
            boolean last = payload == left;
            long hoff = txFill;
            txFh.wrap(tx.segment, hoff).start(RdmapOpcode.RDMA_READ_RESPONSE, last, payload)
                    .stag(queues.irqSinkStag(i)).taggedOffset(queues.irqSinkTo(i) + sent);
            addReadResponsePayload(payload, queues.irqSource(i), queues.irqSourceOff(i) + sent);
            sent += payload;
            queues.irqSent(i, sent);
            left -= payload;
        } while (left > 0);
        return true;
    }

    /**
     * Completes the FPDU whose header the caller wrote at the end of the batch: copies the payload in
     * behind it (from registered memory or the WQE's inline bytes) and adds pad and CRC.
     */
    private void addFpdu(int headerLength, int payload, SgCursor src) {
        if (payload >= TxBatch.ZERO_COPY_MIN && src.nextChunk(payload) == payload) {
            MrImpl mr = src.chunkRegion();
            ByteBuffer v = mr != null && mr.plainBuffer() ? tx.nextView(mr) : null;
            if (v != null) {
                addRegionFpdu(headerLength, payload, mr, v, src.chunkOffset());
                src.skip(payload);
                return;
            }
        }
        MemorySegment seg = tx.segment;
        long at = txFill + headerLength;
        int copied = 0;
        while (copied < payload) {
            long c = src.nextChunk(payload - copied);
            MemorySegment.copy(src.chunkSegment(), src.chunkOffset(), seg, at + copied, c);
            src.skip(c);
            copied += (int) c;
        }
        sealFpdu(headerLength + payload, payload);
    }

    private void addReadResponsePayload(int payload, MrImpl src, long off) {
        ByteBuffer v = payload >= TxBatch.ZERO_COPY_MIN && src.plainBuffer() ? tx.nextView(src) : null;
        if (v != null) {
            addRegionFpdu(FpduHeader.TAGGED_LENGTH, payload, src, v, off);
            return;
        }
        if (payload > 0) {
            MemorySegment.copy(src.segment(), off, tx.segment, txFill + FpduHeader.TAGGED_LENGTH, payload);
        }
        sealFpdu(FpduHeader.TAGGED_LENGTH + payload, payload);
    }

    /**
     * Adds pad and CRC behind the {@code ulpduBytes} (ULPDU_Length field, header and payload) at the
     * end of the batch, and takes the FPDU into the batch.
     */
    private void sealFpdu(int ulpduBytes, int payload) {
        MemorySegment seg = tx.segment;
        int start = txFill;
        int pad = FpduHeader.padLength(ulpduBytes - FpduHeader.MPA_LENGTH_FIELD_LENGTH);
        int crcAt = start + ulpduBytes + pad;
        seg.set(ValueLayout.JAVA_INT_UNALIGNED, start + ulpduBytes, 0); // pad bytes (and the CRC's place)
        int value = 0;
        if (link.crc) {
            txCrc.reset();
            txCrc.update(tx.buffer.limit(crcAt).position(start));
            value = (int) txCrc.getValue();
        }
        MpaCrc.trailer(seg, crcAt, value);
        took(crcAt + FpduHeader.CRC_LENGTH - start, 0, payload);
    }

    /**
     * Takes an FPDU into the batch: {@code own} bytes of it in the batch's memory, {@code outside}
     * bytes in a region view, {@code payload} bytes of payload.
     */
    private void took(int own, int outside, int payload) {
        txFill += own;
        txLength += own + outside;
        txPending += own + outside;
        batchFpdus++;
        batchBytes += payload - outside;
        qp.counters().inc(Counter.FPDUS_SENT);
    }

    /**
     * Completes the FPDU whose header the caller wrote at the end of the batch with {@code payload}
     * bytes that stay in {@code mr} at segment offset {@code off}: the batch's vector gets the header,
     * {@code view} of the region, then pad and CRC from the batch's memory (zero-copy transmit; see
     * {@link TxBatch}). The CRC, when negotiated, covers the region's bytes as they are now.
     */
    private void addRegionFpdu(int headerLength, int payload, MrImpl mr, ByteBuffer view, long off) {
        MemorySegment seg = tx.segment;
        int start = txFill;
        int headerEnd = start + headerLength;
        int pad = FpduHeader.padLength(headerLength + payload - FpduHeader.MPA_LENGTH_FIELD_LENGTH);
        int crcAt = headerEnd + pad;
        seg.set(ValueLayout.JAVA_INT_UNALIGNED, headerEnd, 0); // pad bytes (and the CRC's place)
        int value = 0;
        if (link.crc) {
            txCrc.reset();
            txCrc.update(tx.buffer.limit(headerEnd).position(start));
            txCrc.update(buffers.view(mr, off, payload));
            txCrc.update(tx.buffer.limit(crcAt).position(headerEnd));
            value = (int) txCrc.getValue();
        }
        MpaCrc.trailer(seg, crcAt, value);
        tx.addView(headerEnd, view, off, payload);
        took(crcAt + FpduHeader.CRC_LENGTH - start, payload, payload);
        qp.counters().inc(Counter.ZERO_COPY_FPDUS_SENT);
    }

    void flushTx() {
        holding = false;
        for (int i = 0; i < 1000 && txPending > 0; i++) {
            if (!writeBatch(txLength)) {
                Thread.onSpinWait();
            }
        }
    }

    /**
     * A WQE failed locally (siw_qp_sq_process, "WQE processing failed"): what was queued before it still
     * goes out, the QP goes to ERROR with QP_FATAL and TERMINATE {@code term} is written (none when {@code
     * null}, as siw for a failed local operation); then what went out completes as sent, READs still
     * waiting for their response are flushed, the failed WQE completes with {@code status}; flush, close.
     * Linux siw completes every
     * failed WQE with LOC_QP_OP_ERR (its own TODO asks for the precise status); jrdma reports a bad
     * scatter/gather element as LOC_PROT_ERR, as IBTA and the loop provider do.
     */
    private void failWqe(SendWqe w, WcStatus status, TermError term) {
        flushTx();
        w.txState = TX_FAILED;
        w.txLastSeq = status.value();
        long failed = txNext;
        queues.orqClear();
        errors.fatal(term, AsyncEventType.QP_FATAL, "local error on send WQE: " + status, null, () -> {
            txNext = failed + 1; // only now: a retire while the TERMINATE goes out must not complete it
            while (qp.sqRetired() < failed) {
                SendWqe e = qp.sqSlot(qp.sqRetired());
                if (e.txState == TX_DONE) {
                    qp.completeSend(WcStatus.SUCCESS, (int) e.length);
                } else {
                    qp.completeSend(WcStatus.WR_FLUSH_ERR, 0);
                }
            }
            qp.completeSend(status, 0);
        });
    }
}
