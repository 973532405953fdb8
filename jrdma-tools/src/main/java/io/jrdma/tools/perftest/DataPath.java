package io.jrdma.tools.perftest;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.zip.CRC32C;

import org.HdrHistogram.Histogram;

import io.jrdma.cm.CmId;
import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.tools.perf.BwResult;
import io.jrdma.tools.perf.BwStats;
import io.jrdma.tools.perf.LatStats;
import io.jrdma.tools.perf.PerfResult;
import io.jrdma.tools.perf.ReportUnit;
import io.jrdma.tools.perf.RunMonitor;
import io.jrdma.tools.perf.TestInfo.Verb;
import io.jrdma.tools.rdma.Cleanup;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;

/**
 * The measured side of a perftest run: the data QPs, their buffer and completion queues, and the
 * loops that post and poll, ported from perftest's behaviour so a Linux peer sees the same traffic.
 *
 * <p>Buffer layout as perftest's {@code alloc_ctx}/{@code ctx_init} with one MR: for QP {@code i}
 * the send (source) region is at {@code i * region} and the region the peer writes or reads (its
 * {@code vaddr}) at {@code (numQps + i) * region}, {@code region} being the larger of the largest
 * message and the cycle buffer (the page size), rounded to the cache line. Messages no larger
 * than half the cycle buffer walk through it in cache-line steps ({@code increase_loc_addr},
 * {@code increase_rem_addr}); larger ones always use the start.
 *
 * <p>Loops modelled on perftest v4.5-0.20 {@code src/perftest_resources.c}: {@code run_iter_bw}
 * (CQ moderation: a completion every {@code cqMod} messages and for the last; the TX depth bounds
 * what is outstanding; iWARP SEND credits), {@code run_iter_bw_server} (receives reposted as they
 * complete; every {@code rx_depth / 3} receives the count is RDMA WRITten back as a credit on
 * iWARP, which has no RNR flow control), {@code run_iter_lat_write} (each side polls the last byte
 * of its region for the iteration count), {@code run_iter_lat_send} and {@code run_iter_lat}.
 * Nothing is allocated per message; times come from {@link System#nanoTime()}.
 */
final class DataPath {

    /** perftest's completion poll batch ({@code CTX_POLL_BATCH}). */
    static final int POLL_BATCH = 16;

    /** The GRH room before a UD payload ({@code UD_ADDITION}). */
    static final int UD_ADDITION = 40;

    /** fetch-and-add's addend ({@code ATOMIC_ADD_VALUE}). */
    static final long ATOMIC_ADD_VALUE = 1;

