package io.jrdma.cluster;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * One client queue pair of a host towards one peer on one transport, reconnecting until the host stops.
 * Each connection runs rounds: an RDMA WRITE of a verifiable pattern into one of the server's slots, a
 * SEND announcing it (sequence number, slot, length, and a pattern of its own; the server checks both), and
 * an RDMA READ of the server's read region, checked here. Every work request is signaled and must complete
 * exactly once, in posting order; an error ends the connection, the rest of its work requests must then
 * complete with flush errors, and the loop connects again after {@link #BACKOFF}.
 */
final class ClientLoop implements Runnable {
    /** Connect and resolve steps each wait at most this long. */
    static final Duration STEP_TIMEOUT = Duration.ofSeconds(5);
    /** A posted work request that has not completed after this long is lost. */
    static final long COMPLETION_TIMEOUT_NANOS = Duration.ofSeconds(30).toNanos();
    /**
     * The siw stall timeout every host runs with ({@code jrdma.siw.stallTimeoutMs}, siw's {@code LinkTimeouts}):
     * a siw QP that waits on its peer (an RDMA READ unanswered, bytes the socket does not take) and sees no byte
     * move for this long goes to ERROR and flushes. It must end well inside {@link #COMPLETION_TIMEOUT_NANOS}
     * (the check runs every quarter of it), or a READ to a peer whose socket vanished without a word counts as
     * lost instead of flushed: a partitioned host's TCP gives up a connection whose data its own egress filter
     * drops after about 8 s (Linux probes a local drop every 0.5 s, {@code tcp_retries2} times), its RST is
     * dropped too, and the other side, whose READ request was acknowledged, has nothing to send that would draw
     * a reset after the heal. siw's default stall (60 s) and keepalive (60 s idle) would flush that READ only
     * after the 30 s this loop waits. rxe's counterpart is {@link #ACK_TIMEOUT} with {@link #RETRIES}.
     */
    static final Duration SIW_STALL = Duration.ofSeconds(15);
    /** The pause between a failed or ended connection and the next attempt. */
    static final Duration BACKOFF = Duration.ofMillis(300);
    /**
     * The local ACK timeout of each connection ({@code rdma_set_ack_timeout}: 4.096 us * 2^18 = 1.07 s, what
     * rdma_cm derives from the default packet life time) and its retry count: with 6 retries (7 would be
     * "retry forever", as on Linux rxe) a RoCE queue pair whose peer died fails after about 7.5 s instead of
     * never. A shorter timeout fails healthy connections when a host is starved of CPU (12 host JVMs on 2
     * cores with 268 ms: RETRY_EXC_ERR between hosts nobody disrupted). iWARP leaves both to TCP.
     */
    static final int ACK_TIMEOUT = 18;
    /** See {@link #ACK_TIMEOUT}. */
    static final int RETRIES = 6;
    /** How long one wait on the completion channel lasts before the deadline is checked again. */
    static final Duration POLL_SLICE = Duration.ofMillis(50);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED;
    private static final int OPS = 3;
    /** The pause before the server's receive count is read again when it had no receive to spare. */
    private static final Duration CREDIT_PAUSE = Duration.ofMillis(1);

    private final HostMain host;
    private final HostMain.Transport transport;
    private final int peer;
    private final InetSocketAddress dst;
    private final int qp;
    private final long roundLimit;
    private final WorkCompletion[] wc = {new WorkCompletion()};
    private final SendWr write = new SendWr();
    private final SendWr send = new SendWr();
    private final SendWr read = new SendWr();
    private int generation;
    private long nextWrId;
    private boolean everUp;

    /**
     * @param roundLimit rounds per connection before it disconnects and the loop ends (the warm-up), or
     *        {@link Long#MAX_VALUE} to run until the host stops
     */
    ClientLoop(HostMain host, HostMain.Transport transport, int peer, String peerIp, int qp, long roundLimit) {
        this.host = host;
        this.transport = transport;
        this.peer = peer;
        this.dst = new InetSocketAddress(peerIp, transport.port());
        this.qp = qp;
        this.roundLimit = roundLimit;
    }

    @Override
    public void run() {
        while (!host.stopping()) {
            long tag = ConnStats.tag(host.id(), host.incarnation(), transport.index(), peer, qp, generation++);
            ConnStats s = new ConnStats(ConnStats.CLIENT, tag, dst.getHostString(), transport.name());
            try {
                once(s);
            } catch (RuntimeException e) {
                host.note("client " + Long.toHexString(tag) + " to " + dst + ": " + e);
                if (s.established) {
                    s.endedWithError = true;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (s.established) {
                host.record(s);
            }
            if (roundLimit != Long.MAX_VALUE) {
                return;
            }
            if (!s.established) {
                host.connectFailed();
            }
            host.pauseUnlessStopping(BACKOFF);
        }
    }

    private void once(ConnStats s) throws InterruptedException {
        try (EventChannel ch = transport.cm().createEventChannel(); Arena arena = Arena.ofShared()) {
            CmId id = ch.createId(null, PortSpace.TCP);
            ProtectionDomain pd = null;
            CompletionChannel cc = null;
            CompletionQueue cq = null;
            MemoryRegion mr = null;
            boolean hasQp = false;
            try {
                id.resolveAddr(null, dst, STEP_TIMEOUT);
                if (next(ch) != CmEventType.ADDR_RESOLVED) {
                    return;
                }
                id.resolveRoute(STEP_TIMEOUT);
                if (next(ch) != CmEventType.ROUTE_RESOLVED) {
                    return;
                }
                pd = id.verbs().allocPd();
                cc = id.verbs().createCompletionChannel();
                cq = id.verbs().createCq(4 * OPS, cc, 0);
                id.createQp(pd, QpInitAttr.rc(cq, QpCap.of(2 * OPS, 1)));
                hasQp = true;
                MemorySegment buf = arena.allocate(HostMain.WRITE_BYTES + HostMain.SEND_BYTES + HostMain.READ_BYTES + 8,
                        4096);
                mr = pd.registerMemory(buf, Access.LOCAL_WRITE);
                id.setAckTimeout(ACK_TIMEOUT);
                id.connect(ConnParam.defaults().withRetries(RETRIES, 7)
                        .withPrivateData(ByteBuffer.allocate(8).putLong(s.tag).array()));
                CmEvent est = nextEvent(ch);
                if (est == null || est.type() != CmEventType.ESTABLISHED) {
                    return;
                }
                s.established = true;
                if (!everUp) {
                    everUp = true;
                    host.firstEstablished();
                }
                ByteBuffer ad = ByteBuffer.wrap(est.privateData());
                if (ad.remaining() < HostMain.ADVERT_BYTES) {
                    throw new IllegalStateException("server advertised " + ad.remaining() + " bytes");
                }
                rounds(s, id.qp(), cq, cc, buf, mr, ad.getLong(), ad.getInt(), ad.getLong());
                try {
                    id.disconnect();
                } catch (RuntimeException e) {
                    // the peer or the QP is gone already: the connection ends either way
                }
                if (!s.endedWithError) {
                    awaitDisconnected(ch);
                }
            } finally {
                if (hasQp) {
                    id.destroyQp();
                }
                close(mr);
                close(cq);
                close(cc);
                close(pd);
                drain(ch);
                id.destroy();
            }
        }
    }

    private void rounds(ConnStats s, QueuePair q, CompletionQueue cq, CompletionChannel cc, MemorySegment buf,
            MemoryRegion mr, long raddr, int rkey, long readSeed) throws InterruptedException {
        final int w = HostMain.WRITE_BYTES;
        final int sb = HostMain.SEND_BYTES;
        final int r = HostMain.READ_BYTES;
        final long readWords = (HostMain.READ_REGION - r) / 8;
        final long creditAt = raddr + (long) HostMain.SLOTS * w + HostMain.READ_REGION;
        final long creditLocal = w + sb + r;
        long credits = HostMain.RECV_DEPTH;
        long seq = 0;
        nextWrId = 0;
        while (!host.stopping() && seq < roundLimit) {
            // iWARP has no RNR retry: a SEND may go only to a receive the server has posted, and a SEND
            // completes here once it is on the wire, so the server's count of posted receives is READ first
            // whenever the last one seen is used up (rxe would retry on RNR; both run the same rounds).
            while (seq >= credits) {
                read.reset().wrId(nextWrId).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                        .sg(mr, creditLocal, 8).rdma(creditAt, rkey);
                if (!postAndAwait(s, q, cq, cc, read, 1)) {
                    s.endedWithError = true;
                    return;
                }
                credits = buf.get(U64, creditLocal);
                if (seq >= credits) {
                    host.pauseUnlessStopping(CREDIT_PAUSE);
                    if (host.stopping()) {
                        return;
                    }
                }
            }
            int slot = (int) (seq % HostMain.SLOTS);
            Pattern.fill(buf, 0, w, Pattern.seed(s.tag, seq, 0));
            buf.set(U64, w, seq);
            buf.set(U32, w + 8, slot);
            buf.set(U32, w + 12, w);
            Pattern.fill(buf, w + HostMain.SEND_HEADER, sb - HostMain.SEND_HEADER, Pattern.seed(s.tag, seq, 1));
            long readOff = (seq * 4099 % readWords) * 8;
            write.reset().wrId(nextWrId).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sg(mr, 0, w)
                    .rdma(raddr + (long) slot * w, rkey);
            send.reset().wrId(nextWrId + 1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(mr, w, sb);
            read.reset().wrId(nextWrId + 2).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED).sg(mr, w + sb, r)
                    .rdma(raddr + (long) HostMain.SLOTS * w + readOff, rkey);
            write.next(send);
            send.next(read);
            boolean ok = postAndAwait(s, q, cq, cc, write, OPS);
            write.next(null);
            send.next(null);
            if (!ok) {
                s.endedWithError = true;
                return;
            }
            // The READ completed after the SEND: the SEND has landed (RDMA ordering), not only left.
            s.confirmed++;
            s.corrupt += Pattern.mismatches(buf, w + sb, r, readSeed, readOff);
            s.bytes += w + sb + r;
            if (host.marked()) {
                s.afterMark++;
            }
            seq++;
        }
    }

    /**
     * Posts the chain {@code first} of {@code n} work requests (ids from {@link #nextWrId} on) and awaits
     * their completions, which must come once each and in posting order; false if one failed, was lost, or
     * the chain could not be posted whole.
     */
    private boolean postAndAwait(ConnStats s, QueuePair q, CompletionQueue cq, CompletionChannel cc, SendWr first,
            int n) throws InterruptedException {
        long firstId = nextWrId;
        int posted = post(q, first);
        nextWrId += posted;
        s.posted += posted;
        if (n == OPS && posted >= 2) {
            s.sendsPosted++;
        }
        boolean ok = posted == n;
        long deadline = System.nanoTime() + COMPLETION_TIMEOUT_NANOS;
        for (int i = 0; i < posted; i++) {
            if (!awaitOne(cq, cc, deadline)) {
                s.lost += posted - i;
                host.note("connection " + Long.toHexString(s.tag) + ": " + (posted - i) + " work requests did not "
                        + "complete within " + Duration.ofNanos(COMPLETION_TIMEOUT_NANOS));
                return false;
            }
            WorkCompletion c = wc[0];
            if (c.wrId() != firstId + i) {
                s.order++;
            }
            if (c.status() == WcStatus.SUCCESS) {
                s.ok++;
                if (n == OPS && c.wrId() == firstId + 1) {
                    s.sends++;
                }
            } else {
                if (s.errors == 0) {
                    host.note("connection " + Long.toHexString(s.tag) + " to " + dst + ": " + c);
                }
                s.errors++;
                ok = false;
            }
        }
        return ok;
    }

    private static int post(QueuePair q, SendWr wr) {
        try {
            return q.postSend(wr);
        } catch (RuntimeException e) {
            return 0; // a QP in a state that takes no more work requests: nothing was posted
        }
    }

    /** Polls one completion into {@code wc[0]}, sleeping on the completion channel; false at the deadline. */
    private boolean awaitOne(CompletionQueue cq, CompletionChannel cc, long deadline) throws InterruptedException {
        while (true) {
            if (cq.poll(wc, 0, 1) == 1) {
                return true;
            }
            cq.requestNotify(false);
            if (cq.poll(wc, 0, 1) == 1) {
                return true;
            }
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            CompletionQueue ev = cc.getEvent(POLL_SLICE);
            if (ev != null) {
                cc.ackEvents(ev, 1);
            }
        }
    }

    private static CmEventType next(EventChannel ch) throws InterruptedException {
        CmEvent e = nextEvent(ch);
        return e == null ? null : e.type();
    }

    private static CmEvent nextEvent(EventChannel ch) throws InterruptedException {
        CmEvent e = ch.getEvent(STEP_TIMEOUT);
        if (e != null) {
            ch.ackEvent(e);
        }
        return e;
    }

    private static void awaitDisconnected(EventChannel ch) throws InterruptedException {
        long deadline = System.nanoTime() + STEP_TIMEOUT.toNanos();
        while (System.nanoTime() - deadline < 0) {
            CmEvent e = ch.getEvent(POLL_SLICE);
            if (e != null) {
                ch.ackEvent(e);
                if (e.type() == CmEventType.DISCONNECTED) {
                    return;
                }
            }
        }
    }

    /** Acknowledges events nobody waited for, so that destroying the id does not wait on them. */
    private static void drain(EventChannel ch) {
        for (int i = 0; i < 64; i++) {
            CmEvent e = ch.pollEvent();
            if (e == null) {
                return;
            }
            ch.ackEvent(e);
        }
    }

    private static void close(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            // released as far as it can be; the host's leak check counts what stays
        }
    }
}
