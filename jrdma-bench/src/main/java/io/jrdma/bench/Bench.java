package io.jrdma.bench;

import io.jrdma.bench.BenchOptions.Group;
import io.jrdma.cm.RdmaCm;
import io.jrdma.internal.engine.NanoClock;
import io.jrdma.rxe.net.RxeEngine;
import io.jrdma.tools.baseline.BaselineRow;
import io.jrdma.tools.baseline.BaselineSpec;
import io.jrdma.tools.baseline.BaselineTool;
import io.jrdma.tools.baseline.Baselines;
import io.jrdma.tools.baseline.IoMode;
import io.jrdma.tools.perf.BwResult;
import io.jrdma.tools.perf.LatResult;
import io.jrdma.tools.perf.PerfResult;
import io.jrdma.tools.perftest.PerfSpec;
import io.jrdma.tools.perftest.PerfTest;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * jrdma's benchmark, in one JVM: the floor (raw TCP and UDP over loopback), then jrdma's
 * perftest-style bandwidth and latency over each transport, the bytes allocated per message,
 * connection setups per second and memory per idle connected QP; prints the figures and their
 * ratios to the floor, checks the targets, and writes {@code bench.json}, {@code bench.svg}
 * and (with {@code --markdown}) the generated section of docs/performance.md; {@code --render} draws that
 * section again from a saved {@code bench.json} without measuring.
 *
 * <p>Threads, so the comparison is fair on a small machine: the raw TCP ping-pong and stream run
 * two busy-polling threads (client and server). jrdma's siw runs application-driven with two
 * engines ({@code jrdma.siw.appDriven=true}, {@code jrdma.siw.engines=2}): the client and the
 * server thread each run their QP's engine when they post or poll, so two threads spin there too;
 * the engines' own threads only back off and park (they take over when nobody polls, e.g. a
 * passive bandwidth server, and then poll for {@link #PASSIVE_SPIN_NANOS} after their last work,
 * {@code jrdma.siw.passiveSpinNanos}, as the TCP server busy-polls). rxe runs rxe0 and rxe1 on an
 * engine thread each ({@code jrdma.rxe.engines=2}); loop has one per device.
 *
 * <p>Two processes ({@link TwoProcess}): the tools as users run them, server and client in JVMs of their
 * own with the tools' default options, against the floor tools run the same way, paired.
 *
 * <p>TCP congestion control: the floor's and siw's sockets run the same algorithm, {@link #DEFAULT_TCP_CC}
 * unless {@code --tcp-cc} names another or {@code system} (the kernel's default).
 *
 * <p>Run it with {@code jrdma-bench/bench} (see docs/performance.md).
 */
public final class Bench {
    private static final int KIB = 1024;
    private static final int MIB = 1024 * 1024;
    /** Message sizes of the bandwidth runs. */
    static final List<Integer> BW_SIZES = List.of(64, 1024, 4 * KIB, 16 * KIB, 64 * KIB, 256 * KIB, MIB, 4 * MIB);
    /** Message sizes of a quick run. */
    static final List<Integer> QUICK_BW_SIZES = List.of(64, 4 * KIB, 64 * KIB, MIB);
    /** Loopback TCP's MSS (65,535 minus headers with timestamps): the write size that streams best. */
    static final int TCP_MSS = 65_483;
    /** Latency sizes. */
    static final List<Integer> LAT_SIZES = List.of(64, 4 * KIB);
    /** Latency round trips per size. */
    static final long LAT_ITERATIONS = 20_000;
    /** Seconds per bandwidth run. */
    static final int BW_SECONDS = 1;
    /** The rxe path MTU's payload: rxe's floor is UDP datagrams of this size. */
    static final int RXE_MTU = 1024;
    /** Connections held to measure memory per idle QP. */
    static final int MEMORY_CONNECTIONS = 128;
    /** Messages of the short and the long run of the allocation probe. */
    static final long[] ALLOC_RUNS = {20_000, 220_000};
    /** Size of the allocation probe's messages. */
    static final int ALLOC_SIZE = 4 * KIB;
    /** The memory target per idle connected QP. */
    static final long MEMORY_TARGET = 16 * KIB;
    /** The sequential connection setup target. */
    static final double CONNECT_TARGET = 5000;
    /**
     * How long connections cycle before a setup rate is measured: the rate climbs for several seconds
     * while the JIT compiles the CM's control path (siw sequential: about 800/s in the first second,
     * steady from about the fifth), and a short warm-up measured the compiler.
     */
    static final Duration CONNECT_WARMUP = Duration.ofSeconds(4);
    /** Message sizes of the paired target runs (the bandwidth target is for messages of 64 KiB and more). */
    static final List<Integer> TARGET_BW_SIZES = List.of(64 * KIB, MIB);
    /** How long an undriven siw engine polls on after its last work ({@code jrdma.siw.passiveSpinNanos}). */
    static final long PASSIVE_SPIN_NANOS = 20_000_000;
    /**
     * The TCP congestion control the floor's and siw's sockets use unless {@code --tcp-cc} says otherwise:
     * reno, which every Linux process may choose. On a host whose default is BBR and whose loopback has no
     * fq qdisc (this machine kind), TCP paces each socket itself and segments sent from two CPUs overtake
     * each other; siw's 1 MiB streams then retransmitted 824-1,196 segments in 8 s and its 1 MiB pairs swung
     * between 0.73 and 1.10x, while the floor streamed as fast under reno as under BBR (design record
     * docs/design/007-tcp-congestion-control.md). Both sides always use the same algorithm; with an
     * algorithm other than the kernel's, the 1 MiB floor also runs on the kernel's default beside the
     * target pairs, and the report shows both floors.
     */
    static final String DEFAULT_TCP_CC = "reno";
    /** Repetitions of each paired target run (floor and siw alternate; the median pair counts). */
    static final int TARGET_REPS = 5;
    /** Repetitions of each two-process pair (floor and jrdma alternate; the median pair counts). */
    static final int TWO_PROCESS_REPS = 3;
    /** Two processes: jrdma's write-lat over siw and rxe at most this times tcp-lat and udp-lat. */
    static final double TWO_PROCESS_LAT_TARGET = 1.3;
    /** Two processes: siw's write-bw of 1 MiB at least this times tcp-bw of 1 MiB. */
    static final double TWO_PROCESS_SIW_BW_TARGET = 0.9;
    /** Two processes: rxe's write-bw of 1 MiB at least this times udp-bw of 1 KiB datagrams. */
    static final double TWO_PROCESS_RXE_BW_TARGET = 0.8;

    private final BenchOptions options;
    private final List<Measurement> results = new ArrayList<>();
    private final Map<String, Measurement> floors = new LinkedHashMap<>();
    private final long started = System.nanoTime();
    private final String loadAtStart = loadAverage();

    private Bench(BenchOptions options) {
        this.options = options;
    }

    /**
     * Runs the benchmark.
     *
     * @param args see {@link BenchOptions}
     */
    public static void main(String[] args) throws Exception {
        BenchOptions o;
        try {
            o = BenchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        if (o.render() != null) {
            // Re-render a saved run: the same figures in the current layout, nothing measured.
            Report r = Report.fromJson(Files.readString(o.render()));
            Path svg = o.render().resolveSibling("bench.svg");
            Files.writeString(svg, new SvgChart(r.results()).svg());
            r.updateMarkdown(o.markdown() != null ? o.markdown() : Path.of("docs", "performance.md"), svg);
            System.exit(0);
            return;
        }
        configure(o);
        Bench b = new Bench(o);
        int rc = b.run();
        System.exit(rc);
    }

    /** Devices and modes, before anything touches the device registry. */
    static void configure(BenchOptions o) {
        if (o.tcpCongestion() != null) {
            // siw's sockets take the algorithm the floor's take (the listener's is inherited when accepting).
            System.setProperty("jrdma.siw.tcpCongestion", o.tcpCongestion());
        }
        System.setProperty("jrdma.rxe.devices", Transport.RXE_DEVICES);
        System.setProperty("jrdma.siw.addresses", "127.0.0.1");
        System.setProperty("jrdma.siw.appDriven", System.getProperty("jrdma.siw.appDriven", "true"));
        System.setProperty("jrdma.siw.engines", System.getProperty("jrdma.siw.engines", "2"));
        // rxe0 and rxe1 on engine threads of their own, as siw's two sides and the floor's two threads.
        System.setProperty("jrdma.rxe.engines", System.getProperty("jrdma.rxe.engines", "2"));
        // The passive side of a bandwidth run polls while traffic flows, as the busy-polling TCP server does.
        System.setProperty("jrdma.siw.passiveSpinNanos", System.getProperty("jrdma.siw.passiveSpinNanos",
                String.valueOf(PASSIVE_SPIN_NANOS)));
        // Connection failures are counted and reported; the log would only interleave with the table.
        Logger.getLogger("").setLevel(Level.SEVERE);
    }

    /**
     * Whether rxe's engines run application-driven ({@code jrdma.rxe.appDriven} or rxe's default), as an
     * engine of this JVM reads it.
     */
    static boolean rxeAppDriven() {
        return RxeMode.APP_DRIVEN;
    }

    /** rxe's engine mode, read once. */
    private static final class RxeMode {
        static final boolean APP_DRIVEN = read();

        private static boolean read() {
            RxeEngine e = new RxeEngine(NanoClock.SYSTEM); // never started: only its mode is read
            try {
                return e.applicationDriven();
            } finally {
                e.stop();
            }
        }
    }

    /** The rxe threading mode in use. */
    static String rxeMode() {
        return (rxeAppDriven() ? "app-driven" : "engine threads") + ", " + Integer.getInteger("jrdma.rxe.engines", 1)
                + " engines";
    }

    /** The siw threading mode in use. */
    static String siwMode() {
        return (Boolean.getBoolean("jrdma.siw.appDriven") ? "app-driven" : "engine threads") + ", "
                + Integer.getInteger("jrdma.siw.engines", 1) + " engines, passive spin "
                + Long.getLong("jrdma.siw.passiveSpinNanos", 0) / 1_000_000 + " ms";
    }

    private int run() throws Exception {
        progress("jrdma bench: " + options.transports() + ", siw " + siwMode() + ", rxe " + rxeMode() + ", "
                + Runtime.getRuntime().availableProcessors() + " CPUs, TCP congestion control "
                + congestionLabel() + ", load " + loadAtStart
                + (options.quick() ? ", quick" : ""));
        if (options.groups().contains(Group.PROCESSES)) {
            // First, while this JVM's own engines have not started: the children have the CPUs to themselves.
            processes();
        }
        if (!EnumSet.of(Group.PROCESSES).containsAll(options.groups())) {
            warmUp();
        }
        if (options.groups().contains(Group.FLOOR)) {
            floor();
        }
        if (options.transports().contains(Transport.SIW)) {
            pairedTargets();
        }
        for (Transport t : options.transports()) {
            if (options.groups().contains(Group.BANDWIDTH)) {
                bandwidth(t);
            }
            if (options.groups().contains(Group.LATENCY)) {
                latency(t);
            }
            if (options.groups().contains(Group.ALLOCATION)) {
                allocation(t);
            }
            if (options.groups().contains(Group.CONNECT) || options.groups().contains(Group.MEMORY)) {
                connections(t);
            }
        }
        long seconds = (System.nanoTime() - started) / 1_000_000_000L;
        String conditions = siwMode() + "; rxe " + rxeMode()
                + "; TCP congestion control " + congestionLabel()
                + "; host load (1-min average) " + loadAtStart + " at start, " + loadAverage() + " at end";
        Report report = new Report(results, conditions, seconds, Instant.now(), options.quick());
        System.out.println();
        System.out.print(report.text());
        Files.createDirectories(options.out());
        Files.writeString(options.out().resolve("bench.json"), report.json());
        Files.writeString(options.out().resolve("bench.svg"), new SvgChart(results).svg());
        progress("wrote " + options.out().resolve("bench.json") + " and " + options.out().resolve("bench.svg"));
        if (options.markdown() != null) {
            report.updateMarkdown(options.markdown(), options.out().resolve("bench.svg"));
            progress("updated " + options.markdown());
        }
        return 0;
    }

    // ------------------------------------------------------------------------------------------ warm-up

    /** Compiles the hot paths of every tool and transport before anything is measured. */
    private void warmUp() {
        progress("warming up");
        Baselines.run(BaselineSpec.defaults(BaselineTool.TCP_BW).withSizes(List.of(64 * KIB)).withIterations(20_000)
                .withTcpCongestion(options.tcpCongestion()));
        Baselines.run(BaselineSpec.defaults(BaselineTool.TCP_LAT).withSizes(List.of(64)).withIterations(10_000)
                .withTcpCongestion(options.tcpCongestion()));
        for (Transport t : options.transports()) {
            try {
                PerfPair.run(t, bw(PerfTest.WRITE_BW, 64 * KIB, 1));
                // READ too: without it the first read-bw pair of a run streamed 2.9-3.7 GB/s where the
                // later ones streamed 4.5-5.1 (1 MiB, six runs, 2026-11-30), probably READ's paths compiling.
                PerfPair.run(t, bw(PerfTest.READ_BW, MIB, 1));
                PerfPair.run(t, bw(PerfTest.SEND_BW, 4 * KIB, 1));
                PerfPair.run(t, lat(PerfTest.WRITE_LAT, 64, 5_000));
            } catch (RuntimeException e) {
                progress("warm-up on " + t.label() + " failed: " + e.getMessage());
            }
        }
    }

    // ------------------------------------------------------------------------------------------ floor

    private void floor() {
        List<Integer> sizes = new ArrayList<>(sizes());
        sizes.add(sizes.indexOf(64 * KIB), TCP_MSS);
        for (int s : sizes) {
            addFloor(tcp(BaselineTool.TCP_BW, IoMode.BUSY_POLL, s));
        }
        for (int s : List.of(64 * KIB, TCP_MSS, MIB)) {
            addFloor(tcp(BaselineTool.TCP_BW, IoMode.BLOCKING, s));
        }
        for (int s : LAT_SIZES) {
            addFloor(tcp(BaselineTool.TCP_LAT, IoMode.BUSY_POLL, s));
        }
        addFloor(tcp(BaselineTool.TCP_LAT, IoMode.BLOCKING, 64));
        for (int s : List.of(64, RXE_MTU, 4 * KIB)) {
            addFloor(tcp(BaselineTool.UDP_BW, IoMode.BUSY_POLL, s));
        }
        for (int s : List.of(64, RXE_MTU)) {
            addFloor(tcp(BaselineTool.UDP_LAT, IoMode.BUSY_POLL, s));
        }
        MemFloor.measure(sizes(), BW_SECONDS, LAT_SIZES, LAT_ITERATIONS).forEach(this::addFloor); // loop's floor
    }

    private Measurement tcp(BaselineTool tool, IoMode mode, int size) {
        return tcp(tool, mode, size, tool.udp() ? null : options.tcpCongestion());
    }

    /** A floor run whose TCP sockets use {@code congestion} ({@code null}: the kernel's default). */
    private Measurement tcp(BaselineTool tool, IoMode mode, int size, String congestion) {
        BaselineSpec spec = BaselineSpec.defaults(tool).withSizes(List.of(size)).withIoMode(mode)
                .withTcpCongestion(congestion);
        spec = tool.bandwidth() ? spec.withDuration(BW_SECONDS, 0) : spec.withIterations(latIterations(mode));
        List<BaselineRow> rows = Baselines.run(spec);
        PerfResult r = rows.get(0).result();
        String transport = tool.udp() ? "udp" : "tcp";
        if (r instanceof BwResult b) {
            return Measurement.of("floor", tool.command(), transport, mode.label(), size, 1, b.bwAverage(),
                    Double.NaN, "MB/s");
        }
        LatResult l = (LatResult) r;
        return Measurement.of("floor", tool.command(), transport, mode.label(), size, 1, l.tTypical(), l.p99(), "us");
    }

    private static long latIterations(IoMode mode) {
        return mode == IoMode.BLOCKING ? 5_000 : LAT_ITERATIONS;
    }

    private void addFloor(Measurement m) {
        floors.put(m.test() + "/" + m.mode() + "/" + m.size(), m);
        add(m);
    }

    private Measurement floorFor(String test, String mode, long size) {
        return floors.get(test + "/" + mode + "/" + size);
    }

    // ------------------------------------------------------------------------------------------ bandwidth

    private List<Integer> sizes() {
        return options.quick() ? QUICK_BW_SIZES : BW_SIZES;
    }

    private static PerfSpec bw(PerfTest test, int size, int qps) {
        return PerfSpec.builder(test).sizes(List.of(size)).duration(BW_SECONDS, 0).numQps(qps)
                .timeout(Duration.ofSeconds(8)).build();
    }

    private static PerfSpec lat(PerfTest test, int size, long iterations) {
        return PerfSpec.builder(test).sizes(List.of(size)).iterations(iterations).timeout(Duration.ofSeconds(20))
                .build();
    }

    private void bandwidth(Transport t) {
        for (int qps : List.of(1, 4)) {
            for (PerfTest test : List.of(PerfTest.WRITE_BW, PerfTest.READ_BW, PerfTest.SEND_BW)) {
                for (int size : sizes()) {
                    BwResult r;
                    try {
                        r = (BwResult) PerfPair.run(t, bw(test, size, qps));
                    } catch (RuntimeException e) {
                        failed(test.command() + " " + t.label() + " " + size + " x" + qps, e);
                        continue;
                    }
                    Measurement m = Measurement.of("bandwidth", test.command(), t.label(), mode(t), size, qps,
                            r.bwAverage(), Double.NaN, "MB/s").against(bwFloor(t, size));
                    add(m);
                }
            }
        }
    }

    private Measurement bwFloor(Transport t, int size) {
        return switch (t) {
            case SIW -> floorFor("tcp-bw", IoMode.BUSY_POLL.label(), size);
            case RXE -> floorFor("udp-bw", IoMode.BUSY_POLL.label(), Math.min(size, RXE_MTU) < RXE_MTU ? size
                    : RXE_MTU);
            case LOOP -> floorFor("memcpy", "one thread", size);
        };
    }

    private static String mode(Transport t) {
        return switch (t) {
            case SIW -> Boolean.getBoolean("jrdma.siw.appDriven") ? "app-driven" : "engine";
            case RXE -> rxeAppDriven() ? "app-driven" : "engine";
            case LOOP -> "false".equals(System.getProperty("jrdma.loop.appDriven")) ? "engine" : "app-driven";
        };
    }

    // ------------------------------------------------------------------------------------------ targets

    /**
     * The bandwidth and latency targets, measured so that a busy host hurts both sides alike: the
     * raw TCP run and the siw run alternate, {@link #TARGET_REPS} times each, and the verdict is taken
     * on the median pair, the pair whose siw-to-floor ratio is the median of all pairs' ratios (for an
     * even count the less favourable of the two middle ones). Each pair's two runs are seconds apart,
     * so they see the same host; this host flips between a slow and a fast state for seconds at a
     * time, and comparing the best run of each side (the method until 2026-11-30, still printed) can
     * compare one side's fast state with the other's slow one (pairs of 0.96, 0.47 and 0.95x gave
     * 0.76x best against best). Latency's p99 is judged on its own median pair (the pair whose p99
     * ratio is the median), as one pair's p99 can be an outlier while its typical latency is not.
     */
    private void pairedTargets() {
        int reps = options.reps() > 0 ? options.reps() : options.quick() ? 1 : TARGET_REPS;
        String tag = " (median of " + reps + " pairs)";
        boolean targets = options.groups().contains(Group.TARGETS);
        if (targets || options.groups().contains(Group.BANDWIDTH)) {
            for (int size : options.sizes()) {
                for (PerfTest test : List.of(PerfTest.WRITE_BW, PerfTest.READ_BW, PerfTest.SEND_BW)) {
                    if (!options.tests().contains(test.command())) {
                        continue;
                    }
                    double[] floor = new double[reps];
                    double[] siw = new double[reps];
                    double[] ratio = new double[reps];
                    // With --tcp-cc, the floor also runs on the kernel's default beside each pair (once per
                    // size), so the report shows whether the chosen algorithm changed the floor itself.
                    double[] kernel = test == PerfTest.WRITE_BW && kernelDiffers() ? new double[reps] : null;
                    try {
                        for (int r = 0; r < reps; r++) {
                            floor[r] = tcp(BaselineTool.TCP_BW, IoMode.BUSY_POLL, size).value();
                            siw[r] = ((BwResult) PerfPair.run(Transport.SIW, bw(test, size, 1))).bwAverage();
                            ratio[r] = siw[r] / floor[r];
                            if (kernel != null) {
                                kernel[r] = tcp(BaselineTool.TCP_BW, IoMode.BUSY_POLL, size, null).value();
                            }
                            progress(String.format(java.util.Locale.ROOT,
                                    "  pair %d %s %d: tcp %.0f siw %.0f MB/s = %.2fx%s (load %s)",
                                    r + 1, test.command(), size, floor[r], siw[r], ratio[r], kernel == null ? ""
                                            : String.format(java.util.Locale.ROOT, "; tcp on %s %.0f MB/s",
                                                    tcpCongestionControl(), kernel[r]), loadAverage()));
                        }
                    } catch (RuntimeException e) {
                        failed("target " + test.command() + " siw " + size, e);
                        continue;
                    }
                    if (kernel != null) {
                        add(Measurement.of("floor", "tcp-bw", "tcp", "busy-poll, " + options.tcpCongestion()
                                + " (--tcp-cc), median of the " + reps + " target pairs", size, 1, median(floor),
                                Double.NaN, "MB/s"));
                        add(Measurement.of("floor", "tcp-bw", "tcp", "busy-poll, " + tcpCongestionControl()
                                + " (kernel default) beside them, median", size, 1, median(kernel), Double.NaN,
                                "MB/s"));
                    }
                    int m = medianPair(ratio, true);
                    progress(String.format(java.util.Locale.ROOT, "  %s %d: median pair %d (%.2fx); best against "
                            + "best %.2fx", test.command(), size, m + 1, ratio[m], max(siw) / max(floor)));
                    Measurement f = Measurement.of("target-floor", "tcp-bw", "tcp", "busy-poll" + tag, size, 1,
                            floor[m], Double.NaN, "MB/s");
                    add(f);
                    Measurement mm = Measurement.of("target", test.command(), "siw", mode(Transport.SIW) + tag, size,
                            1, siw[m], Double.NaN, "MB/s").against(f);
                    add(mm.target(">= 0.9x tcp-bw", mm.ratio() >= 0.9));
                }
            }
        }
        if ((targets || options.groups().contains(Group.LATENCY)) && options.tests().contains("write-lat")) {
            double[][] floor = new double[reps][];
            double[][] siw = new double[reps][];
            double[] ratio = new double[reps];
            try {
                for (int r = 0; r < reps; r++) {
                    Measurement f = tcp(BaselineTool.TCP_LAT, IoMode.BUSY_POLL, 64);
                    LatResult l = (LatResult) PerfPair.run(Transport.SIW, lat(PerfTest.WRITE_LAT, 64, LAT_ITERATIONS));
                    floor[r] = new double[] {f.value(), f.p99()};
                    siw[r] = new double[] {l.tTypical(), l.p99()};
                    ratio[r] = siw[r][0] / floor[r][0];
                    progress(String.format(java.util.Locale.ROOT,
                            "  pair %d write-lat 64: tcp %.2f (p99 %.2f) siw %.2f (p99 %.2f) us = %.2fx (load %s)",
                            r + 1, floor[r][0], floor[r][1], siw[r][0], siw[r][1], ratio[r], loadAverage()));
                }
            } catch (RuntimeException e) {
                failed("target write-lat siw 64", e);
                return;
            }
            int m = medianPair(ratio, false);
            // The p99 verdict on its own median pair: one pair's p99 can be an outlier that its typical is not.
            double[] p99Ratio = new double[reps];
            for (int r = 0; r < reps; r++) {
                p99Ratio[r] = siw[r][1] / floor[r][1];
            }
            int mp = medianPair(p99Ratio, false);
            double[] best = {Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE};
            for (int r = 0; r < reps; r++) {
                best[0] = Math.min(best[0], siw[r][0]);
                best[1] = Math.min(best[1], floor[r][0]);
                best[2] = Math.min(best[2], siw[r][1]);
                best[3] = Math.min(best[3], floor[r][1]);
            }
            progress(String.format(java.util.Locale.ROOT, "  write-lat 64: median pair %d (%.2fx), p99 median pair "
                    + "%d (%.2fx); best against best %.2fx, p99 %.2fx", m + 1, ratio[m], mp + 1, p99Ratio[mp],
                    best[0] / best[1], best[2] / best[3]));
            Measurement f = Measurement.of("target-floor", "tcp-lat", "tcp", "busy-poll" + tag, 64, 1, floor[m][0],
                    floor[mp][1], "us");
            add(f);
            Measurement mm = Measurement.of("target", "write-lat", "siw", mode(Transport.SIW) + tag, 64, 1, siw[m][0],
                    siw[mp][1], "us").against(f);
            add(mm.target("<= 1.3x tcp-lat, p99 <= 2x", mm.ratio() <= 1.3 && mm.p99Ratio() <= 2.0));
        }
    }

    /**
     * The index of the median of {@code ratios}; for an even count the less favourable of the two
     * middle ones: the lower when {@code higherIsBetter} (bandwidth), the higher otherwise (latency).
     */
    static int medianPair(double[] ratios, boolean higherIsBetter) {
        if (ratios.length == 0) {
            throw new IllegalArgumentException("no pairs");
        }
        Integer[] order = new Integer[ratios.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        java.util.Arrays.sort(order, java.util.Comparator.comparingDouble(i -> ratios[i]));
        int n = ratios.length;
        int k = n % 2 == 1 ? n / 2 : higherIsBetter ? n / 2 - 1 : n / 2;
        return order[k];
    }

    /** Whether {@code --tcp-cc} chose an algorithm other than the kernel's default. */
    private boolean kernelDiffers() {
        return options.tcpCongestion() != null && !options.tcpCongestion().equals(tcpCongestionControl());
    }

    /** The median of {@code a} (for an even count, the mean of the middle two). */
    static double median(double[] a) {
        double[] c = a.clone();
        java.util.Arrays.sort(c);
        int n = c.length;
        return n % 2 == 1 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
    }

    private static double max(double[] a) {
        double m = Double.NEGATIVE_INFINITY;
        for (double v : a) {
            m = Math.max(m, v);
        }
        return m;
    }

    // ------------------------------------------------------------------------------------------ two processes

    /**
     * The tools as users run them, two processes each ({@link TwoProcess}), against the floor tools run
     * the same way: for each {@link TwoProcess#cases case} the floor and jrdma alternate
     * {@link #TWO_PROCESS_REPS} times (or {@code --reps}) and the verdict is the median pair. TCP runs the
     * congestion control of the rest of the run on both sides ({@code --tcp-cc} on the floor,
     * {@code jrdma.siw.tcpCongestion} for siw).
     */
    private void processes() {
        int reps = options.reps() > 0 ? options.reps() : options.quick() ? 1 : TWO_PROCESS_REPS;
        String tag = "median of " + reps + (reps == 1 ? " pair" : " pairs");
        for (Transport t : options.transports()) {
            if (t == Transport.LOOP) {
                continue; // loop0 connects QPs of one process only
            }
            String mode = t == Transport.SIW ? TwoProcess.siwMode() : rxeAppDriven() ? "app-driven" : "engine";
            for (TwoProcess.Case c : TwoProcess.cases(t)) {
                TwoProcess.Figure[] floor = new TwoProcess.Figure[reps];
                TwoProcess.Figure[] jrdma = new TwoProcess.Figure[reps];
                double[] f = new double[reps];
                double[] j = new double[reps];
                TwoProcess.Side[] fs = TwoProcess.floorSides(c, options.tcpCongestion());
                TwoProcess.Side[] js = TwoProcess.jrdmaSides(c, options.tcpCongestion());
                try {
                    for (int r = 0; r < reps; r++) {
                        floor[r] = TwoProcess.run(c.floorTool(), fs[0], fs[1]);
                        jrdma[r] = TwoProcess.run(c.tool(), js[0], js[1]);
                        f[r] = floor[r].value();
                        j[r] = jrdma[r].value();
                        progress(String.format(java.util.Locale.ROOT,
                                "  two processes, pair %d %s: %s %s %s, %s %s %s = %.2fx (load %s)", r + 1,
                                c.label(), c.floorTool(), Report.num(f[r]), floor[r].unit(), c.tool(),
                                Report.num(j[r]), jrdma[r].unit(), j[r] / f[r], loadAverage()));
                    }
                } catch (RuntimeException e) {
                    failed("two processes " + c.label(), e);
                    continue;
                }
                TwoProcess.Verdict v = TwoProcess.judge(c, j, f);
                TwoProcess.Figure fm = floor[v.pair()];
                TwoProcess.Figure jm = jrdma[v.pair()];
                for (int r = 0; r < reps; r++) {
                    // Every pair, for bench.json: the spread behind the median.
                    Measurement pf = Measurement.of("process-floor", c.floorTool(), c.floorTransport(), "pair "
                            + (r + 1), floor[r].bytes(), 1, f[r], floor[r].p99(), floor[r].unit());
                    add(Measurement.of("process-pair", c.tool(), t.label(), mode + ", pair " + (r + 1),
                            jrdma[r].bytes(), 1, j[r], jrdma[r].p99(), jrdma[r].unit()).against(pf));
                }
                Measurement fl = Measurement.of("process-floor", c.floorTool(), c.floorTransport(), tag
                        + statistic(fm), fm.bytes(), 1, fm.value(), fm.p99(), fm.unit());
                add(fl);
                Measurement m = Measurement.of("process", c.tool(), t.label(), mode + ", " + tag + statistic(jm),
                        jm.bytes(), 1, jm.value(), jm.p99(), jm.unit()).against(fl);
                add(m.target(c.targetText(), v.met()));
            }
        }
    }

    /** A note on a latency figure that is not the typical latency (a table without t_typical). */
    private static String statistic(TwoProcess.Figure f) {
        return f.statistic().equals("t_avg") ? ", t_avg" : "";
    }

    // ------------------------------------------------------------------------------------------ latency

    private void latency(Transport t) {
        for (PerfTest test : List.of(PerfTest.WRITE_LAT, PerfTest.SEND_LAT, PerfTest.READ_LAT)) {
            for (int size : LAT_SIZES) {
                LatResult r;
                try {
                    r = (LatResult) PerfPair.run(t, lat(test, size, options.quick() ? 5_000 : LAT_ITERATIONS));
                } catch (RuntimeException e) {
                    failed(test.command() + " " + t.label() + " " + size, e);
                    continue;
                }
                Measurement floor = switch (t) {
                    case SIW -> floorFor("tcp-lat", IoMode.BUSY_POLL.label(), size);
                    case RXE -> floorFor("udp-lat", IoMode.BUSY_POLL.label(), size == 64 ? 64 : RXE_MTU);
                    case LOOP -> floorFor("mem-lat", "busy-poll", size);
                };
                Measurement m = Measurement.of("latency", test.command(), t.label(), mode(t), size, 1, r.tTypical(),
                        r.p99(), "us").against(floor);
                add(m);
            }
        }
    }

    // ------------------------------------------------------------------------------------------ allocation

    /**
     * Bytes the whole JVM allocates per message in steady state: a short and a long run of the same
     * test, the difference of their allocations over the difference of their messages (setup, JIT
     * and the connection cancel out).
     */
    private void allocation(Transport t) {
        for (PerfTest test : List.of(PerfTest.WRITE_BW, PerfTest.SEND_BW, PerfTest.READ_BW)) {
            long[] bytes = new long[2];
            try {
                for (int i = 0; i < 2; i++) {
                    PerfSpec spec = PerfSpec.builder(test).sizes(List.of(ALLOC_SIZE)).iterations(ALLOC_RUNS[i])
                            .timeout(Duration.ofSeconds(20)).build();
                    long a0 = PerfPair.allocatedBytes();
                    PerfPair.run(t, spec);
                    bytes[i] = PerfPair.allocatedBytes() - a0;
                }
            } catch (RuntimeException e) {
                failed("allocation " + test.command() + " " + t.label(), e);
                continue;
            }
            double perMessage = (bytes[1] - bytes[0]) / (double) (ALLOC_RUNS[1] - ALLOC_RUNS[0]);
            add(Measurement.of("allocation", test.command(), t.label(), mode(t), ALLOC_SIZE, 1, perMessage,
                    Double.NaN, "B/msg").target("~0 B/msg (< 1)", perMessage < 1.0));
        }
    }

    // ------------------------------------------------------------------------------------------ connections

    private void connections(Transport t) throws InterruptedException {
        try (RdmaCm cm = t.openCm(); ConnectionCycler c = new ConnectionCycler(cm, t.clientAddress(),
                t.serverAddress())) {
            if (options.groups().contains(Group.MEMORY)) {
                try {
                    IdleQpMemory m = IdleQpMemory.measure(c, options.quick() ? 32 : MEMORY_CONNECTIONS);
                    long total = m.perQp().total();
                    add(Measurement.of("memory", "idle QP heap", t.label(), "", 0, m.qps(), m.perQp().heap(),
                            Double.NaN, "B"));
                    add(Measurement.of("memory", "idle QP direct", t.label(), "", 0, m.qps(), m.perQp().direct(),
                            Double.NaN, "B"));
                    add(Measurement.of("memory", "idle QP total", t.label(), "", 0, m.qps(), total, Double.NaN, "B")
                            .target("<= 16 KiB", total <= MEMORY_TARGET));
                } catch (RuntimeException e) {
                    failed("memory " + t.label(), e);
                }
            }
            if (options.groups().contains(Group.CONNECT)) {
                Duration d = Duration.ofSeconds(options.quick() ? 1 : 2);
                Duration warm = options.quick() ? Duration.ofMillis(500) : CONNECT_WARMUP;
                Measurement floor = null;
                if (t == Transport.SIW) {
                    // An iWARP setup is a TCP connection setup and more: its floor, in this run.
                    try {
                        ConnectionCycler.Rate f = TcpSetupFloor.measure(warm, d);
                        floor = Measurement.of("floor", "tcp-connect", "tcp", "blocking", TcpSetupFloor.MESSAGE, 1,
                                f.perSecond(), Double.NaN, "setups/s");
                        add(floor);
                    } catch (RuntimeException e) {
                        failed("connect floor", e);
                    }
                }
                for (int inFlight : List.of(1, 16)) {
                    try {
                        ConnectionCycler.Rate r = c.cycle(inFlight, warm, d);
                        Measurement m = Measurement.of("connect", inFlight == 1 ? "sequential" : "16 in parallel",
                                t.label(), "", 0, inFlight, r.perSecond(), Double.NaN, "setups/s");
                        if (inFlight == 1 && t == Transport.SIW) {
                            m = m.against(floor).target(">= 5000/s", r.perSecond() >= CONNECT_TARGET);
                        }
                        add(m);
                    } catch (RuntimeException e) {
                        failed("connect " + t.label() + " x" + inFlight, e);
                    }
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------------ helpers

    private void add(Measurement m) {
        results.add(m);
        progress(Report.line(m));
    }

    private void failed(String what, RuntimeException e) {
        progress("FAILED " + what + ": " + e.getMessage());
        add(Measurement.of("failure", what, "", "", 0, 0, Double.NaN, Double.NaN, String.valueOf(e.getMessage()))
                .target("runs", false));
    }

    /**
     * The kernel's TCP congestion control for new sockets in this network namespace, or "?" where it
     * cannot be read. It sways the 1 MiB bandwidth targets: under BBR, which paces loopback TCP itself
     * when the interface has no fq qdisc, siw's 1 MiB pairs were mostly 0.73-0.87x the raw TCP floor in
     * A/B runs (a whole run had 0.86-1.10x), under CUBIC 0.92-1.12x (design record 007), so
     * every report names it.
     */
    static String tcpCongestionControl() {
        return tcpCongestionControl(Path.of("/proc/sys/net/ipv4/tcp_congestion_control"));
    }

    /** {@link #tcpCongestionControl()} read from {@code file}. */
    static String tcpCongestionControl(Path file) {
        try {
            String s = Files.readString(file).strip();
            return s.isEmpty() ? "?" : s;
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    /**
     * The congestion control the floor's and siw's TCP sockets run: the one {@code --tcp-cc} chose for
     * them, or the kernel's default.
     */
    private String congestionLabel() {
        String kernel = tcpCongestionControl();
        return options.tcpCongestion() == null ? kernel + " (the kernel's default)"
                : options.tcpCongestion() + " (--tcp-cc, on the floor's and siw's sockets; the kernel's default "
                        + kernel + ")";
    }

    /** The host's 1-minute load average (other processes share the CPUs), or "?" where unknown. */
    static String loadAverage() {
        double l = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        return l < 0 ? "?" : String.format(java.util.Locale.ROOT, "%.1f", l);
    }

    private void progress(String s) {
        long ms = (System.nanoTime() - started) / 1_000_000;
        System.err.printf("[%4d.%01d s] %s%n", ms / 1000, ms % 1000 / 100, s);
    }
}
