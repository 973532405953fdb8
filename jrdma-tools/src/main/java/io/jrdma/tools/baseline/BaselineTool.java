package io.jrdma.tools.baseline;

import java.util.ArrayList;
import java.util.List;

import io.jrdma.tools.cli.SizeConverter;

/**
 * The four raw baselines: TCP and UDP, bandwidth and latency.
 */
public enum BaselineTool {
    /** TCP streaming bandwidth. */
    TCP_BW("tcp-bw", "TCP BW Test", false, true, 65_536),
    /** TCP ping-pong latency. */
    TCP_LAT("tcp-lat", "TCP Latency Test", false, false, 2),
    /** UDP datagram bandwidth. */
    UDP_BW("udp-bw", "UDP BW Test", true, true, BaselineTool.MAX_UDP_PAYLOAD),
    /** UDP ping-pong latency. */
    UDP_LAT("udp-lat", "UDP Latency Test", true, false, 2);

    /** The largest UDP payload over IPv4: 65,535 &minus; 20 (IPv4) &minus; 8 (UDP). */
    public static final int MAX_UDP_PAYLOAD = 65_507;

    /** The largest size of {@code -a}, perftest's {@code MAX_SIZE} (2<sup>23</sup>). */
    public static final int MAX_ALL_SIZE = 1 << 23;

    /** perftest's default iterations for bandwidth tests ({@code DEF_ITERS_WB}). */
    public static final long DEFAULT_BW_ITERATIONS = 5000;

    /** perftest's default iterations for latency tests ({@code DEF_ITERS}). */
    public static final long DEFAULT_LAT_ITERATIONS = 1000;

    private final String command;
    private final String title;
    private final boolean udp;
    private final boolean bandwidth;
    private final int defaultSize;

    BaselineTool(String command, String title, boolean udp, boolean bandwidth, int defaultSize) {
        this.command = command;
        this.title = title;
        this.udp = udp;
        this.bandwidth = bandwidth;
        this.defaultSize = defaultSize;
    }

    /**
     * The subcommand name.
     *
     * @return e.g. {@code "tcp-bw"}
     */
    public String command() {
        return command;
    }

    /**
     * The banner title.
     *
     * @return e.g. {@code "TCP BW Test"}
     */
    public String title() {
        return title;
    }

    /**
     * Whether the data goes over UDP.
     *
     * @return true for UDP
     */
    public boolean udp() {
        return udp;
    }

    /**
     * Whether this is a bandwidth (streaming) test rather than a ping-pong.
     *
     * @return true for bandwidth
     */
    public boolean bandwidth() {
        return bandwidth;
    }

    /**
     * The default message size: perftest's 65,536 for bandwidth and 2 for latency; the largest
     * datagram for UDP bandwidth.
     *
     * @return bytes
     */
    public int defaultSize() {
        return defaultSize;
    }

    /**
     * The default iteration count, perftest's.
     *
     * @return iterations
     */
    public long defaultIterations() {
        return bandwidth ? DEFAULT_BW_ITERATIONS : DEFAULT_LAT_ITERATIONS;
    }

    /**
     * The largest message this tool can carry.
     *
     * @return bytes
     */
    public int maxSize() {
        return udp ? MAX_UDP_PAYLOAD : SizeConverter.MAX_SIZE;
    }

    /**
     * The sizes of {@code -a}: powers of two from 2 to 2<sup>23</sup> as perftest, stopping at the
     * largest datagram for UDP.
     *
     * @return the sizes in increasing order
     */
    public List<Integer> allSizes() {
        List<Integer> sizes = new ArrayList<>();
        for (int s = 2; s <= MAX_ALL_SIZE && s <= maxSize(); s <<= 1) {
            sizes.add(s);
        }
        return List.copyOf(sizes);
    }
}
