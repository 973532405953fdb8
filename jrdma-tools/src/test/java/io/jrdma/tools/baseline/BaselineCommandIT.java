package io.jrdma.tools.baseline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.jrdma.siw.TcpCongestion;
import io.jrdma.tools.ToolHarness;
import io.jrdma.tools.ToolHarness.Outcome;
import io.jrdma.tools.ToolHarness.Server;
import io.jrdma.tools.cli.ExitCodes;
import io.jrdma.tools.perf.PerftestFormat;

/** The baseline commands end to end: a server and a client command line in one JVM on 127.0.0.1. */
@Timeout(60)
class BaselineCommandIT {

    private static final Duration SERVER_WAIT = Duration.ofSeconds(20);

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "tcp-bw,  TCP BW Test",
        "tcp-lat, TCP Latency Test",
        "udp-bw,  UDP BW Test",
        "udp-lat, UDP Latency Test",
    })
    void clientAndServerPrintTheSamePerftestRows(String tool, String title) {
        int port = ToolHarness.freePort();
        Server server = ToolHarness.startServer(tool, "-p", Integer.toString(port), "--bind", "127.0.0.1");
        Outcome client = ToolHarness.run(tool, "127.0.0.1", "-p", Integer.toString(port), "--sizes", "64,1K",
                "-n", "100", "--warmup", "20");
        Outcome srv = server.await(SERVER_WAIT);

        assertThat(client.exitCode()).as(client.stderr()).isEqualTo(ExitCodes.OK);
        assertThat(srv.exitCode()).as(srv.stderr()).isEqualTo(ExitCodes.OK);
        String header = tool.endsWith("bw") ? PerftestFormat.BW_HEADER_MB : PerftestFormat.LAT_HEADER;
        assertThat(client.stdout().lines()).contains(PerftestFormat.RESULT_LINE, " ".repeat(20) + title, header);
        assertThat(client.rows()).hasSize(2);
        assertThat(client.rows().get(0)).startsWith(" 64      ");
        assertThat(client.rows().get(1)).startsWith(" 1024    ");
        for (String row : client.rows()) {
            String[] cols = row.strip().split("\\s+");
            assertThat(cols).hasSize(tool.endsWith("bw") ? 5 : 9);
            assertThat(Double.parseDouble(cols[3])).isPositive();
        }
        assertThat(srv.stdout()).startsWith(PerftestFormat.WAITING_FOR_CLIENT);
        assertThat(srv.rows()).containsExactlyElementsOf(client.rows());
        assertThat(srv.stdout().lines().toList().getLast()).isEqualTo(PerftestFormat.RESULT_LINE);
    }

    @Test
    void jsonPrintsOneObjectPerRowAndNothingElse() {
        int port = ToolHarness.freePort();
        Server server = ToolHarness.startServer("tcp-bw", "-p", Integer.toString(port), "--bind", "127.0.0.1");
        Outcome client = ToolHarness.run("tcp-bw", "127.0.0.1", "-p", Integer.toString(port), "--sizes", "64,4K",
                "-n", "50", "--warmup", "0", "--json", "--report_gbits");
        server.await(SERVER_WAIT);

        assertThat(client.exitCode()).as(client.stderr()).isZero();
        List<String> lines = client.stdout().lines().toList();
        assertThat(lines).hasSize(2).allSatisfy(l -> assertThat(l).startsWith("{\"tool\":\"tcp-bw\"").endsWith("}")
                .contains("\"role\":\"client\"", "\"io_mode\":\"busy-poll\"", "\"bw_unit\":\"Gb/sec\"",
                        "\"iterations\":50"));
        assertThat(lines.get(0)).contains("\"bytes\":64,");
        assertThat(lines.get(1)).contains("\"bytes\":4096,");
        assertThat(client.stderr()).isEmpty();
    }

    @Test
    void allSizesRunsPerftestsPowersOfTwoCappedAtTheLargestDatagram() {
        int port = ToolHarness.freePort();
        Server server = ToolHarness.startServer("udp-lat", "-p", Integer.toString(port), "--bind", "127.0.0.1");
        Outcome client = ToolHarness.run("udp-lat", "127.0.0.1", "-p", Integer.toString(port), "-a", "-n", "5",
                "--warmup", "0");
        server.await(SERVER_WAIT);

        assertThat(client.exitCode()).as(client.stderr()).isZero();
        assertThat(client.rows()).extracting(r -> Integer.parseInt(r.strip().split("\\s+")[0]))
                .containsExactly(2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768);
    }

    @Test
    void timedLatencyRunUsesPerftestsDurationTable() {
        int port = ToolHarness.freePort();
        Server server = ToolHarness.startServer("tcp-lat", "-p", Integer.toString(port), "--bind", "127.0.0.1");
        Outcome client = ToolHarness.run("tcp-lat", "127.0.0.1", "-p", Integer.toString(port), "-D", "1");
        server.await(SERVER_WAIT);

        assertThat(client.exitCode()).as(client.stderr()).isZero();
        assertThat(client.stdout().lines()).contains(PerftestFormat.LAT_DURATION_HEADER);
        assertThat(client.rows()).singleElement().satisfies(r -> assertThat(r).startsWith(" 2       "));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tcp-bw", "tcp-lat", "udp-bw", "udp-lat"})
    void anUnknownFlagIsOneLineOnStderrAndExitCodeTwo(String tool) {
        Outcome o = ToolHarness.run(tool, "--bogus");
        assertThat(o.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(o.stdout()).isEmpty();
        assertThat(o.stderr().lines()).containsExactly(
                "jrdma " + tool + ": Unknown option: '--bogus' (see 'jrdma " + tool + " --help')");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tcp-bw", "tcp-lat", "udp-bw", "udp-lat"})
    void aClosedPortIsAClearRefusalAndExitCodeOne(String tool) {
        int port = ToolHarness.freePort();
        Outcome o = ToolHarness.run(tool, "127.0.0.1", "-p", Integer.toString(port));
        assertThat(o.exitCode()).isEqualTo(ExitCodes.FAILURE);
        assertThat(o.stderr().lines()).containsExactly(
                "jrdma " + tool + ": connection refused by 127.0.0.1:" + port + " (is the server running?)");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "tcp-lat -N             | -N/--noPeak is only valid for bandwidth tests",
        "udp-bw -s 65508        | udp-bw carries messages of 1..65507 bytes, not 65508",
        "tcp-bw -a -D 2         | duration mode (-D) does not support running on all sizes (-a)",
        "udp-lat --blocking -e  | --blocking and -e/--events exclude each other",
        "tcp-lat -n 4           | iterations must be 5..100000000, not 4",
        "tcp-bw -D 2 -f 1       | duration 2 s must exceed twice the margin 1 s",
        "tcp-bw -s 12Q          | is not a size (examples: 64, 4K, 1M, 0x1000)",
        "udp-bw --tcp-cc reno   | --tcp-cc chooses TCP's congestion control; udp-bw measures UDP",
        "tcp-lat --tcp-cc BBR   | TCP congestion control must be a Linux algorithm name",
    })
    void conflictingOrOutOfRangeFlagsAreUsageErrors(String line, String message) {
        Outcome o = ToolHarness.run(line.strip().split("\\s+"));
        assertThat(o.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(o.stderr().lines()).singleElement().satisfies(l -> assertThat(l).contains(message));
    }

    @Test
    void tcpCcRunsBothSidesOnTheAlgorithmAndNamesOneTheKernelLacks() {
        assumeTrue(TcpCongestion.supported(), "Linux only");
        int port = ToolHarness.freePort();
        Server server = ToolHarness.startServer("tcp-bw", "-p", Integer.toString(port), "--bind", "127.0.0.1",
                "--tcp-cc", "reno");
        Outcome ok = ToolHarness.run("tcp-bw", "127.0.0.1", "-p", Integer.toString(port), "-s", "64K", "-n", "100",
                "--warmup", "0", "--json", "--tcp-cc", "reno");
        assertThat(server.await(SERVER_WAIT).exitCode()).isZero();
        assertThat(ok.exitCode()).as(ok.stderr()).isZero();
        assertThat(ok.stdout()).contains("\"tcp_cc\":\"reno\"");

        // The client applies it to its data connection: a plain server, a client asking for the impossible.
        port = ToolHarness.freePort();
        server = ToolHarness.startServer("tcp-bw", "-p", Integer.toString(port), "--bind", "127.0.0.1");
        Outcome client = ToolHarness.run("tcp-bw", "127.0.0.1", "-p", Integer.toString(port), "-n", "100",
                "--tcp-cc", "nosuchcc");
        server.await(SERVER_WAIT);
        assertThat(client.exitCode()).isEqualTo(ExitCodes.FAILURE);
        assertThat(client.stderr()).contains("--tcp-cc nosuchcc: TCP congestion control 'nosuchcc' is not available");

        // The server applies it to its listener, before any client comes.
        Outcome srv = ToolHarness.run("tcp-lat", "-p", Integer.toString(ToolHarness.freePort()), "--bind",
                "127.0.0.1", "--tcp-cc", "nosuchcc");
        assertThat(srv.exitCode()).isEqualTo(ExitCodes.FAILURE);
        assertThat(srv.stderr()).contains("--tcp-cc nosuchcc: TCP congestion control 'nosuchcc' is not available");
    }

    @Test
    void aServerOfAnotherToolRefusesTheClientAndBothFail() {
        int port = ToolHarness.freePort();
        Server server = ToolHarness.startServer("tcp-bw", "-p", Integer.toString(port), "--bind", "127.0.0.1");
        Outcome client = ToolHarness.run("tcp-lat", "127.0.0.1", "-p", Integer.toString(port));
        Outcome srv = server.await(SERVER_WAIT);
        assertThat(client.exitCode()).isEqualTo(ExitCodes.FAILURE);
        assertThat(client.stderr()).contains("refused the test: this server runs tcp-bw, the client asked for tcp-lat");
        assertThat(srv.exitCode()).isEqualTo(ExitCodes.FAILURE);
        assertThat(srv.stderr()).contains("refused a client");
    }

    @Test
    void aServerThatMiscountsTheBytesFailsVerification() throws Exception {
        try (FakeServer fake = new FakeServer()) {
            CompletableFuture<Void> f = fake.serve(c -> {
                c.hello();
                ControlMessage.Run run = c.expect(ControlMessage.Run.class);
                try (Socket data = c.listener.accept()) {
                    c.send(new ControlMessage.Ready(run.runId()));
                    long bytes = data.getInputStream().transferTo(OutputStream.nullOutputStream());
                    c.send(new ControlMessage.Done(run.runId(), bytes / run.size(), bytes - 1));
                }
                c.awaitClose();
            });
            Outcome o = ToolHarness.run("tcp-bw", "127.0.0.1", "-p", Integer.toString(fake.port()), "-s", "4K",
                    "-n", "10", "--warmup", "0");
            assertThat(o.exitCode()).isEqualTo(ExitCodes.FAILURE);
            assertThat(o.stderr().lines()).containsExactly(
                    "jrdma tcp-bw: verification failed: server received 40959 bytes, client sent 40960");
            f.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aServerThatNeverAnswersEndsTheClientAfterItsTimeout() throws Exception {
        try (FakeServer fake = new FakeServer()) {
            fake.serve(FakeServer.Conversation::awaitClose);
            long start = System.nanoTime();
            Outcome o = ToolHarness.run("tcp-lat", "127.0.0.1", "-p", Integer.toString(fake.port()), "--timeout", "1");
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
            assertThat(o.exitCode()).isEqualTo(ExitCodes.FAILURE);
            assertThat(o.stderr().lines()).containsExactly(
                    "jrdma tcp-lat: server 127.0.0.1:" + fake.port() + " did not answer in time");
            assertThat(seconds).isLessThan(10);
        }
    }

    @Test
    void aServerThatStopsReadingIsReportedSilentByTheWatchdog() throws Exception {
        try (FakeServer fake = new FakeServer()) {
            fake.serve(c -> {
                c.hello();
                ControlMessage.Run run = c.expect(ControlMessage.Run.class);
                try (Socket data = c.listener.accept()) {
                    data.setReceiveBufferSize(4096);
                    c.send(new ControlMessage.Ready(run.runId()));
                    c.awaitClose(); // never reads the data
                }
            });
            Outcome o = ToolHarness.run("tcp-bw", "127.0.0.1", "-p", Integer.toString(fake.port()), "-s", "1M",
                    "-n", "200", "--warmup", "0", "--timeout", "1");
            assertThat(o.exitCode()).isEqualTo(ExitCodes.FAILURE);
            assertThat(o.stderr().lines()).containsExactly(
                    "jrdma tcp-bw: server 127.0.0.1:" + fake.port() + " went silent for 1 s");
        }
    }

    /** A hand-driven server speaking the control protocol, for failures a real server never makes. */
    static final class FakeServer implements AutoCloseable {
        private final ServerSocket listener;

        FakeServer() throws IOException {
            listener = new ServerSocket();
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), ToolHarness.freePort()));
            listener.setSoTimeout(20_000);
        }

        int port() {
            return listener.getLocalPort();
        }

        CompletableFuture<Void> serve(Script script) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            Thread.ofPlatform().daemon().name("fake-server").start(() -> {
                try (Socket s = listener.accept()) {
                    script.play(new Conversation(s, listener));
                    done.complete(null);
                } catch (IOException | RuntimeException e) {
                    done.completeExceptionally(e);
                }
            });
            return done;
        }

        @Override
        public void close() throws IOException {
            listener.close();
        }

        /** What the fake server does with one client. */
        interface Script {
            void play(Conversation c) throws IOException;
        }

        /** The control connection of the fake server. */
        static final class Conversation {
            private final DataInputStream in;
            private final DataOutputStream out;
            private final ServerSocket listener;

            Conversation(Socket s, ServerSocket listener) throws IOException {
                this.in = new DataInputStream(s.getInputStream());
                this.out = new DataOutputStream(s.getOutputStream());
                this.listener = listener;
                s.setSoTimeout(20_000);
            }

            void hello() throws IOException {
                expect(ControlMessage.Hello.class);
                send(new ControlMessage.HelloAck(true, ""));
            }

            <T extends ControlMessage> T expect(Class<T> type) throws IOException {
                return type.cast(ControlMessage.read(in));
            }

            void send(ControlMessage m) throws IOException {
                m.write(out);
                out.flush();
            }

            void awaitClose() throws IOException {
                in.transferTo(OutputStream.nullOutputStream());
            }
        }
    }
}
