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
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;

/**
 * The far side of the fault and load tests, run in a child JVM ({@link ChildJvm}) so that it can be killed,
 * stopped or moved into another network namespace: a passive rdma_cm endpoint on one device that accepts any
 * number of connections, gives each a region the peer may write and read (its rkey and address travel in
 * the accept's private data), keeps receives posted, and checks every SEND it receives: a SEND carries
 * its own CRC32C in its first 4 bytes (over the rest).
 *
 * <p>Usage: {@code PeerMain BIND_ADDRESS REGION_BYTES RECEIVES RECV_BYTES [DEVICE]} (device siw0 unless
 * given). It prints {@code PORT n} once
 * listening, {@code ESTABLISHED k} per connection; on stdin it takes {@code stats} (prints {@code STATS
 * received=n bad=n bytes=n established=n disconnected=n drained=b} once the poller has drained the CQ
 * twice, or after 5 s with {@code drained=false}),
 * {@code reset} (destroys every id without a disconnect: TCP resets) and {@code exit}.
 */
public final class PeerMain {
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final int regionBytes;
    private final int receives;
    private final int recvBytes;
    private final RdmaCm cm;
    private final EventChannel channel;
    private final Arena arena = Arena.ofShared();
    private final List<Side> sides = new CopyOnWriteArrayList<>();
    private final Map<CmId, Side> byId = new ConcurrentHashMap<>();
    private final Map<Integer, Side> byQpn = new ConcurrentHashMap<>();
    private final AtomicLong received = new AtomicLong();
    private final AtomicLong bad = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong established = new AtomicLong();
    private final AtomicLong disconnected = new AtomicLong();
    /** Disconnected sides the poller tears down after its next drained poll. */
    private final ConcurrentLinkedQueue<Side> closing = new ConcurrentLinkedQueue<>();
    /** Polls that found the CQ empty (or emptied it); {@code stats} waits for two more. */
    private final AtomicLong drainedPolls = new AtomicLong();
    private ProtectionDomain pd;
    private CompletionQueue cq;

    /** One accepted connection. */
    private record Side(CmId id, QueuePair qp, MemoryRegion region, MemoryRegion recv) {
    }

    private PeerMain(String device, int regionBytes, int receives, int recvBytes) {
        this.cm = RdmaCm.open(device);
        this.channel = cm.createEventChannel();
        this.regionBytes = regionBytes;
        this.receives = receives;
        this.recvBytes = recvBytes;
    }

    /** Runs the peer (see the class comment for the arguments). */
    public static void main(String[] args) throws Exception {
        PeerMain p = new PeerMain(args.length > 4 ? args[4] : "siw0", Integer.parseInt(args[1]),
                Integer.parseInt(args[2]), Integer.parseInt(args[3]));
        p.run(args[0]);
    }

    private void run(String bind) throws Exception {
        CmId listener = channel.createId(null, PortSpace.TCP);
        listener.bind(new InetSocketAddress(bind, 0));
        listener.listen(2048);
        System.out.println("PORT " + listener.localPort());
        System.out.flush();
        Thread.ofPlatform().daemon().name("peer-commands").start(this::commands);
        Thread.ofPlatform().daemon().name("peer-poller").start(this::poll);
        while (true) {
            CmEvent e = channel.getEvent(Duration.ofSeconds(1));
            if (e == null) {
                continue;
            }
            CmEventType type = e.type();
            CmId id = e.id();
            channel.ackEvent(e);
            switch (type) {
                case CONNECT_REQUEST -> accept(id);
                case ESTABLISHED -> {
                    System.out.println("ESTABLISHED " + established.incrementAndGet());
                    System.out.flush();
                }
                case DISCONNECTED -> {
                    disconnected.incrementAndGet();
                    Side s = byId.remove(id);
                    if (s != null) {
                        // The poller tears it down once it has drained the CQ: RECVs completed before the
                        // disconnect may still wait there, and are counted and checked first.
                        closing.add(s);
                    } else {
                        id.destroy();
                    }
                }
                default -> {
                    // other events are not expected on the passive side
                }
            }
        }
    }

