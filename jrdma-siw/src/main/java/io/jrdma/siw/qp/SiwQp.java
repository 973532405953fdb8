package io.jrdma.siw.qp;

import io.jrdma.internal.capture.StreamTaps;
import io.jrdma.internal.engine.Doorbell;
import io.jrdma.internal.engine.Timer;
import io.jrdma.internal.obs.Trace;
import io.jrdma.internal.verbs.AccessResult;
import io.jrdma.internal.verbs.MemoryTable;
import io.jrdma.internal.verbs.MrImpl;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.internal.verbs.RecvWqe;
import io.jrdma.internal.verbs.SendWqe;
import io.jrdma.internal.verbs.SgCursor;
import io.jrdma.siw.SiwDevice;
import io.jrdma.siw.net.SiwEngine;
import io.jrdma.siw.wire.FpduCheck;
import io.jrdma.siw.wire.FpduHeader;
import io.jrdma.siw.wire.MpaCrc;
import io.jrdma.siw.wire.RdmapOpcode;
import io.jrdma.siw.wire.ReadRequestHeader;
import io.jrdma.siw.wire.TermError;
import io.jrdma.siw.wire.TermLayout;
import io.jrdma.siw.wire.Terminate;
import io.jrdma.siw.wire.TerminateResult;
import io.jrdma.spi.ProviderQp;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.Counter;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.WcFlags;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.zip.CRC32C;
import jdk.net.ExtendedSocketOptions;

