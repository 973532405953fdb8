package io.jrdma.tools;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.Logger;

import io.jrdma.tools.baseline.TcpBwCommand;
import io.jrdma.tools.baseline.TcpLatCommand;
import io.jrdma.tools.baseline.UdpBwCommand;
import io.jrdma.tools.baseline.UdpLatCommand;
import io.jrdma.tools.cli.ExitCodes;
import io.jrdma.tools.cli.ToolContext;
import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.tools.cli.ToolHost;
import io.jrdma.tools.cmatose.CmatoseCommand;
import io.jrdma.tools.demo.DemoCommand;
import io.jrdma.tools.devices.DevicesCommand;
import io.jrdma.tools.devices.DevinfoCommand;
import io.jrdma.tools.perftest.PerfCommand;
import io.jrdma.tools.rdma.RxeEnv;
import io.jrdma.tools.rping.RpingCommand;
import io.jrdma.tools.stats.RunStats;
import io.jrdma.tools.stats.StatsCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.IExecutionStrategy;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.RunLast;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The {@code jrdma} command: one launcher for every jrdma tool, each a subcommand
 * ({@code jrdma tcp-bw}, {@code jrdma tcp-lat}, ...). Tools print their report on stdout and
 * problems as one line on stderr, and exit with {@link ExitCodes}.
 *
 * <p>{@link #run(ToolContext, String...)} runs a command line in-process against any
 * {@link ToolContext}, which is how the tests and the benchmark drive the tools.
 *
 * <p>{@link #main} first turns the environment variable {@code JRDMA_RXE} into rxe devices
 * ({@link RxeEnv}); in-process runs set the system property {@code jrdma.rxe.devices} instead.
 *
 * <p>A process started by {@link #main} prints no {@code java.util.logging} records: the stack logs
 * its control plane (CM events, retransmissions) for applications that want it, and on a terminal those
 * lines only hide the tool's own output. {@code --log LEVEL} (or rping's {@code -d}) shows them from
 * that level on; a {@code java.util.logging.config.file} given to the JVM is left alone.
 */
@Command(name = "jrdma",
        mixinStandardHelpOptions = true,
        versionProvider = Jrdma.Version.class,
        usageHelpWidth = 100,
        synopsisSubcommandLabel = "TOOL",
        description = {
            "jrdma: RDMA in pure Java. The tools RDMA users know from rdma-core and perftest,",
            "with the same flags and output, interoperable with the Linux tools (perftest in its",
            "rdma_cm mode, -R), plus raw TCP/UDP baselines to measure against.",
            "",
            "Perftest convention: a tool without a host argument is the server; with one, the client.",
            "Devices: siw0 (iWARP over TCP), loop0 (in-process), and RoCEv2 devices (Linux rxe's wire",
            "protocol over UDP 4791) when JRDMA_RXE names them, e.g. JRDMA_RXE=rxe0:10.0.4.2. Without -d",
            "(rping, cmatose, udaddy: --device) rdma_cm picks by address, iWARP first: name rxe0 to use it.",
        },
        footer = {
            "",
            "Examples:",
            "  jrdma demo                          # verified RDMA transfers over iWARP on 127.0.0.1",
            "  jrdma write-bw                      # server, waits on port 18515",
            "  jrdma write-bw 127.0.0.1 -s 4K      # client (also against Linux ib_write_bw -R)",
            "  jrdma rping -s -v & jrdma rping -c -a 127.0.0.1 -C 3 -vV",
            "  jrdma tcp-bw 127.0.0.1 --sizes 4K,65483,64K,1M --report_gbits",
            "  JRDMA_RXE=rxe0:10.0.4.2 jrdma rping -s -v -a 10.0.4.2 --device rxe0    # RoCEv2",
            "  jrdma rping -s -a ::1 & jrdma rping -c -a ::1 -C 3 -v    # IPv6: ::1, [fd00:4::15], fe80::1%%eth1",
            "  JRDMA_RXE='rxe0:[fd00:4::2]' jrdma write-bw -d rxe0 --ipv6-addr fd00:4::15    # RoCEv2 over IPv6",
            "  jrdma stats --pid 12345 --qp      # counters of a running jrdma application",
            "",
            "Every tool takes --stats: at its end it prints what the run counted on each device and QP.",
            "",
            "Exit codes: 0 success, 1 run-time failure (peer unreachable, refused, silent,",
            "verification failed), 2 bad command line.",
        },
        subcommands = {
            DemoCommand.class,
            RpingCommand.class,
            PerfCommand.SendBw.class,
            PerfCommand.WriteBw.class,
            PerfCommand.ReadBw.class,
            PerfCommand.AtomicBw.class,
            PerfCommand.SendLat.class,
            PerfCommand.WriteLat.class,
            PerfCommand.ReadLat.class,
            CmatoseCommand.Rc.class,
            CmatoseCommand.Ud.class,
            DevicesCommand.class,
            DevinfoCommand.class,
            StatsCommand.class,
            TcpBwCommand.class,
            TcpLatCommand.class,
            UdpBwCommand.class,
            UdpLatCommand.class,
            CommandLine.HelpCommand.class,
        })
public final class Jrdma implements Callable<Integer>, ToolHost {

    @Spec
    private CommandSpec spec;

    private final ToolContext context;

    @Option(names = "--stats", scope = ScopeType.INHERIT,
            description = "At the end, print the device and QP counters of this run (see 'jrdma stats').")
    private boolean stats;

    @Option(names = "--log", scope = ScopeType.INHERIT, paramLabel = "LEVEL",
            description = "Show jrdma's java.util.logging records from LEVEL on (INFO, FINE, ...; default: none).")
    private String log;

    /** Whether this is the process's own command line, which owns the process's logging. */
    private boolean process;

    private Jrdma(ToolContext context) {
        this.context = context;
    }

    /**
     * The process entry point.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        try {
            RxeEnv.apply(System.getenv(RxeEnv.ENV), System.getProperties());
        } catch (IllegalArgumentException e) {
            System.err.println("jrdma: " + e.getMessage());
            System.exit(ExitCodes.USAGE);
        }
        CommandLine cl = commandLine(ToolContext.system());
        ((Jrdma) cl.getCommandSpec().userObject()).process = true;
        System.exit(cl.execute(args));
    }

    /**
     * Runs a command line in-process.
     *
     * @param context where output goes
     * @param args the command line, without the program name
     * @return the exit code
     */
    public static int run(ToolContext context, String... args) {
        return commandLine(context).execute(args);
    }

    /**
     * The configured picocli command line for a context (for tests that inspect the model).
     *
     * @param context where output goes
     * @return the command line
     */
    public static CommandLine commandLine(ToolContext context) {
        CommandLine cl = new CommandLine(new Jrdma(context));
        cl.setOut(new PrintWriter(context.out(), true, StandardCharsets.UTF_8));
        cl.setErr(new PrintWriter(context.err(), true, StandardCharsets.UTF_8));
        cl.setParameterExceptionHandler(new BadUsage());
        cl.setExecutionExceptionHandler(new Failed());
        cl.setExecutionStrategy(new WithStats(context));
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        PerfCommand.pruneOptions(cl);
        CmatoseCommand.pruneOptions(cl);
        return cl;
    }

    @Override
    public ToolContext context() {
        return context;
    }

    /**
     * Runs when no tool is named: prints the usage on stderr.
     *
     * @return {@link ExitCodes#USAGE}
     */
    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        err.println("jrdma: name a tool (see 'jrdma --help')");
        spec.commandLine().usage(err);
        err.flush();
        return ExitCodes.USAGE;
    }

    /**
     * Runs the chosen tool; with {@code --stats}, takes the counters before and prints what changed after
     * (also after a failure): on stdout, or on stderr when the tool writes {@code --json}.
     */
    private static final class WithStats implements IExecutionStrategy {
        private final ToolContext context;

        WithStats(ToolContext context) {
            this.context = context;
        }

        @Override
        public int execute(ParseResult parseResult) {
            Jrdma root = (Jrdma) parseResult.commandSpec().userObject();
            if (root.process) {
                boolean debug = false;
                for (ParseResult p = parseResult; p != null; p = p.subcommand()) {
                    debug |= p.commandSpec().name().equals("rping") && p.hasMatchedOption("-d");
                }
                configureLogging(root.log != null ? parseLevel(root.log, parseResult) : debug ? Level.INFO : Level.OFF);
            }
            if (!root.stats) {
                return new RunLast().execute(parseResult);
            }
            boolean json = false;
            for (ParseResult p = parseResult; p != null; p = p.subcommand()) {
                json |= p.hasMatchedOption("--json") && Boolean.TRUE.equals(p.matchedOptionValue("--json", false));
            }
            RunStats run = RunStats.begin();
            try {
                return new RunLast().execute(parseResult);
            } finally {
                run.print(json ? context.err() : context.out());
            }
        }
    }

    /**
     * Sets the process's {@code java.util.logging} threshold (root logger and its handlers), unless the JVM
     * was given a logging configuration of its own.
     *
     * @param level the least level shown; {@link Level#OFF} for none
     */
    static void configureLogging(Level level) {
        if (System.getProperty("java.util.logging.config.file") != null
                || System.getProperty("java.util.logging.config.class") != null) {
            return;
        }
        Logger root = Logger.getLogger("");
        root.setLevel(level);
        for (Handler h : root.getHandlers()) {
            h.setLevel(level);
        }
    }

    private static Level parseLevel(String name, ParseResult parseResult) {
        try {
            return Level.parse(name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(parseResult.commandSpec().commandLine(),
                    "--log: " + name + " is not a level (SEVERE, WARNING, INFO, CONFIG, FINE, FINER, FINEST, ALL)");
        }
    }

    /**
     * One line for a bad command line, exit code {@link ExitCodes#USAGE}. An unknown option is named alone:
     * picocli also lists the words after it that it could not place (the option's value, the host), which
     * are not the mistake.
     */
    private static final class BadUsage implements IParameterExceptionHandler {
        @Override
        public int handleParseException(ParameterException ex, String[] args) {
            CommandLine cmd = ex.getCommandLine();
            String name = cmd.getCommandSpec().qualifiedName(" ");
            PrintWriter err = cmd.getErr();
            err.println(name + ": " + oneLine(message(ex)) + " (see '" + name + " --help')");
            err.flush();
            return ExitCodes.USAGE;
        }

        private static String message(ParameterException ex) {
            if (ex instanceof UnmatchedArgumentException u) {
                List<String> options = new ArrayList<>();
                for (String s : u.getUnmatched()) {
                    if (s.startsWith("-") && s.length() > 1 && !isNumber(s)) {
                        options.add("'" + s + "'");
                    }
                }
                if (!options.isEmpty()) {
                    return (options.size() == 1 ? "Unknown option: " : "Unknown options: ")
                            + String.join(", ", options);
                }
            }
            return ex.getMessage();
        }

        private static boolean isNumber(String s) {
            return s.matches("-\\d+(\\.\\d+)?");
        }
    }

    /** One line for a failed run; a stack trace only for bugs. */
    private static final class Failed implements IExecutionExceptionHandler {
        @Override
        public int handleExecutionException(Exception ex, CommandLine cmd, ParseResult parseResult) {
            String name = cmd.getCommandSpec().qualifiedName(" ");
            PrintWriter err = cmd.getErr();
            if (ex instanceof ToolFailure f) {
                err.println(name + ": " + oneLine(f.getMessage()));
                err.flush();
                return f.exitCode();
            }
            err.println(name + ": internal error: " + oneLine(String.valueOf(ex)));
            ex.printStackTrace(err);
            err.flush();
            return ExitCodes.FAILURE;
        }
    }

    private static String oneLine(String s) {
        return s == null ? "" : s.strip().replace("\r", "").replace("\n", "; ");
    }

    /** {@code --version}: jrdma's version and the Java runtime it runs on. */
    static final class Version implements IVersionProvider {
        @Override
        public String[] getVersion() throws IOException {
            String v = ToolHost.version();
            return new String[] {
                "jrdma " + v,
                "Java " + Runtime.version() + " (" + System.getProperty("java.vendor") + "), "
                        + System.getProperty("os.name") + " " + System.getProperty("os.arch"),
            };
        }
    }
}
