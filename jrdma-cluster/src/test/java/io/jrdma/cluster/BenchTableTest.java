package io.jrdma.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** The bench's statistics, its table and its picture, from samples made up here. */
class BenchTableTest {

    private static Bench.Sample s(int run, double delay, double loss, String t, double mbps) {
        return new Bench.Sample(run, "impaired", delay, loss, t, mbps, loss, 12, 0.5);
    }

    private static List<Bench.Sample> samples() {
        List<Bench.Sample> l = new ArrayList<>();
        for (int r = 0; r < 3; r++) {
            for (double d : new double[] {0.1, 5}) {
                for (double loss : new double[] {0, 1}) {
                    double scale = (r + 1) * (loss == 0 ? 1 : 0.5) / (d == 5 ? 4 : 1);
                    l.add(s(r, d, loss, "siw", 90 * scale));
                    l.add(s(r, d, loss, "tcp", 100 * scale));
                    l.add(s(r, d, loss, "rxe", r == 2 && loss == 1 ? Double.NaN : 40 * scale));
                }
            }
        }
        l.add(new Bench.Sample(0, "veth", 0, 0, "tcp", 500, 0, 0, 0));
        return l;
    }

    @Test
    void mediansSpreadsAndPerRunRatiosLeaveFailedRunsOut() {
        Bench.Table t = new Bench.Table(samples());
        assertThat(t.delays()).containsExactly(0.1, 5.0);
        assertThat(t.losses()).containsExactly(0.0, 1.0);
        assertThat(t.values("impaired", 0.1, 0, "tcp")).containsExactlyInAnyOrder(100, 200, 300);
        assertThat(Bench.Table.median(t.values("impaired", 0.1, 0, "tcp"))).isEqualTo(200);
        assertThat(Bench.Table.median(new double[] {4, 1, 3, 2})).isEqualTo(2.5);
        assertThat(t.values("impaired", 0.1, 1, "rxe")).containsExactlyInAnyOrder(20, 40);
        assertThat(t.failures("impaired", 0.1, 1, "rxe")).isEqualTo(1);
        // siw is 0.9 of TCP in every run although the runs differ by a factor of 3
        assertThat(t.siwOverTcp("impaired", 5, 1)).containsExactly(new double[] {0.9, 0.9, 0.9},
                org.assertj.core.data.Offset.offset(1e-9));
        String md = t.markdown();
        assertThat(md).contains("| delay line | 0.1 ms | 0 % | 180 (90-270) | 80 (40-120) | 200 (100-300) | 0.90"
                + " (0.90-0.90) | 100 % | 0.50 / 0.50 % |");
        // rxe at 1 % keeps half of its lossless median; one of its three runs failed
        assertThat(md).contains("| delay line | 0.1 ms | 1 % | 90 (45-135) | 30 (20-40) (1 failed) | 100 (50-150) |"
                + " 0.90 (0.90-0.90) | 38 % |");
        assertThat(md).contains("| veth | - | - | - | - | 500 (500-500) |");
        assertThat(md).contains("Medians of 3 interleaved runs");
    }

    @Test
    void thePictureHasALinePerTransportAndPanelWithHigherGoodputHigherUp() throws Exception {
        String svg = new Bench.Table(samples()).svg();
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
        NodeList lines = doc.getElementsByTagName("polyline");
        assertThat(lines.getLength()).isEqualTo(2 * 3);
        for (int i = 0; i < lines.getLength(); i++) {
            Element e = (Element) lines.item(i);
            String[] pts = e.getAttribute("points").split(" ");
            assertThat(pts).as(e.getAttribute("class")).hasSize(2);
            double y0 = Double.parseDouble(pts[0].split(",")[1]);
            double y1 = Double.parseDouble(pts[1].split(",")[1]);
            // the lossless median is higher than the 1 % one: smaller y
            assertThat(y0).as(e.getAttribute("class")).isLessThan(y1);
        }
        assertThat(svg).contains("delay 0.1 ms each way", "delay 5 ms each way", "raw TCP");
    }

    @Test
    void samplesSurviveTheCsvRoundTrip(@TempDir Path dir) throws Exception {
        List<Bench.Sample> in = samples().stream().filter(x -> !Double.isNaN(x.mbps())).toList();
        Path p = dir.resolve("s.csv");
        Files.writeString(p, Bench.Sample.HEADER + "\n" + String.join("\n", in.stream().map(Bench.Sample::csv)
                .toList()) + "\n");
        assertThat(Bench.readCsv(p).stream().map(Bench.Sample::csv).toList())
                .isEqualTo(in.stream().map(Bench.Sample::csv).toList());
        assertThat(Bench.readCsv(p).get(0)).isEqualTo(in.get(0));
    }

    @Test
    void badOptionsAreRefusedAtParse() {
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> Bench.Options.parse(new String[] {"--losses", "0,100"}))
                .withMessageContaining("loss");
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> Bench.Options.parse(new String[] {"--runs", "0"}));
        assertThat(Bench.Options.parse(new String[] {"--delays", "0.5,2"}).delaysMs()).containsExactly(0.5, 2.0);
    }
}
