package io.jrdma.bench;

import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.tools.perf.PerfReporter;
import io.jrdma.tools.perf.PerfResult;
import io.jrdma.tools.perftest.PerfClient;
import io.jrdma.tools.perftest.PerfRun;
import io.jrdma.tools.perftest.PerfServer;
import io.jrdma.tools.perftest.PerfSpec;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs one perftest-style test between a server and a client in this JVM, each on its own device
 * and address (jrdma-tools' {@code PerfEngine.runLocal} uses one loopback address for both; rxe
 * needs two devices, rxe0 on 127.0.0.1 and rxe1 on 127.0.0.2).
 */
final class PerfPair {
    /** How long the server may take after the client is done. */
    static final Duration SERVER_JOIN = Duration.ofSeconds(30);
    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());
    /** Heap bytes the finished server threads allocated (they are gone when the JVM's total is read). */
    private static final AtomicLong SERVER_ALLOCATED = new AtomicLong();

    private PerfPair() {
    }

    /**
     * Runs {@code spec} with the server on {@code transport}'s server device and address and the
     * client on its client device; returns the client's first result row.
     */
    static PerfResult run(Transport transport, PerfSpec spec) {
        PerfSpec serverSpec = spec.toBuilder().device(transport.serverDevice()).build();
        PerfSpec clientSpec = spec.toBuilder().device(transport.clientDevice()).build();
        try (PerfServer server = PerfServer.open(serverSpec, transport.serverAddress())) {
            CompletableFuture<PerfRun> served = new CompletableFuture<>();
            Thread t = Thread.ofPlatform().daemon().name("bench-" + spec.test().command() + "-server").start(() -> {
                try {
                    served.complete(server.serve(PerfReporter.none(), QUIET, false, spec.timeout()));
                } catch (RuntimeException e) {
                    served.completeExceptionally(e);
                } finally {
                    SERVER_ALLOCATED.addAndGet(((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                            .getCurrentThreadAllocatedBytes());
                }
            });
            InetSocketAddress at = new InetSocketAddress(transport.serverAddress().getAddress(), server.port());
            PerfRun client;
            try {
                client = PerfClient.run(clientSpec, at, transport.clientAddress(), PerfReporter.none(), QUIET, false);
            } catch (ToolFailure f) {
                server.close();
                join(t);
                throw f;
            }
            try {
                served.get(SERVER_JOIN.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                throw new ToolFailure("server: " + e.getCause().getMessage(), e.getCause());
            } catch (TimeoutException e) {
                throw new ToolFailure("the server did not finish within " + SERVER_JOIN.toSeconds() + " s", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ToolFailure("interrupted", e);
            }
            join(t); // its allocation is in SERVER_ALLOCATED once it is gone
            if (client.rows().isEmpty()) {
                throw new ToolFailure(spec.test().command() + " produced no result");
            }
            return client.rows().get(0);
        }
    }

    /**
     * Heap bytes allocated by every thread of this JVM so far: the live threads' total plus what the
     * server threads of finished runs allocated (the JVM's total forgets a thread once it ends).
     */
    static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getTotalThreadAllocatedBytes()
                + SERVER_ALLOCATED.get();
    }

    private static void join(Thread t) {
        try {
            t.join(SERVER_JOIN.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
