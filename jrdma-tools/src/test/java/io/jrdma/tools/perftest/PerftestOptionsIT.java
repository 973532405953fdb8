package io.jrdma.tools.perftest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.api.Assertions.withinPercentage;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.jrdma.tools.ToolHarness;
import io.jrdma.tools.ToolHarness.Outcome;
import io.jrdma.tools.ToolHarness.Server;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * perftest's options that users script with, through the command line in-process: {@code -b} and
 * {@code --report-both}, {@code -l}, {@code -T} and {@code -u}, {@code -C}/{@code -H}/{@code -U},
 * {@code --out_json}, {@code -V}, and the refusals that name what is wrong.
 */
@Timeout(90)
class PerftestOptionsIT {

    private static final Duration WAIT = Duration.ofSeconds(60);

    private static String[] args(String tool, String dev, int port, String... more) {
        List<String> a = new ArrayList<>(List.of(tool, "-d", dev, "-p", Integer.toString(port), "--bind", "127.0.0.1"));
        a.addAll(List.of(more));
        return a.toArray(String[]::new);
    }

    private static String[] client(String[] serverArgs) {
        String[] c = Arrays.copyOf(serverArgs, serverArgs.length + 1);
        c[serverArgs.length] = "127.0.0.1";
        return c;
    }

    private record Pair(Outcome client, Outcome server) {
    }

    private static Pair run(String... serverArgs) {
        Server server = ToolHarness.startServer(serverArgs);
        Outcome c = ToolHarness.run(client(serverArgs));
        Outcome s = server.await(WAIT);
        assertThat(c.exitCode()).as(c.stderr()).isZero();
        assertThat(s.exitCode()).as(s.stderr()).isZero();
        return new Pair(c, s);
    }

