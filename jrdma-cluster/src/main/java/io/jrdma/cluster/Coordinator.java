package io.jrdma.cluster;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * {@code jrdma-cluster [--hosts N] [--seconds S] [--netem SPEC] [--kill K] [--transports siw,rxe] [--qps Q]}:
 * builds the {@link Network}, starts a {@link HostMain} JVM in each host's namespace, has every host connect
 * to every other on every transport, and with {@code --kill K} disrupts hosts 1..K in turn: SIGKILL (then a
 * restart), SIGSTOP/SIGCONT, their link down and up, a partition from the other hosts and its healing. It then
 * stops the hosts, reads their reports (stdin/stdout lines, see {@link HostMain}), removes every namespace it
 * made (also on an exception and on Ctrl-C, through a shutdown hook), prints goodput per transport and one
 * line per check, and ends with {@code N passed, M failed}. The exit status is 0 when nothing failed.
 */
public final class Coordinator {
    /** How long a host may take from its start to READY (a JVM, two devices, the warm-up). */
    static final Duration READY_TIMEOUT = Duration.ofSeconds(90);
    /** How long a disruption lasts. */
    static final Duration HOLD = Duration.ofMillis(1500);
    /** How long the cluster gets to recover from a disruption before the next. */
    static final Duration RECOVER = Duration.ofSeconds(2);
    /** The shortest time of traffic after the mark. */
    static final Duration AFTER_MARK = Duration.ofSeconds(3);
    /** How long stopping (the clients' last rounds, the drain, the reports) may take. */
    static final Duration STOP_TIMEOUT = Duration.ofSeconds(120);

    private final Options o;
    private final PrintStream out;
    private final Network net;
    private final List<Host> hosts = new ArrayList<>();
    private final List<Host> retired = new ArrayList<>();
    private final Path logs;
    private final List<String[]> checks = new ArrayList<>();
    private volatile boolean cleaned;

