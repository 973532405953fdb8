package io.jrdma.tools.perftest;

import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.tools.perf.PerfReporter;

/**
 * The perftest tools as a library: runs a server and a client of one test in this JVM over
 * 127.0.0.1 and returns both sides' results. This is what {@code jrdma demo} and the benchmark
 * ({@code jrdma bench}) call; the command line runs one side with {@link PerfServer} or
 * {@link PerfClient}.
 *
 * <pre>{@code
 * PerfSpec spec = PerfSpec.builder(PerfTest.WRITE_BW).device("siw0").size(65536).numQps(4).build();
 * PerfEngine.LocalRun run = PerfEngine.runLocal(spec);
 * BwResult row = (BwResult) run.client().rows().get(0);
 * }</pre>
 */
public final class PerfEngine {

    /** How long {@link #runLocal} waits for the server side after the client finished. */
    public static final Duration SERVER_JOIN_TIMEOUT = Duration.ofSeconds(30);

    /** How long a failed client run waits for the server's own failure, to report both. */
    static final Duration DISCONNECT_GRACE = Duration.ofSeconds(2);

    private PerfEngine() {
    }

    /**
     * Both sides of an in-process run.
     *
     * @param client the client's result (the rows of bandwidth tests and of latency tests)
     * @param server the server's result
     */
    public record LocalRun(PerfRun client, PerfRun server) {
    }

    /**
     * Runs a test in-process over 127.0.0.1 on a free port, printing nothing.
     *
     * @param spec the test ({@link PerfSpec#port()} is ignored)
     * @return both sides' results
     * @throws ToolFailure if either side fails
     */
    public static LocalRun runLocal(PerfSpec spec) {
        return runLocal(spec, PerfReporter.none(), PerfReporter.none(), null);
    }

    /**
     * Runs a test in-process over 127.0.0.1 on a free port.
     *
     * @param spec the test ({@link PerfSpec#port()} is ignored)
     * @param clientReporter where the client's report goes
     * @param serverReporter where the server's report goes
     * @param err where warnings go, or null
     * @return both sides' results
     * @throws ToolFailure if either side fails
     */
    public static LocalRun runLocal(PerfSpec spec, PerfReporter clientReporter, PerfReporter serverReporter,
            PrintStream err) {
        PrintStream warnings = err != null ? err : new PrintStream(OutputStream.nullOutputStream());
        InetAddress loopback = InetAddress.getLoopbackAddress();
        try (PerfServer server = PerfServer.open(spec, new InetSocketAddress(loopback, 0))) {
            CompletableFuture<PerfRun> serverRun = new CompletableFuture<>();
            Thread t = Thread.ofPlatform().daemon().name("jrdma-" + spec.test().command() + "-server").start(() -> {
                try {
                    serverRun.complete(server.serve(serverReporter, warnings, false, spec.timeout()));
                } catch (RuntimeException e) {
                    serverRun.completeExceptionally(e);
                }
            });
            PerfRun client;
            try {
                client = PerfClient.run(spec, new InetSocketAddress(loopback, server.port()), null, clientReporter,
                        warnings, false);
            } catch (ToolFailure f) {
                // The server's own failure usually says why (e.g. a verification it could not pass).
                try {
                    serverRun.get(DISCONNECT_GRACE.toMillis(), TimeUnit.MILLISECONDS);
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof ToolFailure sf) {
                        ToolFailure both = new ToolFailure(f.getMessage() + " (server: " + sf.getMessage() + ")", f);
                        both.addSuppressed(sf);
                        server.close();
                        throw both;
                    }
                } catch (TimeoutException | InterruptedException e) {
                    if (e instanceof InterruptedException) {
                        Thread.currentThread().interrupt();
                    }
                }
                server.close();
                try {
                    t.join(SERVER_JOIN_TIMEOUT.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                throw f;
            }
            PerfRun s = await(serverRun, t);
            return new LocalRun(client, s);
        }
    }

    private static PerfRun await(CompletableFuture<PerfRun> f, Thread server) {
        try {
            return f.get(SERVER_JOIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new ToolFailure("the in-process server did not finish within " + SERVER_JOIN_TIMEOUT.toSeconds()
                    + " s" + whereItWaits(server.getStackTrace()), e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof ToolFailure tf) {
                throw new ToolFailure("server: " + tf.getMessage(), tf);
            }
            throw new ToolFailure("server failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ToolFailure("interrupted while waiting for the in-process server", e);
        }
    }

    /** How many of a stuck server's jrdma frames its failure names. */
    static final int WAIT_FRAMES = 4;

    /**
     * Where a server that did not finish was, for its failure message: its innermost frames of
     * jrdma's own code (the JDK's waiting frames above them say nothing the name of the jrdma method
     * does not), innermost first, or nothing when the thread has ended.
     *
     * @param stack the server thread's stack, innermost first
     * @return {@code " (waiting in A <- B <- ...)"} or the empty string
     */
    static String whereItWaits(StackTraceElement[] stack) {
        StringBuilder b = new StringBuilder();
        int n = 0;
        for (StackTraceElement f : stack) {
            if (!f.getClassName().startsWith("io.jrdma.")) {
                continue;
            }
            String cls = f.getClassName().substring(f.getClassName().lastIndexOf('.') + 1);
            b.append(n == 0 ? " (waiting in " : " <- ").append(cls).append('.').append(f.getMethodName())
                    .append(':').append(f.getLineNumber());
            if (++n == WAIT_FRAMES) {
                break;
            }
        }
        return n == 0 ? "" : b.append(')').toString();
    }
}
