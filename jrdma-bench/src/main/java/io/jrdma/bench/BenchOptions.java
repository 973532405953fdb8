package io.jrdma.bench;

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
 * bench [--out DIR] [--markdown FILE] [--transports siw,rxe,loop] [--only GROUPS] [--quick]
 *   --out DIR        where bench.json and bench.svg go (default jrdma-bench/results)
 *   --markdown FILE  the BENCHMARKS.md whose generated section is replaced (default: none)
 *   --transports     which transports run (default siw,rxe,loop)
 *   --only GROUPS    floor,bandwidth,latency,allocation,connect,memory (default: all)
 *   --quick          fewer sizes and shorter runs (a smoke test; figures are rough)
 * </pre>
 *
 * @param out the output directory
 * @param markdown the markdown file to update, or {@code null}
 * @param transports the transports to run, in order
 * @param groups the groups of figures to measure
 * @param quick a shorter run
 */
record BenchOptions(Path out, Path markdown, List<Transport> transports, Set<Group> groups, boolean quick) {

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
        MEMORY
    }

    /** Parses {@code args}; throws IllegalArgumentException with the usage on a bad one. */
    static BenchOptions parse(String[] args) {
        Path out = Path.of("jrdma-bench", "results");
        Path markdown = null;
        List<Transport> transports = List.of(Transport.SIW, Transport.RXE, Transport.LOOP);
        Set<Group> groups = EnumSet.allOf(Group.class);
        boolean quick = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--out" -> out = Path.of(value(args, ++i, a));
                case "--markdown" -> markdown = Path.of(value(args, ++i, a));
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
                default -> throw new IllegalArgumentException("unknown argument " + a + "\n" + usage());
            }
        }
        return new BenchOptions(out, markdown, transports, groups, quick);
    }

    private static String value(String[] args, int i, String flag) {
        if (i >= args.length) {
            throw new IllegalArgumentException(flag + " needs a value\n" + usage());
        }
        return args[i];
    }

    /** The usage text. */
    static String usage() {
        return "usage: bench [--out DIR] [--markdown FILE] [--transports siw,rxe,loop] "
                + "[--only floor,bandwidth,latency,allocation,connect,memory] [--quick]";
    }
}
