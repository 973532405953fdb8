package io.jrdma.siw.fault;

import io.jrdma.siw.LinkTimeouts;
import io.jrdma.testkit.ChildJvm;
import io.jrdma.testkit.Fleet;
import io.jrdma.testkit.Hygiene;
import io.jrdma.testkit.LoadRun;
import io.jrdma.testkit.Netns;
import io.jrdma.testkit.PeerMain;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Load (issue 6, item 4): {@value #DEFAULT_CONNECTIONS} concurrent RC connections between this JVM and a
 * {@link PeerMain} in a child JVM, on loopback and across two network namespaces (veth), each moving
 * verified data for a bounded time: RDMA WRITE of a fresh pattern, RDMA READ of it back compared byte for
 * byte, and SENDs whose CRC32C the peer checks. Asserts zero corruption, zero lost or duplicated
 * completions (every WR id completes once, all SUCCESS), every SEND received and intact, every connection
 * DISCONNECTED at the end, nothing leaked; prints throughput and memory (heap, and direct memory from
 * {@code BufferPoolMXBean}) as {@code LOAD ...} lines for docs/reliability.md.
 *
 * <p>System properties: {@code jrdma.load.connections} (default {@value #DEFAULT_CONNECTIONS}),
 * {@code jrdma.load.seconds} (default {@value #DEFAULT_SECONDS}; the soak run uses minutes),
 * {@code jrdma.load.bytes} (bytes per WRITE and READ, default {@value #DEFAULT_BYTES}).
 */
class LoadIT {
    static final int DEFAULT_CONNECTIONS = 1000;
    static final int DEFAULT_SECONDS = 5;
    static final int DEFAULT_BYTES = 4096;
    private static final int CONNECTIONS = Integer.getInteger("jrdma.load.connections", DEFAULT_CONNECTIONS);
    private static final Duration RUN = Duration.ofSeconds(Long.getLong("jrdma.load.seconds", DEFAULT_SECONDS));
    private static final int BYTES = Integer.getInteger("jrdma.load.bytes", DEFAULT_BYTES);
    private static final int WINDOW = 2;
    private static final LinkTimeouts TIMEOUTS = LinkTimeouts.fromSystemProperties();

    @RegisterExtension
    final Hygiene hygiene = new Hygiene();

    private static ChildJvm peer(String netns, String address) {
        return ChildJvm.start(netns, List.of("-Djrdma.siw.addresses=" + address, "-Xmx2g",
                "-Djrdma.siw.stallTimeoutMs=" + TIMEOUTS.stall().toMillis()), PeerMain.class,
                address, Integer.toString(WINDOW * BYTES), "128", Integer.toString(Fleet.SEND_BYTES));
    }

    private static void load(String label, String netns, String address) throws Exception {
        try (ChildJvm child = peer(netns, address); Fleet f = new Fleet("siw0", BYTES, WINDOW)) {
            LoadRun.run(label, child, f, address, CONNECTIONS, RUN, () -> {
                io.jrdma.siw.SiwCounters sc = ((io.jrdma.siw.SiwDevice) ((io.jrdma.internal.verbs.DeviceImpl)
                        io.jrdma.verbs.Rdma.device("siw0")).providerDevice()).counters();
                return String.format("stallMs=%d siw0 terminatesSent=%d terminatesReceived=%d crcErrors=%d"
                        + " linkTimeouts=%d", TIMEOUTS.stall().toMillis(), sc.terminatesSent(),
                        sc.terminatesReceived(), sc.crcErrors(), sc.linkTimeouts());
            });
        }
    }

    @Test
    void aThousandConnectionsOnLoopbackMoveVerifiedDataWithoutLossOrCorruption() throws Exception {
        load("loopback", null, "127.0.0.1");
    }

    @Test
    void aThousandConnectionsAcrossTwoNetworkNamespacesMoveVerifiedDataWithoutLossOrCorruption() throws Exception {
        Netns.assume();
        try (Netns ns = Netns.create("l1")) {
            load("netns", ns.name(), Netns.PEER);
        }
    }
}
