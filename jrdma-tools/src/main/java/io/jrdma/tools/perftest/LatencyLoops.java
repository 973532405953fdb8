package io.jrdma.tools.perftest;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import org.HdrHistogram.Histogram;

import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.tools.perf.LatStats;
import io.jrdma.tools.perf.PerfResult;
import io.jrdma.tools.perf.RunMonitor;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;

/**
 * The latency loops of a {@link DataPath}, one message in flight on the first QP, as perftest's
 * {@code run_iter_lat_write} (WRITE ping-pong: each side polls the last byte of its region for the
 * iteration count), {@code run_iter_lat_send} (SEND ping-pong: the server answers each receive) and
 * {@code run_iter_lat} (one READ or atomic at a time, each waited for); and the samples of the last
 * run by iterations, as {@code print_report_lat} takes them.
 *
 * <p>Nothing is allocated per round trip: the post times (or, with {@code -D}, the histogram) are
 * allocated before the clock starts.
 */
final class LatencyLoops {

    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();
    private static final int CLOCK_CHECK_MASK = CqPoller.CLOCK_CHECK_MASK;

    private final PerfTest test;
    private final boolean server;
    private final boolean events;
    private final int rxDepth;
    private final int inlineSize;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final MemorySegment buf;
    private final MemoryRegion mr;
    private final QpPosts posts;
    private final QueuePair[] qps;
    private final SendWr[] wr;
    private final RecvWr[] rwr;
    private final long[] myAddr;
    private final long[] remAddr;
    private final long[] rxBufferAddr;
    private final CqPoller poller;
    private final WorkCompletion[] wc;
    private long[] lastPostTimes;
    private int lastIterations;

    /**
     * The loops over a data path's resources.
     *
     * @param c the configuration
     * @param sendCq the send CQ
     * @param recvCq the receive CQ
     * @param buf the buffer
     * @param mr the buffer's MR
     * @param posts the QPs' requests
     * @param poller the completion handling
     */
    LatencyLoops(PathConfig c, CompletionQueue sendCq, CompletionQueue recvCq, MemorySegment buf, MemoryRegion mr,
            QpPosts posts, CqPoller poller) {
        this.test = c.test();
        this.server = c.server();
        this.events = c.events();
        this.rxDepth = c.rxDepth();
        this.inlineSize = c.inlineSize();
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.buf = buf;
        this.mr = mr;
        this.posts = posts;
        this.qps = posts.qps;
        this.wr = posts.wr;
        this.rwr = posts.rwr;
        this.myAddr = posts.myAddr;
        this.remAddr = posts.remAddr;
        this.rxBufferAddr = posts.rxBufferAddr;
        this.poller = poller;
        this.wc = poller.wc;
    }

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
        posts.setRemote(0, remAddr[0]);
        long postOffset = myAddr[0] - mr.address() + size - 1;
        long pollOffset = rxBufferAddr[0] - mr.address() + size - 1;
        long[] tposted = timed ? null : new long[(int) iterations];
        Histogram hist = timed ? new Histogram(3) : null;
        long scnt = 0;
        long ccnt = 0;
        long rcnt = 0;
        long sampled = 0;
        poller.clearStall();
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
                        poller.checkStalled("RDMA WRITE from the peer");
                    }
                    // perftest spins on memory only; a software transport in application-driven mode
                    // places the peer's WRITE when this thread lets it: an empty poll is that call.
                    sendCq.poll(wc, 0, 0);
                    CqPoller.spinWait(spins);
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
                poller.pollOne(sendCq, "write completion");
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
        poller.clearStall();
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
                        poller.checkStalled("SEND from the peer");
                    }
                    if (events) {
                        poller.awaitEvent(recvCq, "receives");
                    } else {
                        CqPoller.spinWait(spins);
                    }
                }
                if (ne > 0) {
                    if (wc[0].status() != WcStatus.SUCCESS) {
                        throw poller.completionError("receive", wc[0], scnt, rcnt);
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
                    poller.pollOne(sendCq, "send completion");
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
        posts.setRemote(0, remAddr[0]);
        long[] tposted = timed ? null : new long[(int) iterations];
        Histogram hist = timed ? new Histogram(3) : null;
        long scnt = 0;
        long sampled = 0;
        poller.clearStall();
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
            poller.pollOne(sendCq, "read completion");
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
}
