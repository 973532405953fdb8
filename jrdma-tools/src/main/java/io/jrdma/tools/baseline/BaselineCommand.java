package io.jrdma.tools.baseline;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;

import io.jrdma.tools.cli.ExitCodes;
import io.jrdma.tools.cli.Hosts;
import io.jrdma.tools.cli.SizeConverter;
import io.jrdma.tools.cli.ToolContext;
import io.jrdma.tools.cli.ToolHost;
import io.jrdma.tools.perf.JsonObject;
import io.jrdma.tools.perf.PerfReporter;
import io.jrdma.tools.perf.ReportUnit;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * The command line shared by the four baselines, with perftest's flags and its server/client
 * convention: without a host the tool is the server and waits for one client; with a host it is
 * the client, runs the test and prints perftest's table.
 *
 * <p>Flags as perftest ({@code src/perftest_parameters.c}, {@code parser}): {@code -p} port
 * (18515), {@code -s} size (with K/M), {@code -n} iterations (5..10<sup>8</sup>), {@code -D}
 * seconds and {@code -f} margin (default D/4), {@code -a} all sizes 2..2<sup>23</sup> (not with
 * {@code -D}), {@code -N} no peak (bandwidth only), {@code --report_gbits}, {@code -e} events.
 * jrdma's own: {@code --sizes} list, {@code --blocking}, {@code --json}, {@code --warmup},
 * {@code --bind}, {@code --timeout}.
 */
public abstract class BaselineCommand implements Callable<Integer> {

    /** perftest's default port ({@code DEF_PORT}). */
    public static final int DEFAULT_PORT = 18515;

