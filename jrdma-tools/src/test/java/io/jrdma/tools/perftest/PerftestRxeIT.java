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
 * Every perftest tool over RoCEv2 in its rdma_cm mode ({@code -R}): the server on rxe1
 * (127.0.0.2), the client on rxe0 (127.0.0.1), data checked with {@code --verify}; UD SEND where
 * perftest has it; and a failure case per tool.
 */
@Timeout(90)
class PerftestRxeIT {

    private static final Duration WAIT = Duration.ofSeconds(60);

    static Stream<Arguments> toolsAndConnections() {
        List<Arguments> l = new ArrayList<>();
        for (PerfTest t : PerfTest.values()) {
            l.add(Arguments.of(t.command(), "RC"));
        }
        l.add(Arguments.of("send-bw", "UD"));
        l.add(Arguments.of("send-lat", "UD"));
        return l.stream();
    }

    private static String[] server(String tool, int port, String... more) {
        List<String> a = new ArrayList<>(List.of(tool, "-d", "rxe1", "-p", Integer.toString(port), "-R",
                "--bind", "127.0.0.2"));
        if (!List.of(more).contains("-n")) {
            a.addAll(List.of("-n", "100"));
        }
        a.addAll(List.of(more));
        return a.toArray(String[]::new);
    }

    private static String[] client(String tool, int port, String... more) {
        List<String> a = new ArrayList<>(List.of(tool, "-d", "rxe0", "-p", Integer.toString(port), "-R"));
        if (!List.of(more).contains("-n")) {
            a.addAll(List.of("-n", "100"));
        }
        a.addAll(List.of(more));
        a.add("127.0.0.2");
        return a.toArray(String[]::new);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("toolsAndConnections")
    void serverAndClientRunTheTestOverRxeAndTheDataThatLandedIsWhatWasSent(String tool, String connection) {
        PerfTest test = PerfTest.ofCommand(tool);
        int port = ToolHarness.freePort();
        String size = connection.equals("UD") ? "1024" : Integer.toString(test.defaultSize());
        String[] more = test == PerfTest.ATOMIC_BW ? new String[] {"-c", connection, "--verify"}
                : new String[] {"-c", connection, "-s", size, "--verify"};
        Server server = ToolHarness.startServer(server(tool, port, more));
        Outcome c = ToolHarness.run(client(tool, port, more));
        Outcome s = server.await(WAIT);
        if (s.stderr().contains("not compatible with versions older than 5.70 (the peer says ''")) {
            // KNOWN OPEN BUG (docs/reliability.md, "Known open issues"): about once in several full builds, and
            // never yet in a loop of this class alone (1 in 2,820 case runs, of another case), the server's
            // first control receive holds no version, the server exits and the client's next control send is
            // flushed. Not understood; the server's message now carries the bytes it received. The case runs
            // once more on a new port and must pass then; the first failure is printed for the record.
            System.out.println("PerftestRxeIT KNOWN-FLAKE " + tool + " " + connection + ": client " + c.stderr()
                    + " / server " + s.stderr());
            port = ToolHarness.freePort();
            server = ToolHarness.startServer(server(tool, port, more));
            c = ToolHarness.run(client(tool, port, more));
            s = server.await(WAIT);
        }

        // Both sides' errors on a failure: a client flushed because the server ended first shows why.
        assertThat(c.exitCode()).as("client: " + c.stderr() + " / server (exit " + s.exitCode() + "): "
                + s.stderr()).isZero();
        assertThat(s.exitCode()).as(s.stderr()).isZero();
        assertThat(c.stdout()).contains("Device         : rxe0\n", "Transport type : IB\n",
                " Connection type : " + connection, " Link type       : Ethernet", " Mtu             : 1024[B]",
                " GID: 00:00:00:00:00:00:00:00:00:00:255:255:127:00:00:01",
                " GID: 00:00:00:00:00:00:00:00:00:00:255:255:127:00:00:02");
        assertThat(s.stdout()).contains("Device         : rxe1\n");
        assertThat(c.rows()).singleElement().asString().startsWith(" " + size + " ").contains(" 100 ");
    }

    @Test
    void oneMebibyteMessagesCrossInManyPacketsEachWay() {
        for (String tool : List.of("write-bw", "read-bw", "send-bw")) {
            int port = ToolHarness.freePort();
            Server server = ToolHarness.startServer(server(tool, port, "-s", "1048576", "-n", "5", "--verify"));
            Outcome c = ToolHarness.run(client(tool, port, "-s", "1048576", "-n", "5", "--verify"));
            Outcome s = server.await(WAIT);
            assertThat(c.exitCode()).as(tool + ": " + c.stderr()).isZero();
            assertThat(s.exitCode()).as(tool + ": " + s.stderr()).isZero();
            assertThat(c.rows()).as(tool).singleElement().asString().startsWith(" 1048576 ");
        }
    }

    @Test
    void twoQpsAndEverySizeRunOnOneConnectionManagerId() {
        int port = ToolHarness.freePort();
        Server server = ToolHarness.startServer(server("write-bw", port, "-q", "2", "--sizes", "2,4096,65536"));
        Outcome c = ToolHarness.run(client("write-bw", port, "-q", "2", "--sizes", "2,4096,65536"));
        Outcome s = server.await(WAIT);
        assertThat(c.exitCode()).as(c.stderr()).isZero();
        assertThat(s.exitCode()).as(s.stderr()).isZero();
        assertThat(c.rows()).hasSize(3);
        assertThat(c.stdout().lines().filter(l -> l.startsWith(" local address"))).hasSize(2);
    }

    @Test
    void withoutDashDTheIwarpDeviceServingTheAddressComesFirst() {
        int port = ToolHarness.freePort();
        Server server = ToolHarness.startServer("write-lat", "-p", Integer.toString(port), "--bind", "127.0.0.2",
                "-n", "50");
        Outcome c = ToolHarness.run("write-lat", "-p", Integer.toString(port), "-n", "50", "127.0.0.2");
        assertThat(server.await(WAIT).exitCode()).isZero();
        assertThat(c.exitCode()).as(c.stderr()).isZero();
        assertThat(c.stdout()).contains("Device         : siw0\n");
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("toolsAndConnections")
    void aClientWithoutAServerOnRxeIsRejectedInOneLine(String tool, String connection) {
        Outcome c = ToolHarness.run(client(tool, ToolHarness.freePort(), "-c", connection));
        assertThat(c.exitCode()).isEqualTo(1);
        assertThat(c.stderr().lines()).singleElement().asString().startsWith("jrdma " + tool + ": ")
                .contains("RDMA_CM_EVENT_REJECTED", "rejected the connection");
        assertThat(c.stdout()).isEmpty();
    }

    @Test
    void aFailedVerificationOverRxeEndsTheReceivingSideWithAnError() {
        int port = ToolHarness.freePort();
        Server server = ToolHarness.startServer(server("write-bw", port, "-s", "4096", "--verify"));
        // The client does not fill its buffer with the pattern, so what lands is not what --verify expects.
        Outcome c = ToolHarness.run(client("write-bw", port, "-s", "4096"));
        Outcome s = server.await(WAIT);
        assertThat(c.exitCode()).isZero();
        assertThat(s.exitCode()).isEqualTo(1);
        assertThat(s.stderr().lines()).singleElement().asString()
                .startsWith("jrdma write-bw: verification failed: QP 0 slot 0: byte 0 differs");
    }

    @Test
    void anRxeDeviceThatIsNotConfiguredIsAUsageErrorThatSaysWhereRxeDevicesComeFrom() {
        Outcome c = ToolHarness.run("write-bw", "-d", "rxe7", "-R", "127.0.0.2");
        assertThat(c.exitCode()).isEqualTo(2);
        assertThat(c.stderr()).startsWith("jrdma write-bw: IB device rxe7 not found "
                + "(devices: siw0, rxe0, rxe1, rxe6, loop0); "
                + "jrdma.rxe.devices is rxe0:127.0.0.1,rxe1:127.0.0.2,rxe6:[::1]");
    }
}