/**
 * A siw queue pair's transport (Linux {@code siw_qp.c}, {@code siw_qp_rx.c}, {@code siw_qp_tx.c}):
 * the receive machine that parses FPDUs from the TCP stream and places payload into registered
 * memory, the transmit machine that turns send WQEs and inbound RDMA READ requests into FPDUs,
 * the outbound (ORQ) and inbound (IRQ) read queues, TERMINATE, and flushing.
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
    private static final System.Logger LOG = System.getLogger("io.jrdma.siw");
    private static final long[] EMPTY_LONGS = new long[0];
    private static final int[] EMPTY_INTS = new int[0];
    private static final byte[] EMPTY_BYTES = new byte[0];

    /**
     * Whether a posting thread's transmit keeps the tail of a batch past its last full TCP segment
     * for the next post ({@code jrdma.siw.holdTail}, default true; application-driven mode only).
     */
    static final boolean HOLD_TAIL = !"false".equalsIgnoreCase(System.getProperty("jrdma.siw.holdTail"));
    /** A payload at least this long, with nothing staged, is read straight into its target. */
    static final int DIRECT_READ_THRESHOLD = 8 * 1024;
    /** Most FPDUs per socket write. */
    static final int MAX_BATCH_FPDUS = TxBatch.MAX_FPDUS;
    /** Copied payload bytes after which no further FPDU joins a socket write. */
    static final int MAX_BATCH_BYTES = TxBatch.MAX_BYTES;
    /** Bytes kept of an FPDU header (a READ request is the largest, 28). */
    static final int HEADER_SLOT = 48;
    /** The carry's first size: a cut header (at most 28 bytes) or trailer (at most 7). */
    static final int CARRY = 64;
    /** ORQ/IRQ entries allocated at the first READ; they double up to the negotiated ORD/IRD. */
    static final int READ_QUEUE_START = 4;
    /**
     * Most bytes read from the socket per readable event, so one busy QP does not starve the others.
     * What was read is always parsed to the end before the QP returns: only a cut header or trailer
     * may stay behind, in the carry. The system property {@code jrdma.siw.rxBudgetBytes} overrides it
     * for QPs created afterwards (tests use a tiny one).
     */
    static final int RX_BUDGET_BYTES = 4 << 20;

    // WQE transmit states kept in SendWqe.txState.
    static final int TX_NEW = 0;
    static final int TX_SENDING = 1;
    static final int TX_DONE = 2;
    static final int TX_READ_SENT = 3;
    static final int TX_FAILED = 4;

    // Receive machine states.
    private static final int RX_HEADER = 0;
    private static final int RX_PAYLOAD = 1;
    private static final int RX_TRAILER = 2;

    /** RDMAP error type "remote protection error" (RFC 5040 §4.8). */
    static final int TERM_ETYPE_REMOTE_PROTECTION = 1;
    /** ORQ entry of the zero-length READ sent as RTR: not a send WQE, completes nothing. */
    static final long RTR_READ = -1L;
    /** The STag an RTR names ({@code siw_qp_mpa_rts}: 1, since some hardware treats STag 0 specially). */
    static final int RTR_STAG = 1;

    // Connection states.
    private static final int LINK_NONE = 0;
    private static final int LINK_UP = 1;
    private static final int LINK_CLOSING = 2;
    private static final int LINK_CLOSED = 3;

    final QpImpl qp;
    private final SiwDevice device;
    private final SiwEngine engine;
    private final Doorbell<SiwEngine.Schedulable> bell = new Doorbell<>(this);
    private final MemoryTable keys;

    // ---------------------------------------------------------------- connection
    private SocketChannel channel;
    private SelectionKey key;
    private Link link;
    private int linkState = LINK_NONE;
    private boolean crc;
    private int ord;
    private int ird;
    private int maxSegment;
    /** The connection's TCP segment size as the kernel cuts it (what a held tail is aligned to). */
    private int tcpMss;
    private boolean dead;
    private boolean rtrPending;
    /** SQ Drained was reported for the current stay in SQD. */
    private boolean sqDrainedReported;
    /** The engine's staging buffer, batches and region views. */
    private final EngineBuffers buffers;
    /** Packet captures of this connection (the device's, the QP's); idle unless one runs. */
    private final StreamTaps taps = new StreamTaps();
    /** Fires while the link is up, to give up a connection that stalls while the QP waits on the peer. */
    private final Timer linkTimer = new Timer(this::onLinkTimer);
    /** When a byte last went out or came in, or the QP last had nothing to wait for (engine clock). */
    private long lastProgress;

    /** What the CM learns from the data path. */
    public interface Link {
        /** The first FPDU arrived on a connection that waited for the peer's RTR. */
        void rtrReceived();

        /** The peer closed in order (EOF). */
        void peerClosed();

        /** The connection is gone; {@code status} 0 or a negative errno. */
        void closed(int status);
    }

    // ---------------------------------------------------------------- transmit
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
    private long txNext;
    private int sendMsn = 1;
    private int readMsn = 1;
    /** Outstanding RDMA READs (ORQ): SQ indexes, or {@link #RTR_READ}; grows up to the ORD. */
    private long[] orq = EMPTY_LONGS;
    private int orqHead;
    private int orqCount;

    // inbound READ requests (IRQ), served by the transmit machine; the arrays grow up to the IRD
    private int[] irqSinkStag = EMPTY_INTS;
    private long[] irqSinkTo = EMPTY_LONGS;
    private int[] irqLength = EMPTY_INTS;
    private MrImpl[] irqSource = new MrImpl[0];
    private long[] irqSourceOff = EMPTY_LONGS;
    private int[] irqSent = EMPTY_INTS;
    private int irqHead;
    private int irqCount;

    // ---------------------------------------------------------------- receive
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
    private int rxState = RX_HEADER;
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

    /** A QP on {@code engine}; not connected until the CM attaches a channel. */
    public SiwQp(QpImpl qp, SiwDevice device, SiwEngine engine) {
        this.qp = qp;
        this.device = device;
        this.engine = engine;
        this.keys = qp.deviceImpl().memoryTable();
        this.buffers = engine.local(EngineBuffers.class, EngineBuffers::new);
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
                dropLink(0, true);
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
            dropLink(0, true);
            qp.flush();
            releaseTx();
            carry = EMPTY_BYTES;
            carryLength = 0;
        });
    }

    private void resetTransport() {
        sqDrainedReported = false;
        sendMsn = 1;
        readMsn = 1;
        rxSendMsn = 1;
        rxReadMsn = 1;
        orqHead = 0;
        orqCount = 0;
        irqHead = 0;
        irqCount = 0;
        txNext = qp.sqRetired();
        releaseTx();
        rxResume = false;
        rxStart = 0;
        rxEnd = 0;
        carryLength = 0;
        rxState = RX_HEADER;
        rxWqe = null;
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
        ch.configureBlocking(false);
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        keepalive(ch, device.linkTimeouts());
        this.channel = ch;
        this.link = l;
        this.crc = crcOn;
        this.ord = Math.max(0, Math.min(ordNegotiated, SiwDevice.MAX_ORD_IRD));
        this.ird = Math.max(0, Math.min(irdNegotiated, SiwDevice.MAX_ORD_IRD));
        // What MPA negotiated is what ibv_query_qp reports (max_rd_atomic = ORD, max_dest_rd_atomic = IRD).
        qp.attr().maxRdAtomic(ord).maxDestRdAtomic(ird);
        int mtu = localMtu(ch);
        this.tcpMss = tcpMss(((java.net.InetSocketAddress) ch.getLocalAddress()).getAddress(), mtu);
        this.maxSegment = segmentSize(tcpMss, segment);
        this.rtrPending = waitForRtr;
        this.txNext = qp.sqRetired();
        if (early != null && early.hasRemaining()) {
            // Bytes that came behind the MPA frames wait in the carry for the first receive.
            carry = new byte[early.remaining()];
            carryLength = carry.length;
            early.get(carry);
        }
        key = ch.register(engine.selector(), SelectionKey.OP_READ, this);
        engine.addPollable(key);
        linkState = LINK_UP;
        lastProgress = now();
        armLinkTimer();
        qp.enterRts();
        engine.ring(bell);
        if (carryLength > 0) {
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
    public void captureInfo(java.net.InetSocketAddress local, java.net.InetSocketAddress remote, boolean initiator,
            byte[] mpaRequest, byte[] mpaReply) {
        taps.connection(local, remote, initiator, mpaRequest, mpaReply);
    }

    /** The MTU of the interface holding {@code ch}'s local address; Ethernet's 1500 when unknown. */
    private static int localMtu(SocketChannel ch) {
        try {
            java.net.InetAddress local = ((java.net.InetSocketAddress) ch.getLocalAddress()).getAddress();
            int m = io.jrdma.siw.net.InterfaceMtu.of(local);
            return m > 0 ? m : 1500;
        } catch (IOException e) {
            return 1500;
        }
    }

    /**
     * The TCP segment size the kernel cuts the stream into from {@code local} over an interface of
     * {@code mtu} (Java has no TCP_MAXSEG): the MTU less the IP and TCP headers and the timestamp
     * option, within the IP length field (IPv4 loopback: MTU 65,536, segments of 65,483 bytes,
     * measured). A slight underestimate only makes an aligned write's segments a little short; an
     * overestimate would leave a tiny segment behind each.
     */
    static int tcpMss(java.net.InetAddress local, int mtu) {
        int mss = local instanceof java.net.Inet6Address ? Math.min(mtu - 40, 65535) - 20 - 12
                : Math.min(mtu, 65535) - 20 - 20 - 12;
        return Math.max(536, mss);
    }

    /**
     * The segment size FPDUs are cut to: the configured one, or the path MSS ({@link #tcpMss}: the MTU
     * less the IPv4 or IPv6 header, TCP's and the timestamp option), as siw takes the socket's
     * {@code mss_cache}. An FPDU longer than the MSS would cost a second TCP segment each.
     */
    static int segmentSize(int pathMss, int configured) {
        int mss = configured > 0 ? configured : pathMss;
        return Math.min(FpduHeader.tcpSegmentLength(mss), FpduHeader.MAX_MPA_LENGTH + 2);
    }

    /** The FPDU segment size in use (tests). */
    int segmentSize() {
        return maxSegment;
    }

    /**
     * Sends the RTR FPDU of peer-to-peer mode ({@code siw_qp_mpa_rts}): a zero-length RDMA WRITE, or a
     * zero-length RDMA READ whose (zero-length) response the receive machine consumes without a
     * completion. Like siw, the RTR names STag 1 at offset 0 ("some HW may treat STag 0 special") and
     * consumes no send queue slot. Engine thread, right after {@link #attach}.
     *
     * @param read a READ (needs ORD 1, which the CM guarantees) instead of a WRITE
     */
    public void sendRtr(boolean read) {
        byte[] ctrl = new byte[HEADER_SLOT + 8]; // once per connection: the heap will do
        MemorySegment seg = MemorySegment.ofArray(ctrl);
        int len;
        if (read) {
            txFh.wrap(seg, 0).start(RdmapOpcode.RDMA_READ_REQUEST, true, 0).invalidateStag(0)
                    .queueNumber(RdmapOpcode.QN_READ_REQUEST).messageSequenceNumber(readMsn++).messageOffset(0);
            txRr.wrap(seg, 0).sinkStag(0).sinkTo(0).readSize(0).sourceStag(RTR_STAG).sourceTo(0);
            orqAdd(RTR_READ);
        } else {
            txFh.wrap(seg, 0).start(RdmapOpcode.RDMA_WRITE, true, 0).stag(RTR_STAG).taggedOffset(0);
        }
        len = FpduHeader.fpduLength(txFh.mpaLength());
        int hl = read ? ReadRequestHeader.LENGTH : FpduHeader.TAGGED_LENGTH;
        seg.asSlice(hl, len - hl).fill((byte) 0);
        if (crc) {
            new MpaCrc().seal(seg, 0);
        }
        writeFully(ByteBuffer.wrap(ctrl, 0, len));
        qp.counters().inc(Counter.FPDUS_SENT);
    }

    private void writeFully(ByteBuffer b) {
        taps.tx(device.tap(), qp.capture(), b);
        try {
            long deadline = System.nanoTime() + 1_000_000_000L;
            while (b.hasRemaining() && System.nanoTime() < deadline) {
                if (channel.write(b) == 0) {
                    Thread.onSpinWait();
                }
            }
        } catch (IOException e) {
            if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
                LOG.log(System.Logger.Level.DEBUG, tag() + " control write failed: " + e);
            }
        }
    }

    /** Closes the connection: gracefully (FIN after what is queued) or abruptly (RST). Engine thread. */
    public void disconnect(boolean abrupt) {
        if (linkState != LINK_UP) {
            if (abrupt) {
                dropLink(0, true);
            }
            return;
        }
        if (abrupt) {
            dropLink(0, true);
            return;
        }
        linkState = LINK_CLOSING;
        flushTx();
        try {
            channel.shutdownOutput();
        } catch (IOException e) {
            dropLink(io.jrdma.verbs.Errno.ECONNRESET.status(), true);
        }
    }

    private void dropLink(int status, boolean abrupt) {
        engine.timers.cancel(linkTimer);
        if (linkState == LINK_CLOSED || channel == null) {
            linkState = channel == null ? LINK_NONE : LINK_CLOSED;
            return;
        }
        linkState = LINK_CLOSED;
        releaseTx(); // what was not written goes nowhere now; the flush completes its WQEs
        taps.closed(true);
        try {
            if (key != null) {
                engine.removePollable(key);
                key.cancel();
            }
            if (abrupt) {
                channel.setOption(StandardSocketOptions.SO_LINGER, 0);
            }
            channel.close();
        } catch (IOException e) {
            // closing anyway
        }
        Link l = link;
        if (l != null) {
            l.closed(status);
        }
    }

    /** The log prefix, {@code [qp 0x11]} as siw_dbg_qp prints it (built only when a line is logged). */
    private String tag() {
        return "[qp 0x" + Integer.toHexString(qp.qpNum()) + "]";
    }

    // ================================================================ doorbell

    @Override
    public int onDoorbell() {
        if (dead) {
            return 0;
        }
        int rx = 0;
        if (rxResume) {
            rxResume = false;
            rx = onReadable();
        }
        return rx + onSendDoorbell();
    }

    private int onSendDoorbell() {
        QpState s = qp.state();
        switch (s) {
            case ERR -> {
                return enterErrorFromApp();
            }
            case SQD -> {
                int work = linkState == LINK_UP ? transmit() : 0;
                checkDrained();
                return work;
            }
            case RTS -> {
                sqDrainedReported = false;
                return linkState == LINK_UP ? transmit(engine.posting(bell)) : 0;
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
    private void checkDrained() {
        if (sqDrainedReported || qp.state() != QpState.SQD) {
            return;
        }
        long produced = qp.sqProduced();
        boolean begun = txNext < produced && qp.sqSlot(txNext).txState != TX_NEW;
        if (begun || txPending > 0 || orqCount > 0 || qp.sqRetired() < txNext) {
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
        if (linkState == LINK_UP) {
            linkState = LINK_CLOSING;
            try {
                channel.shutdownOutput();
            } catch (IOException e) {
                dropLink(0, true);
            }
        }
        return n;
    }

    @Override
    public int onWritable() {
        if (key != null && key.isValid()) {
            key.interestOps(SelectionKey.OP_READ);
        }
        return transmit();
    }

    // ================================================================ transmit

    private int transmit() {
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
    private int transmit(boolean posted) {
        if (linkState != LINK_UP && linkState != LINK_CLOSING) {
            return 0;
        }
        boolean mayHold = posted && HOLD_TAIL && taps.idle(device.tap(), qp.capture());
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
            if (linkState != LINK_UP || st != QpState.RTS && st != QpState.SQD) {
                return work;
            }
            if (!buildBatch()) {
                if (holding) {
                    holding = false; // nothing joined the tail: write it
                    continue;
                }
                return work;
            }
            if (mayHold && txPending >= tcpMss && roomToAppend()) {
                int written = txLength - txPending;
                if (!writeBatch(written + txPending / tcpMss * tcpMss)) {
                    holding = false;
                    return work; // the socket is full: the rest goes when it drains
                }
                work++;
                if (txPending > 0) {
                    holding = true;
                    qp.counters().inc(Counter.TX_TAILS_HELD);
                    engine.hold(bell);
                    return work;
                }
            }
        }
        engine.ring(bell);
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
                    n = channel.write(b);
                } else {
                    n = t.write(channel, end - (txLength - txPending));
                }
                if (n <= 0) {
                    key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
                    return false;
                }
                txPending -= (int) n;
                lastProgress = now();
                if (txPending > 0) {
                    written();
                }
            }
        } catch (IOException e) {
            linkLost(e);
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
            irqSource[irqHead] = null;
            irqHead = (irqHead + 1) % irqSinkStag.length;
            irqCount--;
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
    private void releaseTx() {
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
    private void retire() {
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
        checkDrained();
    }

    /** Fills the batch with FPDUs; returns whether there is something to write. */
    private boolean buildBatch() {
        if (irqCount == 0 && txNext >= qp.sqProduced()) {
            retire();
            return false;
        }
        if (tx == null) {
            tx = buffers.acquire();
        } else if (tx.vecCount == 0) {
            tx.pieceStart = txLength - txPending; // a held tail: a vector started now begins at it
        }
        int before = txLength;
        // Inbound READ responses first: the peer waits for them (siw serves the IRQ before the SQ).
        int irqQueued = 0;
        while (irqQueued < irqCount && batchFpdus < MAX_BATCH_FPDUS - 1 && batchBytes < MAX_BATCH_BYTES) {
            int i = (irqHead + irqQueued) % irqSinkStag.length;
            if (!queueReadResponse(i)) {
                break;
            }
            if (irqSent[i] >= irqLength[i]) {
                irqQueued++;
                tx.irqEnd[batchIrqDone++] = txLength;
            }
        }
        long produced = qp.sqProduced();
        while (txNext < produced && batchFpdus < MAX_BATCH_FPDUS - 1 && batchBytes < MAX_BATCH_BYTES) {
            SendWqe w = qp.sqSlot(txNext);
            if (w.txState == TX_NEW && w.fenced() && orqCount > 0) {
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
            taps.tx(device.tap(), qp.capture(), tx.vec, tx.vecCount);
        } else {
            taps.tx(device.tap(), qp.capture(), tx.buffer.limit(txLength).position(txLength - txPending));
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
        int maxPayload = FpduHeader.maxPayload(op, maxSegment);
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
        if (ord == 0) {
            failWqe(w, WcStatus.LOC_QP_OP_ERR, null); // ORD 0 was negotiated: no READs at all
            return false;
        }
        if (orqCount >= ord) {
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
        orqAdd(txNext);
        return true;
    }

    private boolean queueReadResponse(int i) {
        int left = irqLength[i] - irqSent[i];
        int maxPayload = FpduHeader.maxPayload(RdmapOpcode.RDMA_READ_RESPONSE, maxSegment);
        do {
            if (batchFpdus >= MAX_BATCH_FPDUS - 1 || batchBytes >= MAX_BATCH_BYTES) {
                return false;
            }
            int payload = Math.min(left, maxPayload);
            boolean last = payload == left;
            long hoff = txFill;
            txFh.wrap(tx.segment, hoff).start(RdmapOpcode.RDMA_READ_RESPONSE, last, payload)
                    .stag(irqSinkStag[i]).taggedOffset(irqSinkTo[i] + irqSent[i]);
            addReadResponsePayload(payload, irqSource[i], irqSourceOff[i] + irqSent[i]);
            irqSent[i] += payload;
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
        if (crc) {
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
        if (crc) {
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

    private void flushTx() {
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
        orqHead = 0;
        orqCount = 0;
        fatal(term, AsyncEventType.QP_FATAL, "local error on send WQE: " + status, null, () -> {
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

    // ================================================================ receive

    @Override
    public int onReadable() {
        if (linkState == LINK_CLOSED || channel == null) {
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
            if (rxBudget <= 0 && !rxDry && linkState != LINK_CLOSED) {
                // Out of budget, other QPs get their turn. Do not count on a readiness event for what
                // the socket still holds (nor for anything staged): resume from the doorbell.
                rxResume = true;
                engine.ring(bell);
            }
            return work; // nothing more now, the budget is spent, or the connection went away
        } finally {
            keepCarry();
        }
    }

    /** Keeps what is left of a cut FPDU for the next receive and gives the staging buffer back. */
    private void keepCarry() {
        int left = rxEnd - rxStart;
        if (left > 0 && linkState != LINK_CLOSED) {
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
                int r = channel.read(rxBuf);
                if (r < 0) {
                    dropLink(0, false);
                    break;
                }
                if (r == 0) {
                    break;
                }
                n += r;
            }
        } catch (IOException e) {
            dropLink(io.jrdma.verbs.Errno.ECONNRESET.status(), true);
        }
        rxStart = 0;
        rxEnd = 0;
        rxState = RX_HEADER;
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
        int r = channel.read(rxBuf);
        if (r < 0) {
            peerClosed();
            return false;
        }
        rxDry = r < space;
        taps.rx(rxSeg, rxEnd, r);
        rxEnd += r;
        rxBudget -= r;
        if (r > 0) {
            lastProgress = now();
        }
        return rxEnd - rxStart >= n;
    }

    /** One step of the receive machine; returns bytes consumed, or -1 when it must wait. */
    private int rxStep() {
        try {
            return switch (rxState) {
                case RX_HEADER -> rxHeader();
                case RX_PAYLOAD -> rxPayload();
                default -> rxTrailer();
            };
        } catch (IOException e) {
            linkLost(e);
            return -1;
        }
    }

    private int rxHeader() throws IOException {
        taps.rxBoundary(device.tap(), qp.capture(), rxSeg, rxStart, rxEnd - rxStart);
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
            fatal(check.termError(), AsyncEventType.QP_FATAL, "malformed FPDU: " + check, rxHeaderSeg);
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
            onTerminate();
            return -1;
        }
        if (crc) {
            rxCrc.reset();
            rxCrc.update(rxBuf.limit(rxStart + headerLength).position(rxStart));
            rxBuf.limit(rxBuf.capacity());
        }
        rxStart += headerLength;
        if (rtrPending) {
            rtrPending = false;
            Link l = link;
            if (l != null) {
                l.rtrReceived();
            }
        }
        if (!beginPlacement()) {
            return -1;
        }
        rxState = rxPayloadLeft > 0 ? RX_PAYLOAD : RX_TRAILER;
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
                        fatal(taggedError(r), AsyncEventType.QP_ACCESS_ERR, "RDMA WRITE: "
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
        fatal(e, AsyncEventType.QP_FATAL, why, rxHeaderSeg);
        return false;
    }

    /** siw_tagged_error: DDP has no access-rights code, so siw reports "invalid STag" for it. */
    private static TermError taggedError(int r) {
        return switch (r) {
            case AccessResult.BOUNDS -> TermError.DDP_TAGGED_BASE_BOUNDS;
            case AccessResult.PD_MISMATCH -> TermError.DDP_TAGGED_STAG_NOT_ASSOCIATED;
            default -> TermError.DDP_TAGGED_INVALID_STAG;
        };
    }

    /** siw_rdmap_error: errors on a READ request's source are reported at the RDMAP layer. */
    private static TermError rdmapError(int r) {
        return switch (r) {
            case AccessResult.BOUNDS -> TermError.RDMAP_BASE_BOUNDS;
            case AccessResult.PD_MISMATCH -> TermError.RDMAP_STAG_NOT_ASSOCIATED;
            case AccessResult.ACCESS_RIGHTS -> TermError.RDMAP_ACCESS_RIGHTS;
            default -> TermError.RDMAP_INVALID_STAG;
        };
    }

    /**
     * siw_proc_rresp / siw_rresp_check_ntoh: a READ response must answer the oldest outstanding READ,
     * at its sink STag and the next offset, and end exactly at its length. Errors: no READ outstanding
     * is a DDP catastrophic error; another STag is an invalid STag; another offset or length is a base
     * or bounds violation.
     */
    private boolean beginReadResponse() {
        if (orqCount == 0) {
            return fatalFalse(TermError.DDP_LOCAL_CATASTROPHIC, "READ response without a request");
        }
        long head = orq[orqHead];
        if (head == RTR_READ) {
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
                fatal(taggedError(r), AsyncEventType.QP_ACCESS_ERR, "READ response sink: "
                        + AccessResult.name(r), rxHeaderSeg, () -> failOrqHead(WcStatus.LOC_PROT_ERR));
                return false;
            }
            rxMr = mr;
            rxMrOff = mr.offsetOf(to);
        }
        return true;
    }

    /**
     * Completes the oldest outstanding READ with {@code status}: the WQEs before it were sent and
     * complete successfully, the READ completes in error. The caller moves the QP to ERROR, which
     * flushes the rest.
     */
    private void failOrqHead(WcStatus status) {
        if (orqCount == 0) {
            return;
        }
        long head = orq[orqHead];
        if (head == RTR_READ) {
            return;
        }
        while (qp.sqRetired() < head) {
            SendWqe e = qp.sqSlot(qp.sqRetired());
            qp.completeSend(e.txState == TX_READ_SENT ? WcStatus.WR_FLUSH_ERR : WcStatus.SUCCESS, (int) e.length);
        }
        if (qp.sqRetired() == head) {
            qp.sqSlot(head).txState = TX_FAILED;
            qp.completeSend(status, 0);
        }
        orqHead = (orqHead + 1) % orq.length;
        orqCount--;
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
                fatal(TermError.DDP_LOCAL_CATASTROPHIC, AsyncEventType.QP_ACCESS_ERR,
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
            fatal(TermError.DDP_UNTAGGED_INVALID_MSN_NO_BUFFER, AsyncEventType.QP_FATAL,
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
            rxState = RX_TRAILER;
        }
        return c;
    }

    private void placeFromStaging(int c) {
        if (crc) {
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
        int n = channel.read(target);
        if (n < 0) {
            peerClosed();
            return -1;
        }
        rxDry = n < want;
        if (n == 0) {
            return -1;
        }
        rxBudget -= n;
        lastProgress = now();
        int end = target.position();
        taps.rx(target, end - n, end);
        if (crc) {
            rxCrc.update(target.limit(end).position(end - n));
        }
        if (op.isSend()) {
            rxCursor.skip(n);
            rxMessageOffset += n;
        }
        rxPayloadLeft -= n;
        if (rxPayloadLeft == 0) {
            rxState = RX_TRAILER;
        }
        return n;
    }

    private int rxTrailer() throws IOException {
        RdmapOpcode op = RdmapOpcode.of(rxOpcode);
        if (!stage(rxTrailerLength)) {
            return -1;
        }
        if (crc) {
            int pad = rxTrailerLength - FpduHeader.CRC_LENGTH;
            for (int i = 0; i < pad; i++) {
                rxCrc.update(rxSeg.get(java.lang.foreign.ValueLayout.JAVA_BYTE, rxStart + i));
            }
            int got = MpaCrc.trailer(rxSeg, rxStart + pad);
            if (got != (int) rxCrc.getValue()) {
                qp.counters().inc(Counter.CRC_ERRORS);
                fatal(TermError.MPA_CRC_ERROR, AsyncEventType.QP_FATAL, "FPDU CRC mismatch", rxHeaderSeg);
                return -1;
            }
        }
        rxStart += rxTrailerLength;
        rxState = RX_HEADER;
        qp.counters().inc(Counter.FPDUS_RECEIVED);
        finishFpdu(op);
        return rxTrailerLength;
    }

    private void finishFpdu(RdmapOpcode op) {
        switch (op) {
            case RDMA_READ_REQUEST -> onReadRequest();
            case RDMA_READ_RESPONSE -> {
                if (orq[orqHead] == RTR_READ) {
                    orqHead = (orqHead + 1) % orq.length;
                    orqCount--;
                    checkDrained();
                    return;
                }
                SendWqe w = qp.sqSlot(orq[orqHead]);
                w.txOffset += rxPayloadLength;
                if (rxLast) {
                    w.txState = TX_DONE;
                    orqHead = (orqHead + 1) % orq.length;
                    orqCount--;
                    retire();
                    engine.ring(bell); // a fenced WQE or a READ held back by the ORD may go now
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
                fatal(mr == null ? TermError.RDMAP_OPERATION_CANNOT_INVALIDATE : TermError.RDMAP_CANNOT_INVALIDATE,
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
            fatal(TermError.DDP_UNTAGGED_INVALID_QN, AsyncEventType.QP_FATAL, "READ request on queue " + qn,
                    rxHeaderSeg);
            return;
        }
        if (msn != rxReadMsn) {
            fatal(TermError.DDP_UNTAGGED_INVALID_MSN_RANGE, AsyncEventType.QP_FATAL, "READ request MSN " + msn,
                    rxHeaderSeg);
            return;
        }
        rxReadMsn++;
        if (irqCount >= Math.max(ird, 1)) {
            fatal(TermError.RDMAP_CATASTROPHIC_STREAM, AsyncEventType.QP_REQ_ERR, "READ requests beyond IRD "
                    + ird, rxHeaderSeg);
            return;
        }
        if (irqCount == irqSinkStag.length) {
            growIrq();
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
                fatal(rdmapError(r), AsyncEventType.QP_REQ_ERR, "READ request source: " + AccessResult.name(r),
                        rxHeaderSeg);
                return;
            }
            srcOff = src.offsetOf(srcTo);
        }
        int i = (irqHead + irqCount) % irqSinkStag.length;
        irqSinkStag[i] = rxRr.sinkStag();
        irqSinkTo[i] = rxRr.sinkTo();
        irqLength[i] = size;
        irqSource[i] = src;
        irqSourceOff[i] = srcOff;
        irqSent[i] = 0;
        irqCount++;
        engine.ring(bell);
    }

    /**
     * A TERMINATE from the peer (siw_proc_terminate): read in either control word layout, siw's by
     * default. The QP goes to ERROR with QP_FATAL and everything outstanding is flushed; Linux siw does
     * the same and raises no event. One improvement over siw: when the TERMINATE reports an RDMAP remote
     * protection error about a READ request (or copies no header), the oldest outstanding RDMA READ — the
     * only one the peer can have been answering — completes with REM_ACCESS_ERR instead of WR_FLUSH_ERR,
     * as on InfiniBand.
     */
    private void onTerminate() {
        TerminateResult r = Terminate.decode(rxSeg, rxStart, rxEnd - rxStart, TermLayout.SIW_LITTLE_ENDIAN);
        if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
            LOG.log(System.Logger.Level.DEBUG, tag() + " TERMINATE received: " + r);
        }
        rxStart = rxEnd;
        qp.counters().inc(Counter.TERMINATE_RECEIVED);
        qp.counters().inc(Counter.FPDUS_RECEIVED);
        traceReceived(r);
        if (qp.enterError(AsyncEventType.QP_FATAL, "TERMINATE received from the peer: " + r)) {
            if (r instanceof TerminateResult.Decoded d && readProtectionError(d.terminate())) {
                failOrqHead(WcStatus.REM_ACCESS_ERR);
            }
            qp.flush();
        }
        dropLink(io.jrdma.verbs.Errno.ECONNRESET.status(), false);
    }

    private void traceReceived(TerminateResult r) {
        if (r instanceof TerminateResult.Decoded d && d.terminate().layer() != null) {
            Terminate t = d.terminate();
            Trace.terminate(device.name(), qp.qpNum(), false, t.layer().name(), t.etype(), t.ecode(),
                    t.error().map(Enum::name).orElse("undefined"));
        }
    }

    /** Whether {@code t} reports an RDMAP remote protection error of a READ request. */
    static boolean readProtectionError(Terminate t) {
        if (t.layer() != io.jrdma.siw.wire.TermLayer.RDMAP || t.etype() != TERM_ETYPE_REMOTE_PROTECTION) {
            return false;
        }
        byte[] ddp = t.ddpHeader();
        return ddp.length == 0 || (ddp[1] & FpduHeader.MASK_OPCODE) == RdmapOpcode.RDMA_READ_REQUEST.value();
    }

    // ================================================================ errors

    /**
     * A fatal error on the connection (siw_qp_event + siw_init_terminate + siw_qp_cm_drop): the QP goes to
     * ERROR with {@code event}, a best-effort TERMINATE {@code error} goes out (none if {@code null}),
     * every WR is flushed and the connection closes.
     */
    private void fatal(TermError error, AsyncEventType event, String why, MemorySegment offending) {
        fatal(error, event, why, offending, null);
    }

    /**
     * {@link #fatal(TermError, AsyncEventType, String, MemorySegment)} for an error that also completes work
     * requests with an error status ({@code completions}: the failed WQE and those before it). The
     * TERMINATE is written to the socket before they run, so it is on the wire before the application can
     * see the error completion: an application that tears the connection down at once (moves the QP to
     * ERROR, closes) cannot get there first and leave the peer with only the close.
     */
    private void fatal(TermError error, AsyncEventType event, String why, MemorySegment offending,
            Runnable completions) {
        if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
            LOG.log(System.Logger.Level.DEBUG, tag() + " " + why + " -> TERMINATE " + error);
        }
        rxWqe = null;
        boolean first = qp.enterError(event, why);
        if (first && error != null) {
            sendTerminate(error, offending);
        }
        if (completions != null) {
            completions.run();
        }
        if (first) {
            qp.flush();
        }
        dropLink(io.jrdma.verbs.Errno.ECONNRESET.status(), false);
    }

    /**
     * Sends TERMINATE {@code error} as siw_send_terminate builds it: for DDP errors and RDMAP remote
     * operation errors the offending segment's DDP header (M, D); for RDMAP remote protection errors also
     * R and, for a READ request, its RDMA header; nothing for catastrophic, version, opcode and LLP errors.
     * The DDP Segment Length is the offender's payload length, as siw fills it in.
     */
    private void sendTerminate(TermError error, MemorySegment offending) {
        if (linkState != LINK_UP && linkState != LINK_CLOSING) {
            return;
        }
        try {
            byte[] b = terminateBytes(error, offending, rxPayloadLength, crc);
            flushTx();
            if (txPending > 0) {
                // siw_send_terminate: never in the middle of an FPDU; the peer learns from the close.
                if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
                    LOG.log(System.Logger.Level.DEBUG, tag() + " TERMINATE not sent: a transmit is in progress");
                }
                return;
            }
            writeFully(ByteBuffer.wrap(b));
            qp.counters().inc(Counter.TERMINATE_SENT);
            qp.counters().inc(Counter.FPDUS_SENT);
            Trace.terminate(device.name(), qp.qpNum(), true, error.layer().name(), error.etype(), error.ecode(),
                    error.name());
        } catch (RuntimeException e) {
            if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
                LOG.log(System.Logger.Level.DEBUG, tag() + " TERMINATE not sent: " + e);
            }
        }
    }

    /**
     * The TERMINATE FPDU for {@code error} about the header in {@code offending} (its ULPDU_Length first;
     * {@code null} when there is none), in siw's control word layout, CRC sealed when {@code crcOn}.
     */
    static byte[] terminateBytes(TermError error, MemorySegment offending, int payloadLength, boolean crcOn) {
        Terminate t = Terminate.of(error);
        boolean layoutUnknown = error == TermError.DDP_TAGGED_INVALID_VERSION
                || error == TermError.DDP_UNTAGGED_INVALID_VERSION || error == TermError.RDMAP_INVALID_VERSION
                || error == TermError.RDMAP_UNEXPECTED_OPCODE;
        boolean copies = error.layer() == io.jrdma.siw.wire.TermLayer.DDP
                || error.layer() == io.jrdma.siw.wire.TermLayer.RDMAP && error.etype() != 0;
        if (offending != null && copies && !layoutUnknown) {
            int ctrl = Short.toUnsignedInt(offending.get(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED
                    .withOrder(java.nio.ByteOrder.BIG_ENDIAN), FpduHeader.CTRL_OFFSET));
            boolean tagged = (ctrl & FpduHeader.FLAG_TAGGED) != 0;
            int hl = tagged ? FpduHeader.TAGGED_LENGTH : FpduHeader.UNTAGGED_LENGTH;
            byte[] ddp = offending.asSlice(FpduHeader.MPA_LENGTH_FIELD_LENGTH, hl
                    - FpduHeader.MPA_LENGTH_FIELD_LENGTH).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            if (error.layer() == io.jrdma.siw.wire.TermLayer.RDMAP && error.etype() == TERM_ETYPE_REMOTE_PROTECTION) {
                byte[] rdma = (ctrl & FpduHeader.MASK_OPCODE) == RdmapOpcode.RDMA_READ_REQUEST.value()
                        ? offending.asSlice(FpduHeader.UNTAGGED_LENGTH, ReadRequestHeader.RDMAP_LENGTH)
                                .toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)
                        : new byte[0];
                t = Terminate.withRdmaHeader(error, payloadLength, ddp, rdma);
            } else {
                t = Terminate.withDdpHeader(error, payloadLength, ddp);
            }
        }
        // siw sends (and parses) the control word in its little-endian bitfield layout.
        byte[] b = t.toBytes(TermLayout.SIW_LITTLE_ENDIAN);
        if (crcOn) {
            new MpaCrc().seal(MemorySegment.ofArray(b), 0);
        }
        return b;
    }

    private void peerClosed() {
        // The peer closed its side: an orderly disconnect (or the end of ours).
        Link l = link;
        boolean ours = linkState == LINK_CLOSING;
        if (!ours && l != null) {
            l.peerClosed();
        }
        taps.closed(false);
        if (qp.enterError(null, null)) {
            qp.flush();
        }
        dropLink(0, false);
    }

    // ================================================================ liveness (LinkTimeouts)

    /** TCP keepalive as configured, so an idle connection to a vanished peer fails in bounded time. */
    private static void keepalive(SocketChannel ch, io.jrdma.siw.LinkTimeouts t) throws IOException {
        if (t.keepIdle().isZero()) {
            return;
        }
        ch.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
        try {
            ch.setOption(ExtendedSocketOptions.TCP_KEEPIDLE, (int) t.keepIdle().toSeconds());
            ch.setOption(ExtendedSocketOptions.TCP_KEEPINTERVAL, (int) t.keepInterval().toSeconds());
            ch.setOption(ExtendedSocketOptions.TCP_KEEPCOUNT, t.keepCount());
        } catch (UnsupportedOperationException e) {
            LOG.log(System.Logger.Level.DEBUG, "TCP keepalive timing not supported here; system defaults apply");
        }
    }

    private long now() {
        return engine.timers.clock().nanoTime();
    }

    private void armLinkTimer() {
        long stall = device.linkTimeouts().stall().toNanos();
        if (stall > 0) {
            engine.timers.schedule(linkTimer, Math.max(stall / 4, 10_000_000L));
        }
    }

    /**
     * The stall check of {@link io.jrdma.siw.LinkTimeouts}: the QP waits on its peer when bytes of its own
     * are not yet taken by the socket or RDMA READs are unanswered; if no byte moved either way for the
     * stall time, the connection is given up. A QP with nothing to wait for restarts the clock.
     */
    private void onLinkTimer() {
        if (linkState != LINK_UP && linkState != LINK_CLOSING) {
            return;
        }
        long stall = device.linkTimeouts().stall().toNanos();
        boolean waiting = txPending > 0 || orqCount > 0;
        long now = now();
        if (!waiting) {
            lastProgress = now;
        } else if (now - lastProgress >= stall) {
            linkTimedOut(stall);
            return;
        }
        armLinkTimer();
    }

    private void linkTimedOut(long stallNanos) {
        String why = "no byte in or out for " + stallNanos / 1_000_000 + " ms while waiting on the peer";
        LOG.log(System.Logger.Level.DEBUG, tag() + " connection timed out: " + why);
        device.counters().linkTimeout();
        if (qp.enterError(AsyncEventType.QP_FATAL, "connection timed out: " + why)) {
            qp.flush();
        }
        dropLink(io.jrdma.verbs.Errno.ETIMEDOUT.status(), true);
    }

    private void linkLost(IOException e) {
        if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
            LOG.log(System.Logger.Level.DEBUG, tag() + " connection lost: " + e);
        }
        if (qp.enterError(AsyncEventType.QP_FATAL, "connection lost: " + e.getMessage())) {
            qp.flush();
        }
        dropLink(io.jrdma.verbs.Errno.ECONNRESET.status(), true);
    }

    /** Queues {@code entry} (an SQ index or {@link #RTR_READ}) as the newest outstanding READ. */
    private void orqAdd(long entry) {
        if (orqCount == orq.length) {
            orq = grown(orq, orqHead, orqCount, Math.max(READ_QUEUE_START, orqCount * 2));
            orqHead = 0;
        }
        orq[(orqHead + orqCount) % orq.length] = entry;
        orqCount++;
    }

    /** Doubles the IRQ (up to the device's IRD limit), keeping its entries in order from index 0. */
    private void growIrq() {
        int n = Math.min(Math.max(READ_QUEUE_START, irqCount * 2), SiwDevice.MAX_ORD_IRD);
        irqSinkStag = grown(irqSinkStag, irqHead, irqCount, n);
        irqSinkTo = grown(irqSinkTo, irqHead, irqCount, n);
        irqLength = grown(irqLength, irqHead, irqCount, n);
        irqSourceOff = grown(irqSourceOff, irqHead, irqCount, n);
        irqSent = grown(irqSent, irqHead, irqCount, n);
        MrImpl[] src = new MrImpl[n];
        for (int k = 0; k < irqCount; k++) {
            src[k] = irqSource[(irqHead + k) % irqSource.length];
        }
        irqSource = src;
        irqHead = 0;
    }

    private static long[] grown(long[] a, int head, int count, int n) {
        long[] b = new long[n];
        for (int k = 0; k < count; k++) {
            b[k] = a[(head + k) % a.length];
        }
        return b;
    }

    private static int[] grown(int[] a, int head, int count, int n) {
        int[] b = new int[n];
        for (int k = 0; k < count; k++) {
            b[k] = a[(head + k) % a.length];
        }
        return b;
    }

    /** The QP's doorbell (for the CM). */
    public Doorbell<SiwEngine.Schedulable> bell() {
        return bell;
    }

    /** The QP's WQE index queued in the ORQ at {@code i} (tests). */
    long orqEntry(int i) {
        return orq[(orqHead + i) % orq.length];
    }

    /** Whether a completion for {@code op} would carry the opcode (used for solicited events). */
    static boolean isRead(WrOpcode op) {
        return op == WrOpcode.RDMA_READ;
    }
}
