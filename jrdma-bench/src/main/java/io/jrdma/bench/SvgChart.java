package io.jrdma.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The benchmark's chart as SVG, drawn by hand (no plotting library): on top, bandwidth against
 * message size for one QP (raw TCP, siw's WRITE, READ and SEND, rxe's WRITE); below, each target
 * as a bar of what was reached over what is required (1.0 is the line to cross).
 */
final class SvgChart {
    private static final int WIDTH = 960;
    private static final int PLOT_LEFT = 80;
    private static final int PLOT_RIGHT = 760;
    private static final int PLOT_TOP = 50;
    private static final int PLOT_BOTTOM = 330;
    private static final int BAR_TOP = 400;
    private static final int BAR_HEIGHT = 16;
    private static final int BAR_GAP = 6;
    private static final String[] COLORS = {"#444444", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"};

    private final List<Measurement> results;

    SvgChart(List<Measurement> results) {
        this.results = List.copyOf(results);
    }

    private record Series(String name, List<double[]> points) {
    }

    /** The SVG document. */
    String svg() {
        List<Series> series = new ArrayList<>();
        series.add(series("raw TCP (busy-poll)", "floor", "tcp-bw", "tcp", "busy-poll"));
        series.add(series("siw WRITE", "bandwidth", "write-bw", "siw", null));
        series.add(series("siw READ", "bandwidth", "read-bw", "siw", null));
        series.add(series("siw SEND", "bandwidth", "send-bw", "siw", null));
        series.add(series("rxe WRITE", "bandwidth", "write-bw", "rxe", null));
        series.removeIf(s -> s.points().isEmpty());
        List<Measurement> targets = new ArrayList<>();
        for (Measurement m : results) {
            if (m.target() != null && !m.group().equals("failure")) {
                targets.add(m);
            }
        }
        int height = BAR_TOP + 30 + targets.size() * (BAR_HEIGHT + BAR_GAP) + 20;
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n", WIDTH, height, WIDTH,
                height));
        b.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", WIDTH, height));
        bandwidthPanel(b, series);
        targetPanel(b, targets);
        b.append("</svg>\n");
        return b.toString();
    }

    private Series series(String name, String group, String test, String transport, String mode) {
        List<double[]> pts = new ArrayList<>();
        for (Measurement m : results) {
            if (m.group().equals(group) && m.test().equals(test) && m.transport().equals(transport) && m.qps() == 1
                    && (mode == null || m.mode().equals(mode)) && !Double.isNaN(m.value())
                    && Long.bitCount(m.size()) == 1) {
                pts.add(new double[] {m.size(), m.value()});
            }
        }
        pts.sort((x, y) -> Double.compare(x[0], y[0]));
        return new Series(name, pts);
    }

    private static void bandwidthPanel(StringBuilder b, List<Series> series) {
        b.append(text(WIDTH / 2, 25, "Bandwidth over 127.0.0.1, 1 QP / 1 stream (MB/s)", "middle", 15, "bold"));
        double minX = Math.log(64) / Math.log(2);
        double maxX = Math.log(4 << 20) / Math.log(2);
        double maxY = 1;
        for (Series s : series) {
            for (double[] p : s.points()) {
                maxY = Math.max(maxY, p[1]);
            }
        }
        maxY = niceCeiling(maxY);
        b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
                + "stroke=\"#999\"/>%n", PLOT_LEFT, PLOT_TOP, PLOT_RIGHT - PLOT_LEFT, PLOT_BOTTOM - PLOT_TOP));
        for (int i = 0; i <= 5; i++) {
            double v = maxY * i / 5;
            double y = py(v, maxY);
            b.append(line(PLOT_LEFT, y, PLOT_RIGHT, y, "#eee"));
            b.append(text(PLOT_LEFT - 6, y + 4, String.format(Locale.ROOT, "%.0f", v), "end", 11, "normal"));
        }
        for (int e = 6; e <= 22; e += 2) {
            double x = px(e, minX, maxX);
            b.append(line(x, PLOT_TOP, x, PLOT_BOTTOM, "#eee"));
            b.append(text(x, PLOT_BOTTOM + 16, Report.size(1L << e), "middle", 11, "normal"));
        }
        b.append(text((PLOT_LEFT + PLOT_RIGHT) / 2.0, PLOT_BOTTOM + 34, "message size", "middle", 12, "normal"));
        for (int i = 0; i < series.size(); i++) {
            Series s = series.get(i);
            String color = COLORS[i % COLORS.length];
            StringBuilder path = new StringBuilder();
            for (double[] p : s.points()) {
                double x = px(Math.log(p[0]) / Math.log(2), minX, maxX);
                double y = py(p[1], maxY);
                path.append(path.length() == 0 ? "M" : " L").append(String.format(Locale.ROOT, "%.1f %.1f", x, y));
                b.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>%n", x, y,
                        color));
            }
            b.append(String.format(Locale.ROOT, "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s/>%n",
                    path, color, i == 0 ? " stroke-dasharray=\"6 4\"" : ""));
            int ly = PLOT_TOP + 10 + i * 20;
            b.append(line(PLOT_RIGHT + 15, ly, PLOT_RIGHT + 40, ly, color, i == 0));
            b.append(text(PLOT_RIGHT + 46, ly + 4, s.name(), "start", 12, "normal"));
        }
    }

    private static void targetPanel(StringBuilder b, List<Measurement> targets) {
        b.append(text(WIDTH / 2, BAR_TOP - 20, "Targets: reached / required (1.0 = target met)", "middle", 15,
                "bold"));
        int labelRight = 330;
        int barLeft = 340;
        int barRight = 860;
        double maxScore = 2.0;
        double one = barLeft + (barRight - barLeft) / maxScore;
        int y = BAR_TOP;
        for (Measurement m : targets) {
            double score = score(m);
            double w = Math.max(1, Math.min(score, maxScore) / maxScore * (barRight - barLeft));
            String name = m.test() + " " + m.transport() + (m.size() > 0 ? " " + Report.size(m.size()) : "")
                    + (m.qps() > 1 ? " x" + m.qps() : "");
            b.append(text(labelRight, y + BAR_HEIGHT - 4, name, "end", 11, "normal"));
            b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>%n",
                    barLeft, y, w, BAR_HEIGHT, Boolean.TRUE.equals(m.met()) ? "#2ca02c" : "#d62728"));
            b.append(text(barLeft + w + 4, y + BAR_HEIGHT - 4, String.format(Locale.ROOT, "%.2f  (%s %s; %s)", score,
                    Report.num(m.value()), m.unit(), m.target()), "start", 10, "normal"));
            y += BAR_HEIGHT + BAR_GAP;
        }
        b.append(line(one, BAR_TOP - 5, one, y, "#000"));
    }

    /** Reached over required: above 1 when the target holds. */
    static double score(Measurement m) {
        return switch (m.group()) {
            case "bandwidth" -> m.ratio() / 0.9;
            case "latency" -> Math.min(1.3 / m.ratio(), 2.0 / m.p99Ratio());
            case "connect" -> m.value() / Bench.CONNECT_TARGET;
            case "memory" -> Bench.MEMORY_TARGET / Math.max(1.0, m.value());
            case "allocation" -> 1.0 / Math.max(0.5, m.value());
            case "process" -> factorScore(m);
            default -> Double.NaN;
        };
    }

    /** A ratio target's score ({@code ">= 0.9x ..."}, {@code "<= 1.3x ..."}), NaN for another kind. */
    private static double factorScore(Measurement m) {
        java.util.regex.Matcher x = java.util.regex.Pattern.compile("^([<>]=) ([0-9.]+)x").matcher(
                m.target() == null ? "" : m.target());
        if (!x.find()) {
            return Double.NaN;
        }
        double factor = Double.parseDouble(x.group(2));
        return x.group(1).equals(">=") ? m.ratio() / factor : factor / m.ratio();
    }

    private static double px(double log2, double min, double max) {
        return PLOT_LEFT + (log2 - min) / (max - min) * (PLOT_RIGHT - PLOT_LEFT);
    }

    private static double py(double v, double max) {
        return PLOT_BOTTOM - v / max * (PLOT_BOTTOM - PLOT_TOP);
    }

    private static double niceCeiling(double v) {
        double p = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[] {1, 2, 2.5, 5, 10}) {
            if (m * p >= v) {
                return m * p;
            }
        }
        return 10 * p;
    }

    private static String line(double x1, double y1, double x2, double y2, String color) {
        return line(x1, y1, x2, y2, color, false);
    }

    private static String line(double x1, double y1, double x2, double y2, String color, boolean dashed) {
        return String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"%s/>%n",
                x1, y1, x2, y2, color, dashed ? " stroke-dasharray=\"6 4\" stroke-width=\"2\"" : " stroke-width=\"1\"");
    }

    private static String text(double x, double y, String s, String anchor, int size, String weight) {
        return String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\" "
                + "font-weight=\"%s\">%s</text>%n", x, y, anchor, size, weight, escape(s));
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
