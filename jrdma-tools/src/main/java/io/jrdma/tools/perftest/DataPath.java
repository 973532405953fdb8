package io.jrdma.tools.perftest;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.time.Duration;

import io.jrdma.cm.CmId;
import io.jrdma.tools.perf.BwResult;
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
 * <p>This class owns the resources ({@code ctx_init}) and hands the work to its parts, made once
 * the resources exist: {@link QpPosts} (each QP's requests and addresses), {@link BandwidthLoops}
 * and {@link LatencyLoops} (modelled on perftest v4.5-0.20 {@code src/perftest_resources.c}),
 * {@link CqPoller} (polling, CQ events, stalls) and {@link PayloadVerifier}. Nothing is allocated
 * per message; times come from {@link System#nanoTime()}.
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

    private final PathConfig config;
    private final Cleanup cleanup;

    private ProtectionDomain pd;
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private MemoryRegion mr;
    private QpPosts posts;
    private CqPoller poller;
    private BandwidthLoops bandwidth;
    private LatencyLoops latency;
    private PayloadVerifier verifier;

    DataPath(PerfTest test, boolean server, int numQps, QpType type, boolean events, int txDepth, int rxDepth,
            int inlineSize, boolean credits, int cycleBuffer, int cacheLine, int maxSize, Duration timeout,
            boolean compareAndSwap, int postList, Cleanup cleanup) {
        boolean ud = type == QpType.UD;
        // UD receives start cacheLine - 40 bytes into a slot and carry 40 bytes of GRH: one more cache line.
        int region = roundUp(Math.max(maxSize, cycleBuffer) + (ud ? cacheLine : 0), cacheLine);
        this.config = new PathConfig(test, test.verb(), server, numQps, ud, events, txDepth, rxDepth, inlineSize,
                credits, cycleBuffer, cacheLine, region, timeout, compareAndSwap, postList);
        this.cleanup = cleanup;
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
        PathConfig c = config;
        int numQps = c.numQps();
        pd = cleanup.add(ctx.allocPd());
        CompletionChannel channel = null;
        if (c.events()) {
            channel = cleanup.add(ctx.createCompletionChannel());
        }
        sendCq = cleanup.add(ctx.createCq(Math.max(2, (c.txDepth() + 2) * numQps + (c.credits() ? numQps * 2 : 0)),
                channel, 0));
        recvCq = cleanup.add(ctx.createCq(Math.max(2, (c.rxDepth() + 2) * numQps), channel, 0));
        Arena arena = cleanup.add(Arena.ofShared());
        long length = 2L * numQps * c.region();
        int access = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ
                | (c.verb() == Verb.ATOMIC ? Access.REMOTE_ATOMIC : 0);
        MemorySegment buf;
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
        MemorySegment ctrl = null;
        MemoryRegion creditMr = null;
        if (c.credits()) {
            ctrl = arena.allocate(2L * numQps * Integer.BYTES, 8);
            creditMr = cleanup.add(pd.registerMemory(ctrl, Access.LOCAL_WRITE | Access.REMOTE_WRITE));
        }
        posts = new QpPosts(c, mr, ctrl, creditMr);
        poller = new CqPoller(c, channel);
        bandwidth = new BandwidthLoops(c, sendCq, recvCq, ctrl, posts, poller);
        latency = new LatencyLoops(c, sendCq, recvCq, buf, mr, posts, poller);
        verifier = new PayloadVerifier(c, buf, mr, posts);
        if (c.events()) {
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
        PathConfig c = config;
        QpCap cap = new QpCap(c.txDepth() + 2 + (c.credits() ? c.txDepth() : 0), Math.max(c.rxDepth(), 1) + 2, 1, 1,
                c.inlineSize());
        QpInitAttr attr = new QpInitAttr(c.ud() ? QpType.UD : QpType.RC, sendCq, recvCq, null, cap, false);
        posts.qps[i] = id.createQp(pd, attr);
        return posts.qps[i];
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
        return posts.qps[i];
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
     * Creates an address handle.
     *
     * @param attr the address vector
     * @return the handle
     */
    AddressHandle createAh(AhAttr attr) {
        return cleanup.add(pd.createAh(attr));
    }

    /** See {@link QpPosts#udDestination}. */
    void udDestination(int i, AddressHandle handle, int qpn, int qkey) {
        posts.udDestination(i, handle, qpn, qkey);
    }

    /** See {@link QpPosts#localDest}. */
    PingpongDest localDest(int i, int lid, int outReads, int psn, byte[] gid, int gidIndex) {
        return posts.localDest(i, lid, outReads, psn, gid, gidIndex);
    }

    /** See {@link QpPosts#setCreditWqes}. */
    void setCreditWqes(PingpongDest[] remote) {
        posts.setCreditWqes(remote);
    }

    /** See {@link QpPosts#resetCredits}. */
    void resetCredits() {
        posts.resetCredits();
    }

    /** See {@link QpPosts#setSendWqes}. */
    void setSendWqes(PingpongDest[] remote, int size, int cqMod) {
        posts.setSendWqes(remote, size, cqMod);
    }

    /** See {@link QpPosts#setRecvWqes}. */
    int setRecvWqes(int size) {
        return posts.setRecvWqes(size);
    }

    /** Marks the run as stalled (called by the run monitor's thread). */
    void stall() {
        poller.stall();
    }

    /** See {@link BandwidthLoops#runBw}. */
    BwResult runBw(int size, long iterations, int cqMod, boolean withPeak, ReportUnit unit, int durationSeconds,
            int marginSeconds, RunMonitor monitor) {
        return bandwidth.runBw(size, iterations, cqMod, withPeak, unit, durationSeconds, marginSeconds, monitor);
    }

    /** See {@link BandwidthLoops#runBwServer}. */
    BwResult runBwServer(int size, long iterations, int rposted, ReportUnit unit, int durationSeconds,
            int marginSeconds, RunMonitor monitor) {
        return bandwidth.runBwServer(size, iterations, rposted, unit, durationSeconds, marginSeconds, monitor);
    }

    /** See {@link LatencyLoops#runLatWrite}. */
    PerfResult runLatWrite(int size, long iterations, int durationSeconds, int marginSeconds, RunMonitor monitor) {
        return latency.runLatWrite(size, iterations, durationSeconds, marginSeconds, monitor);
    }

    /** See {@link LatencyLoops#runLatSend}. */
    PerfResult runLatSend(int size, long iterations, int cqMod, int durationSeconds, int marginSeconds,
            RunMonitor monitor) {
        return latency.runLatSend(size, iterations, cqMod, durationSeconds, marginSeconds, monitor);
    }

    /** See {@link LatencyLoops#runLatRead}. */
    PerfResult runLatRead(int size, long iterations, int durationSeconds, int marginSeconds, RunMonitor monitor) {
        return latency.runLatRead(size, iterations, durationSeconds, marginSeconds, monitor);
    }

    /** See {@link LatencyLoops#lastLatencySamples}. */
    double[] lastLatencySamples() {
        if (latency == null) {
            throw new IllegalStateException("no latency run by iterations yet");
        }
        return latency.lastLatencySamples();
    }

    /** See {@link PayloadVerifier#prepareVerification}. */
    void prepareVerification(int size) {
        verifier.prepareVerification(size);
    }

    /** See {@link PayloadVerifier#refillSource}. */
    void refillSource(int size) {
        verifier.refillSource(size);
    }

    /** See {@link PayloadVerifier#verify}. */
    Verification verify(int size, long iterations, boolean landsHere) {
        return verifier.verify(size, iterations, landsHere);
    }
}
