package io.jrdma.rxe;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.testkit.DataPattern;
import io.jrdma.testkit.Hygiene;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Counter;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.RecvWr;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Load on RoCE (issue 6, item 4): {@code jrdma.load.connections} (default {@value #DEFAULT_CONNECTIONS})
 * concurrent RC connections made through rdma_cm (IB CM over QP1) from rxe0 (127.0.0.1) to rxe1
 * (127.0.0.2) in this JVM, each keeping {@value #WINDOW} cycles in flight for {@code jrdma.load.seconds}
 * (default {@value #DEFAULT_SECONDS}): an RDMA WRITE of a fresh pattern into the passive side's region, a
 * SEND that carries its own CRC32C (checked by the passive side when its receive completes) and an RDMA
 * READ of the pattern back (compared byte for byte). Then every connection disconnects. Asserted: no READ
 * returns other bytes, no SEND arrives damaged, every WR completes exactly once and with SUCCESS, every
 * connection moved data, every id gets DISCONNECTED, and {@link Hygiene}. Prints {@code LOAD roce ...}
 * lines for docs/reliability.md.
 */
class RoceLoadIT {
    static final int DEFAULT_CONNECTIONS = 1000;
    static final int DEFAULT_SECONDS = 5;
    private static final int CONNECTIONS = Integer.getInteger("jrdma.load.connections", DEFAULT_CONNECTIONS);
    private static final Duration RUN = Duration.ofSeconds(Long.getLong("jrdma.load.seconds", DEFAULT_SECONDS));
    private static final int BYTES = Integer.getInteger("jrdma.load.bytes", 4096);
    private static final int WINDOW = 2;
    private static final int OPS = 3;
    private static final int SEND_BYTES = 64;
    private static final int RECEIVES = 8;
    private static final Duration CONNECT = Duration.ofSeconds(120);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    @RegisterExtension
    final Hygiene hygiene = new Hygiene();

    /** One connection, both ends. */
    private static final class Conn {
        final int index;
        final CmId active;
        QueuePair qp;
        MemoryRegion local;
        long seq;
        int inflight;
        long posted;
        long completed;
        final int[] left = new int[WINDOW];
        final BitSet done = new BitSet();
        boolean up;
        boolean down;

        Conn(int index, CmId active) {
            this.index = index;
            this.active = active;
        }
    }

    /** The passive end of a connection (requests arrive in any order: its own index). */
    private static final class Peer {
        final int index;
        final QueuePair qp;
        boolean down;

        Peer(int index, QueuePair qp) {
            this.index = index;
            this.qp = qp;
        }
    }

    private final Arena arena = Arena.ofShared();
    private final CRC32C crc = new CRC32C();
    private final List<Conn> conns = new ArrayList<>();
    private final Map<Integer, Peer> byPeerQpn = new HashMap<>();
    private final Map<WcStatus, Long> statuses = new EnumMap<>(WcStatus.class);
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private ProtectionDomain peerPd;
    private CompletionQueue peerCq;
    private MemoryRegion peerRegion;
    private MemoryRegion peerRecv;
    private long duplicates;
    private long corrupt;
    private long verified;
    private long written;
    private long sendsOk;
    private long received;
    private long receivedBad;

    @Test
    void aThousandRoceConnectionsMoveVerifiedDataWithoutLossOrCorruption() throws Exception {
        long heap0 = Hygiene.heapBytes();
        long direct0 = Hygiene.directBytes();
        try (RdmaCm cm0 = RdmaCm.open("rxe0"); RdmaCm cm1 = RdmaCm.open("rxe1")) {
            EventChannel ch0 = cm0.createEventChannel();
            EventChannel ch1 = cm1.createEventChannel();
            CmId listener = ch1.createId(null, PortSpace.TCP);
            listener.bind(new InetSocketAddress("127.0.0.2", 0));
            listener.listen(CONNECTIONS);
            long t0 = System.nanoTime();
            connectAll(ch0, ch1, new InetSocketAddress("127.0.0.2", listener.localPort()));
            long connectMs = (System.nanoTime() - t0) / 1_000_000;
            long heap1 = Hygiene.heapBytes();
            long direct1 = Hygiene.directBytes();
            long t1 = System.nanoTime();
            traffic(RUN);
            drain(Duration.ofSeconds(60));
            double secs = (System.nanoTime() - t1) / 1e9;
            long t2 = System.nanoTime();
            disconnectAll(ch0, ch1, Duration.ofSeconds(60));
            long disconnectMs = (System.nanoTime() - t2) / 1_000_000;
            listener.destroy();
            long wrs = posted();
            long moved = written + verified + sendsOk * SEND_BYTES;
            DeviceImpl d0 = (DeviceImpl) Rdma.device("rxe0");
            var c0 = ((RxeDevice) d0.providerDevice()).counters();
            System.out.printf("LOAD roce connections=%d connectMs=%d seconds=%.1f wrs=%d wrsPerSec=%.0f MiBPerSec=%.1f"
                    + " verifiedBytes=%d written=%d sends=%d received=%d receivedBad=%d corrupt=%d duplicates=%d"
                    + " statuses=%s disconnectMs=%d%n", CONNECTIONS, connectMs, secs, wrs, wrs / secs,
                    moved / secs / (1 << 20), verified, written, sendsOk, received, receivedBad, corrupt, duplicates,
                    statuses, disconnectMs);
            System.out.printf("LOAD roce memory heapBeforeMiB=%d heapConnectedMiB=%d directBeforeMiB=%d"
                    + " directConnectedMiB=%d rxe0 retransmits=%d rnrNaksReceived=%d dropped=%d%n", heap0 >> 20,
                    heap1 >> 20, direct0 >> 20, direct1 >> 20, c0.get(Counter.COMPLETER_RETRY_ERR),
                    c0.get(Counter.RCVD_RNR_ERR), c0.get(Counter.RCVD_DROPPED));
            assertThat(corrupt).as("READs that returned other bytes").isZero();
            assertThat(receivedBad).as("SENDs that arrived damaged").isZero();
            assertThat(duplicates).as("WRs completed twice").isZero();
            assertThat(outstanding()).as("WRs never completed").isZero();
            assertThat(statuses).containsOnlyKeys(WcStatus.SUCCESS);
            assertThat(received).as("every SEND received once").isEqualTo(sendsOk);
            for (Conn c : conns) {
                assertThat(c.completed).as("completions of connection " + c.index).isPositive();
            }
            ch0.close();
            ch1.close();
        } finally {
            arena.close();
        }
    }

    // ================================================================================== connect

    private void connectAll(EventChannel ch0, EventChannel ch1, InetSocketAddress at) throws Exception {
        for (int i = 0; i < CONNECTIONS; i++) {
            Conn c = new Conn(i, ch0.createId(null, PortSpace.TCP));
            c.active.context(c);
            conns.add(c);
            c.active.resolveAddr(null, at, Duration.ofSeconds(10));
        }
        long deadline = System.nanoTime() + CONNECT.toNanos();
        int up = 0;
        while (up < CONNECTIONS) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(up + " of " + CONNECTIONS + " connections established within " + CONNECT);
            }
            boolean idle = true;
            CmEvent e = ch0.pollEvent();
            if (e != null) {
                idle = false;
                Conn c = (Conn) e.id().context();
                CmEventType type = e.type();
                byte[] pdata = e.privateData();
                ch0.ackEvent(e);
                switch (type) {
                    case ADDR_RESOLVED -> c.active.resolveRoute(Duration.ofSeconds(10));
                    case ROUTE_RESOLVED -> openActive(c);
                    case ESTABLISHED -> {
                        MemorySegment p = MemorySegment.ofArray(pdata);
                        c.up = p.get(U32, 0) == peerRegion.rkey() && p.get(U64, 4) == peerRegion.address();
                        assertThat(c.up).as("the advertised region").isTrue();
                        up++;
                    }
                    default -> throw new AssertionError("connection " + c.index + ": " + type + " " + e.status());
                }
            }
            CmEvent p = ch1.pollEvent();
            if (p != null) {
                idle = false;
                CmEventType type = p.type();
                CmId id = p.id();
                ch1.ackEvent(p);
                if (type == CmEventType.CONNECT_REQUEST) {
                    accept(id);
                } else if (type != CmEventType.ESTABLISHED) {
                    throw new AssertionError("passive side: " + type);
                }
            }
            if (idle) {
                Thread.onSpinWait();
            }
        }
    }

    private void openActive(Conn c) {
        if (pd == null) {
            pd = c.active.verbs().allocPd();
            cq = c.active.verbs().createCq(Math.max(1024, CONNECTIONS * WINDOW * OPS * 2));
        }
        c.qp = c.active.createQp(pd, QpInitAttr.rc(cq, new QpCap(WINDOW * OPS + 4, 4, 1, 1, 0)));
        long bytes = (long) WINDOW * (2L * BYTES + SEND_BYTES);
        c.local = pd.registerMemory(arena.allocate(bytes, 4096), Access.LOCAL_WRITE);
        c.active.connect(new ConnParam(null, 4, 4, false, 7, 7, false, 0));
    }

    private void accept(CmId id) {
        if (peerPd == null) {
            peerPd = id.verbs().allocPd();
            peerCq = id.verbs().createCq(Math.max(1024, CONNECTIONS * RECEIVES * 2));
            peerRegion = peerPd.registerMemory(arena.allocate((long) CONNECTIONS * WINDOW * BYTES, 4096),
                    Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ);
            peerRecv = peerPd.registerMemory(arena.allocate((long) CONNECTIONS * RECEIVES * SEND_BYTES, 64),
                    Access.LOCAL_WRITE);
        }
        Peer c = new Peer(byPeerQpn.size(), id.createQp(peerPd, QpInitAttr.rc(peerCq, new QpCap(4, RECEIVES, 1, 1,
                0))));
        id.context(c);
        byPeerQpn.put(c.qp.qpNum(), c);
        for (int i = 0; i < RECEIVES; i++) {
            postPeerReceive(c, i);
        }
        byte[] pdata = new byte[12];
        MemorySegment p = MemorySegment.ofArray(pdata);
        p.set(U32, 0, peerRegion.rkey());
        p.set(U64, 4, peerRegion.address());
        id.accept(new ConnParam(pdata, 4, 4, false, 7, 7, false, 0));
    }

    private void postPeerReceive(Peer c, int slot) {
        long off = ((long) c.index * RECEIVES + slot) * SEND_BYTES;
        if (c.qp.postRecv(new RecvWr().wrId(slot).sg(peerRecv, off, SEND_BYTES)) != 1) {
            throw new AssertionError("receive queue full on connection " + c.index);
        }
    }

    // ================================================================================== traffic

    private long regionOffset(Conn c, int slot) {
        return ((long) c.index * WINDOW + slot) * BYTES;
    }

    private static long seed(Conn c, long seq) {
        return (long) c.index << 32 | seq;
    }

    private void postCycle(Conn c) {
        long seq = c.seq++;
        int slot = (int) (seq % WINDOW);
        MemorySegment m = c.local.segment();
        long src = (long) slot * BYTES;
        long check = (long) WINDOW * BYTES + src;
        long so = 2L * WINDOW * BYTES + (long) slot * SEND_BYTES;
        DataPattern.fill(m, src, BYTES, seed(c, seq));
        m.set(U64, so + 4, seq);
        DataPattern.fill(m, so + 12, SEND_BYTES - 12, ~seed(c, seq));
        crc.reset();
        crc.update(m.asSlice(so + 4, SEND_BYTES - 4).asByteBuffer());
        m.set(U32, so, (int) crc.getValue());
        m.asSlice(check, BYTES).fill((byte) 0); // a READ that placed nothing cannot pass for the pattern
        long remote = peerRegion.address() + regionOffset(c, slot);
        long base = (long) c.index << 40 | seq << 2;
        c.left[slot] = OPS;
        c.inflight++;
        SendWr[] wrs = {
            new SendWr().wrId(base).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sg(c.local, src, BYTES)
                    .rdma(remote, peerRegion.rkey()),
            new SendWr().wrId(base | 2).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(c.local, so, SEND_BYTES),
            new SendWr().wrId(base | 1).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                    .sg(c.local, check, BYTES).rdma(remote, peerRegion.rkey()),
        };
        for (SendWr w : wrs) {
            if (c.qp.postSend(w) != 1) {
                throw new AssertionError("send queue full on connection " + c.index);
            }
            c.posted++;
        }
    }

    private final WorkCompletion[] wc = newCompletions();

    private static WorkCompletion[] newCompletions() {
        WorkCompletion[] a = new WorkCompletion[256];
        for (int i = 0; i < a.length; i++) {
            a[i] = new WorkCompletion();
        }
        return a;
    }

    private int pollActive() {
        int n = cq.poll(wc, 0, wc.length);
        for (int i = 0; i < n; i++) {
            long id = wc[i].wrId();
            Conn c = conns.get((int) (id >>> 40));
            long seq = (id >>> 2) & ((1L << 38) - 1);
            int op = (int) (id & 3);
            WcStatus st = wc[i].status();
            statuses.merge(st, 1L, Long::sum);
            int bit = Math.toIntExact(seq * OPS + op);
            if (c.done.get(bit)) {
                duplicates++;
                continue;
            }
            c.done.set(bit);
            c.completed++;
            int slot = (int) (seq % WINDOW);
            if (st == WcStatus.SUCCESS) {
                if (op == 1) {
                    long check = (long) WINDOW * BYTES + (long) slot * BYTES;
                    if (DataPattern.matches(c.local.segment(), check, BYTES, seed(c, seq))) {
                        verified += BYTES;
                    } else {
                        corrupt++;
                    }
                } else if (op == 0) {
                    written += BYTES;
                } else {
                    sendsOk++;
                }
            }
            if (--c.left[slot] == 0) {
                c.inflight--;
            }
        }
        return n;
    }

    private int pollPassive() {
        int n = peerCq.poll(wc, 0, wc.length);
        for (int i = 0; i < n; i++) {
            if (wc[i].status() != WcStatus.SUCCESS) {
                assertThat(wc[i].status()).as("a passive receive ends only by a flush").isEqualTo(
                        WcStatus.WR_FLUSH_ERR);
                continue; // the receives left at a disconnect
            }
            Peer c = byPeerQpn.get(wc[i].qpNum());
            int slot = (int) wc[i].wrId();
            long off = ((long) c.index * RECEIVES + slot) * SEND_BYTES;
            int len = wc[i].byteLen();
            MemorySegment m = peerRecv.segment();
            crc.reset();
            crc.update(m.asSlice(off + 4, len - 4).asByteBuffer());
            if (len != SEND_BYTES || (int) crc.getValue() != m.get(U32, off)) {
                receivedBad++;
            }
            received++;
            postPeerReceive(c, slot);
        }
        return n;
    }

    private void traffic(Duration d) {
        long end = System.nanoTime() + d.toNanos();
        while (System.nanoTime() < end) {
            for (Conn c : conns) {
                if (c.inflight < WINDOW) {
                    postCycle(c);
                }
            }
            if (pollActive() + pollPassive() == 0) {
                Thread.onSpinWait();
            }
        }
    }

    private long posted() {
        long p = 0;
        for (Conn c : conns) {
            p += c.posted;
        }
        return p;
    }

    private long outstanding() {
        long o = 0;
        for (Conn c : conns) {
            o += c.posted - c.completed;
        }
        return o;
    }

    private void drain(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (outstanding() > 0 || received < sendsOk) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(outstanding() + " WRs still outstanding after " + timeout);
            }
            if (pollActive() + pollPassive() == 0) {
                Thread.onSpinWait();
            }
        }
    }

    // ================================================================================== disconnect

    private void disconnectAll(EventChannel ch0, EventChannel ch1, Duration timeout) {
        for (Conn c : conns) {
            c.active.disconnect();
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        int down = 0;
        while (down < 2 * CONNECTIONS) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(down + " of " + 2 * CONNECTIONS + " DISCONNECTED within " + timeout);
            }
            boolean idle = true;
            for (EventChannel ch : new EventChannel[] {ch0, ch1}) {
                CmEvent e = ch.pollEvent();
                if (e == null) {
                    continue;
                }
                idle = false;
                CmEventType type = e.type();
                CmId id = e.id();
                ch.ackEvent(e);
                if (type == CmEventType.DISCONNECTED) {
                    if (ch == ch0) {
                        Conn c = (Conn) id.context();
                        assertThat(c.down).as("a second DISCONNECTED on connection " + c.index).isFalse();
                        c.down = true;
                        assertThat(c.qp.state()).isEqualTo(QpState.ERR);
                    } else {
                        Peer c = (Peer) id.context();
                        assertThat(c.down).as("a second DISCONNECTED on passive end " + c.index).isFalse();
                        c.down = true;
                    }
                    id.destroyQp();
                    id.destroy();
                    down++;
                }
            }
            if (idle) {
                pollActive();
                pollPassive();
                Thread.onSpinWait();
            }
        }
        for (Conn c : conns) {
            c.local.close();
        }
        peerRegion.close();
        peerRecv.close();
        cq.close();
        peerCq.close();
        pd.close();
        peerPd.close();
    }
}
