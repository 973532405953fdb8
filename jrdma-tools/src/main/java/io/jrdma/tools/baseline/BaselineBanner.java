package io.jrdma.tools.baseline;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;

import io.jrdma.tools.cli.Hosts;
import io.jrdma.tools.perf.BannerLines;
import io.jrdma.tools.perf.PerftestFormat;

/**
 * The settings banner of a baseline, in the layout of perftest's banner (see {@link BannerLines})
 * with the fields a socket test has: transport, I/O mode, buffers, the interface MTU, warm-up.
 */
final class BaselineBanner {

    private BaselineBanner() {
    }

    /**
     * The banner lines.
     *
     * @param tool the baseline
     * @param mode this side's I/O mode
     * @param server whether this is the server side
     * @param local the local address of the control connection (to find the interface MTU)
     * @param warmup the warm-up iterations (-1 automatic); ignored on the server
     * @param timed whether the run is timed (warm-up is then the margin)
     * @return the lines
     */
    static List<String> lines(BaselineTool tool, IoMode mode, boolean server, InetSocketAddress local, int warmup,
            boolean timed) {
        List<String> out = new ArrayList<>();
        out.add(PerftestFormat.RESULT_LINE);
        out.add(BannerLines.title(tool.title()));
        out.add(BannerLines.pair("Transport", tool.udp() ? "UDP" : "TCP", "I/O mode", mode.label()));
        out.add(BannerLines.pair("Connections", 1, "Buffers", "direct"));
        if (!tool.udp()) {
            out.add(BannerLines.field("TCP_NODELAY", "ON"));
        }
        out.add(BannerLines.field("Mtu", mtu(local.getAddress())));
        if (!server) {
            String w;
            if (timed) {
                w = "margin";
            } else if (warmup < 0) {
                w = "auto (" + BaselineSpec.WARMUP_MIN_ITERATIONS + ".." + BaselineSpec.WARMUP_MAX_ITERATIONS
                        + " iterations, <= " + (BaselineSpec.WARMUP_BYTES >> 20) + " MiB)";
            } else {
                w = warmup + " iterations";
            }
            out.add(BannerLines.field("Warm-up", w));
        }
        out.add(BannerLines.field("Data ex. method", "TCP control connection"));
        out.add(PerftestFormat.RESULT_LINE);
        return out;
    }

    /**
     * An address line, {@code " local address: 127.0.0.1 port 40000"}.
     *
     * @param side {@code "local"} or {@code "remote"}
     * @param a the address
     * @return the line
     */
    static String addressLine(String side, InetSocketAddress a) {
        return " " + side + " address: " + Hosts.literal(a.getAddress()) + " port " + a.getPort();
    }

    /**
     * The column header for a spec: bandwidth in its unit, latency by iterations or by duration.
     *
     * @param spec the spec
     * @return the header line
     */
    static String header(BaselineSpec spec) {
        if (spec.tool().bandwidth()) {
            return PerftestFormat.bwHeader(spec.unit());
        }
        return spec.timed() ? PerftestFormat.LAT_DURATION_HEADER : PerftestFormat.LAT_HEADER;
    }

    private static String mtu(InetAddress a) {
        try {
            NetworkInterface nif = NetworkInterface.getByInetAddress(a);
            if (nif != null && nif.getMTU() > 0) {
                return nif.getMTU() + "[B]";
            }
        } catch (SocketException e) {
            // fall through
        }
        return "unknown";
    }
}
