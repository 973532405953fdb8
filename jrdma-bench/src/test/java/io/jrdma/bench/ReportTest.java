package io.jrdma.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import io.jrdma.internal.net.TcpCongestion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The benchmark's report, options and chart, without running a benchmark (the build never runs one).
 */
class ReportTest {

    private static Measurement floor() {
        return Measurement.of("floor", "tcp-bw", "tcp", "busy-poll", 65_536, 1, 4000, Double.NaN, "MB/s");
    }

    private static Measurement writeBw(double mbs) {
        Measurement m = Measurement.of("bandwidth", "write-bw", "siw", "app-driven", 65_536, 1, mbs, Double.NaN,
                "MB/s").against(floor());
        return m.target(">= 0.9x tcp-bw", m.ratio() >= 0.9);
    }

    private static Report report(Measurement... ms) {
        return new Report(List.of(ms), "app-driven, 2 engines", 42, Instant.parse("2026-11-29T20:00:00Z"), false);
    }

    @Test
    void theCongestionControlIsReadFromProcOrReportedAsUnknown(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("tcp_congestion_control");
        Files.writeString(file, "cubic\n");
        assertThat(Bench.tcpCongestionControl(file)).isEqualTo("cubic");
        Files.writeString(file, "  \n");
        assertThat(Bench.tcpCongestionControl(file)).isEqualTo("?");
        assertThat(Bench.tcpCongestionControl(dir.resolve("missing"))).isEqualTo("?");
        Path proc = Path.of("/proc/sys/net/ipv4/tcp_congestion_control");
        if (Files.isReadable(proc)) {
            assertThat(Bench.tcpCongestionControl()).isEqualTo(Files.readString(proc).strip()).doesNotContain(" ");
        }
    }

    @Test
    void aFigureIsComparedToItsFloorAsARatio() {
        Measurement m = writeBw(3000);
        assertThat(m.ratio()).isEqualTo(0.75);
        assertThat(m.met()).isFalse();
        assertThat(writeBw(3800).met()).isTrue();
    }

    @Test
    void theTextTableNamesTheTargetAndWhetherItHolds() {
        String t = report(floor(), writeBw(3000)).text();
        assertThat(t).contains("write-bw").contains("0.75").contains(">= 0.9x tcp-bw");
    }

    @Test
    void theJsonHoldsEveryFigure() {
        String j = report(floor(), writeBw(3000)).json();
        assertThat(j).contains("\"test\": \"tcp-bw\"").contains("\"test\": \"write-bw\"").contains("3000");
        assertThat(j.chars().filter(c -> c == '{').count()).isEqualTo(j.chars().filter(c -> c == '}').count());
    }

    @Test
    void aSecondRunReplacesOnlyTheGeneratedSectionOfTheMarkdown(@TempDir Path dir) throws Exception {
        Path md = dir.resolve("performance.md");
        Path svg = dir.resolve("bench.svg");
        Files.writeString(md, "# Performance\n\nHand-written method.\n");
        report(floor(), writeBw(3000)).updateMarkdown(md, svg);
        report(floor(), writeBw(3777)).updateMarkdown(md, svg);
        String s = Files.readString(md);
        assertThat(s).containsOnlyOnce("Hand-written method.").containsOnlyOnce(Report.BEGIN)
                .containsOnlyOnce(Report.END).contains("3777").doesNotContain("3000 ");
    }

