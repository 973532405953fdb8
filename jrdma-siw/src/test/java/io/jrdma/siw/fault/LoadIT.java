package io.jrdma.siw.fault;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.siw.LinkTimeouts;
import io.jrdma.testkit.ChildJvm;
import io.jrdma.testkit.Fleet;
import io.jrdma.testkit.Hygiene;
import io.jrdma.testkit.Netns;
import io.jrdma.testkit.PeerMain;
import io.jrdma.verbs.WcStatus;
import java.net.InetSocketAddress;
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
 * {@code BufferPoolMXBean}) as {@code LOAD ...} lines for RELIABILITY.md.
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
        long heap0 = Hygiene.heapBytes();
        long direct0 = Hygiene.directBytes();
        try (ChildJvm child = peer(netns, address); Fleet f = new Fleet("siw0", BYTES, WINDOW)) {
            int port = Integer.parseInt(child.expect("PORT", Duration.ofSeconds(30)).substring(5));
            long t0 = System.nanoTime();
            f.connect(new InetSocketAddress(address, port), CONNECTIONS, Duration.ofSeconds(120));
            long connectMs = (System.nanoTime() - t0) / 1_000_000;
            System.gc();
            long direct1 = Hygiene.directBytes();
            long heap1 = Hygiene.heapBytes();
            long t1 = System.nanoTime();
            f.run(RUN, () -> false);
            f.drain(Duration.ofSeconds(60));
            double secs = (System.nanoTime() - t1) / 1e9;
            long directPeak = Hygiene.directBytes();
            List<String> failed = f.failed();
            Duration disc = f.disconnectAll(Duration.ofSeconds(60));
            child.command("stats");
            String stats = child.expect("STATS", Duration.ofSeconds(10));
            long ops = f.posted();
            long moved = f.bytesWritten + f.bytesVerified + f.sendsOk * Fleet.SEND_BYTES;
            System.out.printf("LOAD %s connections=%d connectMs=%d seconds=%.1f wrs=%d wrsPerSec=%.0f "
                    + "MiBPerSec=%.1f verifiedBytes=%d written=%d sends=%d corrupt=%d duplicates=%d statuses=%s "
                    + "disconnectMs=%d peer=[%s]%n", label, CONNECTIONS, connectMs, secs, ops, ops / secs,
                    moved / secs / (1 << 20), f.bytesVerified, f.bytesWritten, f.sendsOk, f.corrupt, f.duplicates,
                    f.statuses, disc.toMillis(), stats);
            System.out.printf("LOAD %s memory heapBeforeMiB=%d heapConnectedMiB=%d directBeforeMiB=%d "
                    + "directConnectedMiB=%d directPerConnectionKiB=%d directPeakMiB=%d%n", label, heap0 >> 20,
                    heap1 >> 20, direct0 >> 20, direct1 >> 20, (direct1 - direct0) / CONNECTIONS >> 10,
                    directPeak >> 20);
            io.jrdma.siw.SiwCounters sc = ((io.jrdma.siw.SiwDevice) ((io.jrdma.internal.verbs.DeviceImpl)
                    io.jrdma.verbs.Rdma.device("siw0")).providerDevice()).counters();
            System.out.printf("LOAD %s stallMs=%d siw0 terminatesSent=%d terminatesReceived=%d crcErrors=%d"
                    + " linkTimeouts=%d failedConnections=%s%n", label, TIMEOUTS.stall().toMillis(),
                    sc.terminatesSent(), sc.terminatesReceived(), sc.crcErrors(), sc.linkTimeouts(), failed);
            assertThat(f.corrupt).as("READs that returned other bytes").isZero();
            assertThat(f.duplicates).as("WRs completed twice").isZero();
            assertThat(f.outstanding()).as("WRs never completed").isZero();
            assertThat(f.statuses).containsOnlyKeys(WcStatus.SUCCESS);
            assertThat(f.bytesVerified).as("every connection moved verified data").isPositive();
            for (Fleet.Conn c : f.conns()) {
                assertThat(c.completed).as("completions of connection " + c.index).isPositive();
            }
            assertThat(stats).contains("bad=0").contains("received=" + f.sendsOk + " ");
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
