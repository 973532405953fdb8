package io.jrdma.siw.qp;

import io.jrdma.internal.engine.Doorbell;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.siw.net.SiwEngine;
import io.jrdma.spi.ProviderQp;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.WrOpcode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.SocketChannel;

/**
 * A siw queue pair's transport (Linux {@code siw_qp.c}): the QP's state changes, doorbell and connection
 * hand-over, with the rooms Linux siw has as files of their own beside it:
 * <ul>
 *   <li>{@link SiwTx} ({@code siw_qp_tx.c}): send WQEs and inbound RDMA READ requests to FPDUs;</li>
 *   <li>{@link SiwRx} ({@code siw_qp_rx.c}): the receive stream, FPDUs parsed and placed;</li>
 *   <li>{@link ReadQueues}: the outbound (ORQ) and inbound (IRQ) RDMA READ queues;</li>
 *   <li>{@link Termination}: TERMINATE, fatal errors and the end of the connection;</li>
 *   <li>{@link SiwLink}: the socket, its liveness, the negotiated parameters, and the byte seam the two
 *       machines read and write through.</li>
 * </ul>
 * The QP sees its device only through a {@link QpContext}.
 *
 * <p>Everything here runs on the QP's {@link SiwEngine}; application threads only ring the
 * doorbell. Receive reads whole batches of small FPDUs into one staging buffer (one system call
 * for many messages) and reads large payloads straight into the target region; transmit lays out
 * many FPDUs in one buffer and writes it with one call; large payloads from regions registered as
 * direct {@link ByteBuffer}s stay in place and go out in the same call as a gathering write
 * ({@link TxBatch} says why only those).
 *
 * <p><b>Memory.</b> The staging buffer, the transmit batches and the socket views of regions belong
 * to the engine ({@link EngineBuffers}), which runs one QP at a time: a QP keeps only a 48-byte copy
 * of the current FPDU header, a carry for the few bytes of an FPDU a read cut off (a header or a
 * trailer; it grows only for an unusually long TERMINATE), and ORQ/IRQ arrays that grow with the
 * READs actually outstanding, up to the negotiated ORD/IRD. An idle connected QP costs a few KiB of
 * heap and no direct memory.
 *
 * <p><b>Errors</b>, as Linux siw 6.1 handles them (read in its source, the wire checked against it in
 * the interop rig). RDMAP has no acknowledgement (RFC 5040), so an RDMA WRITE or SEND completes
 * successfully once it is handed to TCP. A responder that refuses a message answers with one TERMINATE
 * and closes the connection; the requester, on the TERMINATE or the close, goes to ERROR and flushes.
 * <pre>
 *  responder detects                    TERMINATE layer / type / code (copied)      event          receive
 *  header: DDP/RDMAP version, opcode    as FpduCheck (nothing copied)               QP_FATAL
 *  WRITE: STag, PD, bounds, rights      DDP / tagged / siw_tagged_error (DDP hdr)   QP_ACCESS_ERR
 *  READ request: STag, PD, bounds,      RDMAP / protection / siw_rdmap_error        QP_REQ_ERR
 *    rights                               (DDP + RDMA hdr, R)
 *  READ request: MSN, QN                DDP / untagged / MSN range, QN              QP_FATAL
 *  READ requests beyond IRD             RDMAP / operation / catastrophic stream     QP_REQ_ERR
 *  SEND: QN, MSN, MO                    DDP / untagged / QN, MSN range, MO          QP_FATAL
 *  SEND: no receive posted              DDP / untagged / MSN no buffer              QP_FATAL
 *  SEND longer than the receive         DDP / untagged / MSN no buffer              QP_FATAL      LOC_LEN_ERR
 *  SEND: receive without LOCAL_WRITE    DDP / catastrophic (DDP hdr)                QP_ACCESS_ERR LOC_PROT_ERR
 *  SEND_INV: STag of another PD/unknown RDMAP / protection, operation / cannot inv. QP_FATAL      REM_INV_REQ_ERR
 *  READ response: none outstanding,     DDP / catastrophic; tagged / STag, bounds   QP_FATAL
 *    other STag, offset or length
 *  CRC mismatch                         LLP / MPA / CRC error                       QP_FATAL
 * </pre>
 * Requester side: a TERMINATE received moves the QP to ERROR with QP_FATAL (siw raises none); a local
 * error (bad lkey, bounds, READ sink without LOCAL_WRITE) completes the WQE with LOC_PROT_ERR (siw:
 * LOC_QP_OP_ERR for every failed WQE, with a TODO for precise statuses), QP_FATAL, and TERMINATE RDMAP /
 * local catastrophic / 0xFF; a failed LOCAL_INV or a READ with ORD 0 completes with LOC_QP_OP_ERR and
 * closes without a TERMINATE. Where jrdma departs from siw, on purpose:
 * <ul>
 *   <li>an RDMA READ whose request drew an RDMAP remote protection TERMINATE completes with
 *       REM_ACCESS_ERR, as on InfiniBand (siw flushes it with WR_FLUSH_ERR);</li>
 *   <li>inbound READs are checked against the region's REMOTE_READ right, and inbound WRITEs and READs
 *       against the QP's access flags (siw checks neither); a SEND_INV that cannot invalidate ends the
 *       stream (siw keeps it running);</li>
 *   <li>LOCAL_INV needs the whole STag (siw matches the index only); statuses are IBTA's, not siw's
 *       generic LOC_QP_OP_ERR / GENERAL_ERR.</li>
 * </ul>
 */
