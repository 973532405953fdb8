package io.jrdma.tools.demo;

import java.util.concurrent.Callable;

import io.jrdma.tools.cli.ExitCodes;
import io.jrdma.tools.cli.ToolContext;
import io.jrdma.tools.cli.ToolHost;
import io.jrdma.tools.perftest.PerfEngine;
import io.jrdma.tools.rdma.ToolDevices;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code jrdma demo}: README's first command (see {@link Demo}). */
@Command(name = "demo", usageHelpWidth = 100,
        description = {
            "A server and a client in this process exchange data over the iWARP transport (siw0) on",
            "127.0.0.1: RDMA WRITE, RDMA READ and SEND bandwidth and WRITE latency at 64 B, 4 KiB, 64 KiB",
            "and 1 MiB, every landed message checked. Exits non-zero if a check fails.",
        })
public final class DemoCommand implements Callable<Integer> {

    @ParentCommand
    private ToolHost parent;

    @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEV", defaultValue = "siw0",
            description = "Device to run over (default: ${DEFAULT-VALUE}; loop0 is the in-process provider).")
    private String device;

    @Option(names = "--json", description = "Print one JSON object per run instead of the table.")
    private boolean json;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    /** Creates the command (picocli instantiates it). */
    public DemoCommand() {
    }

    /**
     * Runs the demo.
     *
     * @return the exit code
     */
    @Override
    public Integer call() {
        ToolDevices.require(device);
        ToolContext ctx = parent.context();
        new Demo(device, json, ctx.out(), ctx.err(), PerfEngine::runLocal).run();
        return ExitCodes.OK;
    }
}
