package io.jrdma.testkit;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
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
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * The surviving (active) side of the fault and load tests: {@code n} RC connections through rdma_cm on
 * one device (siw0, rxe0, ...) to a {@link PeerMain}, one PD and CQ, and a traffic driver that keeps {@link #window} cycles in
 * flight per connection, each cycle an RDMA WRITE of a fresh pattern into the peer's region, a SEND that
 * carries its own CRC32C (the peer verifies it) and an RDMA READ of the pattern back (verified byte for
 * byte; iWARP and IB RC both execute a READ after the WRITE before it). Every WR id is unique; a completion seen twice,
 * a READ that returns other bytes, or a WR that never completes is counted.
 */
public final class Fleet implements AutoCloseable {
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** Bytes of a SEND. */
    public static final int SEND_BYTES = 64;
    private static final int OPS = 3;
    /** Marks the WR id of a receive. */
    private static final long RECEIVE = 1L << 62;

    /** One connection. */
    public static final class Conn {
        /** The connection's index in {@link #conns()}. */
        public final int index;
        /** Its rdma_cm id. */
        public final CmId id;
        /** Its QP. */
        public QueuePair qp;
        MemoryRegion local;
        int rkey;
        long raddr;
        boolean established;
        long nextSeq;
        int inflight;
        /** WRs posted on it. */
        public long posted;
        /** WRs completed (each once). */
        public long completed;
        final BitSet done = new BitSet();
        int[] cycleLeft;

        Conn(int index, CmId id) {
            this.index = index;
            this.id = id;
        }
    }

    private final int opBytes;
    private final int window;
    private final RdmaCm cm;
    private final EventChannel channel;
    private final Arena arena = Arena.ofShared();
    private final List<Conn> conns = new ArrayList<>();
    private final List<CmEvent> otherEvents = new ArrayList<>();
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private final WorkCompletion[] wc;
    private final CRC32C crc = new CRC32C();
    private ConnParam connParam = new ConnParam(null, 16, 16, false, 7, 7, false, 0);
    private int ackTimeout = -1;
    /** Completions by status. */
    public final Map<WcStatus, Long> statuses = new EnumMap<>(WcStatus.class);
    /** Completions seen a second time. */
    public long duplicates;
    /** Receive completions, and whether each was seen. */
    public final BitSet receivesDone = new BitSet();
    /** Receives posted. */
    public long receivesPosted;
    /** READs whose bytes differ from what the WRITE before them wrote. */
    public long corrupt;
    /** Bytes READ back and verified. */
    public long bytesVerified;
    /** Bytes WRITten and confirmed. */
    public long bytesWritten;
    /** SENDs completed successfully (each verified by the peer). */
    public long sendsOk;

    /** A fleet on {@code device} moving {@code opBytes} per WRITE/READ, {@code window} cycles per connection. */
    public Fleet(String device, int opBytes, int window) {
        this.cm = RdmaCm.open(device);
        this.channel = cm.createEventChannel();
        this.opBytes = opBytes;
        this.window = window;
        this.wc = new WorkCompletion[256];
        for (int i = 0; i < wc.length; i++) {
            wc[i] = new WorkCompletion();
        }
    }

    /** The connections. */
    public List<Conn> conns() {
        return conns;
    }

    /** The conn_param of every later connect (default: 16/16 resources, retry and RNR retry 7). */
    public Fleet connParam(ConnParam p) {
        this.connParam = p;
        return this;
    }

    /** The ACK timeout ({@code rdma_set_ack_timeout}) of every later connection; -1 leaves the CM's. */
    public Fleet ackTimeout(int t) {
        this.ackTimeout = t;
        return this;
    }

    /** Opens {@code n} connections to {@code remote}; fails unless all are established within {@code timeout}. */
    public void connect(InetSocketAddress remote, int n, Duration timeout) throws InterruptedException {
        for (int i = 0; i < n; i++) {
            Conn c = new Conn(i, channel.createId(null, PortSpace.TCP));
            c.id.context(c);
            if (ackTimeout >= 0) {
                c.id.setAckTimeout(ackTimeout);
            }
            conns.add(c);
            c.id.resolveAddr(null, remote, Duration.ofSeconds(10));
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        int up = 0;
        while (up < n) {
            long left = deadline - System.nanoTime();
            CmEvent e = left > 0 ? channel.getEvent(Duration.ofNanos(left)) : null;
            if (e == null) {
                throw new AssertionError(up + " of " + n + " connections established within " + timeout);
            }
            Conn c = (Conn) e.id().context();
            CmEventType type = e.type();
            byte[] pdata = e.privateData();
            channel.ackEvent(e);
            switch (type) {
                case ADDR_RESOLVED -> c.id.resolveRoute(Duration.ofSeconds(10));
                case ROUTE_RESOLVED -> open(c);
                case ESTABLISHED -> {
                    MemorySegment p = MemorySegment.ofArray(pdata);
                    c.rkey = p.get(U32, 0);
                    c.raddr = p.get(U64, 4);
                    c.established = true;
                    up++;
                }
                default -> throw new AssertionError("connection " + c.index + ": " + type);
            }
        }
    }

    private void open(Conn c) {
        if (pd == null) {
            pd = c.id.verbs().allocPd();
            cq = c.id.verbs().createCq(Math.max(1024, conns.size() * window * OPS * 2));
        }
        c.qp = c.id.createQp(pd, QpInitAttr.rc(cq, new QpCap(window * OPS + 4, 4, 1, 1, 0)));
        long bytes = (long) window * (2L * opBytes + SEND_BYTES);
        c.local = pd.registerMemory(arena.allocate(bytes, 4096), Access.LOCAL_WRITE);
        c.cycleLeft = new int[window];
        c.id.connect(connParam);
    }

    private long srcOff(int slot) {
        return (long) slot * opBytes;
    }

    private long checkOff(int slot) {
        return (long) window * opBytes + (long) slot * opBytes;
    }

    private long sendOff(int slot) {
        return 2L * window * opBytes + (long) slot * SEND_BYTES;
    }

    private static long seed(Conn c, long seq) {
        return (long) c.index << 32 | seq;
    }

    /** Posts the next cycle of {@code c} if its window has room; returns whether it did. */
    public boolean postCycle(Conn c) {
        if (c.inflight >= window || !c.established) {
            return false;
        }
        long seq = c.nextSeq++;
        int slot = (int) (seq % window);
        MemorySegment m = c.local.segment();
        DataPattern.fill(m, srcOff(slot), opBytes, seed(c, seq));
        long so = sendOff(slot);
        m.set(U64, so + 4, seq);
        DataPattern.fill(m, so + 12, SEND_BYTES - 12, ~seed(c, seq));
        crc.reset();
        crc.update(m.asSlice(so + 4, SEND_BYTES - 4).asByteBuffer());
        m.set(U32, so, (int) crc.getValue());
        long remote = c.raddr + (long) slot * opBytes;
        long base = (long) c.index << 40 | seq << 2;
        c.cycleLeft[slot] = OPS;
        c.inflight++;
        SendWr w = new SendWr().wrId(base).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                .sg(c.local, srcOff(slot), opBytes).rdma(remote, c.rkey);
        SendWr r = new SendWr().wrId(base | 1).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                .sg(c.local, checkOff(slot), opBytes).rdma(remote, c.rkey);
        SendWr s = new SendWr().wrId(base | 2).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
                .sg(c.local, so, SEND_BYTES);
        // WRITE, SEND, READ: the READ's response comes after the peer placed the SEND (one TCP stream), so a
        // cycle ends only once its SEND took one of the peer's receives; the peer keeps far more posted.
        for (SendWr x : new SendWr[] {w, s, r}) {
            if (c.qp.postSend(x) != 1) {
                throw new AssertionError("send queue full on connection " + c.index);
            }
            c.posted++;
        }
        return true;
    }

    /** Posts {@code n} receives on {@code c} (they wait for SENDs the peer never makes). */
    public void postReceives(Conn c, int n) {
        for (int i = 0; i < n; i++) {
            long id = RECEIVE | receivesPosted;
            if (c.qp.postRecv(new io.jrdma.verbs.RecvWr().wrId(id).sg(c.local, sendOff(0), SEND_BYTES)) != 1) {
                throw new AssertionError("receive queue full");
            }
            receivesPosted++;
        }
    }

    /** Polls the CQ once; returns the completions handled. */
    public int poll() {
        int n = cq.poll(wc, 0, wc.length);
        for (int i = 0; i < n; i++) {
            long id = wc[i].wrId();
            if ((id & RECEIVE) != 0) {
                statuses.merge(wc[i].status(), 1L, Long::sum);
                int r = (int) (id & ~RECEIVE);
                if (receivesDone.get(r)) {
                    duplicates++;
                }
                receivesDone.set(r);
                continue;
            }
            Conn c = conns.get((int) (id >>> 40));
            long seq = (id >>> 2) & ((1L << 38) - 1);
            int op = (int) (id & 3);
            int bit = Math.toIntExact(seq * OPS + op);
            WcStatus st = wc[i].status();
            statuses.merge(st, 1L, Long::sum);
            if (c.done.get(bit)) {
                duplicates++;
                continue;
            }
            c.done.set(bit);
            c.completed++;
            int slot = (int) (seq % window);
            if (st == WcStatus.SUCCESS && op == 1) {
                if (DataPattern.matches(c.local.segment(), checkOff(slot), opBytes, seed(c, seq))) {
                    bytesVerified += opBytes;
                } else {
                    corrupt++;
                }
            } else if (st == WcStatus.SUCCESS && op == 0) {
                bytesWritten += opBytes;
            } else if (st == WcStatus.SUCCESS && op == 2) {
                sendsOk++;
            }
            if (--c.cycleLeft[slot] == 0) {
                c.inflight--;
            }
        }
        return n;
    }

    /** Runs traffic on every connection for {@code d} (or until {@code stop} says so). */
    public void run(Duration d, java.util.function.BooleanSupplier stop) {
        long end = System.nanoTime() + d.toNanos();
        while (System.nanoTime() < end && !stop.getAsBoolean()) {
            for (Conn c : conns) {
                if (c.qp.state() == QpState.RTS) {
                    postCycle(c);
                }
            }
            if (poll() == 0) {
                Thread.onSpinWait();
            }
        }
    }

    /**
     * Runs traffic for at least {@code min} and until a READ has been verified, for at most {@code max}: the
     * warm-up before a fault. (A fixed 400 ms once verified no READ on a host with a load of 18.)
     *
     * @param min the shortest warm-up
     * @param max the longest
     */
    public void warmUp(Duration min, Duration max) {
        long minEnd = System.nanoTime() + min.toNanos();
        run(max, () -> bytesVerified > 0 && System.nanoTime() - minEnd >= 0);
    }

    /** WRs posted and not yet completed, over every connection. */
    public long outstanding() {
        long o = 0;
        for (Conn c : conns) {
            o += c.posted - c.completed;
        }
        return o + receivesPosted - receivesDone.cardinality();
    }

    /** Connections whose QP left RTS, with the events the CM queued for them. */
    public List<String> failed() {
        List<String> out = new ArrayList<>();
        for (Conn c : conns) {
            if (c.qp != null && c.qp.state() != QpState.RTS) {
                out.add(c.index + ":" + c.qp.state());
            }
        }
        for (CmEvent e : otherEvents) {
            out.add("event " + e.type() + " status " + e.status());
        }
        return out;
    }

    /** Total WRs posted. */
    public long posted() {
        long p = 0;
        for (Conn c : conns) {
            p += c.posted;
        }
        return p;
    }

    /** Polls until no WR is outstanding; fails after {@code timeout}. Returns how long it took. */
    public Duration drain(Duration timeout) {
        long t0 = System.nanoTime();
        long deadline = t0 + timeout.toNanos();
        while (outstanding() > 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(outstanding() + " WRs of " + posted() + " still outstanding after " + timeout);
            }
            if (poll() == 0) {
                Thread.onSpinWait();
            }
        }
        return Duration.ofNanos(System.nanoTime() - t0);
    }

    /** The next CM event within {@code timeout} (acknowledged), or {@code null}. */
    public CmEvent nextEvent(Duration timeout) throws InterruptedException {
        CmEvent e = channel.getEvent(timeout);
        if (e != null) {
            channel.ackEvent(e);
        }
        return e;
    }

    /** The next CM event of {@code type} within {@code timeout} (others are kept), with its id. */
    public CmEvent event(CmEventType type, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            CmEvent e = left > 0 ? channel.getEvent(Duration.ofNanos(left)) : null;
            if (e == null) {
                throw new AssertionError("no " + type + " within " + timeout + "; other events " + otherEvents);
            }
            channel.ackEvent(e);
            if (e.type() == type) {
                return e;
            }
            otherEvents.add(e);
        }
    }

    /**
     * Disconnects every connection gracefully (rdma_disconnect) and waits for each DISCONNECTED; returns
     * how long that took.
     */
    public Duration disconnectAll(Duration timeout) throws InterruptedException {
        long t0 = System.nanoTime();
        for (Conn c : conns) {
            c.id.disconnect();
        }
        int seen = 0;
        long deadline = t0 + timeout.toNanos();
        while (seen < conns.size()) {
            long left = deadline - System.nanoTime();
            CmEvent e = left > 0 ? channel.getEvent(Duration.ofNanos(left)) : null;
            if (e == null) {
                throw new AssertionError(seen + " of " + conns.size() + " DISCONNECTED within " + timeout);
            }
            if (e.type() == CmEventType.DISCONNECTED) {
                seen++;
            } else {
                otherEvents.add(e);
            }
            channel.ackEvent(e);
        }
        return Duration.ofNanos(System.nanoTime() - t0);
    }

    /** Disconnects and destroys every connection, then the resources and the CM. */
    @Override
    public void close() {
        for (Conn c : conns) {
            try {
                c.id.destroyQp();
            } catch (RuntimeException e) {
                // already gone
            }
            c.id.destroy();
            if (c.local != null) {
                c.local.close();
            }
        }
        if (cq != null) {
            cq.close();
        }
        if (pd != null) {
            pd.close();
        }
        channel.close();
        cm.close();
        arena.close();
    }
}
