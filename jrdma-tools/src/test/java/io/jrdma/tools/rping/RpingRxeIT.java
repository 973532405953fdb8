package io.jrdma.tools.rping;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import io.jrdma.tools.ToolHarness;
import io.jrdma.tools.ToolHarness.Outcome;
import io.jrdma.tools.ToolHarness.Server;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code jrdma rping} over RoCEv2: the server on rxe1 (127.0.0.2), the client on rxe0 (127.0.0.1),
 * both in this JVM (the failsafe configuration sets {@code jrdma.rxe.devices}).
 */
@Timeout(90)
class RpingRxeIT {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @ParameterizedTest(name = "{0} B x {1}")
    @CsvSource({"64, 5", "30000, 20", "65535, 3"})
    void theClientGetsBackWhatItSentOverRxe(int size, int count) {
        String port = Integer.toString(ToolHarness.freePort());
        Server server = ToolHarness.startServerAwaiting("rdma_listen", "rping", "-s", "-v", "-d", "-a", "127.0.0.2",
                "-p", port, "-S", Integer.toString(size), "--device", "rxe1");
        Outcome c = ToolHarness.run("rping", "-c", "-vV", "-a", "127.0.0.2", "-p", port, "-C", Integer.toString(count),
                "-S", Integer.toString(size), "--device", "rxe0");
        Outcome s = server.await(WAIT);

        assertThat(c.exitCode()).as(c.stderr()).isZero();
        assertThat(s.exitCode()).as(s.stderr()).isZero();
        assertThat(c.stdout().lines()).hasSize(count).allMatch(l -> l.startsWith("ping data: rdma-ping-"));
        assertThat(c.stdout().lines().toList().get(count - 1))
                .startsWith("ping data: rdma-ping-" + (count - 1) + ": ").hasSize("ping data: ".length() + size - 1);
        assertThat(s.stdout().lines().filter(l -> l.startsWith("server ping data: "))).hasSize(count);
        assertThat(s.stderr().lines()).containsExactly("server DISCONNECT EVENT...", "wait for RDMA_READ_ADV state 10");
    }

    @Test
    void aClientWithoutAServerOnRxeIsRejectedInOneLine() {
        Outcome c = ToolHarness.run("rping", "-c", "-a", "127.0.0.2", "-p", Integer.toString(ToolHarness.freePort()),
                "-C", "1", "--device", "rxe0");
        assertThat(c.exitCode()).isEqualTo(1);
        // The IB CM's REJ with reason 8 (invalid service ID): rxe1 has no listener on that port.
        assertThat(c.stderr().lines()).singleElement().asString().startsWith("jrdma rping: ")
                .contains("RDMA_CM_EVENT_REJECTED", "invalid service ID");
    }

    @Test
    void aServerBufferSmallerThanTheClientsIsAClearErrorOnRxeToo() {
        String port = Integer.toString(ToolHarness.freePort());
        Server server = ToolHarness.startServerAwaiting("rdma_listen", "rping", "-s", "-d", "-a", "127.0.0.2", "-p",
                port, "--device", "rxe1", "-S", "30");
        Outcome c = ToolHarness.run("rping", "-c", "-a", "127.0.0.2", "-p", port, "-C", "1", "-S", "64", "--device",
                "rxe0", "--timeout", "3");
        Outcome s = server.await(WAIT);
        assertThat(s.exitCode()).isEqualTo(1);
        assertThat(s.stderr()).contains("the client advertised 64 bytes, more than this server's buffer of 30 (-S)");
        assertThat(c.exitCode()).isEqualTo(1);
    }
}