public final class SiwQp implements ProviderQp, SiwEngine.Schedulable {
    /**
     * Whether a posting thread's transmit keeps the tail of a batch past its last full TCP segment
     * for the next post ({@code jrdma.siw.holdTail}, default true; application-driven mode only).
     */
    static final boolean HOLD_TAIL = !"false".equalsIgnoreCase(System.getProperty("jrdma.siw.holdTail"));
    /** RDMAP error type "remote protection error" (RFC 5040 §4.8). */
    static final int TERM_ETYPE_REMOTE_PROTECTION = 1;
    /** The STag an RTR names ({@code siw_qp_mpa_rts}: 1, since some hardware treats STag 0 specially). */
    static final int RTR_STAG = 1;
    /** Most RDMA READs outstanding either way (siw's limit; what MPA negotiates is capped at it). */
    public static final int MAX_ORD_IRD = ReadQueues.MAX_DEPTH;

    final QpImpl qp;
    final SiwEngine engine;
    private final Doorbell<SiwEngine.Schedulable> bell = new Doorbell<>(this);
    final SiwLink link;
    final ReadQueues queues = new ReadQueues();
    final Termination errors;
    final SiwTx tx;
    final SiwRx rx;
    private boolean dead;
    /** SQ Drained was reported for the current stay in SQD. */
    private boolean sqDrainedReported;

    /** What the CM learns from the data path. */
    public interface Link {
        /** The first FPDU arrived on a connection that waited for the peer's RTR. */
        void rtrReceived();

        /** The peer closed in order (EOF). */
        void peerClosed();

        /** The connection is gone; {@code status} 0 or a negative errno. */
        void closed(int status);
    }

    /** A QP on {@code engine} of the device {@code context} describes; not connected until the CM attaches one. */
    public SiwQp(QpImpl qp, QpContext context, SiwEngine engine) {
        this.qp = qp;
        this.engine = engine;
        EngineBuffers buffers = engine.local(EngineBuffers.class, EngineBuffers::new);
        this.link = new SiwLink(this, context, engine);
        this.errors = new Termination(this, context, link, queues);
        this.tx = new SiwTx(this, context, buffers, link, queues, errors);
        this.rx = new SiwRx(this, context, buffers, link, queues, errors);
        if (engine.applicationDriven()) {
            qp.sendCq().addProgressHook(engine);
            qp.recvCq().addProgressHook(engine);
        }
    }

    /** The core QP. */
    public QpImpl qp() {
        return qp;
    }

    /** The engine. */
    public SiwEngine engine() {
        return engine;
    }

    // ================================================================ ProviderQp

    @Override
    public void modified(QpState from, QpState to, int mask) {
        if (to == QpState.RESET) {
            engine.runSync(() -> {
                qp.flush();
                link.close(0, true);
                resetTransport();
            });
            return;
        }
        engine.ring(bell);
    }

