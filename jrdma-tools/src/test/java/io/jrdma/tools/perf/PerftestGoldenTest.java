package io.jrdma.tools.perf;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.jrdma.tools.perf.TestInfo.Kind;
import io.jrdma.tools.perf.TestInfo.Verb;

/**
 * jrdma's perftest formatter against real Linux perftest 4.5 output (src/test/resources/perftest):
 * fed the numbers of a real run, it must reproduce the banner, the address and GID lines, the
 * column header and every row byte for byte.
 */
class PerftestGoldenTest {

    private static final Pattern ADDRESS = Pattern.compile(
            " (local|remote) address: LID (\\S+) QPN (\\S+) PSN (\\S+)( OUT (\\S+))?( RKey (\\S+) VAddr (\\S+))?");
    private static final Pattern GID = Pattern.compile(" GID: ((?:\\d+:){15}\\d+)");

    /** The settings each captured run was made with, as perftest's banner shows them. */
    private static final Map<String, TestInfo> RUNS = Map.ofEntries(
            Map.entry("siw-ib_write_bw-R.client.txt", siw(Verb.WRITE, Kind.BW).txDepth(128).cqModeration(1).build()),
            Map.entry("siw-ib_write_bw-R.server.txt", siw(Verb.WRITE, Kind.BW).server(true).cqModeration(1).build()),
            Map.entry("siw-ib_write_bw-R-a-report_gbits.client.txt",
                    siw(Verb.WRITE, Kind.BW).txDepth(20).cqModeration(20).build()),
            Map.entry("siw-ib_write_bw-R-a.client.txt", siw(Verb.WRITE, Kind.BW).txDepth(20).cqModeration(20).build()),
            Map.entry("siw-ib_write_bw-R-D3.client.txt", siw(Verb.WRITE, Kind.BW).cqModeration(1).build()),
            Map.entry("siw-ib_send_bw-R-report_gbits.client.txt", siw(Verb.SEND, Kind.BW).cqModeration(1).build()),
            Map.entry("siw-ib_send_bw-R-report_gbits.server.txt",
                    siw(Verb.SEND, Kind.BW).server(true).rxDepth(200).cqModeration(1).build()),
            Map.entry("siw-ib_write_lat-R.client.txt", siw(Verb.WRITE, Kind.LAT).pcieRelaxOrder("OFF").build()),
            Map.entry("siw-ib_write_lat-R.server.txt",
                    siw(Verb.WRITE, Kind.LAT).pcieRelaxOrder("OFF").server(true).build()),
            Map.entry("siw-ib_write_lat-R-a.client.txt", siw(Verb.WRITE, Kind.LAT).pcieRelaxOrder("OFF").build()),
            Map.entry("siw-ib_write_lat-R-D3.client.txt", siw(Verb.WRITE, Kind.LAT).pcieRelaxOrder("OFF").build()),
            Map.entry("siw-ib_send_lat-R.server.txt", siw(Verb.SEND, Kind.LAT).server(true).rxDepth(512).build()),
            Map.entry("siw-ib_read_lat-R.client.txt", siw(Verb.READ, Kind.LAT).outReads(128).build()),
            Map.entry("rxe-ib_write_bw.client.txt", rxe(Verb.WRITE, Kind.BW).cqModeration(1).build()),
            Map.entry("rxe-ib_write_bw.server.txt", rxe(Verb.WRITE, Kind.BW).server(true).cqModeration(1).build()),
            Map.entry("rxe-ib_read_bw.client.txt", rxe(Verb.READ, Kind.BW).cqModeration(1).outReads(128).build()),
            Map.entry("rxe-ib_read_lat.client.txt", rxe(Verb.READ, Kind.LAT).outReads(128).build()),
            Map.entry("rxe-ib_send_lat.server.txt", rxe(Verb.SEND, Kind.LAT).server(true).rxDepth(512).build()),
            Map.entry("rxe-ib_write_lat.client.txt", rxe(Verb.WRITE, Kind.LAT).pcieRelaxOrder("OFF").build()));

    private static TestInfo.Builder siw(Verb verb, Kind kind) {
        return TestInfo.builder(verb, kind).device("siw0").transportType("IW").gidIndex(0).rdmaCm(true);
    }

    private static TestInfo.Builder rxe(Verb verb, Kind kind) {
        return TestInfo.builder(verb, kind).device("rxe0").transportType("IB").gidIndex(1).rdmaCm(false);
    }

    static Stream<Arguments> runs() {
        return RUNS.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .map(e -> Arguments.of(e.getKey(), e.getValue()));
    }

