package io.jrdma.tools;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.jrdma.tools.cli.ToolContext;
import io.jrdma.tools.perf.PerftestFormat;

/**
 * Runs jrdma command lines in-process for tests: a client in the test thread, a server on its own
 * thread, each with captured stdout/stderr.
 */
public final class ToolHarness {

    /** Ports given to this module's tests (17300-17399). */
    public static final int FIRST_PORT = 17300;

    /** Last port of the range. */
    public static final int LAST_PORT = 17399;

    private ToolHarness() {
    }

    /**
     * A port of the test range that is free for TCP and UDP on 127.0.0.1 right now.
     *
     * @return the port
     */
    public static int freePort() {
        int span = LAST_PORT - FIRST_PORT + 1;
        int start = ThreadLocalRandom.current().nextInt(span);
        for (int i = 0; i < span; i++) {
            int port = FIRST_PORT + (start + i) % span;
            InetSocketAddress a = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
            try (ServerSocket s = new ServerSocket()) {
                s.bind(a);
                new DatagramSocket(a).close();
                return port;
            } catch (IOException e) {
                // taken; try the next one
            }
        }
        throw new IllegalStateException("no free port in " + FIRST_PORT + ".." + LAST_PORT);
    }

    /**
     * Runs a command line to completion.
     *
     * @param args the command line
     * @return the outcome
     */
    public static Outcome run(String... args) {
        ToolContext ctx = ToolContext.captured();
        int rc = Jrdma.run(ctx, args);
        return new Outcome(rc, ctx.stdout(), ctx.stderr());
    }

    /**
     * Starts a server command line on a thread and waits until it listens.
     *
     * @param args the command line (no host argument)
     * @return the running server
     */
    public static Server startServer(String... args) {
        return startServerAwaiting("Waiting for client to connect", args);
    }

    /**
     * Starts a server command line on a thread and waits until its stdout shows {@code ready}.
     *
     * @param ready text the server prints once it listens
     * @param args the command line
     * @return the running server
     */
    public static Server startServerAwaiting(String ready, String... args) {
        ToolContext ctx = ToolContext.captured();
        CompletableFuture<Integer> rc = new CompletableFuture<>();
        Thread t = Thread.ofPlatform().daemon().name("test-server").start(() -> rc.complete(Jrdma.run(ctx, args)));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!ctx.stdout().contains(ready) && !rc.isDone()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("server did not start: " + ctx.stderr());
            }
            Thread.onSpinWait();
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        return new Server(ctx, rc, t);
    }

    /**
     * What a finished command printed and returned.
     *
     * @param exitCode the exit code
     * @param stdout what it printed on stdout
     * @param stderr what it printed on stderr
     */
    public record Outcome(int exitCode, String stdout, String stderr) {

        /**
         * The result rows of a perftest-style table: the lines between the column header and the
         * closing rule.
         *
         * @return the rows
         */
        public List<String> rows() {
            List<String> lines = stdout.lines().toList();
            List<String> rows = new ArrayList<>();
            boolean in = false;
            for (String l : lines) {
                if (l.startsWith(" #bytes")) {
                    in = true;
                } else if (in && l.equals(PerftestFormat.RESULT_LINE)) {
                    in = false;
                } else if (in) {
                    rows.add(l);
                }
            }
            return rows;
        }
    }

    /**
     * A server command running on its own thread.
     *
     * @param context its captured output
     * @param exitCode completes with its exit code
     * @param thread the thread
     */
    public record Server(ToolContext context, CompletableFuture<Integer> exitCode, Thread thread) {

        /**
         * Waits for the server to finish.
         *
         * @param timeout the longest wait
         * @return the outcome
         * @throws AssertionError if it does not finish in time
         */
        public Outcome await(Duration timeout) {
            try {
                int rc = exitCode.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                return new Outcome(rc, context.stdout(), context.stderr());
            } catch (TimeoutException e) {
                throw new AssertionError("server still running after " + timeout + "; stderr: " + context.stderr());
            } catch (ExecutionException e) {
                throw new AssertionError(e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }
}
