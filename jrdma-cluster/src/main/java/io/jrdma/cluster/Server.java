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
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A host's listener on one transport and the connections it accepted. Each accepted connection exposes
 * {@link HostMain#SLOTS} WRITE slots and a read region filled with a pattern of its own seed (sent in the
 * accept's private data), keeps {@link HostMain#RECV_DEPTH} receives posted, and on each SEND checks the
 * sequence number (one more than the last: no loss, no duplicate), the WRITE it announces and its own
 * payload. The slots outnumber the receives, so a WRITE never lands in a slot whose SEND is still unchecked.
 */
final class Server implements Runnable {
    /** A connection's receives must all have completed this long after it disconnected. */
    static final long FLUSH_TIMEOUT_NANOS = Duration.ofSeconds(10).toNanos();
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED;
    private static final int BACKLOG = 256;

    private final HostMain host;
    private final HostMain.Transport transport;
    private final EventChannel channel;
    private final CmId listener;
    private final List<Conn> conns = new CopyOnWriteArrayList<>();
    private volatile boolean closing;
    private Thread thread;

    Server(HostMain host, HostMain.Transport transport, String ip) {
        this.host = host;
        this.transport = transport;
        this.channel = transport.cm().createEventChannel();
        this.listener = channel.createId(null, PortSpace.TCP);
        listener.bind(new InetSocketAddress(ip, transport.port()));
        listener.listen(BACKLOG);
    }

    void start() {
        thread = Thread.ofPlatform().name("cluster-listen-" + transport.name()).start(this);
    }

    /** Connections still open. */
    int open() {
        return conns.size();
    }

    /** Disconnects every connection still open (its client never did) and marks it abandoned. */
    void abandonAll() {
        for (Conn c : conns) {
            c.stats.abandoned = true;
            c.disconnect();
        }
    }

    /** Closes the listener once every connection ended (bounded by {@code timeout}). */
    void close(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!conns.isEmpty() && System.nanoTime() - deadline < 0) {
            Thread.sleep(20);
        }
        closing = true;
        thread.join(timeout.toMillis());
        listener.destroy();
        channel.close();
    }

    @Override
    public void run() {
        while (!closing) {
            CmEvent e;
            try {
                e = channel.getEvent(ClientLoop.POLL_SLICE);
            } catch (InterruptedException ex) {
                return;
            }
            if (e == null) {
                continue;
            }
            CmEventType type = e.type();
            CmId id = e.id();
            byte[] pdata = type == CmEventType.CONNECT_REQUEST ? e.privateData() : null;
            channel.ackEvent(e);
            try {
                if (type == CmEventType.CONNECT_REQUEST) {
                    accept(id, pdata);
                } else if (id != null && id.context() instanceof Conn c) {
                    if (type == CmEventType.ESTABLISHED) {
                        c.stats.established = true;
                    } else if (type == CmEventType.DISCONNECTED || type == CmEventType.CONNECT_ERROR
                            || type == CmEventType.UNREACHABLE || type == CmEventType.REJECTED
                            || type == CmEventType.DEVICE_REMOVAL) {
                        c.disconnect();
                    }
                }
            } catch (RuntimeException ex) {
                host.note("listener " + transport.name() + ": " + type + ": " + ex);
            }
        }
    }

    private void accept(CmId id, byte[] pdata) {
        if (pdata == null || pdata.length < 8) {
            id.reject(null);
            id.destroy();
            return;
        }
        long tag = ByteBuffer.wrap(pdata).getLong();
        if (!host.ready() && ConnStats.clientHost(tag) != host.id()) {
            // Until its baseline is taken the host serves only its own warm-up: others come back later.
            id.reject(null);
            id.destroy();
            return;
        }
        InetSocketAddress from = id.peerAddress();
        Conn c = new Conn(id, new ConnStats(ConnStats.SERVER, tag, from == null ? "?" : from.getHostString(),
                transport.name()));
        try {
            c.open();
            id.context(c);
            conns.add(c);
            c.thread = Thread.ofPlatform().name("cluster-serve-" + Long.toHexString(tag)).start(c::run);
            id.accept(ConnParam.defaults().withRetries(ClientLoop.RETRIES, 7).withPrivateData(c.advert()));
        } catch (RuntimeException e) {
            host.note("accept " + Long.toHexString(tag) + ": " + e);
            if (c.thread == null) {
                c.release();
                try {
                    id.reject(null);
                } catch (RuntimeException ignored) {
                    // the request is gone already
                }
                id.destroy();
            } else {
                c.disconnect();
            }
        }
    }

    /** One accepted connection; its thread polls its receives, checks each SEND and posts the next receive. */
    final class Conn {
        final CmId id;
        final ConnStats stats;
        private final Arena arena = Arena.ofShared();
        private final WorkCompletion[] wc = {new WorkCompletion()};
        private final RecvWr recv = new RecvWr();
        private final long readSeed;
        private ProtectionDomain pd;
        private CompletionChannel cc;
        private CompletionQueue cq;
        private MemoryRegion regionMr;
        private MemoryRegion recvMr;
        private MemorySegment region;
        private MemorySegment recvBuf;
        private QueuePair qp;
        private volatile long disconnectedAt;
        private long nextPostId;
        private long creditAt;
        private long nextDoneId;
        private long expectedSeq;
        Thread thread;

        Conn(CmId id, ConnStats stats) {
            this.id = id;
            this.stats = stats;
            this.readSeed = Pattern.mix(stats.tag ^ 0x5EED);
        }

        void open() {
            pd = id.verbs().allocPd();
            cc = id.verbs().createCompletionChannel();
            cq = id.verbs().createCq(2 * HostMain.RECV_DEPTH + 2, cc, 0);
            qp = id.createQp(pd, QpInitAttr.rc(cq, QpCap.of(2, HostMain.RECV_DEPTH)));
            long readAt = (long) HostMain.SLOTS * HostMain.WRITE_BYTES;
            creditAt = readAt + HostMain.READ_REGION;
            region = arena.allocate(creditAt + 8, 4096);
            Pattern.fill(region, readAt, HostMain.READ_REGION, readSeed);
            regionMr = pd.registerMemory(region, Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ);
            recvBuf = arena.allocate((long) HostMain.RECV_DEPTH * HostMain.SEND_BYTES, 4096);
            recvMr = pd.registerMemory(recvBuf, Access.LOCAL_WRITE);
            for (int i = 0; i < HostMain.RECV_DEPTH; i++) {
                postRecv(); // before accept: the client may send at once
            }
        }

        byte[] advert() {
            return ByteBuffer.allocate(HostMain.ADVERT_BYTES).putLong(regionMr.address()).putInt(regionMr.rkey())
                    .putLong(readSeed).array();
        }

        private boolean postRecv() {
            int idx = (int) (nextPostId % HostMain.RECV_DEPTH);
            recv.wrId(nextPostId).numSge(0);
            recv.sg(recvMr, (long) idx * HostMain.SEND_BYTES, HostMain.SEND_BYTES);
            int n;
            try {
                n = qp.postRecv(recv);
            } catch (RuntimeException e) {
                n = 0;
            }
            if (n == 1) {
                nextPostId++;
                stats.posted++;
                region.set(U64, creditAt, nextPostId); // the client READs how many receives are posted
                return true;
            }
            return false;
        }

        /** Ends the connection from this side; its receives then flush. */
        void disconnect() {
            if (disconnectedAt == 0) {
                disconnectedAt = System.nanoTime();
            }
            try {
                id.disconnect();
            } catch (RuntimeException e) {
                // already disconnected
            }
        }

        void run() {
            try {
                while (true) {
                    long outstanding = stats.posted - stats.ok - stats.errors;
                    long down = disconnectedAt;
                    if (down != 0 && outstanding == 0) {
                        break;
                    }
                    if (down != 0 && System.nanoTime() - down > FLUSH_TIMEOUT_NANOS) {
                        stats.lost += outstanding;
                        stats.endedWithError = true;
                        break;
                    }
                    if (!pollOne()) {
                        continue;
                    }
                    WorkCompletion c = wc[0];
                    if (c.wrId() != nextDoneId) {
                        stats.order++;
                    }
                    nextDoneId = c.wrId() + 1;
                    if (c.status() != WcStatus.SUCCESS) {
                        stats.errors++;
                        if (c.status() != WcStatus.WR_FLUSH_ERR) {
                            stats.endedWithError = true;
                        }
                        continue;
                    }
                    stats.ok++;
                    check(c);
                    if (disconnectedAt == 0) {
                        postRecv();
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                release();
                try {
                    id.destroy();
                } catch (RuntimeException e) {
                    host.note("destroy " + Long.toHexString(stats.tag) + ": " + e);
                }
                host.record(stats);
                conns.remove(this);
            }
        }

        private void check(WorkCompletion c) {
            long base = (c.wrId() % HostMain.RECV_DEPTH) * HostMain.SEND_BYTES;
            if (c.byteLen() != HostMain.SEND_BYTES) {
                stats.corrupt += HostMain.SEND_BYTES;
                return;
            }
            long seq = recvBuf.get(U64, base);
            int slot = recvBuf.get(U32, base + 8);
            int len = recvBuf.get(U32, base + 12);
            if (seq != expectedSeq) {
                stats.order++;
            }
            expectedSeq = seq + 1;
            if (slot < 0 || slot >= HostMain.SLOTS || len != HostMain.WRITE_BYTES) {
                stats.corrupt += HostMain.SEND_BYTES;
                return;
            }
            stats.corrupt += Pattern.mismatches(region, (long) slot * HostMain.WRITE_BYTES, len,
                    Pattern.seed(stats.tag, seq, 0), 0);
            stats.corrupt += Pattern.mismatches(recvBuf, base + HostMain.SEND_HEADER,
                    HostMain.SEND_BYTES - HostMain.SEND_HEADER, Pattern.seed(stats.tag, seq, 1), 0);
            stats.sends++;
            stats.bytes += len + HostMain.SEND_BYTES;
        }

        private boolean pollOne() throws InterruptedException {
            if (cq.poll(wc, 0, 1) == 1) {
                return true;
            }
            cq.requestNotify(false);
            if (cq.poll(wc, 0, 1) == 1) {
                return true;
            }
            CompletionQueue ev = cc.getEvent(ClientLoop.POLL_SLICE);
            if (ev != null) {
                cc.ackEvents(ev, 1);
            }
            return false;
        }

        void release() {
            try {
                if (qp != null) {
                    id.destroyQp();
                }
            } catch (RuntimeException e) {
                host.note("destroyQp " + Long.toHexString(stats.tag) + ": " + e);
            }
            for (AutoCloseable r : new AutoCloseable[] {regionMr, recvMr, cq, cc, pd}) {
                if (r != null) {
                    try {
                        r.close();
                    } catch (Exception e) {
                        host.note("release " + Long.toHexString(stats.tag) + ": " + e);
                    }
                }
            }
            arena.close();
        }
    }
}
