package io.jrdma.tools.perftest;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Predicate;

import io.jrdma.tools.cli.ExitCodes;
import io.jrdma.tools.cli.Hosts;
import io.jrdma.tools.cli.SizeConverter;
import io.jrdma.tools.cli.ToolContext;
import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.tools.cli.ToolHost;
import io.jrdma.tools.perf.JsonObject;
import io.jrdma.tools.perf.PerfReporter;
import io.jrdma.tools.perf.PerfResult;
import io.jrdma.tools.perf.ReportUnit;
import io.jrdma.tools.perf.TestInfo.Verb;
import io.jrdma.verbs.QpType;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * The command line shared by jrdma's perftest tools ({@code send-bw}, {@code write-bw},
 * {@code read-bw}, {@code atomic-bw}, {@code send-lat}, {@code write-lat}, {@code read-lat}):
 * perftest's flags and its convention (no host: the server, which waits for one client; a host:
 * the client, which runs the test). Connections always go through rdma_cm and its exchange, so
 * {@code -R} is accepted and is the default; a Linux peer must be given {@code -R}.
 *
 * <p>Flags as perftest v4.5-0.20 {@code src/perftest_parameters.c} ({@code parser}) reads them:
 * {@code -d}, {@code -i}, {@code -p}, {@code -s}, {@code -a}, {@code -n}, {@code -D}, {@code -f},
 * {@code -q}, {@code -t}, {@code -r}, {@code -Q}, {@code -c}, {@code -R}, {@code -z}, {@code -N},
 * {@code -e}, {@code -I}, {@code -o}, {@code -x}, {@code -m}, {@code -A}, {@code -F},
 * {@code --report_gbits}, {@code --source_ip}, {@code -b}, {@code --report-both}, {@code -l},
 * {@code --run_infinitely}, {@code -T}, {@code -u}, {@code -S}, {@code -V}, {@code --out_json},
 * {@code --out_json_file}, {@code -C}, {@code -H}, {@code -U}, {@code --ipv6}; perftest 23.07's
 * {@code --ipv6-addr} and {@code --bind_source_ip}. jrdma's own: {@code --sizes}, {@code --json},
 * {@code --verify}, {@code --bind}, {@code --timeout}, {@code --accept-timeout}.
 *
 * <p>Each tool takes only the options perftest's usage lists for it ({@link #pruneOptions}): {@code -A}
 * only atomic-bw, {@code -o} only READ and atomic tests, {@code -b}, {@code -l}, {@code -N}, {@code -q},
 * {@code -Q}, {@code -t} and the bandwidth reports only bandwidth tests, {@code -C}, {@code -H},
 * {@code -U} only latency tests, {@code -r} only SEND tests; another is an unknown option there.
 *
 * <p>What differs from perftest, and why: {@code -u} sets the data QPs' ACK timeout through the connection
 * manager ({@code rdma_set_option ACK_TIMEOUT}), where perftest's rdma_cm mode ignores it; {@code -S} is
 * accepted and has no effect, as in perftest's rdma_cm mode (the route sets the service level; RoCEv2
 * carries none on the wire, {@code -T} is its knob); {@code -C} turns nanoseconds into cycles with the
 * CPU's clock rate from {@code /proc/cpuinfo} (the JVM reads no cycle counter; perftest turns cycles into
 * microseconds with the same rate); {@code --out_json} writes valid JSON (perftest 4.5 writes JSON-like
 * text with bare keys); {@code -b} is not supported by send-bw.
 */
@Command(sortOptions = false, usageHelpWidth = 100, versionProvider = PerfCommand.Version.class)
public abstract class PerfCommand implements Callable<Integer> {

