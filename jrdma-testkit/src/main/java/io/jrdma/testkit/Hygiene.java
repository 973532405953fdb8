package io.jrdma.testkit;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.Rdma;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Proves that a test left nothing behind and that nothing went wrong out of sight: no exception
 * escaped to a thread's uncaught-exception handler, the stack logged no warning or error (an engine
 * that caught a throwable logs it), and threads (platform and virtual), sockets, queue pairs and
 * direct memory returned to what they were before the test. Leaks are judged after a bounded settle
 * time (connections close asynchronously, direct buffers are freed by the garbage collector).
 *
 * <p>Register it as a JUnit extension ({@code @RegisterExtension final Hygiene hygiene = new Hygiene();})
 * or use {@link #begin()} and {@link #assertClean()} around a block. Long-lived singletons (engine
 * agents, the MPA deadline scheduler, the link watcher) are allowed to appear once: their names match
 * {@link #LONG_LIVED}.
 */
public final class Hygiene implements BeforeEachCallback, AfterEachCallback {
    /** Threads that live as long as the JVM once started (engine agents, timers). */
    public static final Pattern LONG_LIVED = Pattern.compile(
            "jrdma-(siw-[^ ]+-\\d+|rxe-engine(-\\d+)?|siw-mpa-deadlines|link-watcher|iwcm-.*|ibcm-.*|loop-.*"
                    + "|.*-agent)");
    /** How long leaks may take to go away after a test (closes and frees are asynchronous). */
    public static final Duration SETTLE = Duration.ofSeconds(10);
    /** Direct memory a test may leave behind (caches, one-off pools): less than one QP's buffers. */
    public static final long DIRECT_SLACK = 256 * 1024;
    private static final Pattern VIRTUAL_NAME = Pattern.compile("\"virtual\": true,\\s*\"name\": \"(jrdma-[^\"]*)\"");
    /** Held strongly: the log manager keeps loggers weakly, and the handler must stay attached. */
    private static final Logger JRDMA_LOG = Logger.getLogger("io.jrdma");

    private final List<String> problems = new CopyOnWriteArrayList<>();
    private Snapshot before;
    private Handler handler;
    private Thread.UncaughtExceptionHandler previous;
    private int allowedWarnings;
    private Pattern allowedLog;

    /** A guard; nothing is recorded until {@link #begin()} (or the extension's before-each). */
    public Hygiene() {
    }

    /** Log records matching {@code regex} (logger name and message) are expected, not problems. */
    public Hygiene allowLog(String regex) {
        this.allowedLog = Pattern.compile(regex);
        return this;
    }

    /**
     * What the stack holds at one moment.
     *
     * @param threads live platform threads named jrdma-* (long-lived singletons excluded)
     * @param virtualThreads live virtual threads named jrdma-*
     * @param sockets open socket file descriptors of this process
     * @param qps live queue pairs per device
     * @param directBytes direct memory in use (buffers and native segments)
     */
    public record Snapshot(List<String> threads, List<String> virtualThreads, int sockets, Map<String, Integer> qps,
            long directBytes) {
    }

    /** Takes a snapshot now. */
    public static Snapshot snapshot() {
        List<String> platform = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            String n = t.getName();
            if (t.isAlive() && n.startsWith("jrdma") && !LONG_LIVED.matcher(n).matches()) {
                platform.add(n);
            }
        }
        platform.sort(null);
        // The device registry first: loading it opens the providers' long-lived sockets (rxe's UDP ports).
        Map<String, Integer> qps = qps();
        return new Snapshot(platform, virtualThreads(), sockets(), qps, directBytes());
    }

    /**
     * Open network sockets (TCP and UDP, connected, listening or closed but not released) of this process
     * (Linux: /proc/self/fd), or -1 where that is unknown. Unix-domain and netlink sockets are not counted:
     * the JDK keeps some for its own selectors and interface lookups, once per engine or JVM.
     */
    public static int sockets() {
        Path fd = Path.of("/proc/self/fd");
        if (!Files.isDirectory(fd)) {
            return -1;
        }
        java.util.Set<String> local = localInodes();
        int n = 0;
        try (Stream<Path> s = Files.list(fd)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                try {
                    String link = Files.readSymbolicLink(p).toString();
                    if (link.startsWith("socket:[") && !local.contains(link.substring(8, link.length() - 1))) {
                        n++;
                    }
                } catch (IOException e) {
                    // closed while listing
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return n;
    }

    /** Inodes of this process's unix-domain and netlink sockets. */
    private static java.util.Set<String> localInodes() {
        java.util.Set<String> out = new java.util.HashSet<>();
        for (String table : new String[] {"unix", "netlink"}) {
            Path p = Path.of("/proc/self/net", table);
            if (!Files.isReadable(p)) {
                continue;
            }
            try {
                List<String> lines = Files.readAllLines(p);
                int col = table.equals("unix") ? 6 : 9;
                for (String line : lines.subList(1, lines.size())) {
                    String[] f = line.trim().split("\\s+");
                    if (f.length > col) {
                        out.add(f[col]);
                    }
                }
            } catch (IOException e) {
                // best effort
            }
        }
        return out;
    }

    /**
     * The open sockets of this process with their TCP/UDP endpoints and state (Linux: /proc/self/fd and
     * /proc/self/net), for a leak report; empty where that is unknown.
     */
    public static List<String> describeSockets() {
        Map<String, String> byInode = new TreeMap<>();
        for (String table : new String[] {"tcp", "tcp6", "udp", "udp6"}) {
            Path p = Path.of("/proc/self/net", table);
            if (!Files.isReadable(p)) {
                continue;
            }
            try {
                List<String> lines = Files.readAllLines(p);
                for (String line : lines.subList(1, lines.size())) {
                    String[] f = line.trim().split("\\s+");
                    if (f.length > 9) {
                        byInode.put(f[9], table + " " + endpoint(f[1]) + "->" + endpoint(f[2]) + " st=" + f[3]);
                    }
                }
            } catch (IOException e) {
                // best effort
            }
        }
        for (String table : new String[] {"unix", "netlink"}) {
            Path p = Path.of("/proc/self/net", table);
            if (!Files.isReadable(p)) {
                continue;
            }
            try {
                List<String> lines = Files.readAllLines(p);
                for (String line : lines.subList(1, lines.size())) {
                    String[] f = line.trim().split("\\s+");
                    int col = table.equals("unix") ? 6 : 9;
                    if (f.length > col) {
                        byInode.put(f[col], table + " " + line.trim());
                    }
                }
            } catch (IOException e) {
                // best effort
            }
        }
        List<String> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            for (Path p : (Iterable<Path>) s::iterator) {
                try {
                    String link = Files.readSymbolicLink(p).toString();
                    if (link.startsWith("socket:[")) {
                        String inode = link.substring(8, link.length() - 1);
                        out.add(byInode.getOrDefault(inode, link));
                    }
                } catch (IOException e) {
                    // closed while listing
                }
            }
        } catch (IOException e) {
            // not Linux
        }
        return out;
    }

    private static String endpoint(String hex) {
        int colon = hex.indexOf(':');
        if (colon != 8) {
            return hex;
        }
        long a = Long.parseLong(hex.substring(0, 8), 16);
        return (a & 0xFF) + "." + (a >> 8 & 0xFF) + "." + (a >> 16 & 0xFF) + "." + (a >> 24 & 0xFF) + ":"
                + Integer.parseInt(hex.substring(9), 16);
    }

    /**
     * Direct memory in use: NIO direct buffers and native memory segments, less what engines keep for
     * their life ({@link io.jrdma.internal.engine.EngineMemory}: staging buffers and transmit-batch pools
     * that the first connection of an engine allocates and every later one shares).
     */
    public static long directBytes() {
        long used = -io.jrdma.internal.engine.EngineMemory.longLivedDirectBytes();
        for (BufferPoolMXBean b : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if ("direct".equals(b.getName())) {
                used += b.getMemoryUsed();
            }
        }
        return used;
    }

    /** Heap in use. */
    public static long heapBytes() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static Map<String, Integer> qps() {
        Map<String, Integer> m = new TreeMap<>();
        for (Device d : Rdma.devices()) {
            if (d instanceof DeviceImpl di) {
                m.put(d.name(), di.count(DeviceImpl.Resource.QP));
            }
        }
        return m;
    }

    /** Names of live virtual threads called jrdma-* (from a JSON thread dump, which lists them). */
    public static List<String> virtualThreads() {
        try {
            Path p = Files.createTempFile("jrdma-threads", ".json");
            Files.delete(p);
            try {
                ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpThreads(p.toString(),
                        HotSpotDiagnosticMXBean.ThreadDumpFormat.JSON);
                String json = Files.readString(p);
                List<String> names = new ArrayList<>();
                Matcher m = VIRTUAL_NAME.matcher(json);
                while (m.find()) {
                    names.add(m.group(1));
                }
                names.removeIf(n -> LONG_LIVED.matcher(n).matches());
                names.sort(null);
                return names;
            } finally {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ------------------------------------------------------------------------------------------ guard

    /** Starts recording: snapshot, uncaught-exception handler, log handler. */
    public Hygiene begin() {
        problems.clear();
        allowedWarnings = 0;
        previous = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
            problems.add("uncaught " + e + " in thread " + t.getName());
            if (previous != null) {
                previous.uncaughtException(t, e);
            }
        });
        handler = new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r.getLevel().intValue() < Level.WARNING.intValue()) {
                    return;
                }
                String what = r.getLoggerName() + ": " + r.getMessage()
                        + (r.getThrown() != null ? " (" + r.getThrown() + ")" : "");
                if (allowedLog != null && allowedLog.matcher(what).find()) {
                    allowedWarnings++;
                    return;
                }
                problems.add("logged " + r.getLevel() + " " + what);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        JRDMA_LOG.addHandler(handler);
        before = snapshot();
        return this;
    }

    /** Problems recorded so far (uncaught exceptions, warnings and errors logged). */
    public List<String> problems() {
        return List.copyOf(problems);
    }

    /** The snapshot taken at {@link #begin()}. */
    public Snapshot before() {
        return before;
    }

    /**
     * Stops recording and asserts: nothing uncaught, nothing logged at WARNING or above, and within
     * {@link #SETTLE} the threads, sockets, queue pairs and direct memory are back to their level at
     * {@link #begin()}.
     */
    public void assertClean() {
        try {
            Snapshot now = settle();
            List<String> leaks = leaks(before, now);
            List<String> all = new ArrayList<>(problems);
            all.addAll(leaks);
            if (!all.isEmpty()) {
                throw new AssertionError("hygiene: " + String.join("; ", all) + "\n  before: " + before + "\n  after:  "
                        + now + "\n  sockets: " + describeSockets());
            }
        } finally {
            end();
        }
    }

    private void end() {
        JRDMA_LOG.removeHandler(handler);
        Thread.setDefaultUncaughtExceptionHandler(previous);
    }

    private Snapshot settle() {
        long deadline = System.nanoTime() + SETTLE.toNanos();
        Snapshot now = snapshot();
        int round = 0;
        while (!leaks(before, now).isEmpty() && System.nanoTime() - deadline < 0) {
            if (round++ % 4 == 0) {
                System.gc();
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            now = snapshot();
        }
        return now;
    }

    /** What grew from {@code a} to {@code b}. */
    public static List<String> leaks(Snapshot a, Snapshot b) {
        List<String> out = new ArrayList<>();
        List<String> newThreads = new ArrayList<>(b.threads());
        a.threads().forEach(newThreads::remove);
        if (!newThreads.isEmpty()) {
            out.add("threads left running: " + newThreads);
        }
        List<String> newVirtual = new ArrayList<>(b.virtualThreads());
        a.virtualThreads().forEach(newVirtual::remove);
        if (!newVirtual.isEmpty()) {
            out.add("virtual threads left running: " + newVirtual);
        }
        if (a.sockets() >= 0 && b.sockets() > a.sockets()) {
            out.add((b.sockets() - a.sockets()) + " socket(s) left open");
        }
        b.qps().forEach((dev, n) -> {
            int was = a.qps().getOrDefault(dev, 0);
            if (n > was) {
                out.add((n - was) + " QP(s) of " + dev + " not destroyed");
            }
        });
        if (b.directBytes() > a.directBytes() + DIRECT_SLACK) {
            out.add((b.directBytes() - a.directBytes()) + " bytes of direct memory not freed");
        }
        return out;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        begin();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (context.getExecutionException().isPresent()) {
            end(); // the test already failed: report that, not the leaks it caused
            return;
        }
        assertClean();
    }
}
