package io.jrdma.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.tools.perf.PerftestFormat;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The two-process section without starting a process: reading the tools' tables (outputs the tools
 * printed as two processes over siw0, rxe0/rxe1 and loopback, kept under {@code tools/}), the command
 * lines and the median-pair verdict.
 */
class TwoProcessTest {

    private static List<String> output(String name) throws IOException {
        try (InputStream in = TwoProcessTest.class.getResourceAsStream("tools/" + name + ".txt")) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
    }

    @Test
    void theLatencyToolsTablesGiveTheTypicalLatencyAndItsP99() throws IOException {
        TwoProcess.Figure siw = TwoProcess.parse(output("write-lat-siw-client"));
        assertThat(siw).isEqualTo(new TwoProcess.Figure(2, 264.70, 5150.30, "t_typical", "us"));
        assertThat(TwoProcess.parse(output("write-lat-rxe-client")))
                .isEqualTo(new TwoProcess.Figure(2, 289.20, 5453.16, "t_typical", "us"));
        assertThat(TwoProcess.parse(output("tcp-lat-client")))
                .isEqualTo(new TwoProcess.Figure(2, 58.42, 91.83, "t_typical", "us"));
        assertThat(TwoProcess.parse(output("udp-lat-client")))
                .isEqualTo(new TwoProcess.Figure(2, 42.92, 863.13, "t_typical", "us"));
    }

    @Test
    void theBandwidthToolsTablesGiveTheAverageBandwidth() throws IOException {
        assertThat(TwoProcess.parse(output("write-bw-siw-client")))
                .isEqualTo(new TwoProcess.Figure(1 << 20, 1080.51, Double.NaN, "BW average", "MB/s"));
        assertThat(TwoProcess.parse(output("write-bw-rxe-client")))
                .isEqualTo(new TwoProcess.Figure(1 << 20, 52.41, Double.NaN, "BW average", "MB/s"));
        assertThat(TwoProcess.parse(output("tcp-bw-client")))
                .isEqualTo(new TwoProcess.Figure(1 << 20, 925.51, Double.NaN, "BW average", "MB/s"));
        assertThat(TwoProcess.parse(output("udp-bw-client")))
                .isEqualTo(new TwoProcess.Figure(1024, 146.73, Double.NaN, "BW average", "MB/s"));
    }

    @Test
    void aNoticeBetweenTheHeaderAndTheRowIsSkipped() throws IOException {
        // jrdma's warm-up notice goes to standard error, which the bench reads with standard output: it
        // lands between the table's header and its row.
        List<String> out = output("write-lat-siw-warmup-client");
        assertThat(out).anyMatch(l -> l.startsWith("jrdma: the peer is jrdma"));
        assertThat(TwoProcess.parse(out)).isEqualTo(new TwoProcess.Figure(2, 8.07, 601.22, "t_typical", "us"));
    }

    @Test
    void aLatencyTableWithoutTypicalLatencyGivesTheAverage() throws IOException {
        assertThat(TwoProcess.parse(output("write-lat-siw-duration-client")))
                .isEqualTo(new TwoProcess.Figure(2, 10473.98, Double.NaN, "t_avg", "us"));
    }

