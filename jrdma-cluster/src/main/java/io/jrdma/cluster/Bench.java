package io.jrdma.cluster;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;

/**
 * Goodput under impairment ({@code bin/jrdma-cluster --bench}): one connection each of {@code jrdma write-bw}
 * over siw0, {@code jrdma write-bw} over rxe0 and {@code jrdma tcp-bw} between two namespaces, for every pair
 * of a delay and a loss applied by a {@link DelayLine} between them, repeated in interleaved runs, and the
 * medians, spreads and siw/TCP ratios as a table (Markdown), a picture (SVG) and the samples (CSV).
 *
 * <p>The namespaces are {@code jcl<pid>-a} (the servers), {@code jcl<pid>-b} (the clients) and {@code
 * jcl<pid>-m} (where the delay line's JVM runs). {@code a} and {@code b} are joined twice: by a veth pair
 * ({@code 10.98.0.1} and {@code .2}, no impairment: the reference the delay line is compared with) and by the
 * delay line's TUN devices ({@code 10.98.1.1} and {@code .2}). Each run measures the references first (the
 * veth link and the delay line with neither delay nor loss), then every delay and loss in order, the three
 * transports of a cell back to back in an order that rotates from run to run.
 */
public final class Bench {
    static final List<String> TRANSPORTS = List.of("siw", "rxe", "tcp");
    private static final String REF_VETH = "veth";
    private static final String REF_LINE = "line";
    /** How long a server's JVM gets to start listening before its client connects (a schedule, not a wait). */
    private static final long SERVER_START_MS = 2_000;
    /**
     * Attempts per measurement: a client that finds no server yet (its JVM starts slowly on a busy machine) or
     * fails otherwise is run again with a fresh server; each failed attempt is logged.
     */
    private static final int ATTEMPTS = 3;