    /** The command line. */
    record Options(int hosts, int seconds, String netem, int kill, List<String> transports, int qps,
            String classpath, String java) {
        static Options parse(String[] args) {
            int n = 3;
            int s = 20;
            String netem = "";
            int k = 0;
            int q = 2;
            List<String> ts = List.of("siw", "rxe");
            String cp = System.getProperty("jrdma.cluster.classpath", System.getProperty("java.class.path"));
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                if (a.equals("-h") || a.equals("--help")) {
                    throw new IllegalArgumentException("usage");
                }
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(a + " needs a value");
                }
                String v = args[++i];
                switch (a) {
                    case "--hosts" -> n = Integer.parseInt(v);
                    case "--seconds" -> s = Integer.parseInt(v);
                    case "--netem" -> netem = v;
                    case "--kill" -> k = Integer.parseInt(v);
                    case "--transports" -> ts = List.of(v.split(","));
                    case "--qps" -> q = Integer.parseInt(v);
                    case "--classpath" -> cp = v;
                    default -> throw new IllegalArgumentException("unknown option " + a);
                }
            }
            if (n < 2 || n > 4000) {
                throw new IllegalArgumentException("--hosts must be 2..4000, not " + n);
            }
            if (k < 0 || k >= n) {
                throw new IllegalArgumentException("--kill must be 0.." + (n - 1) + " (host 0 always survives), not "
                        + k);
            }
            if (s < 1 || q < 1 || q > 4000) {
                throw new IllegalArgumentException("--seconds must be >= 1 and --qps 1..4000");
            }
            for (String t : ts) {
                if (!t.equals("siw") && !t.equals("rxe")) {
                    throw new IllegalArgumentException("unknown transport " + t + " (siw, rxe)");
                }
            }
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            return new Options(n, s, netem, k, ts, q, cp, java);
        }
    }

    Coordinator(Options o, PrintStream out) {
        this.o = o;
        this.out = out;
        String prefix = Network.prefixOf(ProcessHandle.current().pid());
        this.net = new Network(prefix, o.hosts());
        this.logs = Path.of(System.getProperty("java.io.tmpdir"), prefix);
    }

    /**
     * Runs the coordinator.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println((e.getMessage().equals("usage") ? "" : "jrdma-cluster: " + e.getMessage() + "\n")
                    + "usage: jrdma-cluster [--hosts N] [--seconds S] [--netem SPEC] [--kill K] [--transports siw,rxe]"
                    + " [--qps Q]");
            System.exit(2);
            return;
        }
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        int failed = new Coordinator(o, out).run();
        System.exit(failed == 0 ? 0 : 1);
    }

    /** Runs the cluster; returns the number of failed checks. */
    int run() {
        if (!"root".equals(System.getProperty("user.name")) || Network.run(false, "ip", "netns", "list") != 0
                || Network.run(false, "tc", "qdisc", "show") != 0) {
            out.println("jrdma-cluster needs root and iproute2 (ip netns, tc)");
            out.println("0 passed, 1 failed");
            return 1;
        }
        Thread hook = new Thread(this::cleanup, "jrdma-cluster-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
        long startNanos = 0;
        long stopNanos = 0;
        try {
            List<String> swept = Network.sweepStale();
            if (!swept.isEmpty()) {
                out.println("removed namespaces of a coordinator no longer running: " + swept);
            }
            Files.createDirectories(logs);
            out.printf(Locale.ROOT, "jrdma-cluster: %d hosts, %d s, %s, %d QP(s) per pair and transport, netem '%s',"
                    + " disrupting %d host(s); host logs in %s%n", o.hosts(), o.seconds(), o.transports(), o.qps(),
                    o.netem(), o.kill(), logs);
            String impairment = net.create(o.netem());
            check(true, "network: " + o.hosts() + " namespaces on a bridge; impairment on every link: "
                    + impairment);
            for (int i = 0; i < o.hosts(); i++) {
                hosts.add(Host.start(this, i, 0));
            }
            boolean ready = true;
            for (Host h : hosts) {
                String r = h.await("READY", READY_TIMEOUT);
                ready &= r != null;
                if (r != null && h.index == 0) {
                    out.println("  " + r);
                }
            }
            check(ready, "every host started and warmed up (READY)");
            if (!ready) {
                return finish(0);
            }
            startNanos = System.nanoTime();
            for (Host h : hosts) {
                h.command("start");
            }
            try {
                disrupt();
                String up = hosts.get(0).lastLine("ALL-UP");
                out.println("  " + (up == null ? "host 0: not every client connected at least once" : up));
            } catch (RuntimeException e) {
                check(false, "the disruptions went through: " + e);
            }
            stopNanos = System.nanoTime();
            for (Host h : hosts) {
                h.command("stop");
            }
            for (Host h : hosts) {
                h.await("CLIENTS-DONE", STOP_TIMEOUT);
            }
            for (Host h : hosts) {
                h.command("drain");
            }
            for (Host h : hosts) {
                h.stopped = h.await("STOPPED", STOP_TIMEOUT) != null;
                h.command("exit");
            }
            for (Host h : hosts) {
                h.awaitExit();
            }
        } catch (IOException | RuntimeException e) {
            check(false, "the run went through: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            check(false, "the run went through: interrupted");
        } finally {
            cleanup();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // shutting down already
            }
        }
        return finish(stopNanos - startNanos);
    }

    private List<Integer> victims() {
        List<Integer> v = new ArrayList<>();
        for (int i = 1; i <= o.kill(); i++) {
            v.add(i);
        }
        return v;
    }

    /**
     * The run's middle: traffic, with the disruptions when {@code --kill} asks for them, then the mark. The
     * sleeps here are the run's schedule (traffic between disruptions, how long each disruption is held), not
     * waits standing in for a condition: what must hold afterwards (restarted hosts READY, every survivor
     * reaching every survivor, exactly-once completions) is awaited and checked at the mark and the verdict.
     */
    private void disrupt() throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(o.seconds());
        List<Integer> v = victims();
        if (v.isEmpty()) {
            Thread.sleep(TimeUnit.SECONDS.toMillis(o.seconds()) / 2);
            mark(end);
            return;
        }
        List<Integer> others = new ArrayList<>();
        for (int i = 0; i < o.hosts(); i++) {
            if (!v.contains(i)) {
                others.add(i);
            }
        }
        long slot = Math.max(HOLD.plus(RECOVER).toNanos(), (end - System.nanoTime() - AFTER_MARK.toNanos()) / 4);
        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(slot - HOLD.toNanos()));
        // 1. SIGKILL, then a new incarnation of each victim.
        for (int i : v) {
            Host h = hosts.get(i);
            h.kill();
            retired.add(h);
            say("SIGKILL host " + i + " (pid " + h.pid() + ")");
        }
        Thread.sleep(HOLD.toMillis());
        boolean back = true;
        for (int i : v) {
            Host h = Host.start(this, i, hosts.get(i).incarnation + 1);
            hosts.set(i, h);
        }
        for (int i : v) {
            Host h = hosts.get(i);
            back &= h.await("READY", READY_TIMEOUT) != null;
            h.command("start");
        }
        check(back, "SIGKILL of host(s) " + v + ", restarted: READY again");
        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(slot - HOLD.toNanos()));
        // 2. SIGSTOP / SIGCONT.
        Host stopped = hosts.get(v.get(0));
        say("SIGSTOP host " + stopped.index);
        stopped.signal("STOP");
        Thread.sleep(HOLD.toMillis());
        stopped.signal("CONT");
        say("SIGCONT host " + stopped.index);
        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(slot - HOLD.toNanos()));
        // 3. A link down and up.
        int cut = v.get(1 % v.size());
        say("link down host " + cut);
        net.link(cut, false);
        Thread.sleep(HOLD.toMillis());
        net.link(cut, true);
        say("link up host " + cut);
        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(slot - HOLD.toNanos()));
        // 4. A partition, healed.
        say("partition " + v + " | " + others);
        net.partition(v, others);
        Thread.sleep(HOLD.toMillis());
        List<Integer> all = new ArrayList<>(v);
        all.addAll(others);
        net.heal(all);
        say("partition healed");
        Thread.sleep(RECOVER.toMillis());
        mark(end);
    }

    private void mark(long end) throws InterruptedException {
        for (Host h : hosts) {
            h.command("mark");
        }
        say("mark: from here every survivor must reach every survivor");
        for (Host h : hosts) {
            String m = h.await("MARKED", Duration.ofSeconds(30));
            if (m != null && (h.index == 0 || o.hosts() <= 4)) {
                out.println("    " + m);
            }
        }
        long left = Math.max(AFTER_MARK.toNanos(), end - System.nanoTime());
        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(left));
    }

    /** A line of the run's progress, with the time of day (the hosts' logs carry it too). */
    private void say(String what) {
        java.time.LocalTime now = java.time.LocalTime.now();
        out.println("  " + now.withNano(now.getNano() / 1_000_000 * 1_000_000) + " " + what);
    }

    /** Kills what is left and deletes the namespaces; idempotent (the shutdown hook and the normal path). */
    synchronized void cleanup() {
        if (cleaned) {
            return;
        }
        cleaned = true;
        List<Host> all = new ArrayList<>(hosts);
        all.addAll(retired);
        for (Host h : all) {
            h.destroy();
        }
        net.delete();
    }

    private void check(boolean ok, String what) {
        checks.add(new String[] {ok ? "PASS" : "FAIL", what});
    }

    /** Evaluates the reports, prints goodput and the checks; returns the failures. */
    private int finish(long runNanos) {
        List<String> left = net.remaining();
        check(left.isEmpty(), "cleanup: every namespace removed" + (left.isEmpty() ? "" : ", left: " + left));
        Set<Integer> excused = new TreeSet<>(victims());
        Map<Long, ConnStats> clientByTag = new HashMap<>();
        Map<Long, ConnStats> serverByTag = new HashMap<>();
        Map<String, long[]> goodput = new LinkedHashMap<>();
        for (String t : o.transports()) {
            goodput.put(t, new long[3]);
        }
        for (Host h : hosts) {
            boolean reported = h.stopped && h.hostLine != null;
            check(reported, "host " + h.index + " (incarnation " + h.incarnation + ") reported");
            if (!reported) {
                continue;
            }
            long unaccounted = 0;
            long lost = 0;
            long order = 0;
            long corrupt = 0;
            long badErrors = 0;
            long errors = 0;
            for (ConnStats s : h.conns) {
                unaccounted += Math.abs(s.unaccounted());
                lost += s.lost;
                order += s.order;
                corrupt += s.corrupt;
                errors += s.errors;
                int other = s.role == ConnStats.CLIENT ? hostOf(s.peer) : ConnStats.clientHost(s.tag);
                boolean ok = excused.contains(h.index) || excused.contains(other);
                if (s.breaksCompletionRules(ok) && s.unaccounted() == 0 && s.lost == 0 && s.order == 0) {
                    badErrors++;
                    out.println("  unexcused error on host " + h.index + ": " + s.line());
                }
                (s.role == ConnStats.CLIENT ? clientByTag : serverByTag).put(s.tag, s);
                if (s.role == ConnStats.CLIENT) {
                    long[] g = goodput.get(s.transport);
                    if (g != null) {
                        g[0] += s.bytes;
                        g[1]++;
                    }
                }
            }
            check(unaccounted == 0 && lost == 0 && order == 0 && badErrors == 0, String.format(Locale.ROOT,
                    "host %d: %d connections, every work request completed exactly once and in order (%d error "
                    + "completions: flushes at disconnect and errors on disrupted hosts' connections; unaccounted %d, "
                    + "lost %d, out of order %d, unexcused %d)", h.index, h.conns.size(), errors, unaccounted, lost,
                    order, badErrors));
            check(corrupt == 0, "host " + h.index + ": every byte verified (" + corrupt + " corrupt)");
            Map<String, String> f = ConnStats.fields(h.hostLine);
            boolean leak = !"0".equals(f.get("leak")) || !"0".equals(f.get("stuckClients"))
                    || !"0".equals(f.get("leftOpen"));
            check(!leak, String.format(Locale.ROOT, "host %d: no leak: threads %s -> %s, virtual threads %s -> %s, "
                    + "sockets %s -> %s, CM ids %s -> %s, heap %s -> %s MiB (stuck clients %s, left open %s, "
                    + "abandoned %s, new threads %s)", h.index, f.get("threads0"), f.get("threads1"),
                    f.get("vthreads0"), f.get("vthreads1"), f.get("sockets0"), f.get("sockets1"), f.get("cmIds0"),
                    f.get("cmIds1"),
                    f.get("heapMiB0"), f.get("heapMiB1"), f.get("stuckClients"), f.get("leftOpen"),
                    f.get("abandoned"), f.get("newThreads")));
            boolean reached = true;
            for (String t : o.transports()) {
                for (Host p : hosts) {
                    if (p == h) {
                        continue;
                    }
                    long after = 0;
                    for (ConnStats s : h.conns) {
                        if (s.role == ConnStats.CLIENT && s.transport.equals(t) && s.peer.equals(Network.ip(p.index))) {
                            after += s.afterMark;
                        }
                    }
                    if (after == 0) {
                        reached = false;
                        check(false, "host " + h.index + " moved no data to host " + p.index + " over " + t
                                + " after the mark");
                    }
                }
            }
            check(reached, "host " + h.index + " reached every other host on every transport after the mark");
        }
        for (String t : o.transports()) {
            long matched = 0;
            long mismatched = 0;
            for (ConnStats c : clientByTag.values()) {
                ConnStats s = serverByTag.get(c.tag);
                if (s == null || !c.transport.equals(t)) {
                    continue;
                }
                matched++;
                if (!ConnStats.agree(c, s)) {
                    mismatched++;
                    out.println("  " + t + " end to end mismatch: client " + c.line() + " / server " + s.line());
                }
            }
            check(mismatched == 0 && matched > 0, String.format(Locale.ROOT, "%s: no message lost or duplicated end "
                    + "to end (%d connections seen by both sides, %d disagree)", t, matched, mismatched));
        }
        double secs = Math.max(1, runNanos) / 1e9;
        out.println();
        out.printf(Locale.ROOT, "%-6s %12s %14s %12s%n", "", "connections", "verified", "goodput");
        for (Map.Entry<String, long[]> e : goodput.entrySet()) {
            long[] g = e.getValue();
            out.printf(Locale.ROOT, "%-6s %12d %11.1f MiB %8.1f MiB/s%n", e.getKey(), g[1], g[0] / 1048576.0,
                    runNanos > 0 ? g[0] / 1048576.0 / secs : 0.0);
        }
        out.println();
        int passed = 0;
        int failed = 0;
        for (String[] c : checks) {
            out.println(c[0] + "  " + c[1]);
            if (c[0].equals("PASS")) {
                passed++;
            } else {
                failed++;
            }
        }
        out.println(failed == 0 ? "verdict: the cluster lost, duplicated and corrupted nothing" : "verdict: FAILED");
        out.println(passed + " passed, " + failed + " failed");
        return failed;
    }

    private int hostOf(String ip) {
        for (Host h : hosts) {
            if (Network.ip(h.index).equals(ip)) {
                return h.index;
            }
        }
        return -1;
    }

    /** One host JVM: its process, its stdout lines and what it reported. */
    static final class Host {
        final int index;
        final int incarnation;
        private final Process process;
        private final OutputStream stdin;
        private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
        final List<ConnStats> conns = new ArrayList<>();
        private final List<String> seen = new ArrayList<>();
        private final PrintStream report;
        volatile String hostLine;
        boolean stopped;

        private Host(int index, int incarnation, Process p, Path reportFile) {
            PrintStream rf;
            try {
                rf = new PrintStream(Files.newOutputStream(reportFile), true, StandardCharsets.UTF_8);
            } catch (IOException e) {
                rf = null;
            }
            this.report = rf;
            this.index = index;
            this.incarnation = incarnation;
            this.process = p;
            this.stdin = p.getOutputStream();
            Thread.ofPlatform().daemon().name("host-" + index + "-" + incarnation).start(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    String l;
                    while ((l = r.readLine()) != null) {
                        if (report != null) {
                            report.println(l);
                        }
                        if (l.startsWith("CONN ")) {
                            synchronized (conns) {
                                conns.add(ConnStats.parse(l));
                            }
                        } else if (l.startsWith("HOST ")) {
                            hostLine = l;
                        }
                        if (l.startsWith("ALL-UP")) {
                            synchronized (seen) {
                                seen.add(l);
                            }
                        }
                        lines.add(l);
                    }
                } catch (IOException e) {
                    // the host is gone
                }
            });
        }

        static Host start(Coordinator c, int index, int incarnation) {
            List<String> ips = new ArrayList<>();
            for (int i = 0; i < c.o.hosts(); i++) {
                ips.add(Network.ip(i));
            }
            List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", c.net.ns(index), c.o.java()));
            cmd.addAll(jvmOptions(index));
            cmd.addAll(List.of("-cp", c.o.classpath(), HostMain.class.getName(), "--id", Integer.toString(index),
                    "--ips", String.join(",", ips), "--qps", Integer.toString(c.o.qps()), "--transports",
                    String.join(",", c.o.transports()), "--incarnation", Integer.toString(incarnation)));
            try {
                Process p = new ProcessBuilder(cmd).redirectError(c.logs.resolve("host" + index + "-" + incarnation
                        + ".log").toFile()).start();
                return new Host(index, incarnation, p, c.logs.resolve("host" + index + "-" + incarnation + ".out"));
            } catch (IOException e) {
                throw new IllegalStateException("cannot start host " + index + ": " + e, e);
            }
        }

        /**
         * The JVM options of host {@code index}: a small heap and C1 (12 JVMs share two cores), its rxe device on
         * its address, and siw's stall timeout {@link ClientLoop#SIW_STALL}.
         */
        static List<String> jvmOptions(int index) {
            return List.of("-XX:+UseSerialGC", "-XX:-UsePerfData", "-Xmx256m", "-Xss512k", "-XX:TieredStopAtLevel=1",
                    "--enable-native-access=ALL-UNNAMED", "-Djrdma.rxe.devices=rxe0:" + Network.ip(index),
                    "-Djrdma.siw.stallTimeoutMs=" + ClientLoop.SIW_STALL.toMillis());
        }

        /** The last line seen starting with {@code prefix}, or null. */
        String lastLine(String prefix) {
            synchronized (seen) {
                for (int i = seen.size() - 1; i >= 0; i--) {
                    if (seen.get(i).startsWith(prefix)) {
                        return seen.get(i);
                    }
                }
            }
            return null;
        }

        long pid() {
            return process.pid();
        }

        /** The next line starting with {@code prefix}, or {@code null} at the timeout or when the host exited. */
        String await(String prefix, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                long left = deadline - System.nanoTime();
                String l = left > 0 ? lines.poll(Math.min(left, TimeUnit.MILLISECONDS.toNanos(200)),
                        TimeUnit.NANOSECONDS) : null;
                if (l != null && l.startsWith(prefix)) {
                    return l;
                }
                if (l == null && (left <= 0 || !process.isAlive() && lines.isEmpty())) {
                    return null;
                }
            }
        }

        void command(String line) {
            try {
                stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
                stdin.flush();
            } catch (IOException e) {
                // the host is gone: its report is missing, which the checks count
            }
        }

        void signal(String sig) {
            Network.run(true, "kill", "-" + sig, Long.toString(process.pid()));
        }

        void kill() throws InterruptedException {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }

        void awaitExit() throws InterruptedException {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                destroy();
            }
        }

        void destroy() {
            if (process.isAlive()) {
                signal("CONT");
                process.destroyForcibly();
                try {
                    process.waitFor(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
