package io.jrdma.tools.cmatose;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.Callable;

import io.jrdma.tools.cli.ExitCodes;
import io.jrdma.tools.cli.Hosts;
import io.jrdma.tools.cli.ToolContext;
import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.tools.cli.ToolHost;
import io.jrdma.tools.rdma.ToolDevices;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code jrdma cmatose} and {@code jrdma udaddy}: rdma-core's ucmatose (RC connections) and udaddy
 * (UD over the UDP port space) with their flags: {@code -s} server address (the client side),
 * {@code -b} bind address, {@code -c} connections, {@code -C} message count, {@code -S} message
 * size, {@code -p} port, {@code -t} type of service; {@code -f}, {@code -P}, {@code -m} and
 * {@code -a} are accepted. jrdma adds {@code --device}, {@code --timings} and {@code --timeout}.
 */
public abstract class CmatoseCommand implements Callable<Integer> {

    @picocli.CommandLine.ParentCommand
    private ToolHost parent;

    @Spec
    private CommandSpec spec;

    @Option(names = "-s", paramLabel = "ADDR", description = "Server address: run the client against it.")
    private String serverAddress;

    @Option(names = "-b", paramLabel = "ADDR", description = "Bind address (server: listen on it; client: source).")
    private String bindAddress;

    @Option(names = "-c", paramLabel = "N", defaultValue = "1",
            description = "Connections (default: ${DEFAULT-VALUE}).")
    private int connections;

    @Option(names = "-C", paramLabel = "N", defaultValue = "10",
            description = "Messages per connection (default: ${DEFAULT-VALUE}).")
    private int messageCount;

    @Option(names = "-S", paramLabel = "BYTES", defaultValue = "100",
            description = "Message size (default: ${DEFAULT-VALUE}).")
    private int messageSize;

    @Option(names = "-p", paramLabel = "PORT", description = "Port number (default: 7471 cmatose, 7174 udaddy).")
    private Integer port;

    @Option(names = "-t", paramLabel = "TOS", description = "Type of service.")
    private String tos;

    @Option(names = "-f", paramLabel = "FORMAT",
            description = "Address format: name (default: a host name or an IP literal), ip (IPv4/IPv6 literals).")
    private String format;

    @Option(names = "-P", paramLabel = "PS", description = "Port space (accepted: tcp for cmatose, udp for udaddy).")
    private String portSpace;

    @Option(names = "-m", description = "Migrate to a new event channel (accepted; no effect).")
    private boolean migrate;

    @Option(names = "-a", paramLabel = "TIMEOUT", description = "ACK timeout (accepted; no effect on jrdma).")
    private String ackTimeout;

    @Option(names = "--device", paramLabel = "NAME",
            description = "RDMA device (e.g. siw0, rxe0, loop0); default: rdma_cm's choice by address (udaddy: among "
                    + "the devices that carry UD).")
    private String device;

