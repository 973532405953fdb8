package io.jrdma.tools.cmatose;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import io.jrdma.tools.ToolHarness;
import io.jrdma.tools.ToolHarness.Outcome;
import io.jrdma.tools.ToolHarness.Server;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code jrdma cmatose} (RC) and {@code jrdma udaddy} (UD, SIDR) over RoCEv2: the server on rxe1
 * (127.0.0.2), the client on rxe0, and their failure cases.
 */
@Timeout(90)
class CmatoseRxeIT {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void cmatoseRunsTwelveConnectionsOverRxe() {
        String port = Integer.toString(ToolHarness.freePort());
        Server server = ToolHarness.startServerAwaiting("cmatose: starting server", "cmatose", "-b", "127.0.0.2",
                "-p", port, "-c", "12", "-C", "10", "-S", "2000", "--device", "rxe1");
        Outcome c = ToolHarness.run("cmatose", "-s", "127.0.0.2", "-p", port, "-c", "12", "-C", "10", "-S", "2000",
                "--device", "rxe0", "--timings");
        Outcome s = server.await(WAIT);
        assertThat(c.exitCode()).as(c.stderr()).isZero();
        assertThat(s.exitCode()).as(s.stderr()).isZero();
        assertThat(c.stdout()).containsPattern("connect: 12 connections in [0-9.]+ ms");
        assertThat(c.stdout().lines()).contains("data transfers complete", "return status 0");
        assertThat(s.stdout().lines()).containsExactly("cmatose: starting server", "initiating data transfers",
                "completing sends", "receiving data transfers", "data transfers complete", "cmatose: disconnecting",
                "disconnected", "test complete", "return status 0");
    }

    @Test
    void udaddyResolvesTheServersQpWithSidrAndExchangesDatagramsOverRxe() {
        String port = Integer.toString(ToolHarness.freePort());
        Server server = ToolHarness.startServerAwaiting("udaddy: starting server", "udaddy", "-b", "127.0.0.2", "-p",
                port, "-c", "3", "-C", "10", "--device", "rxe1");
        Outcome c = ToolHarness.run("udaddy", "-s", "127.0.0.2", "-p", port, "-c", "3", "-C", "10", "--device", "rxe0");
        Outcome s = server.await(WAIT);
        assertThat(c.exitCode()).as(c.stderr()).isZero();
        assertThat(s.exitCode()).as(s.stderr()).isZero();
        assertThat(c.stdout().lines()).containsExactly("udaddy: starting client", "udaddy: connecting",
                "initiating data transfers", "receiving data transfers", "data transfers complete", "test complete",
                "return status 0");
        assertThat(s.stdout().lines()).containsExactly("udaddy: starting server", "receiving data transfers",
                "sending replies", "data transfers complete", "test complete", "return status 0");
    }

    @Test
    void cmatoseWithoutAServerOnRxeIsRejected() {
        Outcome c = ToolHarness.run("cmatose", "-s", "127.0.0.2", "-p", Integer.toString(ToolHarness.freePort()),
                "--device", "rxe0");
        assertThat(c.exitCode()).isEqualTo(1);
        assertThat(c.stderr().lines()).singleElement().asString()
                .startsWith("jrdma cmatose: cma event RDMA_CM_EVENT_REJECTED, error 8");
    }

    @Test
    void udaddyWithoutAServerOnRxeIsUnreachable() {
        // The SIDR_REP carries "service ID not supported", which rdma_cm reports as UNREACHABLE.
        Outcome c = ToolHarness.run("udaddy", "-s", "127.0.0.2", "-p", Integer.toString(ToolHarness.freePort()),
                "--device", "rxe0");
        assertThat(c.exitCode()).isEqualTo(1);
        assertThat(c.stderr().lines()).singleElement().asString()
                .startsWith("jrdma udaddy: cma event RDMA_CM_EVENT_UNREACHABLE");
    }
}
