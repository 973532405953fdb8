package io.jrdma.tools.perftest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import io.jrdma.tools.ToolHarness;
import io.jrdma.tools.ToolHarness.Outcome;
import io.jrdma.tools.ToolHarness.Server;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every perftest tool run in-process through its command line, server and client, on every
 * transport jrdma has (loop0 and siw0 over 127.0.0.1), with the data checked ({@code --verify}),
 * and a failure case per tool.
 */
@Timeout(60)
class PerftestToolsIT {

    private static final Duration WAIT = Duration.ofSeconds(45);

    static Stream<Arguments> toolsOnDevices() {
        List<Arguments> l = new ArrayList<>();
        for (String dev : List.of("loop0", "siw0")) {
            for (PerfTest t : PerfTest.values()) {
                if (t == PerfTest.ATOMIC_BW && dev.equals("siw0")) {
                    continue; // iWARP has no atomics: see atomicsOnIwarpFailInOneLine
                }
                l.add(Arguments.of(t.command(), dev));
            }
        }
        return l.stream();
    }

    private static String[] args(String tool, String dev, int port, String... more) {
        List<String> a = new ArrayList<>(List.of(tool, "-d", dev, "-p", Integer.toString(port), "-R", "-n", "200"));
        a.addAll(List.of(more));
        return a.toArray(String[]::new);
    }

