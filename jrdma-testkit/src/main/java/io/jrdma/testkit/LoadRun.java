package io.jrdma.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.verbs.WcStatus;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * The load run of docs/reliability.md (section 4), shared by the transports: {@code connections} RC connections from a
 * {@link Fleet} to a {@link PeerMain} in a child JVM, each moving verified data for {@code run} (RDMA WRITE
 * of a fresh pattern, RDMA READ of it back compared byte for byte, SENDs whose CRC32C the peer checks),
 * then a graceful disconnect of all. Prints {@code LOAD ...} lines (throughput, memory, the device's
 * counters) for docs/reliability.md and {@code bin/jrdma-reliability}, and asserts zero corruption, zero lost
 * or duplicated completions (every WR completes once, all SUCCESS), every connection moving data, and
 * every SEND received intact by the peer.
 */
public final class LoadRun {
    private LoadRun() {
    }

    /**
     * Runs the load.
     *
     * @param label the name of the run in the {@code LOAD} lines
     * @param child the peer, started; it prints {@code PORT <n>} when it listens
     * @param f the fleet of this side
     * @param address the peer's address
     * @param connections how many connections
     * @param run how long the traffic runs
     * @param device a line of device figures printed after the run
     * @throws InterruptedException if interrupted
     */
    public static void run(String label, ChildJvm child, Fleet f, String address, int connections, Duration run,
            Supplier<String> device) throws InterruptedException {
        long heap0 = Hygiene.heapBytes();
        long direct0 = Hygiene.directBytes();
        int port = Integer.parseInt(child.expect("PORT", Duration.ofSeconds(30)).substring(5));
        long t0 = System.nanoTime();
        f.connect(new InetSocketAddress(address, port), connections, Duration.ofSeconds(120));
        long connectMs = (System.nanoTime() - t0) / 1_000_000;
        System.gc();
        long direct1 = Hygiene.directBytes();
        long heap1 = Hygiene.heapBytes();
        long t1 = System.nanoTime();
        f.run(run, () -> false);
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
                + "disconnectMs=%d peer=[%s]%n", label, connections, connectMs, secs, ops, ops / secs,
                moved / secs / (1 << 20), f.bytesVerified, f.bytesWritten, f.sendsOk, f.corrupt, f.duplicates,
                f.statuses, disc.toMillis(), stats);
        System.out.printf("LOAD %s memory heapBeforeMiB=%d heapConnectedMiB=%d directBeforeMiB=%d "
                + "directConnectedMiB=%d directPerConnectionKiB=%d directPeakMiB=%d%n", label, heap0 >> 20,
                heap1 >> 20, direct0 >> 20, direct1 >> 20, (direct1 - direct0) / connections >> 10,
                directPeak >> 20);
        System.out.printf("LOAD %s %s failedConnections=%s%n", label, device.get(), failed);
        assertThat(f.corrupt).as("READs that returned other bytes").isZero();
        assertThat(f.duplicates).as("WRs completed twice").isZero();
        assertThat(f.outstanding()).as("WRs never completed").isZero();
        assertThat(f.statuses).containsOnlyKeys(WcStatus.SUCCESS);
        assertThat(f.bytesVerified).as("every connection moved verified data").isPositive();
        for (Fleet.Conn c : f.conns()) {
            assertThat(c.completed).as("completions of connection " + c.index).isPositive();
        }
        assertThat(stats).contains("bad=0").contains("received=" + f.sendsOk + " ").contains("drained=true");
    }
}