    @Test
    void theMarkdownHasARowPerTestTransportAndQpCountAndAColumnPerSize() {
        Measurement f64 = Measurement.of("floor", "tcp-bw", "tcp", "busy-poll", 65_536, 1, 4000, Double.NaN, "MB/s");
        Measurement f1m = Measurement.of("floor", "tcp-bw", "tcp", "busy-poll", 1 << 20, 1, 6000, Double.NaN, "MB/s");
        List<Measurement> ms = new java.util.ArrayList<>(List.of(f64, f1m));
        for (int qps : new int[] {1, 4}) {
            ms.add(Measurement.of("bandwidth", "write-bw", "siw", "app-driven", 65_536, qps, 4400, Double.NaN, "MB/s")
                    .against(f64));
            ms.add(Measurement.of("bandwidth", "write-bw", "siw", "app-driven", 1 << 20, qps, 6600, Double.NaN, "MB/s")
                    .against(f1m));
        }
        ms.add(Measurement.of("latency", "write-lat", "siw", "app-driven", 64, 1, 4.67, 19.5, "us"));
        String md = new Report(ms, "app-driven", 42, Instant.parse("2026-11-29T20:00:00Z"), false)
                .markdownSection("bench/bench.svg");
        assertThat(md).contains("| test | transport | QPs | 64 KiB | 1 MiB |",
                "| write-bw | siw (app-driven) | 1 | 4400 (1.10) | 6600 (1.10) |",
                "| write-bw | siw (app-driven) | 4 | 4400 (1.10) | 6600 (1.10) |",
                "| tcp-bw | busy-poll | 4000 | 6000 |", "| write-lat | siw (app-driven) | 4.67 / 19.5 |",
                "![bandwidth and ratios](bench/bench.svg)");
        assertThat(md.lines().filter(l -> l.startsWith("| write-bw"))).hasSize(2);
    }