    static Stream<String> files() {
        return RUNS.keySet().stream().sorted();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("runs")
    void bannerMatchesPerftestLineForLine(String file, TestInfo info) throws IOException {
        List<String> golden = lines(file);
        List<String> banner = info.lines();
        int title = golden.indexOf(BannerLines.title(info.title()));
        assertThat(title).as("title line of %s", file).isPositive();
        assertThat(golden.subList(title - 1, title - 1 + banner.size())).containsExactlyElementsOf(banner);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("files")
    void addressAndGidLinesMatchPerftest(String file) throws IOException {
        int checked = 0;
        for (String line : lines(file)) {
            Matcher a = ADDRESS.matcher(line);
            if (a.matches()) {
                PeerAddress p = new PeerAddress(hex(a.group(2)), hex(a.group(3)), hex(a.group(4)),
                        a.group(8) == null ? 0 : hex(a.group(8)), a.group(9) == null ? 0 : Long.decode(a.group(9)),
                        a.group(6) == null ? 0 : hex(a.group(6)), null);
                assertThat(p.addressLine(a.group(1), a.group(5) != null, a.group(7) != null)).isEqualTo(line);
                checked++;
            }
            Matcher g = GID.matcher(line);
            if (g.matches()) {
                String[] parts = g.group(1).split(":");
                byte[] gid = new byte[PeerAddress.GID_LENGTH];
                for (int i = 0; i < gid.length; i++) {
                    gid[i] = (byte) Integer.parseInt(parts[i]);
                }
                assertThat(new PeerAddress(0, 0, 0, 0, 0, 0, gid).gidLine()).isEqualTo(line);
                checked++;
            }
        }
        assertThat(checked).as("address and GID lines in %s", file).isEqualTo(4);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("files")
    void everyResultRowIsReproducedFromItsNumbers(String file) throws IOException {
        List<String> golden = lines(file);
        int header = -1;
        for (int i = 0; i < golden.size(); i++) {
            if (golden.get(i).startsWith(" #bytes")) {
                header = i;
            }
        }
        assertThat(header).as("header of %s", file).isPositive();
        String head = golden.get(header);
        assertThat(head).isIn(PerftestFormat.BW_HEADER_MB, PerftestFormat.BW_HEADER_GBITS, PerftestFormat.LAT_HEADER,
                PerftestFormat.LAT_DURATION_HEADER);
        assertThat(golden.get(header - 1)).isEqualTo(PerftestFormat.RESULT_LINE);
        List<String> rows = new ArrayList<>();
        for (int i = header + 1; i < golden.size() && !golden.get(i).equals(PerftestFormat.RESULT_LINE); i++) {
            rows.add(golden.get(i));
        }
        assertThat(rows).as("rows of %s", file).isNotEmpty();
        for (String row : rows) {
            PerfResult r = parse(head, row);
            assertThat(PerftestFormat.header(r)).isEqualTo(head);
            assertThat(PerftestFormat.row(r)).isEqualTo(row);
        }
        assertThat(golden.get(header + 1 + rows.size())).isEqualTo(PerftestFormat.RESULT_LINE);
    }

    @Test
    void serverOutputStartsWithTheWaitingBlock() throws IOException {
        String text = text("siw-ib_write_bw-R.server.txt");
        assertThat(text).startsWith(PerftestFormat.WAITING_FOR_CLIENT + "\n" + PerftestFormat.RESULT_LINE + "\n");
    }

    @Test
    void goldenFilesCoverEveryHeaderKind() throws IOException {
        StringBuilder all = new StringBuilder();
        for (String f : RUNS.keySet()) {
            all.append(text(f));
        }
        assertThat(all.toString()).contains(PerftestFormat.BW_HEADER_MB, PerftestFormat.BW_HEADER_GBITS,
                PerftestFormat.LAT_HEADER, PerftestFormat.LAT_DURATION_HEADER);
    }

    private static PerfResult parse(String header, String row) {
        String[] t = row.strip().split("\\s+");
        long bytes = Long.parseLong(t[0]);
        long iters = Long.parseLong(t[1]);
        if (header.equals(PerftestFormat.LAT_DURATION_HEADER)) {
            return new LatDurationResult(bytes, iters, num(t[2]), num(t[3]), Double.NaN, Double.NaN, Double.NaN);
        }
        if (header.equals(PerftestFormat.LAT_HEADER)) {
            return new LatResult(bytes, iters, num(t[2]), num(t[3]), num(t[4]), num(t[5]), num(t[6]), num(t[7]),
                    num(t[8]), Double.NaN);
        }
        ReportUnit unit = header.equals(PerftestFormat.BW_HEADER_GBITS) ? ReportUnit.GBIT_PER_SEC
                : ReportUnit.MB_PER_SEC;
        return new BwResult(bytes, iters, num(t[2]), num(t[3]), num(t[4]), unit);
    }

    private static double num(String s) {
        return switch (s) {
            case "inf" -> Double.POSITIVE_INFINITY;
            case "-nan", "nan" -> Double.NaN;
            default -> Double.parseDouble(s);
        };
    }

    private static int hex(String s) {
        return s.startsWith("0x") ? HexFormat.fromHexDigits(s.substring(2)) : Integer.parseInt(s, 16);
    }

    static String text(String file) throws IOException {
        try (InputStream in = PerftestGoldenTest.class.getResourceAsStream("/perftest/" + file)) {
            assertThat(in).as("resource %s", file).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    static List<String> lines(String file) throws IOException {
        return text(file).lines().toList();
    }
}
