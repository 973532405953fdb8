package io.jrdma.tools.stats;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.tools.ToolHarness;
import io.jrdma.tools.ToolHarness.Outcome;
import io.jrdma.tools.ToolHarness.Server;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.UnicastRemoteObject;
import java.time.Duration;
import java.util.List;
import javax.management.remote.JMXConnectorServer;
import javax.management.remote.JMXConnectorServerFactory;
import javax.management.remote.JMXServiceURL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code jrdma stats} and the {@code --stats} option every tool takes: the device lines in the layout
 * of {@code rdma statistic show link}, JSON, counter descriptions, a bad device name, reading over JMX,
 * and the counters of an rping run printed at its end (the devices' changes and each QP's counters).
 */
@Timeout(60)
class StatsIT {
    /** Ports of this test (the obs-docs range). */
    private static final int FIRST_PORT = 17700;
    private static final int LAST_PORT = 17799;

    private static int freePort() {
        for (int p = FIRST_PORT; p <= LAST_PORT; p++) {
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), p));
                return p;
            } catch (IOException e) {
                // taken
            }
        }
        throw new IllegalStateException("no free port in " + FIRST_PORT + ".." + LAST_PORT);
    }

    @Test
    void statsPrintsOneRdmaStatisticLinePerDevice() {
        Outcome o = ToolHarness.run("stats", "loop0");
        assertThat(o.exitCode()).as(o.stderr()).isZero();
        assertThat(o.stdout().lines().toList()).hasSize(1);
        assertThat(o.stdout()).startsWith("link loop0/1 sent_pkts ").contains(" rcvd_pkts ", " rcvd_rnr_err ",
                " rdma_sends ", " cm_tx_mads ");
        Outcome all = ToolHarness.run("stats");
        assertThat(all.stdout().lines().map(l -> l.split(" ")[1]).toList()).contains("loop0/1", "siw0/1");
    }

    @Test
    void statsWritesJsonAndDescribesTheCounters() {
        Outcome j = ToolHarness.run("stats", "--json", "siw0");
        assertThat(j.exitCode()).isZero();
        assertThat(j.stdout().strip()).startsWith("{\"device\":\"siw0\",").contains("\"fpdus_sent\":",
                "\"crc_errors\":").endsWith("}");
        Outcome d = ToolHarness.run("stats", "--describe");
        assertThat(d.stdout()).contains("retry_rnr_exceeded_err", "RNR retries exhausted", "terminate_sent");
    }

    @Test
    void anUnknownDeviceIsABadCommandLine() {
        Outcome o = ToolHarness.run("stats", "nosuch0");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.stderr()).contains("no RDMA device named 'nosuch0'");
    }

    @Test
    void statsReadsAnotherJvmsCountersOverJmx() throws Exception {
        int port = freePort();
        Registry registry = LocateRegistry.createRegistry(port);
        JMXConnectorServer server = JMXConnectorServerFactory.newJMXConnectorServer(
                new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port + "/jmxrmi"), null,
                ManagementFactory.getPlatformMBeanServer());
        server.start();
        try {
            ToolHarness.run("stats", "loop0"); // makes sure the devices (and their MBeans) exist
            Outcome o = ToolHarness.run("stats", "--jmx", "127.0.0.1:" + port, "--qp", "loop0");
            assertThat(o.exitCode()).as(o.stderr()).isZero();
            assertThat(o.stdout()).startsWith("link loop0/1 sent_pkts ");
            Outcome bad = ToolHarness.run("stats", "--jmx", "127.0.0.1:" + port, "nosuch0");
            assertThat(bad.exitCode()).isEqualTo(2);
        } finally {
            server.stop();
            UnicastRemoteObject.unexportObject(registry, true);
        }
    }

    @Test
    void everyToolPrintsTheCountersOfItsRunWithStats() {
        String port = Integer.toString(freePort());
        Server server = ToolHarness.startServerAwaiting("rdma_listen", "rping", "-s", "-d", "-a", "127.0.0.1", "-p",
                port, "--device", "loop0", "-S", "100");
        Outcome c = ToolHarness.run("rping", "--stats", "-c", "-a", "127.0.0.1", "-p", port, "-C", "5", "-S", "100",
                "--device", "loop0");
        Outcome s = server.await(Duration.ofSeconds(30));
        assertThat(s.exitCode()).as(s.stdout() + s.stderr() + c.stdout() + c.stderr()).isZero();
        assertThat(c.exitCode()).as(c.stderr()).isZero();
        List<String> lines = c.stdout().lines().toList();
        int at = lines.indexOf("--- jrdma --stats: counters of this run ---");
        assertThat(at).as(c.stdout()).isNotNegative();
        String link = lines.get(at + 1);
        assertThat(link).startsWith("link loop0/1 sent_pkts ");
        long sent = Long.parseLong(link.split(" ")[3]);
        // rping: per round a SEND, an RDMA READ, a SEND and an RDMA WRITE, a SEND; each with its response
        assertThat(sent).as(link).isGreaterThanOrEqualTo(5 * 5);
        assertThat(lines.subList(at + 2, lines.size())).as("the QPs of the run").anyMatch(l -> l.startsWith(
                "qp loop0/1 lqpn "));
        Outcome plain = ToolHarness.run("devices", "--stats");
        assertThat(plain.stdout()).contains("--- jrdma --stats: counters of this run ---");
        Outcome json = ToolHarness.run("devices", "--json", "--stats");
        assertThat(json.stdout()).doesNotContain("--- jrdma --stats");
        assertThat(json.stderr()).contains("--- jrdma --stats");
    }
}
