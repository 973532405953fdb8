package io.jrdma.tools.rping;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.Callable;

import io.jrdma.tools.cli.ExitCodes;
import io.jrdma.tools.cli.Hosts;
import io.jrdma.tools.cli.ToolContext;
import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.tools.cli.ToolHost;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code jrdma rping}: rdma-core's rping with its flags ({@code -s}, {@code -c}, {@code -a},
 * {@code -I}, {@code -p}, {@code -C}, {@code -S}, {@code -v}, {@code -V}, {@code -d}, {@code -P},
 * {@code -q}) and output. rping's {@code -d} is its debug switch, so the device is chosen with
 * {@code --device}.
 */
@Command(name = "rping", sortOptions = false, usageHelpWidth = 100,
        description = {
            "RC ping-pong over SEND, RDMA READ and RDMA WRITE, interoperable with rdma-core's rping.",
            "  jrdma rping -s [-vVd] [-S size] [-C count] [-a addr] [-p port]",
            "  jrdma rping -c [-vVd] [-S size] [-C count] [-I addr] -a addr [-p port]",
        })
public final class RpingCommand implements Callable<Integer> {

    @ParentCommand
    private ToolHost parent;

    @Spec
    private CommandSpec spec;

    @Option(names = "-s", description = "Server side. To bind to any address with IPv6 use -a ::0.")
    private boolean server;

    @Option(names = "-c", description = "Client side.")
    private boolean client;

    @Option(names = "-a", paramLabel = "ADDR", description = "Address (server: to listen on; client: of the server): "
            + "IPv4, IPv6 (::1, fd00:4::15, fe80::1%%eth1) or a host name.")
    private String address;

    @Option(names = "-I", paramLabel = "ADDR", description = "Source address to bind to for the client.")
    private String source;

    @Option(names = "-p", paramLabel = "PORT", description = "Port (default: 7174).")
    private int port = RpingOptions.DEFAULT_PORT;

    @Option(names = "-C", paramLabel = "COUNT", description = "Ping count times (default: 0, for ever).")
    private int count;

    @Option(names = "-S", paramLabel = "SIZE", description = "Ping data size (default: 64; 26..65535).")
    private int size = RpingOptions.DEFAULT_SIZE;

    @Option(names = "-v", description = "Display ping data to stdout.")
    private boolean verbose;

    @Option(names = "-V", description = "Validate ping data.")
    private boolean validate;

    @Option(names = "-d", description = "Debug printfs.")
    private boolean debug;

    @Option(names = "-P", description = "Persistent server mode allowing multiple connections.")
    private boolean persistent;

    @Option(names = "-q", description = "Use a self-created, self-modified QP (accepted; jrdma's rdma_cm QP behaves "
            + "the same on the wire).")
    private boolean selfCreatedQp;

    @Option(names = "--device", paramLabel = "NAME",
            description = "RDMA device (e.g. siw0, rxe0, loop0); default: rdma_cm's choice by address.")
    private String device;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "10",
            description = "Fail when the peer stays silent this long (default: ${DEFAULT-VALUE}).")
    private int timeoutSeconds;

    @Option(names = "--accept-timeout", paramLabel = "SECONDS", defaultValue = "0",
            description = "Server: give up when no client comes this long (default: 0, wait for ever); with -P, "
                    + "end once no new client came this long.")
    private int acceptTimeoutSeconds;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    /** Creates the command (picocli instantiates it). */
    public RpingCommand() {
    }

    /**
     * Runs rping.
     *
     * @return the exit code
     */
    @Override
    public Integer call() {
        RpingOptions o = options();
        ToolContext ctx = parent.context();
        new Rping(o, ctx.out(), ctx.err()).run();
        return ExitCodes.OK;
    }

    private RpingOptions options() {
        if (server == client) {
            throw usage("choose the server (-s) or the client (-c) side");
        }
        if (port < 0 || port > 0xffff) {
            throw usage("port " + port + " is outside 0..65535");
        }
        if (client && address == null) {
            throw usage("the client needs the server's address (-a)");
        }
        if (server && source != null) {
            throw usage("-I is for the client");
        }
        if (timeoutSeconds < 1 || acceptTimeoutSeconds < 0) {
            throw usage("--timeout must be >= 1 and --accept-timeout >= 0");
        }
        InetSocketAddress at = address == null ? new InetSocketAddress(anyAddress(), port)
                : new InetSocketAddress(resolve(address), port);
        InetSocketAddress src = source == null ? null : new InetSocketAddress(resolve(source), 0);
        try {
            return new RpingOptions(server, at, src, count, size, verbose, validate, debug, persistent, device,
                    Duration.ofSeconds(timeoutSeconds), Duration.ofSeconds(acceptTimeoutSeconds));
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
    }

    private static InetAddress anyAddress() {
        try {
            return InetAddress.getByAddress(new byte[4]);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    private InetAddress resolve(String name) {
        try {
            return Hosts.resolve(name, "rping");
        } catch (ToolFailure e) {
            throw new ToolFailure("getaddrinfo failed - invalid hostname or IP address: " + name, ExitCodes.USAGE, e);
        }
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