    private static String[] client(String[] serverArgs) {
        String[] c = new String[serverArgs.length + 1];
        System.arraycopy(serverArgs, 0, c, 0, serverArgs.length);
        c[serverArgs.length] = "127.0.0.1";
        return c;
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("toolsOnDevices")
    void serverAndClientRunTheTestAndTheDataThatLandedIsWhatWasSent(String tool, String dev) {
        PerfTest test = PerfTest.ofCommand(tool);
        String[] sa = args(tool, dev, ToolHarness.freePort(), "--bind", "127.0.0.1", "--verify");
        Server server = ToolHarness.startServer(sa);
        Outcome c = ToolHarness.run(client(sa));
        Outcome s = server.await(WAIT);

        assertThat(c.exitCode()).as(c.stderr()).isZero();
        assertThat(s.exitCode()).as(s.stderr()).isZero();
        assertThat(c.stdout()).contains("Device         : " + dev + "\n", " rdma_cm QPs\t : ON",
                "Data ex. method : rdma_cm",
                " local address: LID 0000 QPN 0x", " remote address: LID 0000 QPN 0x");
        assertThat(s.stdout()).contains("* Waiting for client to connect... *",
                " Waiting for client rdma_cm QP to connect");
        assertThat(c.rows()).hasSize(1);
        assertThat(c.rows().get(0)).startsWith(" " + test.defaultSize() + " ").contains(" 200 ");
        switch (test) {
            // The server prints the client's report, exchanged over the control connection.
            case WRITE_BW, READ_BW, ATOMIC_BW -> assertThat(s.rows()).containsExactlyElementsOf(c.rows());
            // The SEND server measures its receives; perftest prints no peak there.
            case SEND_BW -> assertThat(s.rows()).singleElement().asString().contains(" 0.00 ");
            case READ_LAT -> assertThat(s.rows()).isEmpty();
            default -> assertThat(s.rows()).hasSize(1);
        }
        // Each side printed the other's QPN as its remote address.
        assertThat(qpns(c.stdout(), "remote")).isEqualTo(qpns(s.stdout(), "local"));
        assertThat(qpns(s.stdout(), "remote")).isEqualTo(qpns(c.stdout(), "local"));
    }

    private static List<String> qpns(String out, String side) {
        return out.lines().filter(l -> l.startsWith(" " + side + " address:"))
                .map(l -> l.replaceAll(".*QPN (0x[0-9a-f]+).*", "$1")).toList();
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("toolsOnDevices")
    void aClientWithoutAServerFailsInOneLine(String tool, String dev) {
        Outcome c = ToolHarness.run(client(args(tool, dev, ToolHarness.freePort())));
        assertThat(c.exitCode()).isEqualTo(1);
        assertThat(c.stderr().lines()).singleElement().asString()
                .startsWith("jrdma " + tool + ": ").containsAnyOf("rejected the connection", "refused the connection");
        assertThat(c.stdout()).isEmpty();
    }

    @Test
    void manyQpsSizesAndGbitsOnLoopReportEverySize() {
        String[] sa = args("write-bw", "loop0", ToolHarness.freePort(), "--bind", "127.0.0.1", "-q", "3",
                "--sizes", "64,4096,65536", "--report_gbits");
        Server server = ToolHarness.startServer(sa);
        Outcome c = ToolHarness.run(client(sa));
        Outcome s = server.await(WAIT);
        assertThat(c.exitCode()).as(c.stderr()).isZero();
        assertThat(s.exitCode()).as(s.stderr()).isZero();
        assertThat(c.stdout()).contains("BW peak[Gb/sec]", " Number of qps   : 3");
        assertThat(c.rows()).hasSize(3);
        assertThat(c.rows().get(2)).startsWith(" 65536 ").contains(" 600 ");
        assertThat(c.stdout().lines().filter(l -> l.startsWith(" local address"))).hasSize(3);
    }

    @Test
    void withoutDashDTheConnectionManagerPicksTheIwarpDeviceFor127001() {
        int port = ToolHarness.freePort();
        Server server = ToolHarness.startServer("write-lat", "-p", Integer.toString(port), "--bind", "127.0.0.1",
                "-n", "100");
        Outcome c = ToolHarness.run("write-lat", "-p", Integer.toString(port), "-n", "100", "127.0.0.1");
        assertThat(server.await(WAIT).exitCode()).isZero();
        assertThat(c.exitCode()).as(c.stderr()).isZero();
        assertThat(c.stdout()).contains("Device         : siw0\n", "Transport type : IW\n");
    }

    @Test
    void eventsModeMtuAndGidIndexAreHonoured() {
        for (String tool : List.of("send-lat", "write-bw")) {
            String[] sa = args(tool, "loop0", ToolHarness.freePort(), "--bind", "127.0.0.1", "-e", "-m", "1024",
                    "-x", "0", "--verify");
            Server server = ToolHarness.startServer(sa);
            Outcome c = ToolHarness.run(client(sa));
            assertThat(server.await(WAIT).exitCode()).isZero();
            assertThat(c.exitCode()).as(c.stderr()).isZero();
            assertThat(c.stdout()).contains(" Test with events.", " Mtu             : 1024[B]", " GID index       : 0",
                    " GID: ");
        }
    }

    @Test
    void udSendTestsRunOverTheUdpPortSpaceOnLoop() {
        for (String tool : List.of("send-bw", "send-lat")) {
            String[] sa = args(tool, "loop0", ToolHarness.freePort(), "--bind", "127.0.0.1", "-c", "UD", "-s", "2048",
                    "--verify");
            Server server = ToolHarness.startServer(sa);
            Outcome c = ToolHarness.run(client(sa));
            Outcome s = server.await(WAIT);
            assertThat(c.exitCode()).as(c.stderr()).isZero();
            assertThat(s.exitCode()).as(s.stderr()).isZero();
            assertThat(c.stdout()).contains(" Connection type : UD");
            assertThat(c.rows()).singleElement().asString().startsWith(" 2048 ");
        }
    }

    @Test
    void durationRunsReportTheSampleWindow() {
        String[] sa = args("write-bw", "siw0", ToolHarness.freePort(), "--bind", "127.0.0.1", "-D", "2", "-f", "0",
                "-s", "4096");
        Server server = ToolHarness.startServer(sa);
        Outcome c = ToolHarness.run(client(sa));
        assertThat(server.await(WAIT).exitCode()).isZero();
        assertThat(c.exitCode()).as(c.stderr()).isZero();
        assertThat(c.rows()).singleElement().asString().startsWith(" 4096 ").contains(" 0.00 ");
    }

    @Test
    void aDurationRunEndsWithoutWaitingForTheUnsignaledTailOfEachQp() {
        // CQ moderation signals every 100th WR of a QP; at the end of -D the last group of each QP
        // completes nothing, and waiting for it used to cost the whole stall timeout (10 s).
        String[] sa = args("write-bw", "loop0", ToolHarness.freePort(), "--bind", "127.0.0.1", "-D", "2", "-f", "0",
                "-s", "64", "-q", "4");
        Server server = ToolHarness.startServer(sa);
        long t0 = System.nanoTime();
        Outcome c = ToolHarness.run(client(sa));
        long seconds = (System.nanoTime() - t0) / 1_000_000_000L;
        assertThat(server.await(WAIT).exitCode()).isZero();
        assertThat(c.exitCode()).as(c.stderr()).isZero();
        assertThat(seconds).as("seconds for a 2 s run").isLessThan(7);
    }

    @Test
    void jsonPrintsOneObjectPerRowAndNoTable() {
        int port = ToolHarness.freePort();
        Server server = ToolHarness.startServer(args("send-lat", "siw0", port, "--bind", "127.0.0.1"));
        Outcome c = ToolHarness.run(client(args("send-lat", "siw0", port, "--json")));
        assertThat(server.await(WAIT).exitCode()).isZero();
        assertThat(c.exitCode()).as(c.stderr()).isZero();
        assertThat(c.stdout().lines()).singleElement().asString()
                .startsWith("{\"tool\":\"send-lat\",\"role\":\"client\"").contains("\"t_typical_usec\":")
                .contains("\"iterations\":200").endsWith("}");
    }

    @Test
    void aFailedVerificationEndsTheReceivingSideWithAnError() {
        int port = ToolHarness.freePort();
        Server server = ToolHarness.startServer(args("write-bw", "siw0", port, "--bind", "127.0.0.1", "-s", "4096",
                "--verify"));
        // The client does not fill its buffer with the pattern, so what lands is not what --verify expects.
        Outcome c = ToolHarness.run(client(args("write-bw", "siw0", port, "-s", "4096")));
        Outcome s = server.await(WAIT);
        assertThat(c.exitCode()).isZero();
        assertThat(s.exitCode()).isEqualTo(1);
        assertThat(s.stderr().lines()).singleElement().asString()
                .startsWith("jrdma write-bw: verification failed: QP 0 slot 0: byte 0 differs");
    }

    @Test
    void atomicsOnIwarpFailInOneLine() {
        int port = ToolHarness.freePort();
        Server server = ToolHarness.startServer(args("atomic-bw", "siw0", port, "--bind", "127.0.0.1"));
        Outcome c = ToolHarness.run(client(args("atomic-bw", "siw0", port)));
        server.await(WAIT);
        assertThat(c.exitCode()).isEqualTo(1);
        assertThat(c.stderr()).isEqualTo(
                "jrdma atomic-bw: siw0 does not support atomics (atomic_cap ATOMIC_NONE; iWARP has none)\n");
    }

    @Test
    void twoJrdmaSidesWarmUpUntimedBeforeEachSizeUnlessToldNot() {
        for (String tool : List.of("write-lat", "read-lat", "write-bw", "read-bw", "send-lat")) {
            String[] sa = args(tool, "siw0", ToolHarness.freePort(), "--bind", "127.0.0.1", "--warmup", "300",
                    "--verify");
            Server server = ToolHarness.startServer(sa);
            Outcome c = ToolHarness.run(client(sa));
            Outcome s = server.await(WAIT);
            assertThat(c.exitCode()).as(c.stderr()).isZero();
            assertThat(s.exitCode()).as(s.stderr()).isZero();
            // The measured row counts only the measured iterations; the data check covers both runs' slots.
            assertThat(c.rows()).as(tool).singleElement().asString().contains(" 200 ");
            if (tool.equals("send-lat")) {
                assertThat(c.stderr()).as("SEND tests need the receiver's receives to match: none").doesNotContain(
                        "warm-up");
            } else {
                assertThat(c.stderr()).as(tool).contains("the peer is jrdma: each size runs untimed warm-up"
                        + " iterations first (" + (tool.equals("write-lat") ? 512 : 300) + " at ");
            }
        }
        // The warm-up's round trips are on the wire: 512 more WRITEs each way than with none.
        long warm = writeLatFpdus("512");
        long cold = writeLatFpdus("0");
        assertThat(warm - cold).as("FPDUs of write-lat with 512 warm-up round trips beyond none")
                .isGreaterThanOrEqualTo(2 * 512);
        Outcome bad = ToolHarness.run("write-lat", "--warmup", "-5", "127.0.0.1");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.stderr()).contains("--warmup must be between 0 and 100000000 (got -5)");
    }

    /** FPDUs siw0 sent during one write-lat run of 200 round trips with {@code --warmup warmup}. */
    private static long writeLatFpdus(String warmup) {
        long before = siw0Fpdus();
        String[] sa = args("write-lat", "siw0", ToolHarness.freePort(), "--bind", "127.0.0.1", "--warmup", warmup);
        Server server = ToolHarness.startServer(sa);
        Outcome c = ToolHarness.run(client(sa));
        assertThat(server.await(WAIT).exitCode()).isZero();
        assertThat(c.exitCode()).as(c.stderr()).isZero();
        assertThat(c.stderr().contains("warm-up")).as("warm-up line with --warmup " + warmup)
                .isEqualTo(!warmup.equals("0"));
        return siw0Fpdus() - before;
    }

    private static long siw0Fpdus() {
        try (io.jrdma.verbs.Context ctx = io.jrdma.verbs.Rdma.device("siw0").open()) {
            return ctx.queryCounters().get(io.jrdma.verbs.Counter.FPDUS_SENT);
        }
    }

    @Test
    void badFlagsAreOneLineUsageErrors() {
        Outcome bad = ToolHarness.run("write-bw", "-n", "3", "127.0.0.1");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.stderr()).isEqualTo("jrdma write-bw: Iteration num must be between 5 and 100000000, not 3 "
                + "(see 'jrdma write-bw --help')\n");
        assertThat(ToolHarness.run("atomic-bw", "-s", "64").exitCode()).isEqualTo(2);
        assertThat(ToolHarness.run("send-bw", "-c", "UC").stderr()).contains("RC or UD");
        assertThat(ToolHarness.run("read-lat", "-a", "--verify").stderr()).contains("--verify checks one size");
        Outcome noDev = ToolHarness.run("write-lat", "-d", "mlx5_0", "127.0.0.1");
        assertThat(noDev.exitCode()).isEqualTo(2);
        assertThat(noDev.stderr()).startsWith("jrdma write-lat: IB device mlx5_0 not found (devices: ");
    }
}