    @Test
    void aSavedRunRendersToTheSameMarkdownWithoutMeasuring() {
        Report r = new Report(List.of(floor(), writeBw(3000),
                Measurement.of("memory", "idle QP heap", "siw", "", 0, 256, 4743, Double.NaN, "B"),
                Measurement.of("connect", "sequential", "siw", "", 0, 1, 7373, Double.NaN, "setups/s")),
                "app-driven, \"2\" engines", 42, Instant.parse("2026-11-29T20:00:00Z"), true, 2, "25.0.3+9-LTS");
        Report back = Report.fromJson(r.json());
        assertThat(back.markdownSection("c.svg")).isEqualTo(r.markdownSection("c.svg"))
                .contains("Java 25.0.3+9-LTS", "2 CPUs", "**quick run", "| siw | - / - / - | 4743 + - B | 7373 / - |");
        assertThat(back.json()).isEqualTo(r.json());
        assertThatThrownBy(() -> Report.fromJson("{\"when\": 1}")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no measurements");
        assertThatThrownBy(() -> Report.fromJson("{\"measurements\": [tru]}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'tru' is no JSON value");
    }

    /** A two-process pair as Bench records it: every pair, then the median pair's floor and jrdma rows. */
    private static List<Measurement> twoProcesses(String transport, String tool, long size, double value,
            double p99, String floorTool, long floorSize, double floor, double floorP99, String unit, String target,
            boolean met) {
        Measurement pf = Measurement.of("process-floor", floorTool, floorTool.substring(0, 3), "pair 1", floorSize, 1,
                floor * 2, floorP99, unit);
        Measurement pair = Measurement.of("process-pair", tool, transport, "app-driven, pair 1", size, 1, 777.77, p99,
                unit).against(pf);
        Measurement f = Measurement.of("process-floor", floorTool, floorTool.substring(0, 3), "median of 3 pairs",
                floorSize, 1, floor, floorP99, unit);
        Measurement m = Measurement.of("process", tool, transport, "app-driven, median of 3 pairs", size, 1, value,
                p99, unit).against(f);
        return List.of(pair, f, m.target(target, met));
    }

    @Test
    void theTwoProcessTableHasARowPerPairOfToolsWithFloorRatioAndTarget() {
        List<Measurement> ms = new java.util.ArrayList<>(List.of(floor(), writeBw(3000)));
        ms.addAll(twoProcesses("siw", "write-lat", 2, 40.3, 3865, "tcp-lat", 2, 56.0, 1427, "us", "<= 1.3x tcp-lat",
                true));
        ms.addAll(twoProcesses("rxe", "write-bw", 1 << 20, 45.8, Double.NaN, "udp-bw", 1024, 82.4, Double.NaN, "MB/s",
                ">= 0.8x udp-bw", false));
        Report r = new Report(ms, "app-driven", 42, Instant.parse("2026-11-29T20:00:00Z"), false);
        String md = r.markdownSection("c.svg");
        assertThat(md).contains("#### Two processes (tools, default options",
                "| transport | tool, size | jrdma | floor tool | floor | ratio | target | met |",
                "| siw (app-driven, median of 3 pairs) | write-lat 2 B | 40.3 us (p99 3865) | tcp-lat 2 B "
                        + "| 56.0 us (p99 1427) | 0.72 | <= 1.3x tcp-lat | yes |",
                "| rxe (app-driven, median of 3 pairs) | write-bw 1 MiB | 45.8 MB/s | udp-bw 1 KiB | 82.4 MB/s | 0.56 "
                        + "| >= 0.8x udp-bw | NO |",
                "| <= 1.3x tcp-lat | write-lat siw 2 B, two processes | 40.3 us (p99 3865) | 56.0 / 1427 | 0.72 "
                        + "| yes |",
                "| >= 0.8x udp-bw | write-bw rxe 1 MiB, two processes | 45.8 MB/s | 82.4 | 0.56 | NO |")
                .as("single pairs are in the JSON only").doesNotContain("777");
        assertThat(md.lines().filter(l -> l.startsWith("| siw (app-driven") || l.startsWith("| rxe (app-driven")))
                .hasSize(2);
        String text = r.text();
        assertThat(text).contains("Two processes (tools, default options").contains("udp-bw 1 KiB")
                .doesNotContain("777").doesNotContain("process-floor");
        assertThat(r.json()).contains("\"group\": \"process-pair\"", "777.7700", "\"baseline_value\": 164.8000");
        Report back = Report.fromJson(r.json());
        assertThat(back.markdownSection("c.svg")).isEqualTo(md);
        assertThat(back.text()).isEqualTo(text);
        assertThat(SvgChart.score(ms.get(ms.size() - 1))).isCloseTo(0.56 / 0.8, org.assertj.core.data.Offset.offset(
                0.01));
        assertThat(SvgChart.score(ms.get(4))).isCloseTo(1.3 / 0.72, org.assertj.core.data.Offset.offset(0.01));
    }

    @Test
    void withoutTwoProcessRunsThereIsNoSuchTable() {
        assertThat(report(floor(), writeBw(3000)).markdownSection("c.svg")).doesNotContain("Two processes");
        assertThat(report(floor(), writeBw(3000)).text()).doesNotContain("Two processes");
    }

    @Test
    void theChartIsAnSvgDocumentWithABarPerFigure() {
        String svg = new SvgChart(List.of(floor(), writeBw(3000))).svg();
        assertThat(svg).startsWith("<svg").endsWith("</svg>\n").contains("write-bw");
    }

    @Test
    void optionsNameTransportsAndGroupsAndRefuseUnknownArguments() {
        assertThat(BenchOptions.parse(new String[] {"--render", "docs/bench/bench.json"}).render())
                .isEqualTo(Path.of("docs/bench/bench.json"));
        BenchOptions o = BenchOptions.parse(new String[] {"--transports", "siw,loop", "--only", "latency", "--quick"});
        assertThat(o.transports()).containsExactly(Transport.SIW, Transport.LOOP);
        assertThat(o.groups()).containsExactly(BenchOptions.Group.LATENCY);
        assertThat(o.quick()).isTrue();
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--fast"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("usage");
    }

    @Test
    void processesAloneIsAGroupAndPartOfAFullRun() {
        assertThat(BenchOptions.parse(new String[] {"--transports", "siw,rxe", "--only", "processes"}).groups())
                .containsExactly(BenchOptions.Group.PROCESSES);
        assertThat(BenchOptions.parse(new String[0]).groups()).contains(BenchOptions.Group.PROCESSES);
        assertThat(BenchOptions.usage()).contains("processes");
    }

    @Test
    void rxesModeIsReadFromAnRxeEngine() {
        // The bench names rxe's mode as rxe resolves it (jrdma.rxe.appDriven or rxe's own default).
        boolean appDriven = Bench.rxeAppDriven();
        assertThat(Bench.rxeMode()).startsWith(appDriven ? "app-driven" : "engine threads");
    }

    @Test
    void targetsAloneAndAPositiveRepetitionCountAreOptions() {
        BenchOptions o = BenchOptions.parse(new String[] {"--only", "targets", "--reps", "5"});
        assertThat(o.groups()).containsExactly(BenchOptions.Group.TARGETS);
        assertThat(o.reps()).isEqualTo(5);
        assertThat(BenchOptions.parse(new String[0]).reps()).as("0: the default").isZero();
        assertThat(BenchOptions.parse(new String[0]).groups()).contains(BenchOptions.Group.TARGETS);
        for (String bad : new String[] {"0", "-2", "many"}) {
            assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--reps", bad}))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--reps");
        }
    }

    @Test
    void theTargetRunsCanBeNarrowedToSomeTestsAndSizes() {
        BenchOptions all = BenchOptions.parse(new String[0]);
        assertThat(all.tests()).containsExactlyInAnyOrderElementsOf(BenchOptions.TARGET_TESTS);
        assertThat(all.sizes()).containsExactly(65536, 1048576);
        BenchOptions o = BenchOptions.parse(
                new String[] {"--tests", "read-bw, write-lat", "--sizes", "1048576,4194304"});
        assertThat(o.tests()).containsExactlyInAnyOrder("read-bw", "write-lat");
        assertThat(o.sizes()).containsExactly(1048576, 4194304);
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--tests", "read-lat"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("read-lat");
        for (String bad : new String[] {"0", "-1", "1M"}) {
            assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--sizes", bad}))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--sizes")
                    .hasMessageContaining(bad);
        }
    }