    /** compare-and-swap's swap value ({@code ATOMIC_SWAP_VALUE}). */
    static final long ATOMIC_SWAP_VALUE = 0;

    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();
    private static final VarHandle INT = ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN).varHandle();
    private static final int CLOCK_CHECK_MASK = 0x3ff;
    private static final int SPINS_BEFORE_YIELD = 64;

    private final PerfTest test;
    private final Verb verb;
    private final boolean server;
    private final int numQps;
    private final boolean ud;
    private final boolean events;
    private final int txDepth;
    private final int rxDepth;
    private final int inlineSize;
    private final boolean credits;
    private final int cycleBuffer;
    private final int cacheLine;
    private final int region;
    private final Duration timeout;
    private final boolean compareAndSwap;
    private final int postList;
    private final Cleanup cleanup;
    private long[] lastPostTimes;
    private int lastIterations;

    private ProtectionDomain pd;
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private CompletionChannel channel;
    private MemorySegment buf;
    private MemoryRegion mr;
    private MemorySegment ctrl;
    private MemoryRegion creditMr;
    private final QueuePair[] qps;
    private final SendWr[] wr;
    private final RecvWr[] rwr;
    private final SendWr[] creditWr;
    private final long[] myAddr;
    private final long[] remAddr;
    private final int[] remKey;
    private final long[] rxBufferAddr;
    private final AddressHandle[] ah;
    private final int[] remoteQpn;
    private final int[] remoteQkey;
    private final WorkCompletion[] wc = new WorkCompletion[POLL_BATCH];
    private volatile boolean stalled;

    DataPath(PerfTest test, boolean server, int numQps, QpType type, boolean events, int txDepth, int rxDepth,
            int inlineSize, boolean credits, int cycleBuffer, int cacheLine, int maxSize, Duration timeout,
            boolean compareAndSwap, int postList, Cleanup cleanup) {
        this.test = test;
        this.verb = test.verb();
        this.server = server;
        this.numQps = numQps;
        this.ud = type == QpType.UD;
        this.events = events;
        this.txDepth = txDepth;
        this.rxDepth = rxDepth;
        this.inlineSize = inlineSize;
        this.credits = credits;
        this.cycleBuffer = cycleBuffer;
        this.cacheLine = cacheLine;
        // UD receives start cacheLine - 40 bytes into a slot and carry 40 bytes of GRH: one more cache line.
        this.region = roundUp(Math.max(maxSize, cycleBuffer) + (ud ? cacheLine : 0), cacheLine);
        this.timeout = timeout;
        this.compareAndSwap = compareAndSwap;
        this.postList = postList;
        this.cleanup = cleanup;
        qps = new QueuePair[numQps];
        wr = new SendWr[numQps];
        rwr = new RecvWr[numQps];
        creditWr = new SendWr[numQps];
        myAddr = new long[numQps];
        remAddr = new long[numQps];
        remKey = new int[numQps];
        rxBufferAddr = new long[numQps];
        ah = new AddressHandle[numQps];
        remoteQpn = new int[numQps];
        remoteQkey = new int[numQps];
        for (int i = 0; i < POLL_BATCH; i++) {
            wc[i] = new WorkCompletion();
        }
    }

    /** {@code INC}: the step between consecutive messages in the cycle buffer. */
    static int inc(int size, int cacheLine) {
        return size > cacheLine ? roundUp(size, cacheLine) : cacheLine;
    }

    static int roundUp(int v, int to) {
        return (v + to - 1) / to * to;
    }

    /**
     * {@code ctx_init}: the protection domain, completion queues (and channel with {@code -e}),
     * the buffer and its MR, and on iWARP SEND tests the credit buffer.
     *
     * @param ctx the device context of the first data connection
     */
    void init(Context ctx) {
        pd = cleanup.add(ctx.allocPd());
        if (events) {
            channel = cleanup.add(ctx.createCompletionChannel());
        }
        sendCq = cleanup.add(ctx.createCq(Math.max(2, (txDepth + 2) * numQps + (credits ? numQps * 2 : 0)), channel,
                0));
        recvCq = cleanup.add(ctx.createCq(Math.max(2, (rxDepth + 2) * numQps), channel, 0));
        Arena arena = cleanup.add(Arena.ofShared());
        long length = 2L * numQps * region;
        int access = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ
                | (verb == Verb.ATOMIC ? Access.REMOTE_ATOMIC : 0);
        if (length <= Integer.MAX_VALUE - 8192) {
            // A direct ByteBuffer, page-aligned as perftest's memalign: siw sends large payloads of
            // such regions straight from them (MrImpl.plainBuffer); arena memory is copied first.
            ByteBuffer direct = ByteBuffer.allocateDirect((int) length + 8191).alignedSlice(4096).limit((int) length);
            buf = MemorySegment.ofBuffer(direct);
            mr = cleanup.add(pd.registerMemory(direct, access));
        } else {
            buf = arena.allocate(length, 4096);
            mr = cleanup.add(pd.registerMemory(buf, access));
        }
        if (credits) {
            ctrl = arena.allocate(2L * numQps * Integer.BYTES, 8);
            creditMr = cleanup.add(pd.registerMemory(ctrl, Access.LOCAL_WRITE | Access.REMOTE_WRITE));
        }
        for (int i = 0; i < numQps; i++) {
            myAddr[i] = mr.address() + (long) i * region;
            rxBufferAddr[i] = mr.address() + (long) (numQps + i) * region;
        }
        if (events) {
            sendCq.requestNotify(false);
            recvCq.requestNotify(false);
        }
    }

    /**
     * Whether {@link #init} ran.
     *
     * @return true once the buffer exists
     */
    boolean initialized() {
        return pd != null;
    }

    /**
     * {@code create_qp_main} through rdma_cm for connection {@code i}.
     *
     * @param i the index
     * @param id the connection's id
     * @return the QP
     */
    QueuePair createQp(int i, CmId id) {
        QpCap cap = new QpCap(txDepth + 2 + (credits ? txDepth : 0), Math.max(rxDepth, 1) + 2, 1, 1, inlineSize);
        QpInitAttr attr = new QpInitAttr(ud ? QpType.UD : QpType.RC, sendCq, recvCq, null, cap, false);
        qps[i] = id.createQp(pd, attr);
        return qps[i];
    }

    /**
     * The protection domain (for address handles).
     *
     * @return the PD
     */
    ProtectionDomain pd() {
        return pd;
    }

    /**
     * The receive CQ (UD connection parameters arrive on it).
     *
     * @return the CQ
     */
    CompletionQueue recvCq() {
        return recvCq;
    }

    /**
     * The send CQ.
     *
     * @return the CQ
     */
    CompletionQueue sendCq() {
        return sendCq;
    }

    /**
     * The QP of connection {@code i}.
     *
     * @param i the index
     * @return the QP
     */
    QueuePair qp(int i) {
        return qps[i];
    }

    /**
     * The buffer's MR.
     *
     * @return the MR
     */
    MemoryRegion mr() {
        return mr;
    }

    /**
     * Sets the UD destination of connection {@code i}.
     *
     * @param i the index
     * @param handle the address handle
     * @param qpn the remote QPN
     * @param qkey the remote Q_Key
     */
    void udDestination(int i, AddressHandle handle, int qpn, int qkey) {
        ah[i] = handle;
        remoteQpn[i] = qpn;
        remoteQkey[i] = qkey;
    }

    /**
     * Creates an address handle.
     *
     * @param attr the address vector
     * @return the handle
     */
    AddressHandle createAh(AhAttr attr) {
        return cleanup.add(pd.createAh(attr));
    }

    /**
     * {@code set_up_connection}: this side's record for QP {@code i}; on iWARP SEND tests
     * ({@code ctx_alloc_credit}) the rkey and address are the credit buffer's.
     *
     * @param i the index
     * @param lid the port LID
     * @param outReads outstanding reads
     * @param psn the PSN
     * @param gid the GID
     * @param gidIndex the GID index
     * @return the record
     */
    PingpongDest localDest(int i, int lid, int outReads, int psn, byte[] gid, int gidIndex) {
        int rkey = mr.rkey();
        long vaddr = rxBufferAddr[i];
        if (credits) {
            rkey = creditMr.rkey();
            vaddr = creditMr.address() + (long) (numQps + i) * Integer.BYTES;
        }
        return new PingpongDest(lid, outReads, qps[i].qpNum(), psn, rkey, vaddr, gid, 0, gidIndex);
    }

    /**
     * {@code ctx_set_credit_wqes}: the RDMA WRITEs that carry credits to the peer's credit buffer.
     *
     * @param remote the peer's records
     */
    void setCreditWqes(PingpongDest[] remote) {
        if (!credits) {
            return;
        }
        for (int i = 0; i < numQps; i++) {
            creditWr[i] = new SendWr().wrId(i).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .sg(creditMr, (long) i * Integer.BYTES, Integer.BYTES).rdma(remote[i].vaddr(), remote[i].rkey());
        }
    }

    /** Zeroes the credit counters ({@code credit_buf[j] = 0} between sizes). */
    void resetCredits() {
        if (credits) {
            ctrl.fill((byte) 0);
        }
    }

    /**
     * {@code ctx_set_send_wqes} for one message size.
     *
     * @param remote the peer's records (address and rkey of RDMA operations)
     * @param size the message size
     * @param cqMod the CQ moderation
     */
    void setSendWqes(PingpongDest[] remote, int size, int cqMod) {
        for (int i = 0; i < numQps; i++) {
            SendWr w = wr[i] == null ? new SendWr() : wr[i].reset();
            wr[i] = w;
            w.wrId(i).sg(mr, myAddr[i] - mr.address(), size);
            int flags = cqMod == 1 ? SendFlags.SIGNALED : 0;
            if ((verb == Verb.SEND || verb == Verb.WRITE) && size <= inlineSize) {
                flags |= SendFlags.INLINE;
            }
            w.flags(flags);
            switch (verb) {
                case WRITE -> w.opcode(WrOpcode.RDMA_WRITE).rdma(remote[i].vaddr(), remote[i].rkey());
                case READ -> w.opcode(WrOpcode.RDMA_READ).rdma(remote[i].vaddr(), remote[i].rkey());
                case ATOMIC -> w.opcode(compareAndSwap ? WrOpcode.ATOMIC_CMP_AND_SWP : WrOpcode.ATOMIC_FETCH_AND_ADD)
                        .atomic(remote[i].vaddr(), remote[i].rkey(),
                                compareAndSwap ? 0 : ATOMIC_ADD_VALUE, compareAndSwap ? ATOMIC_SWAP_VALUE : 0);
                case SEND -> {
                    w.opcode(WrOpcode.SEND);
                    if (ud) {
                        w.ud(ah[i], remoteQpn[i], remoteQkey[i]);
                    }
                }
                default -> throw new IllegalStateException(verb.toString());
            }
            remAddr[i] = remote[i].vaddr();
            remKey[i] = remote[i].rkey();
            if (postList > 1) {
                chain(i, w, size, cqMod);
            }
        }
    }

    /**
     * {@code -l}: links {@code postList} copies of the QP's request, each a message further along the cycle
     * buffer (when messages fit half of it), every {@code cqMod}-th signaled, posted as one list.
     */
    private void chain(int q, SendWr head, int size, int cqMod) {
        int step = inc(size, cacheLine);
        boolean walk = size <= cycleBuffer / 2;
        int slots = walk ? cycleBuffer / step : 1;
        SendWr prev = head;
        for (int j = 0; j < postList; j++) {
            SendWr w = j == 0 ? head : new SendWr();
            if (j > 0) {
                w.wrId(q).opcode(head.opcode()).sg(mr, head.sge(0).addr() - mr.address(), size);
                if (walk) {
                    w.sge(0).addr(myAddr[q] + (long) (j % slots) * step);
                }
                long remote = remAddr[q] + (walk ? (long) (j % slots) * step : 0);
                switch (verb) {
                    case WRITE, READ -> w.rdma(remote, remKey[q]);
                    case ATOMIC -> w.atomic(remote, remKey[q], head.compareAdd(), head.swap());
                    case SEND -> {
                        if (ud) {
                            w.ud(ah[q], remoteQpn[q], remoteQkey[q]);
                        }
                    }
                    default -> throw new IllegalStateException(verb.toString());
                }
                prev.next(w);
                prev = w;
            }
            int flags = head.flags() & SendFlags.INLINE;
            if ((j + 1) % cqMod == 0) {
                flags |= SendFlags.SIGNALED;
            }
            w.flags(flags);
        }
        prev.next(null);
    }

    /**
     * {@code ctx_set_recv_wqes}: posts the receives of a SEND test ({@code rxDepth} per QP, capped
     * by the iterations) walking through the receive region.
     *
     * @param size the message size
     * @return receives posted per QP ({@code rposted})
     */
    int setRecvWqes(int size) {
        int length = ud ? size + UD_ADDITION : size;
        int step = inc(size, cacheLine);
        // UD receives stay on the first slot: walking, the next slot's GRH would land on this one's tail
        // (perftest walks anyway; where receives land is local and invisible to the peer).
        boolean walk = test.bandwidth() && !ud && size <= cycleBuffer / 2;
        for (int i = 0; i < numQps; i++) {
            long base = rxBufferAddr[i] + (ud ? cacheLine - UD_ADDITION : 0);
            RecvWr r = rwr[i] == null ? new RecvWr() : rwr[i];
            rwr[i] = r;
            r.wrId(i).sg(mr, base - mr.address(), length);
            for (int j = 0; j < rxDepth; j++) {
                if (qps[i].postRecv(r) != 1) {
                    throw new ToolFailure("Couldn't post recv Qp = " + i + ": counter=" + j + " (receive queue full)");
                }
                if (walk) {
                    long a = r.sge(0).addr() + step;
                    if ((j + 1) % (cycleBuffer / step) == 0) {
                        a = base;
                    }
                    r.sge(0).addr(a);
                }
            }
            r.sge(0).addr(base);
        }
        return rxDepth;
    }

    /** Marks the run as stalled (called by the run monitor's thread). */
    void stall() {
        stalled = true;
    }

    // ------------------------------------------------------------------ bandwidth, active side

    /**
     * {@code run_iter_bw}: posts {@code iterations} messages on every QP (or runs for a duration)
     * and computes the row as {@code print_report_bw}.
     *
     * @param size the message size
     * @param iterations per QP; ignored with a clock
     * @param cqMod CQ moderation
     * @param withPeak whether to compute the peak
     * @param unit the unit
     * @param durationSeconds {@code -D}, or 0
     * @param marginSeconds {@code -f}
     * @param monitor progress and stall watch
     * @return the row
     */
    BwResult runBw(int size, long iterations, int cqMod, boolean withPeak, ReportUnit unit, int durationSeconds,
            int marginSeconds, RunMonitor monitor) {
        boolean timed = durationSeconds > 0;
        long tot = timed ? 0 : iterations * numQps;
        boolean peak = withPeak && !timed;
        long[] tposted = peak ? new long[(int) tot] : null;
        long[] tcompleted = peak ? new long[(int) tot] : null;
        long[] scnt = new long[numQps];
        long[] ccnt = new long[numQps];
        long totscnt = 0;
        long totccnt = 0;
        long sampled = 0;
        int step = inc(size, cacheLine);
        boolean walk = size <= cycleBuffer / 2;
        int slots = walk ? cycleBuffer / step : 1;
        boolean list = postList > 1;
        if (!list) {
            for (int i = 0; i < numQps; i++) {
                wr[i].sge(0).addr(myAddr[i]);
                setRemote(i, remAddr[i]);
            }
        }
        stalled = false;
        long start = System.nanoTime();
        DurationClock clock = timed ? new DurationClock(start, durationSeconds, marginSeconds) : null;
        int idle = 0;
        while (totscnt < tot || totccnt < tot || (timed && clock.state() != DurationClock.END)) {
            for (int q = 0; q < numQps; q++) {
                SendWr w = wr[q];
                while ((timed || scnt[q] < iterations) && scnt[q] - ccnt[q] + postList <= txDepth) {
                    if (credits) {
                        long credit = Integer.toUnsignedLong((int) INT.getVolatile(ctrl, (long) (numQps + q) * 4));
                        long window = (scnt[q] + postList - credit) & 0xFFFF_FFFFL;
                        if (window >= rxDepth) {
                            break;
                        }
                    }
                    if (list) {
                        long now = System.nanoTime();
                        if (peak) {
                            tposted[(int) totscnt] = now;
                        }
                        if (timed && clock.advance(now) == DurationClock.END) {
                            break;
                        }
                        if (qps[q].postSend(w) != postList) {
                            throw new ToolFailure("Couldn't post send: qp " + q + " scnt=" + scnt[q]
                                    + " (send queue full for a list of " + postList + ")");
                        }
                        scnt[q] += postList;
                        totscnt += postList;
                        continue;
                    }
                    if (cqMod > 1 && scnt[q] % cqMod == 0 && !(!timed && scnt[q] == iterations - 1)) {
                        w.flags(w.flags() & ~SendFlags.SIGNALED);
                    }
                    long now = System.nanoTime();
                    if (peak) {
                        tposted[(int) totscnt] = now;
                    }
                    if (timed && clock.advance(now) == DurationClock.END) {
                        break;
                    }
                    if (qps[q].postSend(w) != 1) {
                        throw new ToolFailure("Couldn't post send: qp " + q + " scnt=" + scnt[q]
                                + " (send queue full)");
                    }
                    if (walk) {
                        long a = w.sge(0).addr() + step;
                        long r = remAddr(q, w) + step;
                        if ((scnt[q] + 1) % slots == 0) {
                            a = myAddr[q];
                            r = remAddr[q];
                        }
                        w.sge(0).addr(a);
                        if (verb != Verb.SEND) {
                            setRemote(q, r);
                        }
                    }
                    scnt[q]++;
                    totscnt++;
                    if (scnt[q] % cqMod == cqMod - 1 || (!timed && scnt[q] == iterations - 1)) {
                        w.flags(w.flags() | SendFlags.SIGNALED);
                    }
                }
            }
            if (totccnt < tot || (timed && totccnt < totscnt)) {
                if (events) {
                    awaitEvent(sendCq, "send completions");
                }
                int ne = sendCq.poll(wc, 0, POLL_BATCH);
                if (ne > 0) {
                    idle = 0;
                    long now = System.nanoTime();
                    for (int i = 0; i < ne; i++) {
                        WorkCompletion c = wc[i];
                        if (c.status() != WcStatus.SUCCESS) {
                            throw completionError("send", c, totscnt, totccnt);
                        }
                        ccnt[(int) c.wrId()] += cqMod;
                        totccnt += cqMod;
                        if (peak) {
                            tcompleted[(int) Math.min(totccnt, tot) - 1] = now;
                        }
                        if (timed && clock.state() == DurationClock.SAMPLE) {
                            sampled += cqMod;
                        }
                    }
                    monitor.progress(totccnt);
                } else {
                    idle = idleCheck(idle, "completions of the posted messages");
                }
            }
            if (timed) {
                clock.advance(System.nanoTime());
            }
        }
        long end = System.nanoTime();
        if (timed) {
            // Only every cqMod-th WR of a QP is signaled: a QP's trailing group after its last
            // signaled WR completes nothing, so count whole groups per QP.
            long signaled = 0;
            for (int q = 0; q < numQps; q++) {
                signaled += (scnt[q] - ccnt[q]) / cqMod;
            }
            drain(sendCq, signaled * cqMod, cqMod);
            return BwStats.fromInterval(size, sampled, Math.max(1, clock.sampleNanos()), unit);
        }
        if (peak) {
            return BwStats.fromTimestamps(size, tposted, tcompleted, (int) tot, postList, cqMod, true, unit);
        }
        return BwStats.fromInterval(size, tot, Math.max(1, end - start), unit);
    }

    private long remAddr(int q, SendWr w) {
        return w.remoteAddr();
    }

    private void setRemote(int q, long addr) {
        SendWr w = wr[q];
        switch (verb) {
            case WRITE, READ -> w.rdma(addr, remKey[q]);
            case ATOMIC -> w.atomic(addr, remKey[q], w.compareAdd(), w.swap());
            default -> {
                // SEND has no remote address
            }
        }
    }

    /** Polls what is still outstanding after a timed run so the QPs end quiet (bounded). */
    private void drain(CompletionQueue cq, long outstandingMessages, int cqMod) {
        long left = (outstandingMessages + cqMod - 1) / cqMod;
        long deadline = System.nanoTime() + timeout.toNanos();
        while (left > 0 && System.nanoTime() - deadline < 0) {
            int ne = cq.poll(wc, 0, POLL_BATCH);
            left -= ne;
            if (ne == 0) {
                Thread.onSpinWait();
            }
        }
    }

    // ------------------------------------------------------------------ bandwidth, SEND receiver

    /**
     * {@code run_iter_bw_server}: counts receives (reposting them) and, on iWARP, writes credits
     * back. The clock starts at the first receive; perftest prints no peak here.
     *
     * @param size the message size
     * @param iterations per QP; ignored with a duration
     * @param rposted receives already posted per QP
     * @param unit the unit
     * @param durationSeconds {@code -D}, or 0
     * @param marginSeconds {@code -f}
     * @param monitor progress and stall watch
     * @return the row
     */
    BwResult runBwServer(int size, long iterations, int rposted, ReportUnit unit, int durationSeconds,
            int marginSeconds, RunMonitor monitor) {
        boolean timed = durationSeconds > 0;
        long tot = timed ? 0 : iterations * numQps;
        long[] rcntQp = new long[numQps];
        long[] unused = new long[numQps];
        long[] posted = new long[numQps];
        long[] scredit = new long[numQps];
        long totScredit = 0;
        int creditStep = Math.max(1, rxDepth / 3);
        for (int i = 0; i < numQps; i++) {
            posted[i] = rposted;
        }
        int step = inc(size, cacheLine);
        boolean walk = !ud && size <= cycleBuffer / 2;
        int slots = walk ? cycleBuffer / step : 1;
        long rcnt = 0;
        long sampled = 0;
        long start = 0;
        boolean first = true;
        DurationClock clock = null;
        int idle = 0;
        stalled = false;
        while (rcnt < tot || (timed && (clock == null || clock.state() != DurationClock.END))) {
            if (events) {
                awaitEvent(recvCq, "receives");
            }
            int ne = recvCq.poll(wc, 0, POLL_BATCH);
            if (ne == 0) {
                idle = idleCheck(idle, "SEND messages from the client");
                if (timed && clock != null) {
                    clock.advance(System.nanoTime());
                }
                continue;
            }
            idle = 0;
            if (first) {
                start = System.nanoTime();
                if (timed) {
                    clock = new DurationClock(start, durationSeconds, marginSeconds);
                }
                first = false;
            }
            for (int i = 0; i < ne; i++) {
                WorkCompletion c = wc[i];
                int q = (int) c.wrId();
                if (c.status() != WcStatus.SUCCESS) {
                    throw completionError("receive", c, rcnt, rcnt);
                }
                rcntQp[q]++;
                rcnt++;
                unused[q]++;
                if (timed && clock.state() == DurationClock.SAMPLE) {
                    sampled++;
                }
                if ((timed || posted[q] + 1 <= iterations) && unused[q] >= 1) {
                    RecvWr r = rwr[q];
                    if (qps[q].postRecv(r) != 1) {
                        throw new ToolFailure("Couldn't post recv Qp=" + q + " rcnt=" + rcntQp[q]);
                    }
                    unused[q]--;
                    posted[q]++;
                    if (walk) {
                        long base = rxBufferAddr[q] + (ud ? cacheLine - UD_ADDITION : 0);
                        long a = r.sge(0).addr() + step;
                        if ((posted[q] + 1) % slots == 0) {
                            a = base;
                        }
                        r.sge(0).addr(a);
                    }
                }
                if (credits) {
                    long creditCnt = rcntQp[q] % rxDepth;
                    if (creditCnt % creditStep == 0) {
                        INT.setVolatile(ctrl, (long) q * 4, (int) rcntQp[q]);
                        while (scredit[q] == txDepth) {
                            int sne = sendCq.poll(wc, 0, 1);
                            if (sne > 0) {
                                if (wc[0].status() != WcStatus.SUCCESS) {
                                    throw completionError("credit write", wc[0], rcnt, rcnt);
                                }
                                scredit[(int) wc[0].wrId()]--;
                                totScredit--;
                            } else {
                                idleCheck(0, "credit write completions");
                            }
                        }
                        if (qps[q].postSend(creditWr[q]) != 1) {
                            throw new ToolFailure("Couldn't post send qp " + q + " credit = " + rcntQp[q]);
                        }
                        scredit[q]++;
                        totScredit++;
                    }
                }
            }
            monitor.progress(rcnt);
            if (timed) {
                clock.advance(System.nanoTime());
            }
        }
        long end = System.nanoTime();
        drain(sendCq, totScredit, 1);
        if (timed) {
            return BwStats.fromInterval(size, sampled, Math.max(1, clock.sampleNanos()), unit);
        }
        return BwStats.fromInterval(size, tot, Math.max(1, end - start), unit);
    }

    // ------------------------------------------------------------------ latency

    /**
     * {@code run_iter_lat_write}: WRITE ping-pong; each side polls the last byte of its region for
     * the count the peer wrote.
     *
     * @param size the message size
     * @param iterations round trips
     * @param durationSeconds {@code -D}, or 0
     * @param marginSeconds {@code -f}
     * @param monitor progress and stall watch
     * @return the row
     */
    PerfResult runLatWrite(int size, long iterations, int durationSeconds, int marginSeconds, RunMonitor monitor) {
        boolean timed = durationSeconds > 0;
        SendWr w = wr[0];
        w.sge(0).addr(myAddr[0]).length(size);
        int flags = SendFlags.SIGNALED | (size <= inlineSize ? SendFlags.INLINE : 0);
        w.flags(flags);
        setRemote(0, remAddr[0]);
        long postOffset = myAddr[0] - mr.address() + size - 1;
        long pollOffset = rxBufferAddr[0] - mr.address() + size - 1;
        long[] tposted = timed ? null : new long[(int) iterations];
        Histogram hist = timed ? new Histogram(3) : null;
        long scnt = 0;
        long ccnt = 0;
        long rcnt = 0;
        long sampled = 0;
        stalled = false;
        long start = System.nanoTime();
        DurationClock clock = timed ? new DurationClock(start, durationSeconds, marginSeconds) : null;
        long last = start;
        while (scnt < iterations || ccnt < iterations || rcnt < iterations
                || (timed && clock.state() != DurationClock.END)) {
            if ((timed || rcnt < iterations) && !(scnt < 1 && server)) {
                rcnt++;
                byte want = (byte) rcnt;
                int spins = 0;
                while ((byte) BYTE.getVolatile(buf, pollOffset) != want) {
                    if ((++spins & CLOCK_CHECK_MASK) == 0) {
                        if (timed && clock.advance(System.nanoTime()) == DurationClock.END) {
                            break;
                        }
                        checkStalled("RDMA WRITE from the peer");
                    }
                    // perftest spins on memory only; a software transport in application-driven mode
                    // places the peer's WRITE when this thread lets it: an empty poll is that call.
                    sendCq.poll(wc, 0, 0);
                    spinWait(spins);
                }
            }
            if (timed && clock.state() == DurationClock.END) {
                break;
            }
            if (timed || scnt < iterations) {
                long now = System.nanoTime();
                if (timed) {
                    if (clock.advance(now) == DurationClock.SAMPLE && scnt > 0) {
                        hist.recordValue(Math.max(1, (now - last) / 2));
                    }
                    last = now;
                } else {
                    tposted[(int) scnt] = now;
                }
                BYTE.setVolatile(buf, postOffset, (byte) ++scnt);
                if (qps[0].postSend(w) != 1) {
                    throw new ToolFailure("Couldn't post send: scnt=" + scnt);
                }
            }
            if (timed || ccnt < iterations) {
                pollOne(sendCq, "write completion");
                ccnt++;
                if (timed && clock.state() == DurationClock.SAMPLE) {
                    sampled++;
                }
            }
            monitor.progress(scnt);
        }
        return latResult(size, iterations, tposted, timed, sampled, clock, hist);
    }

    /**
     * {@code run_iter_lat_send}: SEND ping-pong; the server answers each receive.
     *
     * @param size the message size
     * @param iterations round trips
     * @param cqMod CQ moderation (1 in latency tests)
     * @param durationSeconds {@code -D}, or 0
     * @param marginSeconds {@code -f}
     * @param monitor progress and stall watch
     * @return the row
     */
    PerfResult runLatSend(int size, long iterations, int cqMod, int durationSeconds, int marginSeconds,
            RunMonitor monitor) {
        boolean timed = durationSeconds > 0;
        SendWr w = wr[0];
        w.sge(0).addr(myAddr[0]).length(size);
        int base = size <= inlineSize ? SendFlags.INLINE : 0;
        w.flags(base);
        long[] tposted = timed ? null : new long[(int) iterations];
        Histogram hist = timed ? new Histogram(3) : null;
        long scnt = 0;
        long rcnt = 0;
        long sampled = 0;
        int sizePerQp = rxDepth;
        stalled = false;
        long start = System.nanoTime();
        DurationClock clock = timed ? new DurationClock(start, durationSeconds, marginSeconds) : null;
        long last = start;
        while (scnt < iterations || rcnt < iterations || (timed && clock.state() != DurationClock.END)) {
            if ((timed || rcnt < iterations) && !(scnt < 1 && !server)) {
                int spins = 0;
                int ne;
                while (true) {
                    ne = recvCq.poll(wc, 0, 1);
                    if (ne > 0) {
                        break;
                    }
                    if ((++spins & CLOCK_CHECK_MASK) == 0) {
                        if (timed && clock.advance(System.nanoTime()) == DurationClock.END) {
                            break;
                        }
                        checkStalled("SEND from the peer");
                    }
                    if (events) {
                        awaitEvent(recvCq, "receives");
                    } else {
                        spinWait(spins);
                    }
                }
                if (ne > 0) {
                    if (wc[0].status() != WcStatus.SUCCESS) {
                        throw completionError("receive", wc[0], scnt, rcnt);
                    }
                    rcnt++;
                    if (timed && clock.state() == DurationClock.SAMPLE) {
                        sampled++;
                    }
                    if (timed || rcnt + sizePerQp <= iterations) {
                        if (qps[0].postRecv(rwr[(int) wc[0].wrId()]) != 1) {
                            throw new ToolFailure("Couldn't post recv: rcnt=" + rcnt);
                        }
                    }
                }
            }
            if (timed && clock.state() == DurationClock.END) {
                break;
            }
            if (timed || scnt < iterations) {
                long now = System.nanoTime();
                if (timed) {
                    if (clock.advance(now) == DurationClock.SAMPLE && scnt > 0) {
                        hist.recordValue(Math.max(1, (now - last) / 2));
                    }
                    last = now;
                } else {
                    tposted[(int) scnt] = now;
                }
                scnt++;
                boolean poll = scnt % cqMod == 0 || (!timed && scnt == iterations);
                w.flags(poll ? base | SendFlags.SIGNALED : base);
                if (qps[0].postSend(w) != 1) {
                    throw new ToolFailure("Couldn't post send: scnt=" + scnt);
                }
                if (poll) {
                    pollOne(sendCq, "send completion");
                }
            }
            monitor.progress(scnt);
        }
        return latResult(size, iterations, tposted, timed, sampled, clock, hist);
    }

    /**
     * {@code run_iter_lat}: one RDMA READ (or atomic) at a time, each waited for.
     *
     * @param size the message size
     * @param iterations operations
     * @param durationSeconds {@code -D}, or 0
     * @param marginSeconds {@code -f}
     * @param monitor progress and stall watch
     * @return the row
     */
    PerfResult runLatRead(int size, long iterations, int durationSeconds, int marginSeconds, RunMonitor monitor) {
        boolean timed = durationSeconds > 0;
        SendWr w = wr[0];
        w.sge(0).addr(myAddr[0]).length(size);
        w.flags(SendFlags.SIGNALED);
        setRemote(0, remAddr[0]);
        long[] tposted = timed ? null : new long[(int) iterations];
        Histogram hist = timed ? new Histogram(3) : null;
        long scnt = 0;
        long sampled = 0;
        stalled = false;
        long start = System.nanoTime();
        DurationClock clock = timed ? new DurationClock(start, durationSeconds, marginSeconds) : null;
        while (scnt < iterations || (timed && clock.state() != DurationClock.END)) {
            long now = System.nanoTime();
            if (timed) {
                if (clock.advance(now) == DurationClock.END) {
                    break;
                }
            } else {
                tposted[(int) scnt] = now;
            }
            scnt++;
            if (qps[0].postSend(w) != 1) {
                throw new ToolFailure("Couldn't post send: scnt=" + scnt);
            }
            pollOne(sendCq, "read completion");
            if (timed && clock.state() == DurationClock.SAMPLE) {
                sampled++;
                hist.recordValue(Math.max(1, System.nanoTime() - now));
            }
            monitor.progress(scnt);
        }
        return latResult(size, iterations, tposted, timed, sampled, clock, hist);
    }

    private PerfResult latResult(int size, long iterations, long[] tposted, boolean timed, long sampled,
            DurationClock clock, Histogram hist) {
        if (timed) {
            if (sampled == 0) {
                throw new ToolFailure("no round trip completed inside the sample window; lengthen -D or shorten -f");
            }
            return LatStats.fromDuration(size, sampled, Math.max(1, clock.sampleNanos()), test.rttFactor(), hist);
        }
        lastPostTimes = tposted;
        lastIterations = (int) iterations;
        return LatStats.fromPostTimes(size, tposted, (int) iterations, test.rttFactor());
    }

    /**
     * The samples of the last latency run by iterations, as perftest's {@code print_report_lat} takes them:
     * the time between consecutive posts, divided by the round-trip factor, in nanoseconds, in the order
     * measured.
     *
     * @return the samples (iterations - 1 of them)
     * @throws IllegalStateException when no latency run by iterations has run
     */
    double[] lastLatencySamples() {
        if (lastPostTimes == null) {
            throw new IllegalStateException("no latency run by iterations yet");
        }
        double[] s = new double[lastIterations - 1];
        for (int i = 0; i < s.length; i++) {
            s[i] = (double) (lastPostTimes[i + 1] - lastPostTimes[i]) / test.rttFactor();
        }
        return s;
    }

    private void pollOne(CompletionQueue cq, String what) {
        int spins = 0;
        while (true) {
            int ne = cq.poll(wc, 0, 1);
            if (ne > 0) {
                if (wc[0].status() != WcStatus.SUCCESS) {
                    throw completionError(what, wc[0], 0, 0);
                }
                return;
            }
            if ((++spins & CLOCK_CHECK_MASK) == 0) {
                checkStalled(what);
            }
            if (events) {
                awaitEvent(cq, what);
            } else {
                spinWait(spins);
            }
        }
    }

    /** {@code ctx_notify_events}: waits for the CQ's event, acknowledges it and re-arms. */
    private void awaitEvent(CompletionQueue cq, String what) {
        CompletionQueue got;
        try {
            got = channel.getEvent(timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ToolFailure("interrupted while waiting for " + what, e);
        }
        if (got == null) {
            throw new ToolFailure("no " + what + " within " + timeout.toSeconds() + " s (peer silent)");
        }
        channel.ackEvents(got, 1);
        got.requestNotify(false);
    }

    private int idleCheck(int idle, String what) {
        if ((++idle & CLOCK_CHECK_MASK) == 0) {
            checkStalled(what);
        }
        spinWait(idle);
        return idle;
    }

    /**
     * One idle turn of a busy-poll: a spin hint, and after {@link #SPINS_BEFORE_YIELD} turns a
     * yield, so the transport's own engine threads get a core when the pollers of both sides
     * share a small machine (the kernel's siw runs in softirq context and never needs this).
     */
    private static void spinWait(int idle) {
        if (idle > SPINS_BEFORE_YIELD) {
            Thread.yield();
        } else {
            Thread.onSpinWait();
        }
    }

    private void checkStalled(String what) {
        if (stalled) {
            throw new ToolFailure("the peer went silent: no " + what + " for " + timeout.toSeconds() + " s");
        }
    }

    private ToolFailure completionError(String what, WorkCompletion c, long scnt, long ccnt) {
        return new ToolFailure("Completion with error at " + (server ? "server" : "client") + ": " + what
                + " completed with status " + c.status() + " (scnt=" + scnt + ", ccnt=" + ccnt + ")");
    }

    // ------------------------------------------------------------------ verification (jrdma)

    /**
     * Fills every source slot of every QP with {@link PerfPattern} for a message size: the send
     * regions for SEND/WRITE, the advertised regions for READ (whose data the peer reads), zeroes the
     * regions data will land in.
     *
     * @param size the message size
     */
    void prepareVerification(int size) {
        int step = inc(size, cacheLine);
        int slots = size <= cycleBuffer / 2 ? cycleBuffer / step : 1;
        for (int i = 0; i < numQps; i++) {
            long src = (verb == Verb.READ ? rxBufferAddr[i] : myAddr[i]) - mr.address();
            long dst = (verb == Verb.READ ? myAddr[i] : rxBufferAddr[i]) - mr.address();
            buf.asSlice(dst, region).fill((byte) 0);
            for (int s = 0; s < slots; s++) {
                PerfPattern.fill(buf, src + (long) s * step, size);
            }
        }
    }

    /**
     * Rewrites this side's first source slot with the pattern (WRITE latency overwrites its last
     * byte with the count each iteration).
     *
     * @param size the message size
     */
    void refillSource(int size) {
        PerfPattern.fill(buf, myAddr[0] - mr.address(), size);
    }

    /**
     * Checks what landed on this side after a run of a jrdma peer that filled its source with
     * {@link PerfPattern}: every slot the run wrote holds the pattern (for WRITE latency, all but the
     * last byte, which must hold the iteration count); for fetch-and-add the slot counters add up
     * to the operations.
     *
     * @param size the message size
     * @param iterations messages (or round trips) per QP of the run
     * @param landsHere whether data lands on this side (the passive side of WRITE/SEND/atomics, the
     *     active side of READ, both sides of WRITE latency)
     * @return the outcome
     */
    Verification verify(int size, long iterations, boolean landsHere) {
        if (!landsHere) {
            return Verification.notApplicable();
        }
        if (verb == Verb.ATOMIC) {
            return verifyAtomics(iterations, inc(size, cacheLine));
        }
        int step = inc(size, cacheLine);
        boolean walk = test.bandwidth() && !(ud && test.usesReceives()) && size <= cycleBuffer / 2;
        int slots = walk ? (int) Math.min(iterations, cycleBuffer / step) : 1;
        int offset = test.usesReceives() && ud ? cacheLine : 0;
        boolean lastIsCount = test == PerfTest.WRITE_LAT;
        CRC32C crc = new CRC32C();
        int len = lastIsCount ? size - 1 : size;
        long expected = PerfPattern.crc(len);
        long bytes = 0;
        for (int i = 0; i < numQps; i++) {
            long base = (verb == Verb.READ ? myAddr[i] : rxBufferAddr[i]) - mr.address() + offset;
            for (int s = 0; s < slots; s++) {
                MemorySegment slot = buf.asSlice(base + (long) s * step, size);
                crc.reset();
                crc.update(slot.asSlice(0, len).asByteBuffer());
                if (crc.getValue() != expected) {
                    long at = PerfPattern.firstMismatch(slot, len);
                    return Verification.failed(bytes, "QP " + i + " slot " + s + ": byte " + at
                            + " differs from what the peer sent (crc32c 0x" + Long.toHexString(crc.getValue())
                            + ", expected 0x" + Long.toHexString(expected) + ")");
                }
                if (lastIsCount) {
                    byte count = slot.get(ValueLayout.JAVA_BYTE, size - 1);
                    if (count != (byte) iterations) {
                        return Verification.failed(bytes, "QP " + i + ": the last byte holds " + (count & 0xff)
                                + ", not the iteration count " + (iterations & 0xff) + " (mod 256)");
                    }
                }
                bytes += size;
            }
        }
        return Verification.passed(bytes, slots * numQps, expected);
    }

    private Verification verifyAtomics(long iterations, int step) {
        if (compareAndSwap) {
            return Verification.notApplicable();
        }
        int slots = cycleBuffer / step;
        for (int i = 0; i < numQps; i++) {
            long base = rxBufferAddr[i] - mr.address();
            long sum = 0;
            for (int s = 0; s < slots; s++) {
                sum += buf.get(ValueLayout.JAVA_LONG_UNALIGNED, base + (long) s * step);
            }
            if (sum != iterations) {
                return Verification.failed(0, "QP " + i + ": the fetch-and-add counters add up to " + sum + ", not "
                        + iterations);
            }
        }
        return Verification.passed(8L * slots * numQps, slots * numQps, iterations);
    }
}