    /** The BW average column (MB/sec) of a row: {@code #bytes #iterations peak average msgrate}. */
    private static double average(String row) {
        return Double.parseDouble(row.trim().split("\\s+")[3]);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"write-bw", "read-bw", "atomic-bw"})
    void bidirectionalRunsPrintTheSumOfBothSidesAndWithReportBothEachSide(String tool) {
        Pair p = run(args(tool, "loop0", ToolHarness.freePort(), "-n", "2000", "-b", "--report-both"));
        for (Outcome side : List.of(p.client(), p.server())) {
            assertThat(side.stdout()).contains("Bidirectional BW Test", " Local results: ", " Remote results: ");
            // Rows: the sum, then this side's, then the peer's.
            List<String> rows = side.rows();
            assertThat(rows).hasSize(3);
            assertThat(average(rows.get(0))).isCloseTo(average(rows.get(1)) + average(rows.get(2)), within(0.011));
            assertThat(average(rows.get(1))).isPositive();
            assertThat(average(rows.get(2))).isPositive();
        }
        // Each side's own row is the other side's remote row.
        assertThat(p.client().rows().get(1)).isEqualTo(p.server().rows().get(2));
        assertThat(p.server().rows().get(1)).isEqualTo(p.client().rows().get(2));
        assertThat(p.client().rows().get(0)).isEqualTo(p.server().rows().get(0));
    }

    @Test
    void postListsChainTheWorkRequestsAndTheCqModerationFollowsTheListSize() {
        Pair p = run(args("write-bw", "siw0", ToolHarness.freePort(), "-n", "800", "-l", "8", "--verify"));
        assertThat(p.client().stdout()).contains(
                "Post List requested - CQ moderation will be the size of the post list",
                "RDMA_Write Post List BW Test", " Post List       : 8", " CQ Moderation   : 8");
        assertThat(p.client().rows()).singleElement().asString().startsWith(" 65536 ").contains(" 800 ");

        Pair send = run(args("send-bw", "loop0", ToolHarness.freePort(), "-n", "400", "-l", "4", "-Q", "2", "-s",
                "1024"));
        assertThat(send.client().stdout()).contains(" Post List       : 4", " CQ Moderation   : 2");
        assertThat(send.client().rows()).singleElement().asString().startsWith(" 1024 ").contains(" 400 ");
    }

    @Test
    void typeOfServiceAndQpTimeoutReachTheDataQpsOnRoce(@TempDir Path dir) throws Exception {
        Path cj = dir.resolve("client.json");
        Path sj = dir.resolve("server.json");
        int port = ToolHarness.freePort();
        String[] common = {"-p", Integer.toString(port), "-n", "200", "-s", "4096", "-T", "32", "-u", "18",
            "--out_json"};
        List<String> sa = new ArrayList<>(List.of("write-bw", "-d", "rxe1", "--bind", "127.0.0.2"));
        sa.addAll(List.of(common));
        sa.addAll(List.of("--out_json_file", sj.toString()));
        List<String> ca = new ArrayList<>(List.of("write-bw", "-d", "rxe0"));
        ca.addAll(List.of(common));
        ca.addAll(List.of("--out_json_file", cj.toString(), "127.0.0.2"));
        Server server = ToolHarness.startServer(sa.toArray(String[]::new));
        Outcome c = ToolHarness.run(ca.toArray(String[]::new));
        Outcome s = server.await(WAIT);
        assertThat(c.exitCode()).as(c.stderr()).isZero();
        assertThat(s.exitCode()).as(s.stderr()).isZero();
        assertThat(c.stdout()).contains(" Data ex. method : rdma_cm \tTOS    : 32");
        String client = Files.readString(cj);
        String srv = Files.readString(sj);
        assertThat(client).startsWith("{\"test_info\":{").contains("\"tos\":32", "\"qp_timeout\":18",
                "\"traffic_class\":32", "\"device_used\":\"rxe0\"", "\"results\":[{").endsWith("}\n");
        assertThat(srv).contains("\"qp_timeout\":18", "\"device_used\":\"rxe1\"", "\"role\":\"server\"");
    }

    @Test
    void withoutDashUTheConnectionManagersTimeoutStands(@TempDir Path dir) throws Exception {
        Path cj = dir.resolve("client.json");
        int port = ToolHarness.freePort();
        Server server = ToolHarness.startServer("write-bw", "-d", "rxe1", "--bind", "127.0.0.2", "-p",
                Integer.toString(port), "-n", "100");
        Outcome c = ToolHarness.run("write-bw", "-d", "rxe0", "-p", Integer.toString(port), "-n", "100",
                "--out_json", "--out_json_file", cj.toString(), "127.0.0.2");
        assertThat(server.await(WAIT).exitCode()).isZero();
        assertThat(c.exitCode()).as(c.stderr()).isZero();
        assertThat(Files.readString(cj)).contains("\"tos\":-1").doesNotContain("\"qp_timeout\":18");
    }

    @Test
    void latencySamplesAreListedUnsortedThenSortedAndTheRowAgreesWithThem() {
        Pair p = run(args("write-lat", "loop0", ToolHarness.freePort(), "-n", "50", "-U", "-H"));
        List<String> lines = p.client().stdout().lines().toList();
        int first = lines.indexOf("#, usec");
        int second = lines.subList(first + 1, lines.size()).indexOf("#, usec") + first + 1;
        assertThat(first).isNotNegative();
        assertThat(second).isGreaterThan(first);
        List<Double> unsorted = samples(lines.subList(first + 1, second));
        List<Double> sorted = samples(lines.subList(second + 1, lines.size()));
        assertThat(unsorted).hasSize(49);
        assertThat(sorted).hasSize(47).isSorted();
        List<Double> all = new ArrayList<>(unsorted);
        all.sort(null);
        assertThat(all.subList(0, 47)).isEqualTo(sorted);
        String row = p.client().rows().get(p.client().rows().size() - 1);
        double tMin = Double.parseDouble(row.trim().split("\\s+")[2]);
        assertThat(tMin).isCloseTo(sorted.get(0), within(0.006));
        assertThat(p.client().stdout().split(" #bytes", -1)).as("the header again after the lists").hasSize(3);
    }

    private static List<Double> samples(List<String> lines) {
        List<Double> out = new ArrayList<>();
        for (String l : lines) {
            if (!l.matches("\\d+, .*")) {
                break;
            }
            out.add(Double.parseDouble(l.substring(l.indexOf(", ") + 2)));
        }
        return out;
    }

    @Test
    void cyclesAreMicrosecondsTimesTheCpuClockRate() throws Exception {
        double mhz = CpuClock.mhz(Files.readAllLines(CpuClock.CPUINFO));
        Pair p = run(args("read-lat", "loop0", ToolHarness.freePort(), "-n", "40", "-C", "-H"));
        List<String> lines = p.client().stdout().lines().toList();
        int at = lines.indexOf("#, cycles");
        assertThat(at).isNotNegative();
        List<Double> cycles = samples(lines.subList(at + 1, lines.size()));
        assertThat(cycles).hasSize(37);
        String row = p.client().rows().get(p.client().rows().size() - 1);
        double tMin = Double.parseDouble(row.trim().split("\\s+")[2]);
        assertThat(tMin).isCloseTo(cycles.get(0), withinPercentage(0.01));
        // In cycles, not microseconds: back in microseconds a loop READ is more than 5 ns (in microseconds
        // the same figure divided by the clock rate would be a fraction of a nanosecond).
        assertThat(tMin / mhz).isBetween(0.005, 10_000.0);
    }

    @Test
    void outJsonHoldsTheSettingsAndEveryRowOfThisSide(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("perftest_out.json");
        String[] sa = args("send-bw", "loop0", ToolHarness.freePort(), "-n", "100", "--sizes", "64,4096");
        Server server = ToolHarness.startServer(sa);
        String[] ca = Arrays.copyOf(sa, sa.length + 4);
        System.arraycopy(new String[] {"--out_json", "--out_json_file", json.toString(), "127.0.0.1"}, 0, ca,
                sa.length, 4);
        Outcome c = ToolHarness.run(ca);
        assertThat(server.await(WAIT).exitCode()).isZero();
        assertThat(c.exitCode()).as(c.stderr()).isZero();
        assertThat(c.rows()).hasSize(2);
        String text = Files.readString(json);
        assertThat(text).startsWith("{\"test_info\":{").contains("\"test\":\"send-bw\"", "\"role\":\"client\"",
                "\"sizes\":[64,4096]", "\"results\":[{\"bytes\":64,").endsWith("]}\n");
        assertThat(text.split("\"bytes\":", -1)).as("two rows").hasSize(3);
    }

    @Test
    void dashVPrintsThePerftestVersionJrdmaSpeaks() {
        Outcome o = ToolHarness.run("write-bw", "-V");
        assertThat(o.exitCode()).isZero();
        assertThat(o.stdout()).startsWith("Version: " + CommLink.VERSION + " (jrdma ");
    }

    @Test
    void badValuesAndOptionsOfOtherToolsAreRefusedSayingWhat() {
        String[][] cases = {
            {"write-bw", "-D", "0", "127.0.0.1"}, {"-D/--duration must be at least 1 second, not 0"},
            {"write-bw", "-n", "801", "-l", "8", "127.0.0.1"}, {"Number of iterations must be a multiple of post list"},
            {"write-bw", "-l", "8", "-Q", "3", "127.0.0.1"}, {"Post list size must be a multiple of CQ moderation"},
            {"send-bw", "-b", "127.0.0.1"}, {"-b is not supported by send-bw"},
            {"send-bw", "--run_infinitely", "127.0.0.1"}, {"--run_infinitely is not supported by send-bw"},
            {"write-bw", "-S", "16", "127.0.0.1"}, {"Service Level 16 is out of range"},
            {"write-bw", "-T", "300", "127.0.0.1"}, {"type of service (-T) is 0..255"},
            {"write-bw", "-u", "32", "127.0.0.1"}, {"QP timeout (-u) is 0..31"},
            {"write-lat", "-b", "127.0.0.1"}, {"Unknown option: '-b'"},
            {"write-lat", "-l", "4", "127.0.0.1"}, {"Unknown option: '-l'"},
            {"write-bw", "-H", "127.0.0.1"}, {"Unknown option: '-H'"},
            {"write-bw", "-A", "CMP_AND_SWAP", "127.0.0.1"}, {"Unknown option: '-A'"},
            {"read-lat", "--report-both", "127.0.0.1"}, {"Unknown option: '--report-both'"},
            {"write-bw", "--run_infinitely", "-f", "1", "127.0.0.1"}, {"leave out -f"},
        };
        for (int i = 0; i < cases.length; i += 2) {
            Outcome o = ToolHarness.run(cases[i]);
            assertThat(o.exitCode()).as(String.join(" ", cases[i])).isEqualTo(2);
            assertThat(o.stderr().lines()).as(String.join(" ", cases[i])).singleElement().asString()
                    .contains(cases[i + 1][0]);
            assertThat(o.stdout()).isEmpty();
        }
    }

    @Test
    void anUnknownOptionIsNamedAloneNotTheWordsAfterIt() {
        Outcome o = ToolHarness.run("write-bw", "--bogus", "3", "127.0.0.1");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.stderr()).isEqualTo("jrdma write-bw: Unknown option: '--bogus' (see 'jrdma write-bw --help')\n");
        Outcome two = ToolHarness.run("rping", "-c", "-X", "1", "-W", "-a", "127.0.0.1");
        assertThat(two.stderr()).startsWith("jrdma rping: Unknown options: '-X', '-W' (see").doesNotContain("'1'");
    }

    @Test
    void eachToolsHelpListsOnlyItsOwnOptions() {
        String writeLat = ToolHarness.run("write-lat", "--help").stdout();
        assertThat(writeLat).contains("-C, --report-cycles", "-H, --report-histogram", "-U, --report-unsorted",
                "-T, --tos", "-u, --qp-timeout", "-V, --version", "--out_json")
                .doesNotContain("--bidirectional", "--post_list", "--report-both", "--run_infinitely", "--atomic_type",
                        "--outs", "--qp=", "--cq-mod", "--tx-depth", "--rx-depth", "--report_gbits", "--noPeak");
        String writeBw = ToolHarness.run("write-bw", "--help").stdout();
        assertThat(writeBw).contains("-b, --bidirectional", "-l, --post_list", "--report-both", "--run_infinitely",
                "-q, --qp", "-Q, --cq-mod").doesNotContain("--report-cycles", "--atomic_type", "--outs", "--rx-depth");
        String atomic = ToolHarness.run("atomic-bw", "--help").stdout();
        assertThat(atomic).contains("-A, --atomic_type", "-o, --outs").doesNotContain("-s, --size", "--inline_size");
        String sendLat = ToolHarness.run("send-lat", "--help").stdout();
        assertThat(sendLat).contains("-r, --rx-depth", "--inline_size").doesNotContain("--outs", "--atomic_type");
        String udaddy = ToolHarness.run("udaddy", "--help").stdout();
        String cmatose = ToolHarness.run("cmatose", "--help").stdout();
        assertThat(cmatose).contains("  -m ", "  -a=TIMEOUT");
        assertThat(udaddy).contains("  -s=ADDR", "  -P=PS").doesNotContain("  -m ", "  -a=TIMEOUT");
    }
}
