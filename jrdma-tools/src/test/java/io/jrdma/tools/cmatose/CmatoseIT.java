package io.jrdma.tools.cmatose;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import io.jrdma.tools.ToolHarness;
import io.jrdma.tools.ToolHarness.Outcome;
import io.jrdma.tools.ToolHarness.Server;
import io.jrdma.tools.rdma.ToolDevices;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code jrdma cmatose} and {@code jrdma udaddy} in-process, with their failure cases. */
@Timeout(60)
class CmatoseIT {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @ParameterizedTest
    @ValueSource(strings = {"loop0", "siw0"})
    void cmatosePrintsUcmatosesLinesForSeveralConnections(String dev) {
        String port = Integer.toString(ToolHarness.freePort());
        Server server = ToolHarness.startServerAwaiting("cmatose: starting server", "cmatose", "-b", "127.0.0.1",
                "-p", port, "-c", "4", "-C", "20", "-S", "256", "--device", dev);
        Outcome c = ToolHarness.run("cmatose", "-s", "127.0.0.1", "-p", port, "-c", "4", "-C", "20", "-S", "256",
                "--device", dev, "--timings");
        Outcome s = server.await(WAIT);
        assertThat(c.exitCode()).as(c.stderr()).isZero();
        assertThat(s.exitCode()).as(s.stderr()).isZero();
        assertThat(c.stdout().lines()).startsWith("cmatose: starting client", "cmatose: connecting",
                "receiving data transfers", "sending replies", "data transfers complete", "test complete",
                "return status 0");
        assertThat(c.stdout()).containsPattern("connect: 4 connections in [0-9.]+ ms");
        assertThat(s.stdout().lines()).containsExactly("cmatose: starting server", "initiating data transfers",
                "completing sends", "receiving data transfers", "data transfers complete", "cmatose: disconnecting",
                "disconnected", "test complete", "return status 0");
    }

    @Test
    void udaddyExchangesDatagramsOverTheUdpPortSpaceOnLoop() {
        String port = Integer.toString(ToolHarness.freePort());
        Server server = ToolHarness.startServerAwaiting("udaddy: starting server", "udaddy", "-b", "127.0.0.1", "-p",
                port, "-c", "2", "--device", "loop0");
        Outcome c = ToolHarness.run("udaddy", "-s", "127.0.0.1", "-p", port, "-c", "2", "--device", "loop0");
        Outcome s = server.await(WAIT);
        assertThat(c.exitCode()).as(c.stderr()).isZero();
        assertThat(s.exitCode()).as(s.stderr()).isZero();
        assertThat(c.stdout().lines()).containsExactly("udaddy: starting client", "udaddy: connecting",
                "initiating data transfers", "receiving data transfers", "data transfers complete", "test complete",
                "return status 0");
        assertThat(s.stdout().lines()).containsExactly("udaddy: starting server", "receiving data transfers",
                "sending replies", "data transfers complete", "test complete", "return status 0");
    }

    @ParameterizedTest
    @ValueSource(strings = {"cmatose", "udaddy"})
    void aClientWithoutAServerFailsInOneLine(String tool) {
        Outcome c = ToolHarness.run(tool, "-s", "127.0.0.1", "-p", Integer.toString(ToolHarness.freePort()),
                "--device", "loop0");
        assertThat(c.exitCode()).isEqualTo(1);
        // RC: the IB CM's REJ (no listener); UD: the SIDR request goes unanswered.
        assertThat(c.stderr().lines()).singleElement().asString().startsWith("jrdma " + tool + ": cma event ")
                .containsAnyOf("RDMA_CM_EVENT_REJECTED", "RDMA_CM_EVENT_UNREACHABLE");
    }

    @Test
    void udaddyWithoutADeviceChoosesOneThatCarriesUdNotTheIwarpDeviceServingTheAddress() {
        // siw0 serves 127.0.0.1 and comes first in rdma_cm's order; UD needs RoCE or loop.
        String port = Integer.toString(ToolHarness.freePort());
        Server server = ToolHarness.startServerAwaiting("udaddy: starting server", "udaddy", "-b", "127.0.0.1", "-p",
                port);
        Outcome c = ToolHarness.run("udaddy", "-s", "127.0.0.1", "-p", port);
        Outcome s = server.await(WAIT);
        assertThat(c.exitCode()).as(c.stderr()).isZero();
        assertThat(s.exitCode()).as(s.stderr()).isZero();
        assertThat(c.stdout().lines()).endsWith("return status 0");
        assertThat(ToolDevices.udDevices()).doesNotContain("siw0").contains("loop0");
    }

    @Test
    void udaddyOverIwarpSaysThatIwarpHasNoUd() {
        Outcome c = ToolHarness.run("udaddy", "-s", "127.0.0.1", "-p", Integer.toString(ToolHarness.freePort()),
                "--device", "siw0");
        assertThat(c.exitCode()).isEqualTo(1);
        assertThat(c.stderr().lines()).singleElement().asString().startsWith("jrdma udaddy: ");
    }

    @Test
    void badFlagsAreOneLineUsageErrors() {
        Outcome bad = ToolHarness.run("cmatose", "-c", "0");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.stderr()).startsWith("jrdma cmatose: connections (-c) must be 1..");
    }
}