    @Override
    public void sendPosted() {
        engine.post(bell);
    }

    @Override
    public void recvPosted() {
        if (qp.state() == QpState.ERR) {
            engine.ring(bell);
        }
    }

    @Override
    public void destroy() {
        engine.runSync(() -> {
            dead = true;
            link.close(0, true);
            qp.flush();
            tx.releaseTx();
            rx.release();
        });
    }

    private void resetTransport() {
        sqDrainedReported = false;
        queues.clear();
        tx.reset();
        rx.reset();
    }

    // ================================================================ connection hand-over

    /**
     * Attaches the connection after the MPA exchange (siw's {@code siw_qp_modify(RTS, LLP_HANDLE)}).
     * Engine thread only. Bytes that arrived behind the MPA frames are passed in {@code early}.
     *
     * @param crcOn whether FPDUs carry a CRC32c
     * @param ordNegotiated most RDMA READs this side may have outstanding
     * @param irdNegotiated most inbound RDMA READs this side accepts
     * @param waitForRtr the peer will send an RTR FPDU first (peer-to-peer mode, responder side)
     * @param segment the largest FPDU to send (an MSS-like value, rounded down to 8); 0 = the path MSS
     */
    public void attach(SocketChannel ch, Link l, boolean crcOn, int ordNegotiated, int irdNegotiated,
            ByteBuffer early, boolean waitForRtr, int segment) throws IOException {
        negotiated(l, crcOn, ordNegotiated, irdNegotiated, waitForRtr);
        if (early != null && early.hasRemaining()) {
            rx.early(early);
        }
        link.openSocket(ch, segment);
        started();
    }

    /**
     * Attaches a byte stream in place of a socket (tests drive the receive and transmit machines from
     * memory): as {@link #attach}, with FPDUs of at most {@code segment} bytes. Engine thread only.
     */
    void attachStream(ReadableByteChannel in, GatheringByteChannel out, Link l, boolean crcOn, int ordNegotiated,
            int irdNegotiated, int segment) {
        negotiated(l, crcOn, ordNegotiated, irdNegotiated, false);
        link.openStream(in, out, segment);
        started();
    }

    private void negotiated(Link l, boolean crcOn, int ordNegotiated, int irdNegotiated, boolean waitForRtr) {
        link.cm = l;
        link.crc = crcOn;
        link.ord = Math.max(0, Math.min(ordNegotiated, MAX_ORD_IRD));
        link.ird = Math.max(0, Math.min(irdNegotiated, MAX_ORD_IRD));
        // What MPA negotiated is what ibv_query_qp reports (max_rd_atomic = ORD, max_dest_rd_atomic = IRD).
        qp.attr().maxRdAtomic(link.ord).maxDestRdAtomic(link.ird);
        link.rtrPending = waitForRtr;
        tx.txNext = qp.sqRetired();
    }

    private void started() {
        qp.enterRts();
        engine.ring(bell);
        if (rx.carrying()) {
            onReadable();
        }
    }

    /**
     * The connection's endpoints and MPA frames, for packet captures (a capture starts its TCP stream
     * with them). Engine thread, before {@link #attach}.
     *
     * @param local this end
     * @param remote the peer
     * @param initiator whether this end connected
     * @param mpaRequest the MPA request as sent
     * @param mpaReply the MPA reply as sent
     */
    public void captureInfo(InetSocketAddress local, InetSocketAddress remote, boolean initiator,
            byte[] mpaRequest, byte[] mpaReply) {
        link.taps.connection(local, remote, initiator, mpaRequest, mpaReply);
    }

    /** The FPDU segment size in use (tests). */
    int segmentSize() {
        return link.maxSegment;
    }

    /**
     * Sends the RTR FPDU of peer-to-peer mode ({@code siw_qp_mpa_rts}; see {@link SiwTx#sendRtr}). Engine
     * thread, right after {@link #attach}.
     *
     * @param read a READ (needs ORD 1, which the CM guarantees) instead of a WRITE
     */
    public void sendRtr(boolean read) {
        tx.sendRtr(read);
    }