    /**
     * {@code -V}: the perftest version jrdma speaks on the control connection, as perftest prints its own
     * ({@code Version: 6.06}), and jrdma's.
     */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() throws IOException {
            String line = "Version: " + CommLink.VERSION + " (jrdma " + ToolHost.version() + ", perftest-compatible)";
            return new String[] {line};
        }
    }

    @ParentCommand
    private ToolHost parent;

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "HOST",
            description = "Server to connect to. Without it, run the server and wait for one client.")
    private String host;

    @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEV",
            description = "Use RDMA device DEV (e.g. siw0, loop0). Default: rdma_cm's choice by address "
                    + "(iWARP first).")
    private String device;

    @Option(names = {"-i", "--ib-port"}, paramLabel = "PORT", defaultValue = "1",
            description = "Use port PORT of the device (default: ${DEFAULT-VALUE}; jrdma devices have one).")
    private int ibPort;

    @Option(names = {"-p", "--port"}, paramLabel = "PORT", defaultValue = "18515",
            description = "Listen on / connect to port PORT (default: ${DEFAULT-VALUE}).")
    private int port;

    @Option(names = {"-s", "--size"}, paramLabel = "SIZE", converter = SizeConverter.class,
            description = "Size of message to exchange (default: 65536 for bandwidth, 2 for latency).")
    private Integer size;

    @Option(names = "--sizes", paramLabel = "LIST", converter = SizeConverter.ListConverter.class,
            description = "Comma-separated sizes run in turn over one connection (jrdma; both sides).")
    private List<Integer> sizes;

    @Option(names = {"-a", "--all"}, description = "Run sizes from 2 till 2^23.")
    private boolean all;

    @Option(names = {"-n", "--iters"}, paramLabel = "N",
            description = "Number of exchanges, at least 5 (default: 5000 for write-bw, else 1000).")
    private Long iterations;

    @Option(names = {"-D", "--duration"}, paramLabel = "SECONDS",
            description = "Run the test for a customized period of seconds.")
    private Integer duration;

    @Option(names = {"-f", "--margin"}, paramLabel = "SECONDS",
            description = "Measure results within margins (default: 2).")
    private Integer margin;

    // Initialized here too: the latency tools do not take -q (pruneOptions), so picocli sets no default there.
    @Option(names = {"-q", "--qp"}, paramLabel = "N", defaultValue = "1", description = "Num of QPs (default: 1).")
    private int numQps = 1;

    @Option(names = {"-t", "--tx-depth"}, paramLabel = "N",
            description = "Size of tx queue (default: 128 for bandwidth, 1 for latency).")
    private Integer txDepth;

    @Option(names = {"-r", "--rx-depth"}, paramLabel = "N",
            description = "Rx queue size (default: 512 for SEND tests).")
    private Integer rxDepth;

    @Option(names = {"-Q", "--cq-mod"}, paramLabel = "N",
            description = "Generate a completion every N messages (default: 100; 1 above 8 KiB).")
    private Integer cqMod;

    @Option(names = {"-c", "--connection"}, paramLabel = "TYPE", defaultValue = "RC",
            description = "Connection type RC or UD (UD: SEND tests, on loop or RoCE) (default: ${DEFAULT-VALUE}).")
    private String connection;

    @Option(names = {"-R", "--rdma_cm"},
            description = "Connect QPs with rdma_cm and run the test on those QPs (always; accepted).")
    private boolean rdmaCm;

    @Option(names = {"-z", "--com_rdma_cm"}, description = "Communicate with rdma_cm (always; accepted).")
    private boolean comRdmaCm;

    @Option(names = "--report_gbits", description = "Report max/average BW of test in Gbit/sec (instead of MB/sec).")
    private boolean gbits;

    @Option(names = {"-b", "--bidirectional"},
            description = "Measure bidirectional bandwidth: both sides send (default: unidirectional; not send-bw).")
    private boolean duplex;

    @Option(names = "--report-both", description = "With -b, also print each side's results.")
    private boolean reportBoth;

    @Option(names = {"-l", "--post_list"}, paramLabel = "SIZE",
            description = "Post lists of SIZE work requests in one post (default: 1).")
    private Integer postList;

    @Option(names = "--warmup", paramLabel = "N",
            description = "jrdma: untimed iterations before each size when the peer is jrdma too, so the JIT has"
                    + " compiled the data path (default: automatic, 16..20000, about 64 MiB, repeated in"
                    + " bandwidth and READ latency tests while the JIT compiles, up to 2 s; 0: none). Give both"
                    + " sides the same value. A perftest peer gets none: its runs are perftest's exactly.")
    private Integer warmup;

    @Option(names = "--run_infinitely",
            description = "Run until stopped, printing the bandwidth of every -D period (default period: 5 s).")
    private boolean runInfinitely;

    @Option(names = {"-C", "--report-cycles"}, description = "Report times in CPU cycle units (default: usec).")
    private boolean cycles;

    @Option(names = {"-H", "--report-histogram"},
            description = "Print out all results, sorted (default: summary only).")
    private boolean histogram;

    @Option(names = {"-U", "--report-unsorted"},
            description = "Print out every result in the order measured (default: summary only).")
    private boolean unsorted;

    @Option(names = {"-N", "--noPeak"}, description = "Cancel peak-bw calculation.")
    private boolean noPeak;

    @Option(names = {"-e", "--events"}, description = "Sleep on CQ events instead of busy-polling.")
    private boolean events;

    @Option(names = {"-I", "--inline_size"}, paramLabel = "SIZE",
            description = "Max size of message to be sent in inline (default: 0).")
    private Integer inlineSize;

    @Option(names = {"-o", "--outs"}, paramLabel = "N",
            description = "Number of outstanding reads/atomics (default: the device's maximum).")
    private Integer outReads;

    @Option(names = {"-x", "--gid-index"}, paramLabel = "INDEX",
            description = "Test uses GID with GID index (default: 0 on Ethernet links).")
    private Integer gidIndex;

    @Option(names = {"-m", "--mtu"}, paramLabel = "MTU", description = "MTU size: 256 - 4096 (default: port mtu).")
    private Integer mtu;

    @Option(names = {"-A", "--atomic_type"}, paramLabel = "TYPE",
            description = "Type of atomic operation: CMP_AND_SWAP or FETCH_AND_ADD (default).")
    private String atomicType;

    @Option(names = {"-F", "--CPU-freq"}, description = "Do not fail even if cpufreq_ondemand is on (accepted).")
    private boolean cpuFreq;

    @Option(names = {"--source_ip", "--bind_source_ip"}, paramLabel = "ADDR",
            description = "Source IP of the client's connections (IPv4 or IPv6).")
    private String sourceIp;

    @Option(names = {"-T", "--tos"}, paramLabel = "TOS",
            description = "Set the type of service of the data connections (rdma_cm; 0..255).")
    private String tos;

    @Option(names = {"-u", "--qp-timeout"}, paramLabel = "TIMEOUT",
            description = "QP timeout: 4.096 usec x 2^TIMEOUT, 0..31 (default: the connection manager's; RC).")
    private Integer qpTimeout;

    @Option(names = {"-S", "--sl"}, paramLabel = "SL",
            description = "Service level 0..15 (accepted; as in perftest's rdma_cm mode the route sets it).")
    private Integer sl;

    @Option(names = "--out_json", description = "Write the report as JSON to the --out_json_file.")
    private boolean outJson;

    @Option(names = "--out_json_file", paramLabel = "FILE", defaultValue = "perftest_out.json",
            description = "Name of the report json file (default: ${DEFAULT-VALUE} in the working directory).")
    private Path outJsonFile;

    @Option(names = {"-V", "--version"}, versionHelp = true, description = "Display version number.")
    private boolean version;

    @Option(names = "--ipv6", description = "Use IPv6 GID. Default is IPv4 (the GID -x picks when not given; "
            + "rdma_cm connections carry the GID of their address: give an IPv6 address or --ipv6-addr).")
    private boolean ipv6Gid;

    @Option(names = "--ipv6-addr", description = "Use IPv6 address for parameters negotiation (perftest 23.07+): "
            + "HOST and --source_ip resolve to IPv6, the server listens on :: unless --bind. Default is IPv4.")
    private boolean ipv6Addr;

    @Option(names = "--bind", paramLabel = "ADDR",
            description = "Server: local address to listen on (default: 0.0.0.0; :: with --ipv6-addr).")
    private String bind;

    @Option(names = "--json", description = "Print one JSON object per result row instead of the table.")
    private boolean json;

    @Option(names = "--verify", description = "Send a known pattern and check what lands (jrdma on both sides).")
    private boolean verify;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "10",
            description = "Fail when the peer stays silent this long (default: ${DEFAULT-VALUE}).")
    private int timeoutSeconds;

    @Option(names = "--accept-timeout", paramLabel = "SECONDS", defaultValue = "0",
            description = "Server: give up when no client comes this long (default: 0, wait for ever).")
    private int acceptTimeoutSeconds;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    /** Creates the command (picocli instantiates the subclasses). */
    protected PerfCommand() {
    }

    /**
     * The tool this command runs.
     *
     * @return the test
     */
    protected abstract PerfTest test();

    /**
     * Runs the server or the client.
     *
     * @return the exit code
     */
    @Override
    public Integer call() {
        PerfSpec s = buildSpec();
        ToolContext ctx = parent.context();
        PerfReporter reporter = new PerfReporter(json ? PerfReporter.Format.JSON : PerfReporter.Format.TEXT,
                ctx.out(), test().command(), host == null ? "server" : "client", settings(s));
        if (sl != null) {
            ctx.err().println(test().command() + ": note: -S " + sl + " has no effect: with rdma_cm the route sets "
                    + "the service level (as in perftest -R); on RoCEv2 -T sets the traffic class");
        }
        StandardProtocolFamily family = ipv6Addr ? StandardProtocolFamily.INET6 : null;
        PerfRun run;
        if (host == null) {
            InetAddress listen = bind != null ? Hosts.resolve(bind, "--bind", family) : Hosts.wildcard(ipv6Addr);
            try (PerfServer server = PerfServer.open(s, new InetSocketAddress(listen, port))) {
                run = server.serve(reporter, ctx.err(), ctx.terminal(), Duration.ofSeconds(acceptTimeoutSeconds));
            }
        } else {
            InetSocketAddress src = sourceIp == null ? null
                    : new InetSocketAddress(Hosts.resolve(sourceIp, "--source_ip", family), 0);
            run = PerfClient.run(s, new InetSocketAddress(Hosts.resolve(host, "HOST", family), port), src, reporter,
                    ctx.err(), ctx.terminal());
        }
        if (outJson) {
            writeJson(reporter, s, run);
        }
        return ExitCodes.OK;
    }

    /**
     * {@code --out_json}: the settings and every result row of this side as one JSON object, written to
     * {@code --out_json_file} (replaced).
     */
    private void writeJson(PerfReporter reporter, PerfSpec s, PerfRun run) {
        List<JsonObject> results = new ArrayList<>();
        for (PerfResult r : run.rows()) {
            JsonObject o = new JsonObject();
            r.writeJson(o);
            results.add(o);
        }
        JsonObject info = settings(s).put("test", test().command()).put("role", host == null ? "server" : "client")
                .put("device_used", run.device()).put("duplex", s.duplex()).put("post_list", s.postList())
                .put("tos", s.tos()).put("qp_timeout", run.qpTimeout()).put("traffic_class", run.trafficClass());
        JsonObject doc = new JsonObject().put("test_info", info).put("results", results);
        try {
            Files.writeString(outJsonFile, doc + System.lineSeparator());
        } catch (IOException e) {
            throw new ToolFailure("cannot write the --out_json_file " + outJsonFile + ": " + e.getMessage(), e);
        }
    }

    /** Which tests take an option (perftest's usage for the tool); options not named here are for every test. */
    private static final Map<String, Predicate<PerfTest>> APPLIES = Map.ofEntries(
            Map.entry("-A", t -> t == PerfTest.ATOMIC_BW),
            Map.entry("-a", t -> t.verb() != Verb.ATOMIC),
            Map.entry("-s", t -> t.verb() != Verb.ATOMIC),
            Map.entry("--sizes", t -> t.verb() != Verb.ATOMIC),
            Map.entry("-o", t -> t.verb() == Verb.READ || t.verb() == Verb.ATOMIC),
            Map.entry("-I", t -> t.verb() != Verb.READ && t.verb() != Verb.ATOMIC),
            Map.entry("-r", PerfTest::usesReceives),
            Map.entry("-b", PerfTest::bandwidth),
            Map.entry("--report-both", PerfTest::bandwidth),
            Map.entry("-l", PerfTest::bandwidth),
            Map.entry("--run_infinitely", PerfTest::bandwidth),
            Map.entry("-N", PerfTest::bandwidth),
            Map.entry("-q", PerfTest::bandwidth),
            Map.entry("-Q", PerfTest::bandwidth),
            Map.entry("-t", PerfTest::bandwidth),
            Map.entry("--report_gbits", PerfTest::bandwidth),
            Map.entry("-C", t -> !t.bandwidth()),
            Map.entry("-H", t -> !t.bandwidth()),
            Map.entry("-U", t -> !t.bandwidth()));

    /**
     * Removes from every perftest tool of a command line the options that are not its own, so that its help
     * lists only what it takes and another tool's option is an unknown option.
     *
     * @param root the launcher's command line
     */
    public static void pruneOptions(CommandLine root) {
        for (CommandLine sub : root.getSubcommands().values()) {
            if (!(sub.getCommand() instanceof PerfCommand pc)) {
                continue;
            }
            PerfTest t = pc.test();
            CommandSpec spec = sub.getCommandSpec();
            for (OptionSpec o : new ArrayList<>(spec.options())) {
                for (String name : o.names()) {
                    Predicate<PerfTest> applies = APPLIES.get(name);
                    if (applies != null && !applies.test(t)) {
                        spec.remove(o);
                        break;
                    }
                }
            }
        }
    }

    private PerfSpec buildSpec() {
        PerfTest t = test();
        if (all && (size != null || sizes != null)) {
            throw usage("-a runs every size; leave out -s and --sizes");
        }
        if (size != null && sizes != null) {
            throw usage("give -s or --sizes, not both");
        }
        if (ibPort != 1) {
            throw usage("jrdma devices have one port; -i must be 1");
        }
        if (duration != null && duration < 1) {
            throw usage("-D/--duration must be at least 1 second, not " + duration);
        }
        if (runInfinitely && margin != null) {
            throw usage("--run_infinitely reports whole -D periods; leave out -f");
        }
        if (margin != null && duration == null) {
            throw usage("-f/--margin needs -D/--duration");
        }
        if (timeoutSeconds < 1 || acceptTimeoutSeconds < 0) {
            throw usage("--timeout must be >= 1 and --accept-timeout >= 0");
        }
        if (noPeak && !t.bandwidth()) {
            throw usage("-N/--noPeak is only valid for bandwidth tests");
        }
        if (atomicType != null && t != PerfTest.ATOMIC_BW) {
            throw usage("-A/--atomic_type is for atomic tests");
        }
        boolean cas = false;
        if (atomicType != null) {
            switch (atomicType.toUpperCase(Locale.ROOT)) {
                case "CMP_AND_SWAP" -> cas = true;
                case "FETCH_AND_ADD" -> cas = false;
                default -> throw usage("Invalid Atomic type! please choose from {CMP_AND_SWAP,FETCH_AND_ADD}");
            }
        }
        QpType type = switch (connection.toUpperCase(Locale.ROOT)) {
            case "RC" -> QpType.RC;
            case "UD" -> QpType.UD;
            default -> throw usage("connection type " + connection + " is not supported (RC or UD)");
        };
        if (verify && (all || (sizes != null && sizes.size() > 1) || duration != null)) {
            throw usage("--verify checks one size run for a number of iterations: give -s, not -a, --sizes or -D");
        }
        int typeOfService = -1;
        if (tos != null) {
            try {
                typeOfService = Integer.decode(tos);
            } catch (NumberFormatException e) {
                throw usage("type of service (-T) " + tos + " is not a number");
            }
        }
        try {
            PerfSpec.Builder b = PerfSpec.builder(t).device(device).port(port).numQps(numQps).connection(type)
                    .unit(gbits ? ReportUnit.GBIT_PER_SEC : ReportUnit.MB_PER_SEC).noPeak(noPeak).events(events)
                    .compareAndSwap(cas).verify(verify).timeout(Duration.ofSeconds(timeoutSeconds))
                    .duplex(duplex).reportBoth(reportBoth).tos(typeOfService)
                    .qpTimeout(qpTimeout == null ? -1 : qpTimeout).sl(sl == null ? -1 : sl)
                    .latency(new PerfSpec.LatencyReport(cycles, histogram, unsorted))
                    .warmup(warmup == null ? PerfSpec.AUTO_WARMUP : warmup);
            if (postList != null) {
                b.postList(postList);
            }
            if (all) {
                b.allSizes();
            } else if (sizes != null) {
                b.sizes(sizes);
            } else if (size != null) {
                b.size(size);
            }
            if (iterations != null) {
                b.iterations(iterations);
            }
            if (runInfinitely) {
                b.runInfinitely(duration != null ? duration : PerfSpec.DEFAULT_PERIOD);
            } else if (duration != null) {
                b.duration(duration, margin != null ? margin : Math.min(PerfSpec.DEFAULT_MARGIN, (duration - 1) / 2));
            }
            if (txDepth != null) {
                b.txDepth(txDepth);
            }
            if (rxDepth != null) {
                b.rxDepth(rxDepth);
            }
            if (cqMod != null) {
                b.cqMod(cqMod);
            }
            if (inlineSize != null) {
                b.inlineSize(inlineSize);
            }
            if (outReads != null) {
                b.outReads(outReads);
            }
            if (gidIndex != null) {
                b.gidIndex(gidIndex);
            } else if (ipv6Gid) {
                b.gidIndex(PerfSpec.BEST_IPV6_GID);
            }
            if (mtu != null) {
                b.mtu(mtu);
            }
            return b.build();
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
    }

    private JsonObject settings(PerfSpec s) {
        long[] sz = new long[s.sizes().size()];
        for (int i = 0; i < sz.length; i++) {
            sz[i] = s.sizes().get(i);
        }
        JsonObject o = new JsonObject()
                .put("host", host)
                .put("port", port)
                .put("device", s.device())
                .put("connection", s.connection().name())
                .put("qps", s.numQps())
                .put("sizes", sz)
                .put("events", s.events());
        if (s.timed()) {
            o.put("duration_s", s.durationSeconds()).put("margin_s", s.marginSeconds());
        } else {
            o.put("iterations", s.iterations());
        }
        return o.put("bw_unit", s.unit().label()).put("verify", s.verify());
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    /** {@code jrdma send-bw}: perftest's ib_send_bw. */
    @Command(name = "send-bw", description = "SEND bandwidth (perftest's ib_send_bw, rdma_cm mode).")
    public static final class SendBw extends PerfCommand {
        /** Creates the command. */
        public SendBw() {
        }

        @Override
        protected PerfTest test() {
            return PerfTest.SEND_BW;
        }
    }

    /** {@code jrdma write-bw}: perftest's ib_write_bw. */
    @Command(name = "write-bw", description = "RDMA WRITE bandwidth (perftest's ib_write_bw, rdma_cm mode).")
    public static final class WriteBw extends PerfCommand {
        /** Creates the command. */
        public WriteBw() {
        }

        @Override
        protected PerfTest test() {
            return PerfTest.WRITE_BW;
        }
    }

    /** {@code jrdma read-bw}: perftest's ib_read_bw. */
    @Command(name = "read-bw", description = "RDMA READ bandwidth (perftest's ib_read_bw, rdma_cm mode).")
    public static final class ReadBw extends PerfCommand {
        /** Creates the command. */
        public ReadBw() {
        }

        @Override
        protected PerfTest test() {
            return PerfTest.READ_BW;
        }
    }

    /** {@code jrdma atomic-bw}: perftest's ib_atomic_bw. */
    @Command(name = "atomic-bw", description = "Atomic bandwidth (perftest's ib_atomic_bw, rdma_cm mode; not iWARP).")
    public static final class AtomicBw extends PerfCommand {
        /** Creates the command. */
        public AtomicBw() {
        }

        @Override
        protected PerfTest test() {
            return PerfTest.ATOMIC_BW;
        }
    }

    /** {@code jrdma send-lat}: perftest's ib_send_lat. */
    @Command(name = "send-lat", description = "SEND latency (perftest's ib_send_lat, rdma_cm mode).")
    public static final class SendLat extends PerfCommand {
        /** Creates the command. */
        public SendLat() {
        }

        @Override
        protected PerfTest test() {
            return PerfTest.SEND_LAT;
        }
    }

    /** {@code jrdma write-lat}: perftest's ib_write_lat. */
    @Command(name = "write-lat", description = "RDMA WRITE latency (perftest's ib_write_lat, rdma_cm mode).")
    public static final class WriteLat extends PerfCommand {
        /** Creates the command. */
        public WriteLat() {
        }

        @Override
        protected PerfTest test() {
            return PerfTest.WRITE_LAT;
        }
    }

    /** {@code jrdma read-lat}: perftest's ib_read_lat. */
    @Command(name = "read-lat", description = "RDMA READ latency (perftest's ib_read_lat, rdma_cm mode).")
    public static final class ReadLat extends PerfCommand {
        /** Creates the command. */
        public ReadLat() {
        }

        @Override
        protected PerfTest test() {
            return PerfTest.READ_LAT;
        }
    }
}
