package io.jrdma.tools.perftest;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.tools.perf.BwResult;
import io.jrdma.tools.perf.BwStats;
import io.jrdma.tools.perf.ReportUnit;
import io.jrdma.tools.perf.RunMonitor;
import io.jrdma.tools.perf.TestInfo.Verb;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;

/**
 * The bandwidth loops of a {@link DataPath}, as perftest's {@code run_iter_bw} (the active side:
 * as many messages outstanding per QP as the TX depth allows, a completion every {@code cqMod}
 * messages and for the last, iWARP SEND credits) and {@code run_iter_bw_server} (the SEND
 * receiver: receives reposted as they complete; every {@code rx_depth / 3} receives the count is
 * RDMA WRITten back as a credit on iWARP, which has no RNR flow control).
 *
 * <p>Nothing is allocated per message: the requests are {@link QpPosts}' and only their addresses
 * and flags move; the per-run counters are allocated before the clock starts.
 */
final class BandwidthLoops {

    private static final VarHandle INT = ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN).varHandle();

    private final Verb verb;
    private final int numQps;
    private final boolean ud;
    private final boolean events;
    private final int txDepth;
    private final int rxDepth;
    private final boolean credits;
    private final int cycleBuffer;
    private final int cacheLine;
    private final int postList;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final MemorySegment ctrl;
    private final QpPosts posts;
    private final QueuePair[] qps;
    private final SendWr[] wr;
    private final RecvWr[] rwr;
    private final SendWr[] creditWr;
    private final long[] myAddr;
    private final long[] remAddr;
    private final long[] rxBufferAddr;
    private final CqPoller poller;
    private final WorkCompletion[] wc;

    /**
     * The loops over a data path's resources.
     *
     * @param c the configuration
     * @param sendCq the send CQ
     * @param recvCq the receive CQ
     * @param ctrl the credit buffer, or null without credits
     * @param posts the QPs' requests
     * @param poller the completion handling
     */
    BandwidthLoops(PathConfig c, CompletionQueue sendCq, CompletionQueue recvCq, MemorySegment ctrl, QpPosts posts,
            CqPoller poller) {
        this.verb = c.verb();
        this.numQps = c.numQps();
        this.ud = c.ud();
        this.events = c.events();
        this.txDepth = c.txDepth();
        this.rxDepth = c.rxDepth();
        this.credits = c.credits();
        this.cycleBuffer = c.cycleBuffer();
        this.cacheLine = c.cacheLine();
        this.postList = c.postList();
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.ctrl = ctrl;
        this.posts = posts;
        this.qps = posts.qps;
        this.wr = posts.wr;
        this.rwr = posts.rwr;
        this.creditWr = posts.creditWr;
        this.myAddr = posts.myAddr;
        this.remAddr = posts.remAddr;
        this.rxBufferAddr = posts.rxBufferAddr;
        this.poller = poller;
        this.wc = poller.wc;
    }

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
        int step = DataPath.inc(size, cacheLine);
        boolean walk = size <= cycleBuffer / 2;
        int slots = walk ? cycleBuffer / step : 1;
        boolean list = postList > 1;
        if (!list) {
            for (int i = 0; i < numQps; i++) {
                wr[i].sge(0).addr(myAddr[i]);
                posts.setRemote(i, remAddr[i]);
            }
        }
        poller.clearStall();
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
                        long r = w.remoteAddr() + step;
                        if ((scnt[q] + 1) % slots == 0) {
                            a = myAddr[q];
                            r = remAddr[q];
                        }
                        w.sge(0).addr(a);
                        if (verb != Verb.SEND) {
                            posts.setRemote(q, r);
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
                    poller.awaitEvent(sendCq, "send completions");
                }
                int ne = sendCq.poll(wc, 0, DataPath.POLL_BATCH);
                if (ne > 0) {
                    idle = 0;
                    long now = System.nanoTime();
                    for (int i = 0; i < ne; i++) {
                        WorkCompletion c = wc[i];
                        if (c.status() != WcStatus.SUCCESS) {
                            throw poller.completionError("send", c, totscnt, totccnt);
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
                    idle = poller.idleCheck(idle, "completions of the posted messages");
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
            poller.drain(sendCq, signaled * cqMod, cqMod);
            return BwStats.fromInterval(size, sampled, Math.max(1, clock.sampleNanos()), unit);
        }
        if (peak) {
            return BwStats.fromTimestamps(size, tposted, tcompleted, (int) tot, postList, cqMod, true, unit);
        }
        return BwStats.fromInterval(size, tot, Math.max(1, end - start), unit);
    }

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
        int step = DataPath.inc(size, cacheLine);
        boolean walk = !ud && size <= cycleBuffer / 2;
        int slots = walk ? cycleBuffer / step : 1;
        long rcnt = 0;
        long sampled = 0;
        long start = 0;
        boolean first = true;
        DurationClock clock = null;
        int idle = 0;
        poller.clearStall();
        while (rcnt < tot || (timed && (clock == null || clock.state() != DurationClock.END))) {
            if (events) {
                poller.awaitEvent(recvCq, "receives");
            }
            int ne = recvCq.poll(wc, 0, DataPath.POLL_BATCH);
            if (ne == 0) {
                idle = poller.idleCheck(idle, "SEND messages from the client");
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
                    throw poller.completionError("receive", c, rcnt, rcnt);
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
                        long base = rxBufferAddr[q] + (ud ? cacheLine - DataPath.UD_ADDITION : 0);
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
                                    throw poller.completionError("credit write", wc[0], rcnt, rcnt);
                                }
                                scredit[(int) wc[0].wrId()]--;
                                totScredit--;
                            } else {
                                poller.idleCheck(0, "credit write completions");
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
        poller.drain(sendCq, totScredit, 1);
        if (timed) {
            return BwStats.fromInterval(size, sampled, Math.max(1, clock.sampleNanos()), unit);
        }
        return BwStats.fromInterval(size, tot, Math.max(1, end - start), unit);
    }
}
