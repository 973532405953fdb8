package io.jrdma.tools.rping;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import io.jrdma.tools.ToolHarness;
import io.jrdma.tools.ToolHarness.Outcome;
import io.jrdma.tools.ToolHarness.Server;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code jrdma rping} in-process on each transport, and its failure cases. */
@Timeout(60)
class RpingIT {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @ParameterizedTest
    @ValueSource(strings = {"loop0", "siw0"})
    void theClientGetsBackWhatItSentAndBothSidesPrintRpingsLines(String dev) {
        String port = Integer.toString(ToolHarness.freePort());
        // -d makes the server print "rdma_listen" once it listens.
        Server server = ToolHarness.startServerAwaiting("rdma_listen", "rping", "-s", "-v", "-d", "-a", "127.0.0.1",
                "-p", port, "--device", dev);
        Outcome c = ToolHarness.run("rping", "-c", "-vV", "-a", "127.0.0.1", "-p", port, "-C", "3", "-S", "40",
                "--device", dev);
        Outcome s = server.await(WAIT);

        assertThat(c.exitCode()).as(c.stderr()).isZero();
        assertThat(s.exitCode()).as(s.stderr()).isZero();
        // 40 bytes: "rdma-ping-N: " (13), 26 rotating characters, the NUL.
        assertThat(c.stdout().lines()).containsExactly(
                "ping data: rdma-ping-0: ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                "ping data: rdma-ping-1: BCDEFGHIJKLMNOPQRSTUVWXYZ[",
                "ping data: rdma-ping-2: CDEFGHIJKLMNOPQRSTUVWXYZ[\\");
        assertThat(s.stdout().lines().filter(l -> l.startsWith("server ping data: "))).containsExactly(
                "server ping data: rdma-ping-0: ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                "server ping data: rdma-ping-1: BCDEFGHIJKLMNOPQRSTUVWXYZ[",
                "server ping data: rdma-ping-2: CDEFGHIJKLMNOPQRSTUVWXYZ[\\");
        assertThat(s.stderr().lines()).containsExactly("server DISCONNECT EVENT...", "wait for RDMA_READ_ADV state 10");
        assertThat(s.stdout()).contains("cma_event type RDMA_CM_EVENT_CONNECT_REQUEST", "Received rkey ");
    }

    @Test
    void theRotatingTextWrapsAfterLowercaseZAsRpingsDoes() {
        String port = Integer.toString(ToolHarness.freePort());
        Server server = ToolHarness.startServerAwaiting("rdma_listen", "rping", "-s", "-d", "-a", "127.0.0.1", "-p",
                port, "--device", "loop0", "-S", "200");
        Outcome c = ToolHarness.run("rping", "-c", "-v", "-V", "-a", "127.0.0.1", "-p", port, "-C", "60", "-S", "100",
                "--device", "loop0");
        assertThat(server.await(WAIT).exitCode()).isZero();
        assertThat(c.exitCode()).as(c.stderr()).isZero();
        List<String> lines = c.stdout().lines().toList();
        assertThat(lines).hasSize(60);
        assertThat(lines.get(57)).startsWith("ping data: rdma-ping-57: z").contains("zABC");
        assertThat(lines.get(58)).startsWith("ping data: rdma-ping-58: ABC");
        assertThat(lines.get(59).length()).isEqualTo("ping data: ".length() + 99);
    }

    @Test
    void aPersistentServerServesOneClientAfterAnotherFromItsSourceAddress() {
        String port = Integer.toString(ToolHarness.freePort());
        Server server = ToolHarness.startServerAwaiting("rdma_listen", "rping", "-s", "-P", "-v", "-d", "-a",
                "127.0.0.1", "-p", port, "--device", "siw0", "--accept-timeout", "2");
        for (int i = 0; i < 2; i++) {
            Outcome c = ToolHarness.run("rping", "-c", "-V", "-a", "127.0.0.1", "-I", "127.0.0.1", "-p", port, "-C",
                    "2", "--device", "siw0");
            assertThat(c.exitCode()).as(c.stderr()).isZero();
        }
        Outcome s = server.await(WAIT);
        assertThat(s.exitCode()).as(s.stderr()).isZero();
        assertThat(s.stdout().lines().filter(l -> l.startsWith("server ping data: rdma-ping-1: "))).hasSize(2);
        assertThat(s.stderr().lines().filter(l -> l.equals("server DISCONNECT EVENT..."))).hasSize(2);
    }

    @ParameterizedTest
    @ValueSource(strings = {"loop0", "siw0"})
    void aClientWithoutAServerFailsInOneLine(String dev) {
        Outcome c = ToolHarness.run("rping", "-c", "-a", "127.0.0.1", "-p", Integer.toString(ToolHarness.freePort()),
                "-C", "1", "--device", dev);
        assertThat(c.exitCode()).isEqualTo(1);
        assertThat(c.stderr().lines()).singleElement().asString().startsWith("jrdma rping: ")
                .containsAnyOf("RDMA_CM_EVENT_REJECTED", "refused the connection");
    }

    @Test
    void aServerBufferSmallerThanTheClientsIsAClearError() {
        String port = Integer.toString(ToolHarness.freePort());
        Server server = ToolHarness.startServerAwaiting("rdma_listen", "rping", "-s", "-d", "-a", "127.0.0.1", "-p",
                port, "--device", "loop0", "-S", "30");
        Outcome c = ToolHarness.run("rping", "-c", "-a", "127.0.0.1", "-p", port, "-C", "1", "-S", "64", "--device",
                "loop0", "--timeout", "2");
        Outcome s = server.await(WAIT);
        assertThat(s.exitCode()).isEqualTo(1);
        assertThat(s.stderr()).contains("the client advertised 64 bytes, more than this server's buffer of 30 (-S)");
        assertThat(c.exitCode()).isEqualTo(1);
    }

    @Test
    void badFlagsAreOneLineUsageErrors() {
        Outcome size = ToolHarness.run("rping", "-c", "-a", "127.0.0.1", "-S", "10");
        assertThat(size.exitCode()).isEqualTo(2);
        assertThat(size.stderr()).isEqualTo("jrdma rping: Invalid size 10 (valid range is 26 to 65536) "
                + "(see 'jrdma rping --help')\n");
        assertThat(ToolHarness.run("rping", "-c").stderr()).contains("needs the server's address (-a)");
        assertThat(ToolHarness.run("rping", "-a", "127.0.0.1").stderr()).contains("(-s) or the client (-c)");
    }
}