    @Option(names = "--timings", description = "Also print how long connecting, transfers and disconnecting took.")
    private boolean timings;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "10",
            description = "Fail when a step takes longer (default: ${DEFAULT-VALUE}).")
    private int timeoutSeconds;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    /** Creates the command. */
    protected CmatoseCommand() {
    }

    /**
     * Whether this is udaddy.
     *
     * @return true for UD
     */
    protected abstract boolean ud();

    /**
     * Runs the tool.
     *
     * @return the exit code
     */
    @Override
    public Integer call() {
        if (format != null && !format.regionMatches(true, 0, "ip", 0, 2) && !format.equalsIgnoreCase("name")) {
            throw usage("address format " + format + " is not supported (name or ip)");
        }
        if (timeoutSeconds < 1) {
            throw usage("--timeout must be >= 1");
        }
        int p = port != null ? port : ud() ? CmatoseOptions.UDADDY_PORT : CmatoseOptions.CMATOSE_PORT;
        boolean server = serverAddress == null;
        InetSocketAddress bind = bindAddress == null ? (server ? new InetSocketAddress(any(), p) : null)
                : new InetSocketAddress(resolve(bindAddress), server ? p : 0);
        InetSocketAddress srv = server ? null : new InetSocketAddress(resolve(serverAddress), p);
        int t = -1;
        if (tos != null) {
            try {
                t = Integer.decode(tos) & 0xff;
            } catch (NumberFormatException e) {
                throw usage("type of service " + tos + " is not a number");
            }
        }
        CmatoseOptions o;
        try {
            o = new CmatoseOptions(server, srv, bind, connections, messageCount, messageSize, t, device,
                    Duration.ofSeconds(timeoutSeconds), timings);
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
        ToolContext ctx = parent.context();
        if (ud() && device == null && ToolDevices.udDevices().equals(java.util.List.of("loop0"))) {
            ctx.err().println("udaddy: note: the only device here that carries UD is loop0, which reaches only this "
                    + "process; to reach another, give an rxe device (JRDMA_RXE=rxe0:ADDR --device rxe0)");
        }
        int rc;
        try {
            rc = ud() ? new Udaddy(o, ctx.out()).run() : new Cmatose(o, ctx.out()).run();
        } catch (ToolFailure f) {
            if (ud() && device == null && f.getMessage().contains("RDMA_CM_EVENT_ADDR_ERROR")) {
                throw new ToolFailure(f.getMessage() + " with UD (devices tried: "
                        + String.join(", ", ToolDevices.udDevices()) + "; iWARP carries RC only): give --device, e.g. "
                        + "an rxe device serving the address (JRDMA_RXE=rxe0:ADDR --device rxe0)", f.exitCode(), f);
            }
            throw f;
        }
        return rc == 0 ? ExitCodes.OK : ExitCodes.FAILURE;
    }

    /**
     * Removes from udaddy the options only ucmatose has ({@code -m}, {@code -a}), so its help lists only its
     * own (rdma-core's udaddy reads {@code s:b:c:C:S:t:p:P:f:}).
     *
     * @param root the launcher's command line
     */
    public static void pruneOptions(CommandLine root) {
        for (CommandLine sub : root.getSubcommands().values()) {
            if (sub.getCommand() instanceof CmatoseCommand c && c.ud()) {
                CommandSpec spec = sub.getCommandSpec();
                for (String name : new String[] {"-m", "-a"}) {
                    spec.remove(spec.findOption(name));
                }
            }
        }
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    private static InetAddress any() {
        return Hosts.wildcard(false);
    }

    private InetAddress resolve(String name) {
        // cmatose -f ip: RAI_NUMERICHOST, an IPv4 or IPv6 literal; -f name (the default) resolves names too.
        if (format != null && format.regionMatches(true, 0, "ip", 0, 2) && !Hosts.isLiteral(name)) {
            throw new ToolFailure("rdma_getaddrinfo error: Name or service not known: " + name + " (-f ip takes "
                    + "numeric addresses)", ExitCodes.USAGE, null);
        }
        try {
            return Hosts.resolve(name, "rdma_getaddrinfo");
        } catch (ToolFailure e) {
            throw new ToolFailure("rdma_getaddrinfo error: Name or service not known: " + name, ExitCodes.USAGE, e);
        }
    }

    /** {@code jrdma cmatose}: rdma-core's ucmatose. */
    @Command(name = "cmatose", usageHelpWidth = 100, sortOptions = false,
            description = "RC connection test through rdma_cm (rdma-core's ucmatose). Without -s: the server.")
    public static final class Rc extends CmatoseCommand {
        /** Creates the command. */
        public Rc() {
        }

        @Override
        protected boolean ud() {
            return false;
        }
    }

    /** {@code jrdma udaddy}: rdma-core's udaddy. */
    @Command(name = "udaddy", usageHelpWidth = 100, sortOptions = false,
            description = "UD test over rdma_cm's UDP port space (rdma-core's udaddy; needs loop0 or RoCE).")
    public static final class Ud extends CmatoseCommand {
        /** Creates the command. */
        public Ud() {
        }

        @Override
        protected boolean ud() {
            return true;
        }
    }
}
