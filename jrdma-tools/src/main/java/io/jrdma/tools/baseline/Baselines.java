package io.jrdma.tools.baseline;

import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.tools.perf.PerfReporter;

/**
 * The baselines as a library: runs a server and a client of one baseline in this JVM, over
 * 127.0.0.1 on an ephemeral port, and returns the rows. This is what {@code jrdma bench} calls to
 * measure the floor beside jrdma's own figures.
 *
 * <pre>{@code
 * List<BaselineRow> rows = Baselines.run(BaselineSpec.defaults(BaselineTool.TCP_LAT)
 *         .withSizes(List.of(64)).withIterations(100_000));
 * }</pre>
 */
public final class Baselines {

    /** How long {@link #run} waits for its server thread to finish after the client. */
    public static final Duration SERVER_JOIN_TIMEOUT = Duration.ofSeconds(30);

    private Baselines() {
    }

    /**
     * Runs a baseline in-process over the loopback address and reports nothing.
     *
     * @param spec what to run
     * @return one row per size
     * @throws ToolFailure if either side fails
     */
    public static List<BaselineRow> run(BaselineSpec spec) {
        return run(spec, PerfReporter.none(), null);
    }

    /**
     * Runs a baseline in-process over the loopback address, the client reporting to
     * {@code reporter} and printing warnings to {@code err}.
     *
     * @param spec what to run
     * @param reporter where the client's banner and rows go
     * @param err where warnings go, or null
     * @return one row per size
     * @throws ToolFailure if either side fails
     */
    public static List<BaselineRow> run(BaselineSpec spec, PerfReporter reporter, PrintStream err) {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        PrintStream warnings = err != null ? err : new PrintStream(OutputStream.nullOutputStream());
        BaselineServer server = BaselineServer.open(spec.tool(), new InetSocketAddress(loopback, 0), spec.ioMode(),
                spec.stallTimeout(), spec.tcpCongestion());
        try {
            AtomicReference<RuntimeException> serverFailure = new AtomicReference<>();
            Duration acceptTimeout = BaselineServer.controlTimeout(spec.stallTimeout());
            Thread t = Thread.ofPlatform().name("jrdma-" + spec.tool().command() + "-server").start(() -> {
                try {
                    server.serve(PerfReporter.none(), acceptTimeout);
                } catch (RuntimeException e) {
                    serverFailure.set(e);
                }
            });
            List<BaselineRow> rows;
            try {
                rows = new BaselineClient(spec, new InetSocketAddress(loopback, server.port()), reporter, warnings,
                        false).run();
            } catch (ToolFailure e) {
                server.close(); // unblocks a server still waiting for its client
                join(t);
                RuntimeException s = serverFailure.get();
                if (s != null) {
                    e.addSuppressed(s);
                }
                throw e;
            }
            join(t);
            if (t.isAlive()) {
                throw new ToolFailure("the in-process server did not finish within "
                        + SERVER_JOIN_TIMEOUT.toSeconds() + " s");
            }
            RuntimeException s = serverFailure.get();
            if (s != null) {
                throw s;
            }
            return rows;
        } finally {
            server.close();
        }
    }

    private static void join(Thread t) {
        try {
            t.join(TimeUnit.NANOSECONDS.toMillis(SERVER_JOIN_TIMEOUT.toNanos()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ToolFailure("interrupted while waiting for the in-process server", e);
        }
    }
}