    /** Closes the connection: gracefully (FIN after what is queued) or abruptly (RST). Engine thread. */
    public void disconnect(boolean abrupt) {
        if (link.state != SiwLink.State.UP) {
            if (abrupt) {
                link.close(0, true);
            }
            return;
        }
        if (abrupt) {
            link.close(0, true);
            return;
        }
        link.state = SiwLink.State.CLOSING;
        tx.flushTx();
        if (!link.shutdownOutput()) {
            link.close(Errno.ECONNRESET.status(), true);
        }
    }

    /** The link is closing: what the transmit side had not written goes nowhere now. */
    void linkClosing() {
        tx.releaseTx();
    }

    /** Whether the QP waits on its peer: bytes not yet taken by the socket, or RDMA READs unanswered. */
    boolean waitingOnPeer() {
        return tx.pending() > 0 || queues.orqCount() > 0;
    }

    /** The log prefix, {@code [qp 0x11]} as siw_dbg_qp prints it (built only when a line is logged). */
    String tag() {
        return "[qp 0x" + Integer.toHexString(qp.qpNum()) + "]";
    }

    // ================================================================ doorbell

    @Override
    public int onDoorbell() {
        if (dead) {
            return 0;
        }
        int work = 0;
        if (rx.takeResume()) {
            work = onReadable();
        }
        return work + onSendDoorbell();
    }

    private int onSendDoorbell() {
        QpState s = qp.state();
        switch (s) {
            case ERR -> {
                return enterErrorFromApp();
            }
            case SQD -> {
                int work = link.state == SiwLink.State.UP ? tx.transmit() : 0;
                checkDrained();
                return work;
            }
            case RTS -> {
                sqDrainedReported = false;
                return link.state == SiwLink.State.UP ? tx.transmit(engine.posting(bell)) : 0;
            }
            default -> {
                return 0;
            }
        }
    }

    /**
     * SQD (IBTA 10.3.1, o10-30): a send WQE that has begun runs to completion, no new one starts, and SQ
     * Drained is reported once (with {@code sqd_async_notify}) when nothing is outstanding: no WQE partly
     * transmitted, no RDMA READ waiting for its response. The receive side keeps working, so inbound
     * READs are still answered. Linux siw maps SQD to its CLOSING state and drops the connection
     * instead ({@code siw_verbs.c ib_qp_state_to_siw_qp_state}); jrdma keeps the IBTA meaning, which
     * the peer cannot tell from an idle sender, and lets the QP return to RTS.
     */
    void checkDrained() {
        if (sqDrainedReported || qp.state() != QpState.SQD) {
            return;
        }
        long produced = qp.sqProduced();
        long next = tx.txNext;
        boolean begun = next < produced && qp.sqSlot(next).txState != SiwTx.TX_NEW;
        if (begun || tx.pending() > 0 || queues.orqCount() > 0 || qp.sqRetired() < next) {
            return;
        }
        sqDrainedReported = true;
        if (qp.attr().sqdAsyncNotify()) {
            qp.pdImpl().contextImpl().asyncEvent(AsyncEventType.SQ_DRAINED, qp, null, null, "send queue drained");
        }
    }

    private int enterErrorFromApp() {
        int n = qp.flush();
        // siw: a QP moved to ERROR drops its connection (siw_qp_cm_drop); what still arrives is discarded.
        if (link.state == SiwLink.State.UP && !link.shutdownOutput()) {
            link.close(0, true);
        }
        return n;
    }

    @Override
    public int onWritable() {
        link.writableAgain();
        return tx.transmit();
    }

    @Override
    public int onReadable() {
        return rx.onReadable();
    }

    /** The QP's doorbell (for the CM). */
    public Doorbell<SiwEngine.Schedulable> bell() {
        return bell;
    }

    /** The QP's WQE index queued in the ORQ at {@code i} (tests). */
    long orqEntry(int i) {
        return queues.orqEntry(i);
    }

    /** The socket (tests size its buffers); {@code null} before the connection or on a memory stream. */
    SocketChannel channel() {
        return link.channel();
    }

    /** Whether a completion for {@code op} would carry the opcode (used for solicited events). */
    static boolean isRead(WrOpcode op) {
        return op == WrOpcode.RDMA_READ;
    }
}