    @ParentCommand
    private ToolHost parent;

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "HOST",
            description = "Server to connect to. Without it, run the server and wait for one client.")
    private String host;

    @Option(names = {"-p", "--port"}, paramLabel = "PORT", defaultValue = "18515",
            description = "TCP (and UDP) port of the server (default: ${DEFAULT-VALUE}).")
    private int port;

    @Option(names = {"-s", "--size"}, paramLabel = "SIZE", converter = SizeConverter.class,
            description = "Message size in bytes; K and M suffixes multiply by 1024 and 1024^2.")
    private Integer size;

    @Option(names = "--sizes", paramLabel = "LIST", converter = SizeConverter.ListConverter.class,
            description = "Comma-separated sizes to run in turn, e.g. 4K,65483,64K,1M (jrdma).")
    private List<Integer> sizes;

    @Option(names = {"-a", "--all"}, description = "Run sizes from 2 till 2^23 (UDP: till 2^15).")
    private boolean all;

    @Option(names = {"-n", "--iters"}, paramLabel = "N",
            description = "Iterations per size (default: 5000 for bandwidth, 1000 for latency).")
    private Long iterations;

    @Option(names = {"-D", "--duration"}, paramLabel = "SECONDS",
            description = "Run each size for this long instead of a number of iterations.")
    private Integer duration;

    @Option(names = {"-f", "--margin"}, paramLabel = "SECONDS",
            description = "Warm-up and cool-down inside a -D run (default: a quarter of it).")
    private Integer margin;

    @Option(names = {"-N", "--noPeak"}, description = "Skip the peak bandwidth (bandwidth tests).")
    private boolean noPeak;

    @Option(names = {"--report_gbits", "--report-gbits"}, description = "Report bandwidth in Gb/sec, not MB/sec.")
    private boolean gbits;

    @Option(names = "--json", description = "Print one JSON object per result row instead of the table.")
    private boolean json;

    @Option(names = "--blocking", description = "Use blocking sockets instead of busy-polling.")
    private boolean blocking;

    @Option(names = {"-e", "--events"}, description = "Sleep in a selector instead of busy-polling.")
    private boolean events;

    @Option(names = "--bind", paramLabel = "ADDR", defaultValue = "0.0.0.0",
            description = "Server: local address to listen on (default: ${DEFAULT-VALUE}).")
    private String bind;

    @Option(names = "--warmup", paramLabel = "N",
            description = "Untimed iterations before each size (default: automatic, up to 20000 or 64 MiB).")
    private Integer warmup;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "10",
            description = "Fail when the peer stays silent this long (default: ${DEFAULT-VALUE}).")
    private int timeoutSeconds;

    @Option(names = "--tcp-cc", paramLabel = "ALGORITHM",
            description = "TCP congestion control of the test connections (Linux: reno, cubic, bbr, ...; "
                    + "default: the kernel's). Give it on both sides. jrdma's siw takes the same choice from "
                    + "-Djrdma.siw.tcpCongestion.")
    private String tcpCongestion;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    /** Creates the command (picocli instantiates the subclasses). */
    protected BaselineCommand() {
    }

    /**
     * The baseline this command runs.
     *
     * @return the tool
     */
    protected abstract BaselineTool tool();

    /**
     * Runs the server or the client.
     *
     * @return the exit code
     */
    @Override
    public Integer call() {
        BaselineSpec s = buildSpec();
        ToolContext ctx = parent.context();
        JsonObject settings = settings(s);
        PerfReporter reporter = new PerfReporter(json ? PerfReporter.Format.JSON : PerfReporter.Format.TEXT,
                ctx.out(), tool().command(), host == null ? "server" : "client", settings);
        if (host == null) {
            InetSocketAddress at = new InetSocketAddress(resolve(bind), port);
            try (BaselineServer server = BaselineServer.open(tool(), at, s.ioMode(), s.stallTimeout(),
                    s.tcpCongestion())) {
                server.serve(reporter, Duration.ZERO);
            }
        } else {
            new BaselineClient(s, new InetSocketAddress(resolve(host), port), reporter, ctx.err(), ctx.terminal())
                    .run();
        }
        return ExitCodes.OK;
    }

    private BaselineSpec buildSpec() {
        BaselineTool tool = tool();
        if (all && (size != null || sizes != null)) {
            throw usage("-a runs every size; leave out -s and --sizes");
        }
        if (tcpCongestion != null && tool.udp()) {
            throw usage("--tcp-cc chooses TCP's congestion control; " + tool.command() + " measures UDP");
        }
        if (size != null && sizes != null) {
            throw usage("give -s or --sizes, not both");
        }
        if (all && duration != null) {
            throw usage("duration mode (-D) does not support running on all sizes (-a), as perftest");
        }
        if (blocking && events) {
            throw usage("--blocking and -e/--events exclude each other");
        }
        if (noPeak && !tool.bandwidth()) {
            throw usage("-N/--noPeak is only valid for bandwidth tests");
        }
        if (margin != null && duration == null) {
            throw usage("-f/--margin needs -D/--duration");
        }
        if (port < 1 || port > 0xffff) {
            throw usage("port " + port + " is outside 1..65535");
        }
        if (timeoutSeconds < 1) {
            throw usage("--timeout must be at least 1 second");
        }
        if (warmup != null && warmup < 0) {
            throw usage("--warmup must be >= 0");
        }
        List<Integer> chosen;
        if (all) {
            chosen = tool.allSizes();
        } else if (sizes != null) {
            chosen = sizes;
        } else {
            chosen = List.of(size != null ? size : tool.defaultSize());
        }
        int d = duration == null ? 0 : duration;
        if (duration != null && d < 1) {
            throw usage("-D/--duration must be at least 1 second");
        }
        int m = margin != null ? margin : d / 4;
        IoMode mode = blocking ? IoMode.BLOCKING : events ? IoMode.EVENTS : IoMode.BUSY_POLL;
        try {
            return new BaselineSpec(tool, chosen, iterations != null ? iterations : tool.defaultIterations(), d, m,
                    mode, gbits ? ReportUnit.GBIT_PER_SEC : ReportUnit.MB_PER_SEC, noPeak,
                    warmup != null ? warmup : -1, Duration.ofSeconds(timeoutSeconds), tcpCongestion);
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
    }

    private JsonObject settings(BaselineSpec s) {
        long[] sz = new long[s.sizes().size()];
        for (int i = 0; i < sz.length; i++) {
            sz[i] = s.sizes().get(i);
        }
        JsonObject o = new JsonObject()
                .put("host", host)
                .put("port", port)
                .put("transport", tool().udp() ? "udp" : "tcp")
                .put("io_mode", s.ioMode().label())
                .put("sizes", sz);
        if (s.timed()) {
            o.put("duration_s", s.durationSeconds()).put("margin_s", s.marginSeconds());
        } else {
            o.put("iterations", s.iterations()).put("warmup", s.warmupIterations());
        }
        if (s.tcpCongestion() != null) {
            o.put("tcp_cc", s.tcpCongestion());
        }
        return o.put("bw_unit", s.unit().label()).put("no_peak", s.noPeak());
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    private static InetAddress resolve(String name) {
        return Hosts.resolve(name, "host");
    }
}