    private synchronized void accept(CmId id) {
        if (pd == null) {
            pd = id.verbs().allocPd();
            cq = id.verbs().createCq(Math.min(1 << 18, id.verbs().queryDevice().maxCqe()));
        }
        QueuePair qp = id.createQp(pd, QpInitAttr.rc(cq, new QpCap(64, receives, 1, 1, 0)));
        MemorySegment r = arena.allocate(regionBytes, 4096);
        MemoryRegion region = pd.registerMemory(r, Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ);
        MemoryRegion recv = pd.registerMemory(arena.allocate((long) receives * recvBytes, 64), Access.LOCAL_WRITE);
        Side s = new Side(id, qp, region, recv);
        for (int i = 0; i < receives; i++) {
            qp.postRecv(new RecvWr().wrId(i).sg(recv, (long) i * recvBytes, recvBytes));
        }
        sides.add(s);
        byId.put(id, s);
        byQpn.put(qp.qpNum(), s);
        byte[] pdata = new byte[12];
        MemorySegment pds = MemorySegment.ofArray(pdata);
        pds.set(U32, 0, region.rkey());
        pds.set(U64, 4, region.address());
        id.accept(new ConnParam(pdata, 16, 16, false, 7, 7, false, 0));
    }

    private void poll() {
        WorkCompletion[] wc = new WorkCompletion[64];
        for (int i = 0; i < wc.length; i++) {
            wc[i] = new WorkCompletion();
        }
        CRC32C crc = new CRC32C();
        List<Side> toClose = new ArrayList<>();
        while (true) {
            // Sides whose DISCONNECTED came before this poll: what they completed is in the CQ by now.
            Side c;
            while ((c = closing.poll()) != null) {
                toClose.add(c);
            }
            CompletionQueue q = cq;
            int n = q == null ? 0 : q.poll(wc, 0, wc.length);
            for (int i = 0; i < n; i++) {
                if (wc[i].status() != WcStatus.SUCCESS) {
                    continue; // flushed at a disconnect
                }
                Side s = side(wc[i].qpNum());
                if (s == null) {
                    continue;
                }
                int slot = (int) wc[i].wrId();
                long off = (long) slot * recvBytes;
                MemorySegment m = s.recv().segment();
                int len = wc[i].byteLen();
                if (len >= 4) {
                    crc.reset();
                    crc.update(m.asSlice(off + 4, len - 4).asByteBuffer());
                    if ((int) crc.getValue() != m.get(U32, off)) {
                        bad.incrementAndGet();
                    }
                }
                received.incrementAndGet();
                bytes.addAndGet(len);
                s.qp().postRecv(new RecvWr().wrId(slot).sg(s.recv(), off, recvBytes));
            }
            if (n < wc.length) {
                for (Side s : toClose) {
                    tearDown(s);
                }
                toClose.clear();
                drainedPolls.incrementAndGet();
            }
            if (n == 0) {
                Thread.onSpinWait();
                if (q == null) {
                    sleep(1);
                }
            }
        }
    }

    private void tearDown(Side s) {
        sides.remove(s);
        byQpn.remove(s.qp().qpNum());
        try {
            s.id().destroyQp();
            s.region().close();
            s.recv().close();
            s.id().destroy();
        } catch (RuntimeException e) {
            // a reset destroyed the id first
        }
    }

    /** Waits (at most 5 s) until the poller has drained the CQ twice after the call; returns whether it did. */
    private boolean awaitDrained() {
        long target = drainedPolls.get() + 2;
        long end = System.nanoTime() + 5_000_000_000L;
        while (drainedPolls.get() < target && System.nanoTime() < end) {
            sleep(1);
        }
        return drainedPolls.get() >= target;
    }

    private Side side(int qpn) {
        return byQpn.get(qpn);
    }

    private void commands() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                switch (line.strip()) {
                    case "stats" -> {
                        boolean drained = awaitDrained();
                        System.out.println("STATS received=" + received.get() + " bad=" + bad.get()
                                + " bytes=" + bytes.get() + " established=" + established.get() + " disconnected="
                                + disconnected.get() + " drained=" + drained);
                    }
                    case "reset" -> {
                        for (Side s : sides) {
                            s.id().destroy(); // no disconnect first: the connection is reset
                        }
                        System.out.println("RESET");
                    }
                    case "exit" -> System.exit(0);
                    default -> System.out.println("? " + line);
                }
                System.out.flush();
            }
        } catch (java.io.IOException e) {
            System.exit(3);
        }
        System.exit(0); // the parent went away
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
