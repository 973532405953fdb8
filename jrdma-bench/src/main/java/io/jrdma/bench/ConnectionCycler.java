package io.jrdma.bench;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Opens and closes RC connections through rdma_cm as fast as the stack allows, in one JVM: a
 * listener on {@code server}, clients from {@code client}, both sides driven by kernel-style
 * handlers on the connection manager's executor (no hand-off to another thread per event).
 *
 * <p>One cycle is what {@code rdma_cm} users pay to get a connected QP and give it back: the
 * client resolves the address and route, creates its QP and connects; the server creates its QP on
 * CONNECT_REQUEST and accepts; both see ESTABLISHED; the client disconnects; both see DISCONNECTED,
 * destroy their QP and their id. A cycle counts when both sides are done. {@link #cycle} keeps
 * {@code inFlight} cycles going (1: strictly sequential) and reports cycles per second;
 * {@link #hold} opens connections and leaves them idle (for the memory probe).
 */
final class ConnectionCycler implements AutoCloseable {
    /** Each QP's queues: the smallest an RC QP may have. */
    static final QpCap CAP = new QpCap(1, 1, 1, 1, 0);
    /** CQ entries per context (idle QPs complete nothing; the CQ is shared). */
    static final int CQ_ENTRIES = 64;
    /** How long one step may take before the run fails. */
    static final Duration STEP_TIMEOUT = Duration.ofSeconds(10);

    private final RdmaCm cm;
    private final InetSocketAddress client;
    private final CmId listener;
    private final InetSocketAddress server;
    private final Map<Context, Resources> resources = new IdentityHashMap<>();
    private final AtomicLong finishedSides = new AtomicLong();
    private final AtomicLong established = new AtomicLong();
    private final AtomicReference<String> failure = new AtomicReference<>();
    private final ConcurrentLinkedQueue<CmId> held = new ConcurrentLinkedQueue<>();
    private volatile boolean holdMode;
    private volatile long deadline;
    private volatile long launched;
    private volatile long limit;
    private final Object lock = new Object();

    private record Resources(ProtectionDomain pd, CompletionQueue cq) {
    }

    /** A result of {@link #cycle}: cycles and the nanoseconds they took. */
    record Rate(long cycles, long nanos) {
        double perSecond() {
            return cycles * 1e9 / nanos;
        }
    }

    /**
     * Listens on {@code server} (port 0: any) with {@code cm}; clients connect from {@code client}.
     */
    ConnectionCycler(RdmaCm cm, InetSocketAddress client, InetSocketAddress server) {
        this.cm = cm;
        this.client = client;
        this.listener = cm.createId(this::onServer, null, PortSpace.TCP, QpType.RC);
        listener.bind(server);
        listener.listen(1024);
        this.server = new InetSocketAddress(server.getAddress(), listener.localPort());
    }

    /** The device the listener is on. */
    String serverDevice() {
        return listener.device() == null ? "?" : listener.device().name();
    }

    private synchronized Resources resources(Context ctx) {
        return resources.computeIfAbsent(ctx, c -> new Resources(c.allocPd(), c.createCq(CQ_ENTRIES)));
    }

    /**
     * Runs cycles with {@code inFlight} at a time for {@code duration} after cycling for {@code warmup}.
     */
    Rate cycle(int inFlight, Duration warmup, Duration duration) throws InterruptedException {
        holdMode = false;
        runCycles(inFlight, Long.MAX_VALUE, System.nanoTime() + warmup.toNanos());
        long t0 = System.nanoTime();
        long before = finishedSides.get() / 2;
        deadline = t0 + duration.toNanos();
        long done = runCycles(inFlight, Long.MAX_VALUE, deadline);
        long t1 = System.nanoTime();
        return new Rate(done - before, t1 - t0);
    }

    /** Runs {@code count} cycles (or until {@code until}), {@code inFlight} at a time; returns all cycles done. */
    private long runCycles(int inFlight, long count, long until) throws InterruptedException {
        long start = finishedSides.get() / 2;
        long target = count == Long.MAX_VALUE ? Long.MAX_VALUE : start + count;
        synchronized (lock) {
            limit = target;
            launched = start;
            deadline = until;
        }
        for (int i = 0; i < inFlight; i++) {
            if (!launch()) {
                break;
            }
        }
        long stepNanos = STEP_TIMEOUT.toNanos();
        synchronized (lock) {
            long last = finishedSides.get();
            long lastChange = System.nanoTime();
            while (finishedSides.get() / 2 < launched || launched < limit && System.nanoTime() < deadline) {
                check();
                lock.wait(100);
                long now = System.nanoTime();
                if (finishedSides.get() != last) {
                    last = finishedSides.get();
                    lastChange = now;
                } else if (now - lastChange > stepNanos) {
                    throw new IllegalStateException("connection cycles stalled at " + finishedSides.get() / 2 + " of "
                            + launched);
                }
            }
        }
        check();
        return finishedSides.get() / 2;
    }

    /** Starts one more client if the run is not over; returns whether it did. */
    private boolean launch() {
        synchronized (lock) {
            if (launched >= limit || System.nanoTime() >= deadline || failure.get() != null) {
                return false;
            }
            launched++;
        }
        CmId id = cm.createId(this::onClient, null, PortSpace.TCP, QpType.RC);
        id.resolveAddr(client, server, STEP_TIMEOUT);
        return true;
    }

    /**
     * Opens {@code n} connections, {@code inFlight} at a time, and leaves them idle (both sides in RTS).
     */
    void hold(int n, int inFlight) throws InterruptedException {
        holdMode = true;
        long target = established.get() + 2L * n;
        synchronized (lock) {
            limit = Long.MAX_VALUE;
            launched = 0;
            deadline = Long.MAX_VALUE;
        }
        long startBase = established.get();
        int started = 0;
        long end = System.nanoTime() + STEP_TIMEOUT.toNanos() + n * 10_000_000L;
        while (established.get() < target) {
            check();
            // Keep inFlight connection attempts outstanding.
            while (started < n && started - (established.get() - startBase) / 2 < inFlight) {
                CmId id = cm.createId(this::onClient, null, PortSpace.TCP, QpType.RC);
                id.resolveAddr(client, server, STEP_TIMEOUT);
                started++;
            }
            synchronized (lock) {
                lock.wait(5);
            }
            if (System.nanoTime() > end) {
                throw new IllegalStateException("only " + (established.get() - startBase) / 2 + " of " + n
                        + " connections came up");
            }
        }
    }

    /** Disconnects and destroys every held connection and waits until both sides are gone. */
    void releaseHeld() throws InterruptedException {
        holdMode = false;
        List<CmId> ids = new ArrayList<>();
        CmId id;
        while ((id = held.poll()) != null) {
            ids.add(id);
        }
        long target = finishedSides.get() + ids.size() * 2L;
        for (CmId c : ids) {
            c.disconnect();
        }
        long end = System.nanoTime() + STEP_TIMEOUT.toNanos();
        synchronized (lock) {
            while (finishedSides.get() < target && System.nanoTime() < end) {
                lock.wait(10);
            }
        }
        if (finishedSides.get() < target) {
            throw new IllegalStateException("held connections did not close: " + (target - finishedSides.get())
                    + " sides left");
        }
    }

    private void check() {
        String f = failure.get();
        if (f != null) {
            throw new IllegalStateException(f);
        }
    }

    private void fail(CmId id, CmEvent e) {
        failure.compareAndSet(null, "connection failed: " + e + " on " + id.device());
        wake();
    }

    private void wake() {
        synchronized (lock) {
            lock.notifyAll();
        }
    }

    private boolean onClient(CmId id, CmEvent e) {
        try {
            return client(id, e);
        } catch (RuntimeException ex) {
            failure.compareAndSet(null, "client " + e.type() + ": " + ex);
            wake();
            return true;
        }
    }

    private boolean onServer(CmId id, CmEvent e) {
        try {
            return server(id, e);
        } catch (RuntimeException ex) {
            failure.compareAndSet(null, "server " + e.type() + ": " + ex);
            wake();
            return id != listener;
        }
    }

    private boolean client(CmId id, CmEvent e) {
        switch (e.type()) {
            case ADDR_RESOLVED -> id.resolveRoute(STEP_TIMEOUT);
            case ROUTE_RESOLVED -> {
                Resources r = resources(id.verbs());
                id.createQp(r.pd(), QpInitAttr.rc(r.cq(), CAP));
                id.connectLocked(ConnParam.defaults());
            }
            case ESTABLISHED -> {
                established.incrementAndGet();
                if (holdMode) {
                    held.add(id);
                    wake();
                } else {
                    id.disconnect();
                }
            }
            case DISCONNECTED -> {
                id.destroyQp();
                sideDone();
                return true;
            }
            default -> {
                fail(id, e);
                id.destroyQp();
                return true;
            }
        }
        return false;
    }

    private boolean server(CmId id, CmEvent e) {
        switch (e.type()) {
            case CONNECT_REQUEST -> {
                Resources r = resources(id.verbs());
                id.createQp(r.pd(), QpInitAttr.rc(r.cq(), CAP));
                id.accept(ConnParam.defaults());
            }
            case ESTABLISHED -> {
                established.incrementAndGet();
                wake();
            }
            case DISCONNECTED -> {
                id.destroyQp();
                sideDone();
                return true;
            }
            case TIMEWAIT_EXIT -> {
                return false;
            }
            default -> {
                if (id != listener) {
                    fail(id, e);
                    id.destroyQp();
                    return true;
                }
            }
        }
        return false;
    }

    private void sideDone() {
        long n = finishedSides.incrementAndGet();
        if ((n & 1) == 0 && !holdMode) {
            // Both sides of a cycle are done: start the next one from here, no thread hand-off.
            launch();
        }
        if ((n & 1) == 0) {
            wake();
        }
    }

    @Override
    public void close() {
        listener.destroy();
        synchronized (this) {
            for (Resources r : resources.values()) {
                try {
                    r.cq().close();
                    r.pd().close();
                } catch (RuntimeException e) {
                    // still in use by an id that failed: released with the context
                }
            }
            resources.clear();
        }
    }

    /** Waits a moment for stragglers (rxe's timewait, siw's FIN) before measuring memory. */
    static void settle() throws InterruptedException {
        TimeUnit.MILLISECONDS.sleep(200);
    }
}