    @Test
    void outputWithoutAResultInMegabytesOrMicrosecondsIsRefused() throws IOException {
        assertThatThrownBy(() -> TwoProcess.parse(output("tcp-bw-gbits-client")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Gb/sec");
        List<String> server = output("write-lat-siw-server");
        assertThatThrownBy(() -> TwoProcess.parse(server.subList(0, 20)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no result table");
        assertThatThrownBy(() -> TwoProcess.parse(List.of("write-lat: the peer stayed silent for 10 s")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("peer stayed silent");
        List<String> nan = List.of(PerftestFormat.LAT_HEADER,
                " 2       1000          -nan           -nan         -nan      \t       -nan        \t-nan  "
                        + "\t\t-nan\t\t-nan");
        assertThatThrownBy(() -> TwoProcess.parse(nan)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a figure (-nan)");
        assertThatThrownBy(() -> TwoProcess.parse(List.of(PerftestFormat.BW_HEADER_MB, " 1048576 5000")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2 columns, not 5");
    }

    @Test
    void bothKindsOfServerSayTheyWaitForAClientAsTheBenchExpects() throws IOException {
        assertThat(PerftestFormat.WAITING_FOR_CLIENT).contains(TwoProcess.READY);
        assertThat(output("write-lat-siw-server")).anyMatch(l -> l.contains(TwoProcess.READY));
        assertThat(output("tcp-lat-server")).anyMatch(l -> l.contains(TwoProcess.READY));
        assertThat(output("write-lat-siw-client")).noneMatch(l -> l.contains(TwoProcess.READY));
    }

    @Test
    void theVerdictIsTheMedianPairNotTheMediansOfEachSide() {
        TwoProcess.Case lat = TwoProcess.cases(Transport.SIW).get(0);
        assertThat(lat.tool()).isEqualTo("write-lat");
        assertThat(lat.floorTool()).isEqualTo("tcp-lat");
        // Ratios 1.0, 1.6 (the host slowed jrdma's run), 1.25: the median pair is the third.
        TwoProcess.Verdict v = TwoProcess.judge(lat, new double[] {10, 16, 15}, new double[] {10, 10, 12});
        assertThat(v.pair()).isEqualTo(2);
        assertThat(v.ratio()).isEqualTo(1.25);
        assertThat(v.met()).isTrue();
        assertThat(TwoProcess.judge(lat, new double[] {14, 16, 15}, new double[] {10, 10, 10}).met()).isFalse();
        TwoProcess.Case bw = TwoProcess.cases(Transport.RXE).get(1);
        assertThat(bw.bandwidth()).isTrue();
        assertThat(bw.floorTool()).isEqualTo("udp-bw");
        // Even count: bandwidth takes the lower of the two middle ratios (0.7 and 0.9).
        TwoProcess.Verdict b = TwoProcess.judge(bw, new double[] {70, 90, 100, 50}, new double[] {100, 100, 100, 100});
        assertThat(b.pair()).isZero();
        assertThat(b.met()).isFalse();
        assertThatThrownBy(() -> TwoProcess.judge(bw, new double[] {1, 2}, new double[] {1}))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TwoProcess.judge(bw, new double[0], new double[0]))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theTargetsAreTheBenchsAndReadAsText() {
        List<TwoProcess.Case> siw = TwoProcess.cases(Transport.SIW);
        List<TwoProcess.Case> rxe = TwoProcess.cases(Transport.RXE);
        assertThat(siw).extracting(TwoProcess.Case::targetText).containsExactly("<= 1.3x tcp-lat", ">= 0.9x tcp-bw");
        assertThat(rxe).extracting(TwoProcess.Case::targetText).containsExactly("<= 1.3x udp-lat", ">= 0.8x udp-bw");
        assertThat(rxe.get(1).floorArgs()).containsExactly("-s", String.valueOf(Bench.RXE_MTU));
        assertThat(siw.get(1).met(0.9)).isTrue();
        assertThat(siw.get(1).met(0.89)).isFalse();
        assertThat(TwoProcess.cases(Transport.LOOP)).isEmpty();
    }

    @Test
    void theChildrenRunTheToolsLauncherWithBinJrdmasFlagsOnThisClassPath() {
        TwoProcess.Case rxe = TwoProcess.cases(Transport.RXE).get(0);
        TwoProcess.Side[] sides = TwoProcess.jrdmaSides(rxe, "reno");
        assertThat(sides[0].env()).containsEntry("JRDMA_RXE", "rxe0:127.0.0.3");
        assertThat(sides[0].args()).containsExactly("-d", "rxe0", "--bind", "127.0.0.3");
        assertThat(sides[1].env()).containsEntry("JRDMA_RXE", "rxe1:127.0.0.4");
        assertThat(sides[1].args()).containsExactly("-d", "rxe1", "--source_ip", "127.0.0.4", "127.0.0.3");
        assertThat(sides[0].jvmOptions()).noneMatch(o -> o.contains("tcpCongestion"));
        List<String> cmd = TwoProcess.command("write-lat", 24_100, sides[1]);
        assertThat(cmd).containsSubsequence("-XX:+UseSerialGC", "-XX:-UsePerfData",
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                "io.jrdma.tools.Jrdma", "write-lat", "-p", "24100", "-d", "rxe1");
        assertThat(cmd.get(cmd.size() - 1)).isEqualTo("127.0.0.3");

        TwoProcess.Case siwBw = TwoProcess.cases(Transport.SIW).get(1);
        TwoProcess.Side[] siw = TwoProcess.jrdmaSides(siwBw, "reno");
        assertThat(siw[0].env()).isEmpty();
        assertThat(siw[0].jvmOptions()).containsExactly("-Djrdma.siw.tcpCongestion=reno");
        assertThat(siw[1].args()).containsExactly("-s", "1M", "-d", "siw0", "127.0.0.1");
        assertThat(TwoProcess.jrdmaSides(siwBw, null)[0].jvmOptions()).isEmpty();
        TwoProcess.Side[] tcp = TwoProcess.floorSides(siwBw, "reno");
        assertThat(tcp[0].args()).containsExactly("-s", "1M", "--tcp-cc", "reno");
        assertThat(tcp[1].args()).containsExactly("-s", "1M", "--tcp-cc", "reno", "127.0.0.1");
        TwoProcess.Side[] udp = TwoProcess.floorSides(TwoProcess.cases(Transport.RXE).get(1), "reno");
        assertThat(udp[1].args()).as("UDP has no congestion control").containsExactly("-s", "1024", "127.0.0.1");
    }
}
