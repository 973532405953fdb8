package io.jrdma.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import io.jrdma.tools.ToolHarness.Outcome;
import io.jrdma.tools.ToolHarness.Server;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The tools over IPv6 on ::1: rping (siw0, loop0, and rxe6 over RoCEv2 in IPv6/UDP), the perftest tools
 * with perftest's {@code --ipv6-addr} and {@code --ipv6}, cmatose and udaddy, a TCP baseline, and what the
 * tools write about IPv6 peers ({@code [::1]:PORT}).
 */
@Timeout(60)
class Ipv6ToolsIT {
    private static final Duration WAIT = Duration.ofSeconds(30);

    @ParameterizedTest
    @ValueSource(strings = {"siw0", "loop0", "rxe6"})
    void rpingPingsOverIpv6WithOrWithoutBrackets(String dev) {
        String port = Integer.toString(ToolHarness.freePort());
        Server server = ToolHarness.startServerAwaiting("rdma_listen", "rping", "-s", "-v", "-d", "-a", "::1", "-p",
                port, "--device", dev);
        Outcome c = ToolHarness.run("rping", "-c", "-vV", "-a", "[::1]", "-I", "::1", "-p", port, "-C", "2", "-S",
                "40", "--device", dev);
        Outcome s = server.await(WAIT);
        assertThat(c.exitCode()).as(c.stderr()).isZero();
        assertThat(s.exitCode()).as(s.stderr()).isZero();
        assertThat(c.stdout().lines()).containsExactly("ping data: rdma-ping-0: ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                "ping data: rdma-ping-1: BCDEFGHIJKLMNOPQRSTUVWXYZ[");
        assertThat(s.stdout().lines().filter(l -> l.startsWith("server ping data: "))).hasSize(2);
    }

    @Test
    void anIpv6PeerIsWrittenInBracketsWithItsPort() {
        int port = ToolHarness.freePort();
        Outcome c = ToolHarness.run("rping", "-c", "-a", "::1", "-p", Integer.toString(port), "-C", "1", "--device",
                "siw0", "--timeout", "2");
        assertThat(c.exitCode()).isNotZero();
        assertThat(c.stderr()).contains("[::1]:" + port).doesNotContain("0:0:0:0:0:0:0:1");
    }

    @Test
    void anIpv4MappedAddressIsRefusedAsLinuxRefusesIt() {
        // Linux 6.1: rping -c -a ::ffff:10.0.4.15 fails with "rdma_resolve_addr: Network is unreachable",
        // ucmatose -b ::ffff:10.0.4.15 with "Cannot assign requested address".
        Outcome c = ToolHarness.run("rping", "-c", "-a", "::ffff:127.0.0.1", "-p",
                Integer.toString(ToolHarness.freePort()), "-C", "1", "--device", "siw0", "--timeout", "2");
        assertThat(c.exitCode()).isNotZero();
        assertThat(c.stderr()).contains("rdma_resolve_addr", "ENETUNREACH", "[::ffff:127.0.0.1]");
        Outcome b = ToolHarness.run("cmatose", "-b", "::ffff:127.0.0.1", "-p", Integer.toString(ToolHarness.freePort()),
                "-c", "1", "--device", "loop0", "--timeout", "2");
        assertThat(b.exitCode()).isNotZero();
        assertThat(b.stdout() + b.stderr()).contains("EADDRNOTAVAIL");
    }

    @ParameterizedTest
    @ValueSource(strings = {"write-bw", "send-lat"})
    void perftestToolsRunOverIpv6WithIpv6Addr(String tool) {
        int port = ToolHarness.freePort();
        // --ipv6-addr: the server listens on :: (no --bind), the client resolves HOST to IPv6.
        Server server = ToolHarness.startServer(tool, "-d", "siw0", "-p", Integer.toString(port), "-R", "-n", "100",
                "--ipv6-addr", "--ipv6");
        Outcome c = ToolHarness.run(tool, "-d", "siw0", "-p", Integer.toString(port), "-R", "-n", "100",
                "--ipv6-addr", "--ipv6", "::1");
        Outcome s = server.await(WAIT);
        assertThat(c.exitCode()).as(c.stderr()).isZero();
        assertThat(s.exitCode()).as(s.stderr()).isZero();
        assertThat(c.stdout()).contains(" 100 ");
    }

    @Test
    void ipv6AddrRefusesAHostWithoutAnIpv6Address() {
        Outcome c = ToolHarness.run("write-bw", "-d", "siw0", "-p", Integer.toString(ToolHarness.freePort()),
                "--ipv6-addr", "127.0.0.1");
        assertThat(c.exitCode()).isNotZero();
        assertThat(c.stderr()).contains("127.0.0.1 has no IPv6 address");
    }

    @Test
    void cmatoseAndUdaddyConnectOverIpv6AndDashFIpTakesLiteralsOnly() {
        String port = Integer.toString(ToolHarness.freePort());
        Server server = ToolHarness.startServerAwaiting("cmatose: starting server", "cmatose", "-b", "::1", "-p", port,
                "-c", "1", "-C", "5", "--device", "siw0");
        Outcome c = ToolHarness.run("cmatose", "-s", "::1", "-f", "ip", "-p", port, "-c", "1", "-C", "5", "--device",
                "siw0");
        assertThat(c.exitCode()).as(c.stderr()).isZero();
        assertThat(server.await(WAIT).exitCode()).isZero();
        String uport = Integer.toString(ToolHarness.freePort());
        Server ud = ToolHarness.startServerAwaiting("udaddy: starting server", "udaddy", "-b", "::1", "-p", uport,
                "-c", "1", "--device", "loop0");
        Outcome u = ToolHarness.run("udaddy", "-s", "::1", "-p", uport, "-c", "1", "--device", "loop0");
        assertThat(u.exitCode()).as(u.stderr()).isZero();
        assertThat(ud.await(WAIT).exitCode()).isZero();
        Outcome name = ToolHarness.run("cmatose", "-s", "localhost", "-f", "ip", "-p", port, "--device", "siw0");
        assertThat(name.exitCode()).isNotZero();
        assertThat(name.stderr()).contains("Name or service not known");
    }

    @Test
    void aTcpBaselineRunsOverIpv6() {
        int port = ToolHarness.freePort();
        Server server = ToolHarness.startServer("tcp-bw", "-p", Integer.toString(port), "--bind", "::1");
        Outcome c = ToolHarness.run("tcp-bw", "[::1]", "-p", Integer.toString(port), "--sizes", "4K", "-n", "100");
        assertThat(c.exitCode()).as(c.stderr()).isZero();
        assertThat(server.await(WAIT).exitCode()).isZero();
    }
}