    record Options(int seconds, int runs, List<Double> delaysMs, List<Double> losses, int mtu, String jrdma,
            String classpath, String java, Path out, Path plot) {
        static Options parse(String[] args) {
            int s = 4;
            int r = 3;
            List<Double> d = List.of(0.1, 1.0, 5.0);
            List<Double> l = List.of(0.0, 0.01, 0.1, 1.0);
            int mtu = 9000;
            String jrdma = "bin/jrdma";
            Path out = Path.of(".");
            Path plot = null;
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
                    case "--seconds" -> s = Integer.parseInt(v);
                    case "--runs" -> r = Integer.parseInt(v);
                    case "--delays" -> d = numbers(v);
                    case "--losses" -> l = numbers(v);
                    case "--mtu" -> mtu = Integer.parseInt(v);
                    case "--jrdma" -> jrdma = v;
                    case "--out" -> out = Path.of(v);
                    case "--plot" -> plot = Path.of(v);
                    case "--classpath" -> cp = v;
                    default -> throw new IllegalArgumentException("unknown option " + a);
                }
            }
            if (s < 1 || r < 1 || mtu < 1280 || mtu > 65535) {
                throw new IllegalArgumentException("--seconds and --runs must be >= 1, --mtu 1280..65535");
            }
            for (double x : l) {
                if (x < 0 || x >= 100) {
                    throw new IllegalArgumentException("a loss must be 0..100 %, not " + x);
                }
            }
            for (double x : d) {
                if (x < 0 || x > 1000) {
                    throw new IllegalArgumentException("a delay must be 0..1000 ms, not " + x);
                }
            }
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            return new Options(s, r, d, l, mtu, jrdma, cp, java, out, plot);
        }

        private static List<Double> numbers(String v) {
            List<Double> n = new ArrayList<>();
            for (String x : v.split(",")) {
                n.add(Double.parseDouble(x.trim()));
            }
            return List.copyOf(n);
        }
    }

    /**
     * One measurement: {@code link} is {@code veth}, {@code line} (the delay line without impairment) or {@code
     * impaired}; {@code mbps} is the client's average in MB/s (2^20 B, as perftest) or NaN when the run failed;
     * {@code dropPct} and {@code lateUs} are what the delay line did meanwhile (packets dropped of those it
     * received, and the mean time a forwarded packet waited past its due time); {@code retransPct} is the
     * share of the client namespace's TCP segments that were retransmissions (siw and TCP; 0 for rxe).
     */
    record Sample(int run, String link, double delayMs, double lossPct, String transport, double mbps,
            double dropPct, double lateUs, double retransPct) {
        String csv() {
            return String.format(Locale.ROOT, "%d,%s,%s,%s,%s,%.1f,%.4f,%.0f,%.4f", run, link, num(delayMs),
                    num(lossPct), transport, mbps, dropPct, lateUs, retransPct);
        }

        static Sample parse(String line) {
            String[] f = line.split(",");
            return new Sample(Integer.parseInt(f[0]), f[1], Double.parseDouble(f[2]), Double.parseDouble(f[3]), f[4],
                    Double.parseDouble(f[5]), Double.parseDouble(f[6]), Double.parseDouble(f[7]),
                    Double.parseDouble(f[8]));
        }

        static final String HEADER = "run,link,delay_ms,loss_pct,transport,mb_per_s,line_drop_pct,line_late_us,"
                + "tcp_retrans_pct";
    }

    private final Options o;
    private final PrintStream out;
    private final String prefix = Network.prefixOf(ProcessHandle.current().pid());
    private final List<String> made = new ArrayList<>();
    private Process line;
    private Writer csv;
    private PrintStream lineIn;
    private BufferedReader lineOut;

    Bench(Options o, PrintStream out) {
        this.o = o;
        this.out = out;
    }

    /**
     * Runs the benchmark, or with {@code --plot CSV} only writes the table and the picture of earlier samples.
     *
     * @param args the command line
     */
    public static void main(String[] args) throws IOException {
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println((e.getMessage().equals("usage") ? "" : "jrdma-cluster --bench: " + e.getMessage()
                    + "\n") + "usage: jrdma-cluster --bench [--seconds S] [--runs R] [--delays MS,..] [--losses PCT,..]"
                    + " [--mtu M] [--out DIR] | --bench --plot CSV [--out DIR]");
            System.exit(2);
            return;
        }
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        List<Sample> samples;
        if (o.plot() != null) {
            samples = readCsv(o.plot());
        } else {
            Files.createDirectories(o.out());
            Bench b = new Bench(o, out);
            Runtime.getRuntime().addShutdownHook(new Thread(b::cleanup));
            try {
                samples = b.run();
            } finally {
                b.cleanup();
            }
        }
        Files.createDirectories(o.out());
        Table t = new Table(samples);
        String md = t.markdown();
        write(o.out().resolve("goodput-impairment.md"), md);
        write(o.out().resolve("goodput-impairment.svg"), t.svg());
        out.println();
        out.print(md);
        out.println("wrote " + o.out().resolve("goodput-impairment.{csv,md,svg}"));
    }

    private static void write(Path p, String text) throws IOException {
        try (Writer w = Files.newBufferedWriter(p, StandardCharsets.UTF_8)) {
            w.write(text);
        }
    }

    static List<Sample> readCsv(Path p) throws IOException {
        List<Sample> s = new ArrayList<>();
        for (String l : Files.readAllLines(p, StandardCharsets.UTF_8)) {
            if (!l.isBlank() && !l.startsWith("run,")) {
                s.add(Sample.parse(l));
            }
        }
        return s;
    }

    /** The whole benchmark: the network, the delay line, every run; returns every sample. */
    List<Sample> run() {
        if (!"root".equals(System.getProperty("user.name"))) {
            throw new IllegalStateException("jrdma-cluster --bench needs root");
        }
        Network.sweepStale();
        build();
        try {
            csv = Files.newBufferedWriter(o.out().resolve("goodput-impairment.csv"), StandardCharsets.UTF_8);
            csv.write(Sample.HEADER + "\n");
        } catch (IOException e) {
            throw new IllegalStateException("cannot write " + o.out() + ": " + e, e);
        }
        List<Sample> samples = new ArrayList<>();
        out.printf(Locale.ROOT, "%d runs of %d s per cell, delays %s ms, losses %s %%, MTU %d; columns: MB/s%n",
                o.runs(), o.seconds(), o.delaysMs(), o.losses(), o.mtu());
        out.printf(Locale.ROOT, "%-4s %-8s %8s %8s %10s %10s %10s %8s %9s %6s %6s%n", "run", "link", "delay ms",
                "loss %",
                "siw", "rxe", "tcp", "drop %", "late us", "rtx siw", "rtx tcp");
        for (int r = 0; r < o.runs(); r++) {
            List<String> order = rotated(r);
            cell(samples, r, REF_VETH, 0, 0, order);
            cell(samples, r, REF_LINE, 0, 0, order);
            for (double d : o.delaysMs()) {
                for (double l : o.losses()) {
                    cell(samples, r, "impaired", d, l, order);
                }
            }
        }
        return samples;
    }

    private List<String> rotated(int r) {
        List<String> t = new ArrayList<>(TRANSPORTS);
        java.util.Collections.rotate(t, -(r % t.size()));
        return t;
    }

    private void cell(List<Sample> samples, int run, String link, double delayMs, double lossPct, List<String> order) {
        boolean veth = link.equals(REF_VETH);
        setLine(veth ? 0 : delayMs, veth ? 0 : lossPct);
        Map<String, Sample> got = new LinkedHashMap<>();
        for (String t : order) {
            long[] before = lineStats();
            long[] tcpBefore = tcpSegments();
            double mbps = Double.NaN;
            for (int attempt = 1; attempt <= ATTEMPTS && Double.isNaN(mbps); attempt++) {
                mbps = measure(t, veth ? "10.98.0" : "10.98.1", run, link, delayMs, lossPct, attempt);
            }
            long[] tcpAfter = tcpSegments();
            long[] after = lineStats();
            long segs = tcpAfter[0] - tcpBefore[0];
            double retrans = segs <= 0 ? 0 : 100.0 * (tcpAfter[1] - tcpBefore[1]) / segs;
            long received = after[0] - before[0];
            long dropped = after[1] + after[2] - before[1] - before[2];
            long forwarded = after[3] - before[3];
            double drop = received == 0 ? 0 : 100.0 * dropped / received;
            double late = forwarded == 0 ? 0 : (double) (after[4] - before[4]) / forwarded;
            Sample s = new Sample(run, link, delayMs, lossPct, t, mbps, veth ? 0 : drop, veth ? 0 : late, retrans);
            got.put(t, s);
            samples.add(s);
            try {
                csv.write(s.csv() + "\n");
                csv.flush();
            } catch (IOException e) {
                throw new IllegalStateException("cannot write the samples: " + e, e);
            }
        }
        Sample any = got.values().iterator().next();
        out.printf(Locale.ROOT, "%-4d %-8s %8s %8s %10.1f %10.1f %10.1f %8.3f %9.0f %6.3f %6.3f%n", run + 1,
                link, num(delayMs), num(lossPct), got.get("siw").mbps(), got.get("rxe").mbps(), got.get("tcp").mbps(),
                any.dropPct(), any.lateUs(), got.get("siw").retransPct(), got.get("tcp").retransPct());
    }

    /**
     * One client run against a fresh server; the client's average in MB/s, NaN when it failed (its error
     * output is appended to the log beside the samples).
     */
    private double measure(String transport, String net, int run, String link, double delayMs, double lossPct,
            int attempt) {
        List<String> tool = switch (transport) {
            case "siw" -> List.of("write-bw", "-d", "siw0");
            case "rxe" -> List.of("write-bw", "-d", "rxe0");
            default -> List.of("tcp-bw");
        };
        String server = net + ".1";
        Process s = start(prefix + "-a", transport.equals("rxe") ? "-Djrdma.rxe.devices=rxe0:" + server : "",
                tool, List.of());
        try {
            TimeUnit.MILLISECONDS.sleep(SERVER_START_MS);
            Process c = start(prefix + "-b", transport.equals("rxe") ? "-Djrdma.rxe.devices=rxe0:" + net + ".2" : "",
                    tool, List.of(server));
            byte[] text = c.getInputStream().readAllBytes();
            if (!c.waitFor(o.seconds() * 4L + 30, TimeUnit.SECONDS)) {
                c.destroyForcibly();
            }
            byte[] err = c.getErrorStream().readAllBytes();
            if (!s.waitFor(10, TimeUnit.SECONDS)) {
                s.destroyForcibly();
            }
            Matcher m = java.util.regex.Pattern.compile("\"bw_average\":([0-9.]+)")
                    .matcher(new String(text, StandardCharsets.UTF_8));
            double v = Double.NaN;
            while (m.find()) {
                v = Double.parseDouble(m.group(1));
            }
            if (Double.isNaN(v)) {
                log(String.format(Locale.ROOT, "run %d %s delay %s loss %s %s attempt %d failed: %s%n", run + 1, link,
                        num(delayMs), num(lossPct), transport, attempt, new String(err, StandardCharsets.UTF_8)
                        .strip().lines().reduce((a, b) -> b).orElse("(no output)")));
            }
            return v;
        } catch (IOException e) {
            return Double.NaN;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } finally {
            s.destroyForcibly();
        }
    }

    private void log(String text) {
        try {
            Files.writeString(o.out().resolve("goodput-impairment.log"), text, StandardCharsets.UTF_8,
                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        } catch (IOException e) {
            out.print(text);
        }
    }

    /** TCP's OutSegs and RetransSegs in the clients' namespace (the senders of every transfer). */
    private long[] tcpSegments() {
        try {
            Process p = new ProcessBuilder("ip", "netns", "exec", prefix + "-b", "cat", "/proc/net/snmp")
                    .redirectErrorStream(true).start();
            List<String> lines = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines()
                    .filter(l -> l.startsWith("Tcp:")).toList();
            p.waitFor(10, TimeUnit.SECONDS);
            if (lines.size() == 2) {
                List<String> names = List.of(lines.get(0).split("\\s+"));
                String[] v = lines.get(1).split("\\s+");
                return new long[] {Long.parseLong(v[names.indexOf("OutSegs")]),
                    Long.parseLong(v[names.indexOf("RetransSegs")])};
            }
        } catch (IOException | RuntimeException e) {
            // no counters: the share is reported as 0
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return new long[2];
    }

    private Process start(String ns, String javaOpts, List<String> tool, List<String> server) {
        List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", ns, "env", "JRDMA_NO_BUILD=1",
                "JRDMA_JAVA_OPTS=" + javaOpts, o.jrdma()));
        cmd.addAll(tool);
        // -e: every side sleeps on events (CQ events, a selector) instead of busy-polling, so that on a shared
        // machine the measurement's own spinning threads do not starve the delay line and each other
        cmd.addAll(List.of("-e", "-D", Integer.toString(o.seconds()), "--json"));
        cmd.addAll(server);
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd);
            if (server.isEmpty()) {
                pb.redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD);
            }
            return pb.start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + String.join(" ", cmd), e);
        }
    }

    /** The namespaces, the veth pair and the delay line with its two devices moved into place. */
    private void build() {
        for (String n : List.of("a", "b", "m")) {
            Network.must("ip", "netns", "add", prefix + "-" + n);
            made.add(prefix + "-" + n);
            Network.must("ip", "-n", prefix + "-" + n, "link", "set", "lo", "up");
        }
        String a = prefix + "-a";
        String b = prefix + "-b";
        Network.must("ip", "link", "add", "eth0", "netns", a, "type", "veth", "peer", "name", "eth0", "netns", b);
        Network.must("ip", "-n", a, "addr", "add", "10.98.0.1/24", "dev", "eth0");
        Network.must("ip", "-n", b, "addr", "add", "10.98.0.2/24", "dev", "eth0");
        Network.must("ip", "-n", a, "link", "set", "eth0", "up");
        Network.must("ip", "-n", b, "link", "set", "eth0", "up");
        try {
            line = new ProcessBuilder("ip", "netns", "exec", prefix + "-m", o.java(), "-XX:+UseSerialGC",
                    "-XX:-UsePerfData", "--enable-native-access=ALL-UNNAMED", "-cp", o.classpath(),
                    DelayLine.class.getName(), "--a", "ta", "--b", "tb", "--mtu", Integer.toString(o.mtu()))
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the delay line: " + e, e);
        }
        lineIn = new PrintStream(line.getOutputStream(), true, StandardCharsets.UTF_8);
        lineOut = new BufferedReader(new InputStreamReader(line.getInputStream(), StandardCharsets.UTF_8));
        expect("ready");
        for (String[] end : List.of(new String[] {"ta", a, "10.98.1.1", "10.98.1.2"},
                new String[] {"tb", b, "10.98.1.2", "10.98.1.1"})) {
            Network.must("ip", "-n", prefix + "-m", "link", "set", end[0], "netns", end[1]);
            Network.must("ip", "-n", end[1], "addr", "add", end[2], "peer", end[3], "dev", end[0]);
            Network.must("ip", "-n", end[1], "link", "set", end[0], "mtu", Integer.toString(o.mtu()), "txqueuelen",
                    "1000", "up");
        }
    }

    private void setLine(double delayMs, double lossPct) {
        lineIn.printf(Locale.ROOT, "set %.0f %s%n", delayMs * 1000, num(lossPct));
        expect("ok");
    }

    /** Received, dropped, overflow, forwarded and late microseconds of the delay line, both directions summed. */
    private long[] lineStats() {
        lineIn.println("stats");
        long[] v = new long[5];
        for (int k = 0; k < 2; k++) {
            String[] w = expect(">").split("\\s+");
            for (int i = 0; i < 5; i++) {
                v[i] += Long.parseLong(w[2 + 2 * i]);
            }
        }
        return v;
    }

    private String expect(String what) {
        try {
            String l = lineOut.readLine();
            if (l == null || !l.contains(what)) {
                throw new IllegalStateException("delay line: expected " + what + ", got " + l);
            }
            return l;
        } catch (IOException e) {
            throw new IllegalStateException("delay line: " + e, e);
        }
    }

    /** Ends the delay line and every process left in the namespaces, and deletes them. */
    synchronized void cleanup() {
        if (csv != null) {
            try {
                csv.close();
            } catch (IOException e) {
                // what was flushed is there
            }
            csv = null;
        }
        if (line != null) {
            line.destroyForcibly();
            line = null;
        }
        for (int i = made.size() - 1; i >= 0; i--) {
            String ns = made.get(i);
            try {
                Process p = new ProcessBuilder("ip", "netns", "pids", ns).redirectErrorStream(true).start();
                for (String pid : new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                        .split("\\s+")) {
                    if (!pid.isBlank()) {
                        ProcessHandle.of(Long.parseLong(pid.trim())).ifPresent(ProcessHandle::destroyForcibly);
                    }
                }
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (IOException | NumberFormatException e) {
                // the namespace is gone, or a pid vanished meanwhile
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Network.run(false, "ip", "netns", "del", ns);
        }
        made.clear();
    }

    static String num(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }

    /** Medians, spreads and ratios of the samples, as Markdown and as SVG. */
    static final class Table {
        private final List<Sample> samples;
        private final List<Double> delays;
        private final List<Double> losses;

        Table(List<Sample> samples) {
            this.samples = List.copyOf(samples);
            this.delays = samples.stream().filter(s -> s.link().equals("impaired")).map(Sample::delayMs).distinct()
                    .sorted().toList();
            this.losses = samples.stream().filter(s -> s.link().equals("impaired")).map(Sample::lossPct).distinct()
                    .sorted().toList();
        }

        List<Double> delays() {
            return delays;
        }

        List<Double> losses() {
            return losses;
        }

        /** The goodputs of one cell and transport, failed runs (NaN) left out. */
        double[] values(String link, double delay, double loss, String transport) {
            return samples.stream().filter(s -> s.link().equals(link) && s.delayMs() == delay && s.lossPct() == loss
                    && s.transport().equals(transport) && !Double.isNaN(s.mbps())).mapToDouble(Sample::mbps).toArray();
        }

        long failures(String link, double delay, double loss, String transport) {
            return samples.stream().filter(s -> s.link().equals(link) && s.delayMs() == delay && s.lossPct() == loss
                    && s.transport().equals(transport) && Double.isNaN(s.mbps())).count();
        }

        /** siw / TCP per run of the cell (both measured in that run, seconds apart). */
        double[] siwOverTcp(String link, double delay, double loss) {
            Map<Integer, double[]> byRun = new LinkedHashMap<>();
            for (Sample s : samples) {
                if (s.link().equals(link) && s.delayMs() == delay && s.lossPct() == loss && !Double.isNaN(s.mbps())) {
                    double[] p = byRun.computeIfAbsent(s.run(), k -> new double[] {Double.NaN, Double.NaN});
                    if (s.transport().equals("siw")) {
                        p[0] = s.mbps();
                    } else if (s.transport().equals("tcp")) {
                        p[1] = s.mbps();
                    }
                }
            }
            return byRun.values().stream().filter(p -> !Double.isNaN(p[0]) && p[1] > 0).mapToDouble(p -> p[0] / p[1])
                    .toArray();
        }

        double mean(String link, double delay, double loss, java.util.function.ToDoubleFunction<Sample> f) {
            return samples.stream().filter(s -> s.link().equals(link) && s.delayMs() == delay && s.lossPct() == loss)
                    .mapToDouble(f).average().orElse(Double.NaN);
        }

        private double meanOf(String link, double delay, double loss, String transport) {
            return samples.stream().filter(s -> s.link().equals(link) && s.delayMs() == delay && s.lossPct() == loss
                    && s.transport().equals(transport)).mapToDouble(Sample::retransPct).average().orElse(Double.NaN);
        }

        static double median(double[] v) {
            if (v.length == 0) {
                return Double.NaN;
            }
            double[] s = v.clone();
            Arrays.sort(s);
            int n = s.length;
            return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
        }

        static double min(double[] v) {
            return Arrays.stream(v).min().orElse(Double.NaN);
        }

        static double max(double[] v) {
            return Arrays.stream(v).max().orElse(Double.NaN);
        }

        /** {@code median (min-max)}, or {@code -} without values; failed runs noted. */
        private String cellText(double[] v, long failed, String unit) {
            String f = failed == 0 ? "" : " (" + failed + " failed)";
            if (v.length == 0) {
                return "-" + f;
            }
            return String.format(Locale.ROOT, "%.0f%s (%.0f-%.0f)", median(v), unit, min(v), max(v)) + f;
        }

        private String ratioText(double[] v) {
            if (v.length == 0) {
                return "-";
            }
            return String.format(Locale.ROOT, "%.2f (%.2f-%.2f)", median(v), min(v), max(v));
        }

        String markdown() {
            int runs = (int) samples.stream().mapToInt(Sample::run).distinct().count();
            StringBuilder b = new StringBuilder();
            b.append("| link | delay | loss | siw MB/s | rxe MB/s | TCP MB/s | siw/TCP | rxe vs lossless"
                    + " | retransmitted, siw / TCP | line drop, late |\n");
            b.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
            for (String ref : List.of(REF_VETH, REF_LINE)) {
                if (values(ref, 0, 0, "tcp").length + values(ref, 0, 0, "siw").length == 0) {
                    continue;
                }
                row(b, ref.equals(REF_VETH) ? "veth" : "delay line", ref, 0, 0, Double.NaN);
            }
            for (double d : delays) {
                double lossless = median(values("impaired", d, 0, "rxe"));
                for (double l : losses) {
                    row(b, "delay line", "impaired", d, l, lossless);
                }
            }
            b.append("\nMedians of ").append(runs).append(" interleaved runs, (min-max) across them; siw/TCP is the"
                    + " ratio within each run. \"retransmitted\": the share of the client namespace's TCP segments"
                    + " that were retransmissions, mean of the runs. \"line drop, late\": the packets the delay line"
                    + " dropped (of those it received, both directions)"
                    + " and the mean time a packet waited past its due time.\n");
            return b.toString();
        }

        private void row(StringBuilder b, String name, String link, double d, double l, double rxeLossless) {
            double[] rxe = values(link, d, l, "rxe");
            String rel = Double.isNaN(rxeLossless) || rxe.length == 0 ? "-"
                    : String.format(Locale.ROOT, "%.0f %%", 100 * median(rxe) / rxeLossless);
            String line = link.equals(REF_VETH) ? "-" : String.format(Locale.ROOT, "%.3f %%, %.0f us",
                    mean(link, d, l, Sample::dropPct), mean(link, d, l, Sample::lateUs));
            b.append("| ").append(name).append(" | ").append(link.equals(REF_VETH) ? "-" : num(d) + " ms")
                    .append(" | ").append(link.equals(REF_VETH) ? "-" : num(l) + " %")
                    .append(" | ").append(cellText(values(link, d, l, "siw"), failures(link, d, l, "siw"), ""))
                    .append(" | ").append(cellText(rxe, failures(link, d, l, "rxe"), ""))
                    .append(" | ").append(cellText(values(link, d, l, "tcp"), failures(link, d, l, "tcp"), ""))
                    .append(" | ").append(ratioText(siwOverTcp(link, d, l)))
                    .append(" | ").append(rel)
                    .append(" | ").append(String.format(Locale.ROOT, "%.2f / %.2f %%", meanOf(link, d, l, "siw"),
                            meanOf(link, d, l, "tcp")))
                    .append(" | ").append(line).append(" |\n");
        }

        /**
         * One panel per delay, loss on the horizontal axis (its levels evenly spaced), goodput on a shared linear
         * vertical axis: per transport a line through the medians and a bar from the lowest to the highest run.
         */
        String svg() {
            int panelW = 300;
            int panelH = 240;
            int left = 60;
            int top = 40;
            int gap = 30;
            int bottom = 70;
            int n = Math.max(1, delays.size());
            int width = left + n * panelW + (n - 1) * gap + 20;
            int height = top + panelH + bottom;
            double ymax = 0;
            for (double d : delays) {
                for (double l : losses) {
                    for (String t : TRANSPORTS) {
                        ymax = Math.max(ymax, max(values("impaired", d, l, t)));
                    }
                }
            }
            double step = niceStep(ymax / 5);
            double yTop = Math.max(step, Math.ceil(ymax / step) * step);
            Map<String, String> color = Map.of("siw", "#1f77b4", "rxe", "#d62728", "tcp", "#555555");
            Map<String, String> dash = Map.of("siw", "", "rxe", "", "tcp", " stroke-dasharray=\"6 3\"");
            StringBuilder s = new StringBuilder();
            s.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                    + " viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n", width, height, width,
                    height));
            s.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", width, height));
            s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"20\" font-size=\"14\">Goodput under loss and"
                    + " delay (one connection, 64 KiB messages; median and min-max of the runs)</text>%n", left));
            for (int p = 0; p < delays.size(); p++) {
                double d = delays.get(p);
                int x0 = left + p * (panelW + gap);
                s.append(String.format(Locale.ROOT, "<g><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\""
                        + " fill=\"none\" stroke=\"#999\"/>%n", x0, top, panelW, panelH));
                s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">delay %s ms each"
                        + " way</text>%n", x0 + panelW / 2, top - 6, num(d)));
                for (double y = 0; y <= yTop + step / 2; y += step) {
                    double py = top + panelH - y / yTop * panelH;
                    s.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\""
                            + " stroke=\"#e5e5e5\"/>%n", x0, py, x0 + panelW, py));
                    if (p == 0) {
                        s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n",
                                x0 - 6, py + 4, num(y)));
                    }
                }
                for (int i = 0; i < losses.size(); i++) {
                    s.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s %%"
                            + "</text>%n", xOf(x0, panelW, i), top + panelH + 16, num(losses.get(i))));
                }
                s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">loss</text>%n",
                        x0 + panelW / 2, top + panelH + 32));
                for (int k = 0; k < TRANSPORTS.size(); k++) {
                    String t = TRANSPORTS.get(k);
                    double off = (k - 1) * 5;
                    StringBuilder pts = new StringBuilder();
                    for (int i = 0; i < losses.size(); i++) {
                        double[] v = values("impaired", d, losses.get(i), t);
                        if (v.length == 0) {
                            continue;
                        }
                        double px = xOf(x0, panelW, i) + off;
                        s.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\""
                                + " stroke=\"%s\" stroke-width=\"2\" opacity=\"0.5\"/>%n", px,
                                yOf(top, panelH, yTop, min(v)), px, yOf(top, panelH, yTop, max(v)), color.get(t)));
                        s.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>%n",
                                px, yOf(top, panelH, yTop, median(v)), color.get(t)));
                        pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", px, yOf(top, panelH, yTop, median(v))));
                    }
                    s.append(String.format(Locale.ROOT, "<polyline class=\"%s\" points=\"%s\" fill=\"none\""
                            + " stroke=\"%s\" stroke-width=\"1.5\"%s/>%n", t, pts.toString().trim(), color.get(t),
                            dash.get(t)));
                }
                s.append("</g>\n");
            }
            s.append(String.format(Locale.ROOT, "<text transform=\"translate(16,%d) rotate(-90)\""
                    + " text-anchor=\"middle\">goodput, MB/s</text>%n", top + panelH / 2));
            int ly = height - 14;
            for (int k = 0; k < TRANSPORTS.size(); k++) {
                String t = TRANSPORTS.get(k);
                int lx = left + k * 170;
                s.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\""
                        + " stroke-width=\"1.5\"%s/>%n", lx, ly - 4, lx + 24, ly - 4, color.get(t), dash.get(t)));
                s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>%n", lx + 30, ly,
                        switch (t) {
                            case "siw" -> "siw (iWARP over TCP)";
                            case "rxe" -> "rxe (RoCEv2 over UDP)";
                            default -> "raw TCP";
                        }));
            }
            s.append("</svg>\n");
            return s.toString();
        }

        private double xOf(int x0, int w, int i) {
            return x0 + (i + 0.5) * w / losses.size();
        }

        private static double yOf(int top, int h, double yTop, double v) {
            return top + h - v / yTop * h;
        }

        /** 1, 2 or 5 times a power of ten, at least {@code raw}. */
        static double niceStep(double raw) {
            if (!(raw > 0)) {
                return 1;
            }
            double p = Math.pow(10, Math.floor(Math.log10(raw)));
            for (double m : new double[] {1, 2, 5, 10}) {
                if (m * p >= raw) {
                    return m * p;
                }
            }
            return 10 * p;
        }
    }
}