    @Test
    void bothSidesRunRenoUnlessTcpCcNamesAnotherAlgorithmOrTheKernelsDefault() {
        assertThat(BenchOptions.parse(new String[0]).tcpCongestion()).as("default")
                .isEqualTo(TcpCongestion.supported() ? Bench.DEFAULT_TCP_CC : null);
        assertThat(BenchOptions.parse(new String[] {"--tcp-cc", "system"}).tcpCongestion()).isNull();
        assertThat(BenchOptions.parse(new String[] {"--tcp-cc", "cubic"}).tcpCongestion()).isEqualTo("cubic");
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--tcp-cc", "BBR2"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--tcp-cc")
                .hasMessageContaining("BBR2").hasMessageContaining("usage");
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--tcp-cc"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--tcp-cc needs a value");
    }

    @Test
    void theMedianOfAnOddCountIsTheMiddleAndOfAnEvenCountTheMeanOfTheTwo() {
        assertThat(Bench.median(new double[] {5, 1, 3})).isEqualTo(3);
        assertThat(Bench.median(new double[] {4, 1, 3, 2})).isEqualTo(2.5);
    }

    @Test
    void theVerdictPairIsTheMedianPairAndForAnEvenCountTheLessFavourableMiddleOne() {
        // 0.96, 0.47 (the host flipped between the two runs), 0.95: the median pair is the third.
        assertThat(Bench.medianPair(new double[] {0.96, 0.47, 0.95}, true)).isEqualTo(2);
        assertThat(Bench.medianPair(new double[] {1.2, 0.8, 1.0, 0.9, 1.1}, true)).isEqualTo(2);
        // Even counts: bandwidth takes the lower middle ratio, latency (lower is better) the higher.
        assertThat(Bench.medianPair(new double[] {1.0, 0.7, 0.95, 1.3}, true)).isEqualTo(2);
        assertThat(Bench.medianPair(new double[] {1.0, 0.7, 0.95, 1.3}, false)).isZero();
        assertThat(Bench.medianPair(new double[] {0.5}, true)).isZero();
        assertThatThrownBy(() -> Bench.medianPair(new double[0], true)).isInstanceOf(IllegalArgumentException.class);
    }
}
