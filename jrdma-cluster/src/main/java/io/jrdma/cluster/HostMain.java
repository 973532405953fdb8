package io.jrdma.cluster;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.jrdma.cm.RdmaCm;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * One host of the cluster, run by the {@link Coordinator} in a network namespace of its own:
 * {@code HostMain --id I --ips IP0,IP1,... --qps Q --transports siw,rxe --incarnation G}. It listens on every
 * transport on its address ({@code IPS[I]}), warms up with one connection to itself per transport, then
 * reports {@code READY} and its resource counts (the baseline of the leak check). It takes commands on
 * stdin, one a line:
 * <ul>
 * <li>{@code start}: connect {@code Q} queue pairs to every other host on every transport ({@link ClientLoop})</li>
 * <li>{@code mark}: from now on count each client connection's rounds separately (the coordinator marks
 *     after the last disruption has healed: every survivor must serve every survivor again)</li>
 * <li>{@code stop}: clients finish their round and disconnect, then {@code CLIENTS-DONE}</li>
 * <li>{@code drain} (every live host's clients are done): the host waits for its served connections to end,
 *     closes those whose client never disconnected (a host that was killed), prints a {@code CONN} line per
 *     connection ({@link ConnStats#line()}), a {@code HOST} line with its counts against the baseline, and
 *     {@code STOPPED}</li>
 * <li>{@code exit} or the end of stdin (the coordinator is gone): closes everything and exits</li>
 * </ul>
 */
public final class HostMain {
    /** Bytes of each RDMA WRITE (one slot of the server's region). */
    static final int WRITE_BYTES = 16 * 1024;
    /** Bytes of each SEND: {@link #SEND_HEADER} then a pattern. */
    static final int SEND_BYTES = 4096;
    /** A SEND's header: sequence number (8), slot (4), WRITE length (4). */
    static final int SEND_HEADER = 16;
    /** Bytes of each RDMA READ. */
    static final int READ_BYTES = 16 * 1024;
    /** The read region each served connection exposes. */
    static final int READ_REGION = 64 * 1024;
    /** WRITE slots per served connection; more than {@link #RECV_DEPTH} + 1 (see {@link Server}). */
    static final int SLOTS = 8;
    /** Receives each served connection keeps posted. */
    static final int RECV_DEPTH = 4;
    /** The accept's private data: region address (8), rkey (4), read-region seed (8). */
    static final int ADVERT_BYTES = 20;
    /** The first listening port; transport {@code i} listens on {@code PORT + i}. */
    static final int PORT = 7700;
    /** Warm-up rounds on the connection to itself. */
    static final int WARM_ROUNDS = 20;
    /** Heap growth (after GC) the leak check allows: class loading and JIT data of a longer run. */
    static final long HEAP_SLACK = 32L << 20;
    /** How long the resource counts may take to come back to the baseline. */
    static final Duration SETTLE = Duration.ofSeconds(10);
    /** Samples of the baseline. */
    static final int BASELINE_SAMPLES = 3;
    /** How long a stopping host waits for its served connections to be disconnected by their clients. */
    static final Duration DRAIN = Duration.ofSeconds(3);

    /** A transport this host runs on. */
    record Transport(int index, String name, RdmaCm cm, int port) {
    }

    private final int id;
    private final int incarnation;
    private final List<String> ips;
    private final int qps;
    private final List<Transport> transports = new ArrayList<>();
    private final List<Server> servers = new ArrayList<>();
    private final List<Thread> clients = new ArrayList<>();
    private final ConcurrentLinkedQueue<ConnStats> done = new ConcurrentLinkedQueue<>();
    private final CountDownLatch stop = new CountDownLatch(1);
    private final AtomicLong connectFailures = new AtomicLong();
    private final PrintStream out;
    private int stuckClients;
    private java.util.Set<String> baseThreads = java.util.Set.of();
    private final java.util.concurrent.atomic.AtomicInteger firstUp = new java.util.concurrent.atomic.AtomicInteger();
    private volatile int expectedClients = -1;
    private volatile long startedAt;
    private volatile boolean marked;
    private volatile boolean ready;

    private HostMain(int id, int incarnation, List<String> ips, int qps, PrintStream out) {
        this.id = id;
        this.incarnation = incarnation;
        this.ips = ips;
        this.qps = qps;
        this.out = out;
    }

    int id() {
        return id;
    }

    int incarnation() {
        return incarnation;
    }

    boolean stopping() {
        return stop.getCount() == 0;
    }

    boolean ready() {
        return ready;
    }

    boolean marked() {
        return marked;
    }

    void record(ConnStats s) {
        done.add(s);
    }

    /** A client loop's first connection is up; when all are, the host says how long that took. */
    void firstEstablished() {
        if (firstUp.incrementAndGet() == expectedClients) {
            out.println(String.format(Locale.ROOT, "ALL-UP host=%d clients=%d ms=%d", id, expectedClients,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedAt)));
        }
    }

    void connectFailed() {
        connectFailures.incrementAndGet();
    }

    void note(String s) {
        System.err.println(java.time.LocalTime.now() + " host " + id + ": " + s);
    }

    void pauseUnlessStopping(Duration d) {
        try {
            stop.await(d.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Runs a host.
     *
     * @param args {@code --id I --ips IP0,IP1,... [--qps Q] [--transports siw,rxe] [--incarnation G]}
     * @throws Exception when the host cannot start
     */
    public static void main(String[] args) throws Exception {
        int id = -1;
        int qps = 2;
        int incarnation = 0;
        List<String> ips = List.of();
        List<String> names = List.of("siw", "rxe");
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--id" -> id = Integer.parseInt(args[i + 1]);
                case "--ips" -> ips = List.of(args[i + 1].split(","));
                case "--qps" -> qps = Integer.parseInt(args[i + 1]);
                case "--incarnation" -> incarnation = Integer.parseInt(args[i + 1]);
                case "--transports" -> names = List.of(args[i + 1].split(","));
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (id < 0 || id >= ips.size()) {
            throw new IllegalArgumentException("--id " + id + " names none of the " + ips.size() + " --ips");
        }
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        HostMain h = new HostMain(id, incarnation, ips, qps, out);
        try {
            h.serve(names);
        } catch (Exception e) {
            out.println("FAILED " + e); // to the coordinator, which fails the host's checks
            e.printStackTrace(System.err); // stderr is the host's log file (Coordinator keeps it)
            System.exit(1);
        }
        System.exit(0);
    }

    private void serve(List<String> names) throws Exception {
        String ip = ips.get(id);
        for (int i = 0; i < names.size(); i++) {
            String n = names.get(i);
            String device = switch (n) {
                case "siw" -> "siw0";
                case "rxe" -> "rxe0";
                default -> throw new IllegalArgumentException("unknown transport " + n + " (siw, rxe)");
            };
            Transport t = new Transport(i, n, RdmaCm.open(device), PORT + i);
            transports.add(t);
            Server s = new Server(this, t, ip);
            servers.add(s);
            s.start();
        }
        // The first connections start what jrdma starts lazily (engines, timers, sockets); the baseline
        // follows them, so the leak check compares like with like.
        for (Transport t : transports) {
            new ClientLoop(this, t, id, ip, 0, WARM_ROUNDS).run();
        }
        awaitServed(DRAIN);
        Counts base = Counts.settle(transports, null, Duration.ZERO);
        baseThreads = threadNames();
        ready = true;
        out.println("READY host=" + id + " rssKiB=" + rssKiB() + " " + base.fields("0"));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            switch (line.trim()) {
                case "start" -> startClients();
                case "mark" -> {
                    marked = true;
                    int open = 0;
                    for (Server sv : servers) {
                        open += sv.open();
                    }
                    out.println("MARKED host=" + id + " served=" + open + " clients=" + clients.size() + " rssKiB="
                            + rssKiB() + " " + Counts.now(transports).fields("M"));
                }
                case "stop" -> stopClients();
                case "drain" -> drainAndReport(base);
                case "exit" -> {
                    shutdown();
                    return;
                }
                default -> note("unknown command " + line);
            }
        }
        shutdown();
    }

    private void startClients() {
        expectedClients = transports.size() * (ips.size() - 1) * qps;
        startedAt = System.nanoTime();
        for (Transport t : transports) {
            for (int p = 0; p < ips.size(); p++) {
                if (p == id) {
                    continue;
                }
                for (int q = 0; q < qps; q++) {
                    ClientLoop c = new ClientLoop(this, t, p, ips.get(p), q, Long.MAX_VALUE);
                    clients.add(Thread.ofPlatform().name("cluster-client-" + t.name() + "-" + p + "-" + q).start(c));
                }
            }
        }
        out.println("STARTED host=" + id + " clients=" + clients.size());
    }

    /** Stops the clients: each finishes its round and disconnects. */
    private void stopClients() throws InterruptedException {
        stop.countDown();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        for (Thread t : clients) {
            long left = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
            t.join(left);
            if (t.isAlive()) {
                stuckClients++;
            }
        }
        clients.clear();
        out.println("CLIENTS-DONE host=" + id + " stuck=" + stuckClients);
    }

    /**
     * Once every live host's clients are done (the coordinator says so): what is still served has a client
     * that is gone; it is closed after {@link #DRAIN}, then the host reports.
     */
    private void drainAndReport(Counts base) throws InterruptedException {
        boolean drained = awaitServed(DRAIN);
        int abandoned = 0;
        if (!drained) {
            for (Server s : servers) {
                abandoned += s.open();
                s.abandonAll();
            }
            awaitServed(Duration.ofNanos(Server.FLUSH_TIMEOUT_NANOS + Duration.ofSeconds(5).toNanos()));
        }
        int leftOpen = 0;
        for (Server s : servers) {
            leftOpen += s.open();
        }
        for (ConnStats s : done) {
            out.println(s.line());
        }
        Counts end = Counts.settle(transports, base, SETTLE);
        boolean leak = end.threads > base.threads || end.virtualThreads > base.virtualThreads
                || end.sockets > base.sockets || end.cmIds > base.cmIds || end.heap > base.heap + HEAP_SLACK;
        out.println("HOST host=" + id + " incarnation=" + incarnation + " stuckClients=" + stuckClients + " abandoned="
                + abandoned + " leftOpen=" + leftOpen + " connectFailures=" + connectFailures.get() + " leak="
                + (leak ? 1 : 0) + " " + base.fields("0") + " " + end.fields("1") + " newThreads=" + newThreads());
        out.println("STOPPED host=" + id);
    }

    /** Waits until no served connection is open; false at the timeout. */
    private boolean awaitServed(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() - deadline < 0) {
            int open = 0;
            for (Server s : servers) {
                open += s.open();
            }
            if (open == 0) {
                return true;
            }
            Thread.sleep(20);
        }
        return false;
    }

    private void shutdown() throws InterruptedException {
        stop.countDown();
        for (Thread t : clients) {
            t.join(TimeUnit.NANOSECONDS.toMillis(ClientLoop.COMPLETION_TIMEOUT_NANOS));
        }
        for (Server s : servers) {
            s.abandonAll();
            s.close(Duration.ofSeconds(5));
        }
        for (Transport t : transports) {
            t.cm().close();
        }
    }

    private static java.util.Set<String> threadNames() {
        java.util.Set<String> names = new java.util.TreeSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            names.add(t.getName().replaceAll("\\s+", "_"));
        }
        return names;
    }

    /** Platform threads alive now that were not at the baseline, by name ("-" for none). */
    private String newThreads() {
        java.util.Set<String> now = threadNames();
        now.removeAll(baseThreads);
        return now.isEmpty() ? "-" : String.join(",", now);
    }

    /** The resident set of this process (Linux: VmRSS in /proc/self/status), -1 where unknown. */
    static long rssKiB() {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (l.startsWith("VmRSS:")) {
                    return Long.parseLong(l.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }

    /** What the leak check counts: threads, sockets, CM ids and the heap after a GC. */
    record Counts(int threads, int virtualThreads, int sockets, int cmIds, long heap) {
        static Counts now(List<Transport> ts) {
            MemoryMXBean mem = ManagementFactory.getMemoryMXBean();
            mem.gc();
            // What the GC left (each heap pool's usage after the last collection), not "used" now: busy
            // threads fill eden again within microseconds of the collection.
            long heap = 0;
            for (java.lang.management.MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
                if (pool.getType() == java.lang.management.MemoryType.HEAP && pool.getCollectionUsage() != null) {
                    heap += pool.getCollectionUsage().getUsed();
                }
            }
            int ids = 0;
            for (Transport t : ts) {
                ids += t.cm().idCount();
            }
            return new Counts(ManagementFactory.getThreadMXBean().getThreadCount(), countVirtualThreads(),
                    countSockets(), ids, heap);
        }

        /**
         * The counts once they are back at {@code base} (threads and sockets end a little after their owners);
         * with no {@code base}, the smallest of a few samples (a baseline that a connection being refused at
         * that moment does not inflate).
         */
        static Counts settle(List<Transport> ts, Counts base, Duration timeout) throws InterruptedException {
            if (base == null) {
                Counts m = now(ts);
                for (int i = 0; i < BASELINE_SAMPLES - 1; i++) {
                    Thread.sleep(50);
                    Counts c = now(ts);
                    m = new Counts(Math.min(m.threads, c.threads), Math.min(m.virtualThreads, c.virtualThreads),
                            Math.min(m.sockets, c.sockets), Math.min(m.cmIds, c.cmIds), Math.min(m.heap, c.heap));
                }
                return m;
            }
            long deadline = System.nanoTime() + timeout.toNanos();
            Counts c = now(ts);
            while (System.nanoTime() - deadline < 0 && (c.threads > base.threads
                    || c.virtualThreads > base.virtualThreads || c.sockets > base.sockets || c.cmIds > base.cmIds)) {
                Thread.sleep(200);
                c = now(ts);
            }
            return c;
        }

        String fields(String suffix) {
            return String.format(Locale.ROOT, "threads%s=%d vthreads%s=%d sockets%s=%d cmIds%s=%d heapMiB%s=%.1f",
                    suffix, threads, suffix, virtualThreads, suffix, sockets, suffix, cmIds, suffix,
                    heap / (double) (1 << 20));
        }

        /** Open network sockets of this process (Linux: socket links in /proc/self/fd), -1 where unknown. */
        static int countSockets() {
            Path fd = Path.of("/proc/self/fd");
            int n = 0;
            try (Stream<Path> s = Files.list(fd)) {
                for (Path p : (Iterable<Path>) s::iterator) {
                    try {
                        if (Files.readSymbolicLink(p).toString().startsWith("socket:[")) {
                            n++;
                        }
                    } catch (IOException e) {
                        // closed while listing
                    }
                }
            } catch (IOException e) {
                return -1;
            }
            return n;
        }

        /** Live virtual threads (from a JSON thread dump: the thread MX bean counts platform threads only). */
        static int countVirtualThreads() {
            try {
                Path p = Files.createTempFile("jrdma-cluster-threads", ".json");
                try {
                    Files.delete(p);
                    ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpThreads(p.toString(),
                            HotSpotDiagnosticMXBean.ThreadDumpFormat.JSON);
                    String json = Files.readString(p);
                    int n = 0;
                    String key = "\"virtual\": true";
                    for (int i = json.indexOf(key); i >= 0; i = json.indexOf(key, i + 1)) {
                        n++;
                    }
                    return n;
                } finally {
                    Files.deleteIfExists(p);
                }
            } catch (IOException e) {
                return -1;
            }
        }
    }
}
