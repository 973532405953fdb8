package io.jrdma.bench;

import io.jrdma.internal.net.TcpCongestion;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The benchmark's command line.
 *
 * <pre>
 * bench [--out DIR] [--markdown FILE] [--render BENCH_JSON] [--transports siw,rxe,loop] [--only GROUPS] [--quick]
 *   --out DIR        where bench.json and bench.svg go (default jrdma-bench/results)
 *   --markdown FILE  the docs/performance.md whose generated section is replaced (default: none)
 *   --render JSON    measure nothing: render a saved bench.json into the --markdown file
 *                    (default docs/performance.md) in the current layout
 *   --transports     which transports run (default siw,rxe,loop)
 *   --only GROUPS    floor,bandwidth,latency,allocation,connect,memory,targets,processes (default: all;
 *                    targets alone runs only the paired siw-vs-TCP target runs, processes only the tools
 *                    as two processes against the floor tools)
 *   --quick          fewer sizes and shorter runs (a smoke test; figures are rough)
 *   --reps N         repetitions of each paired target run (default 5) and of each two-process pair
 *                    (default 3); each one is printed
 *   --tests LIST     only these paired target runs (write-bw,read-bw,send-bw,write-lat; default all)
 *   --sizes LIST     message sizes of the paired bandwidth runs in bytes (default 65536,1048576)
 *   --tcp-cc NAME    TCP congestion control of the raw TCP floor's and siw's sockets (Linux; default
 *                    reno, see Bench#DEFAULT_TCP_CC; "system": the kernel's default for both)
 * </pre>
 *
 * @param out the output directory
 * @param markdown the markdown file to update, or {@code null}
 * @param render a saved bench.json to render instead of measuring, or {@code null}
 * @param transports the transports to run, in order
 * @param groups the groups of figures to measure
 * @param quick a shorter run
 * @param reps repetitions of each paired target run, or 0 for the default
 * @param tests the paired target runs to make ({@code write-bw}, {@code read-bw}, {@code send-bw},
 *     {@code write-lat})
 * @param sizes the message sizes of the paired bandwidth runs
 * @param tcpCongestion the congestion control both the floor's and siw's TCP sockets use, or {@code null}
 *     for the kernel's default
 */
record BenchOptions(Path out, Path markdown, Path render, List<Transport> transports, Set<Group> groups, boolean quick,
        int reps,
        Set<String> tests, List<Integer> sizes, String tcpCongestion) {

    /** The paired target runs there are. */
    static final List<String> TARGET_TESTS = List.of("write-bw", "read-bw", "send-bw", "write-lat");

    /** Groups of figures. */
    enum Group {
        /** Raw TCP and UDP. */
        FLOOR,
        /** write-bw, read-bw, send-bw. */
        BANDWIDTH,
        /** write-lat, send-lat, read-lat. */
        LATENCY,
        /** Bytes allocated per message. */
        ALLOCATION,
        /** Connection setups per second. */
        CONNECT,
        /** Memory per idle connected QP. */
        MEMORY,
        /** The paired target runs (siw and raw TCP alternating); also run with BANDWIDTH or LATENCY. */
        TARGETS,
        /** The tools as two processes with their default options, paired with the floor tools. */
        PROCESSES
    }

    /** Parses {@code args}; throws IllegalArgumentException with the usage on a bad one. */
    static BenchOptions parse(String[] args) {
        Path out = Path.of("jrdma-bench", "results");
        Path markdown = null;
        Path render = null;
        List<Transport> transports = List.of(Transport.SIW, Transport.RXE, Transport.LOOP);
        Set<Group> groups = EnumSet.allOf(Group.class);
        boolean quick = false;
        int reps = 0;
        Set<String> tests = Set.copyOf(TARGET_TESTS);
        List<Integer> sizes = Bench.TARGET_BW_SIZES;
        String tcpCongestion = TcpCongestion.supported() ? Bench.DEFAULT_TCP_CC : null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--out" -> out = Path.of(value(args, ++i, a));
                case "--markdown" -> markdown = Path.of(value(args, ++i, a));
                case "--render" -> render = Path.of(value(args, ++i, a));
                case "--transports" -> {
                    List<Transport> l = new ArrayList<>();
                    for (String t : value(args, ++i, a).split(",")) {
                        l.add(Transport.valueOf(t.strip().toUpperCase(Locale.ROOT)));
                    }
                    transports = List.copyOf(l);
                }
                case "--only" -> {
                    groups = EnumSet.noneOf(Group.class);
                    for (String g : value(args, ++i, a).split(",")) {
                        groups.add(Group.valueOf(g.strip().toUpperCase(Locale.ROOT)));
                    }
                }
                case "--quick" -> quick = true;
                case "--reps" -> {
                    try {
                        reps = Integer.parseInt(value(args, ++i, a));
                    } catch (NumberFormatException e) {
                        reps = -1;
                    }
                    if (reps < 1) {
                        throw new IllegalArgumentException("--reps needs a positive number\n" + usage());
                    }
                }
                case "--tests" -> {
                    Set<String> l = new java.util.LinkedHashSet<>();
                    for (String t : value(args, ++i, a).split(",")) {
                        if (!TARGET_TESTS.contains(t.strip())) {
                            throw new IllegalArgumentException("--tests: no paired target run " + t.strip()
                                    + " (there are " + String.join(",", TARGET_TESTS) + ")\n" + usage());
                        }
                        l.add(t.strip());
                    }
                    tests = Set.copyOf(l);
                }
                case "--sizes" -> {
                    List<Integer> l = new ArrayList<>();
                    for (String t : value(args, ++i, a).split(",")) {
                        int size;
                        try {
                            size = Integer.parseInt(t.strip());
                        } catch (NumberFormatException e) {
                            size = -1;
                        }
                        if (size < 1) {
                            throw new IllegalArgumentException("--sizes needs positive byte counts, not " + t.strip()
                                    + "\n" + usage());
                        }
                        l.add(size);
                    }
                    sizes = List.copyOf(l);
                }
                case "--tcp-cc" -> {
                    String v = value(args, ++i, a).strip();
                    if (v.equals("system")) {
                        tcpCongestion = null;
                    } else {
                        try {
                            tcpCongestion = TcpCongestion.checkName(v);
                        } catch (IllegalArgumentException e) {
                            throw new IllegalArgumentException("--tcp-cc: " + e.getMessage() + "\n" + usage());
                        }
                    }
                }
                default -> throw new IllegalArgumentException("unknown argument " + a + "\n" + usage());
            }
        }
        return new BenchOptions(out, markdown, render, transports, groups, quick, reps, tests, sizes, tcpCongestion);
    }

    private static String value(String[] args, int i, String flag) {
        if (i >= args.length) {
            throw new IllegalArgumentException(flag + " needs a value\n" + usage());
        }
        return args[i];
    }

    /** The usage text. */
    static String usage() {
        return "usage: bench [--out DIR] [--markdown FILE] [--render BENCH_JSON] [--transports siw,rxe,loop] "
                + "[--only floor,bandwidth,latency,allocation,connect,memory,targets,processes] [--quick] [--reps N] "
                + "[--tests write-bw,read-bw,send-bw,write-lat] [--sizes 65536,1048576] [--tcp-cc NAME|system]";
    }
}
