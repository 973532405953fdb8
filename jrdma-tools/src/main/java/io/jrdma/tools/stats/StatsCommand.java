package io.jrdma.tools.stats;

import io.jrdma.tools.cli.ExitCodes;
import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.tools.cli.ToolHost;
import io.jrdma.tools.perf.JsonObject;
import io.jrdma.verbs.Counter;
import io.jrdma.verbs.Counters;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code jrdma stats}: the counters of RDMA devices, one line per device in the layout of
 * {@code rdma statistic show link} (iproute2), with rxe's counter names. Reads this JVM's devices, or
 * another JVM's over JMX ({@code --pid}, {@code --jmx}).
 */
@Command(name = "stats", sortOptions = false, usageHelpWidth = 100,
        description = {
            "Show the counters of RDMA devices, as 'rdma statistic show link' does, with rxe's hw_counters",
            "names (sent_pkts, rcvd_pkts, rcvd_rnr_err, ...) and jrdma's iWARP ones (fpdus_sent, crc_errors,",
            "terminate_sent, ...). Counters live in the JVM that runs the RDMA traffic: read another JVM with",
            "--pid (a local process) or --jmx (a JVM with a JMX port); without either, this JVM's devices.",
            "  jrdma stats [DEVICE...] [--qp] [--nonzero] [--json] [--pid PID | --jmx HOST:PORT] [-i SEC [-n N]]",
        })
public final class StatsCommand implements Callable<Integer> {

    @ParentCommand
    private ToolHost parent;

    @Spec
    private CommandSpec spec;

    @Parameters(arity = "0..*", paramLabel = "DEVICE", description = "Devices to show (default: all).")
    private List<String> devices;

    @Option(names = "--qp", description = "Also one line per live queue pair.")
    private boolean qps;

    @Option(names = "--nonzero", description = "Leave out counters that are zero.")
    private boolean nonZero;

    @Option(names = "--json", description = "One JSON object per device (--qp lines are left out).")
    private boolean json;

    @Option(names = "--pid", paramLabel = "PID", description = "Read the counters of this local Java process.")
    private Long pid;

    @Option(names = "--jmx", paramLabel = "HOST:PORT", description = "Read the counters over this JMX port.")
    private String jmx;

    @Option(names = {"-i", "--interval"}, paramLabel = "SECONDS",
            description = "Repeat every SECONDS, printing what changed since the previous report.")
    private Integer interval;

    @Option(names = {"-n", "--count"}, paramLabel = "N", defaultValue = "0",
            description = "With -i: stop after N reports (default: 0, for ever).")
    private int count;

    @Option(names = "--describe", description = "List every counter jrdma knows, with what it counts.")
    private boolean describe;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    /** Creates the command (picocli instantiates it). */
    public StatsCommand() {
    }

    /**
     * Prints the counters.
     *
     * @return the exit code
     * @throws InterruptedException if interrupted while waiting for the next report
     */
    @Override
    public Integer call() throws InterruptedException {
        PrintStream out = parent.context().out();
        if (describe) {
            for (Counter c : Counter.all()) {
                out.printf(Locale.ROOT, "%-24s %s%s%n", c.linuxName(), c.description(), c.perQp() ? " (per QP)" : "");
            }
            return ExitCodes.OK;
        }
        if (pid != null && jmx != null) {
            throw new ParameterException(spec.commandLine(), "--pid and --jmx exclude each other");
        }
        if (interval != null && interval < 1 || count < 0) {
            throw new ParameterException(spec.commandLine(), "-i must be at least 1 and -n at least 0");
        }
        try (CounterSource src = pid != null ? JmxCounters.attach(pid) : jmx != null ? JmxCounters.remote(jmx)
                : new LocalCounters()) {
            List<Counters> previous = src.devices(devices);
            print(out, previous, src);
            if (interval == null) {
                return ExitCodes.OK;
            }
            for (int n = 1; count == 0 || n < count; n++) {
                Thread.sleep(interval * 1000L);
                List<Counters> now = src.devices(devices);
                if (now.size() != previous.size()) {
                    throw new ToolFailure("the set of devices changed");
                }
                List<Counters> delta = new java.util.ArrayList<>();
                for (int i = 0; i < now.size(); i++) {
                    delta.add(now.get(i).minus(previous.get(i)));
                }
                print(out, delta, src);
                previous = now;
            }
        }
        return ExitCodes.OK;
    }

    private void print(PrintStream out, List<Counters> snapshots, CounterSource src) {
        for (Counters c : snapshots) {
            if (json) {
                out.println(json(c, nonZero));
                continue;
            }
            out.println(line(c, nonZero));
            if (qps) {
                for (String l : src.qpLines(c.device())) {
                    out.println(l);
                }
            }
        }
        out.flush();
    }

    /**
     * One {@code rdma statistic}-style line, all counters or only the non-zero ones.
     *
     * @param c the snapshot
     * @param nonZeroOnly leave out zeros
     * @return the line
     */
    static String line(Counters c, boolean nonZeroOnly) {
        if (!nonZeroOnly) {
            return c.toLine();
        }
        return new Counters(c.device(), c.qpNum(), c.nanoTime(), c.nonZero()).toLine();
    }

    static String json(Counters c, boolean nonZeroOnly) {
        JsonObject o = new JsonObject().put("device", c.device());
        if (!c.isDevice()) {
            o.put("qpn", c.qpNum());
        }
        for (Map.Entry<String, Long> e : (nonZeroOnly ? c.nonZero() : c.values()).entrySet()) {
            o.put(e.getKey(), e.getValue().longValue());
        }
        return o.toString();
    }
}
