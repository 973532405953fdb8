package io.jrdma.tools.perftest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.jrdma.tools.perf.LatStats;
import io.jrdma.tools.perf.ReportUnit;
import io.jrdma.verbs.QpType;

/**
 * What a perftest-style run measures: the tool and perftest's flags, shared by the command line and
 * the in-process API ({@link PerfEngine}). Build one with {@link #builder(PerfTest)}; zero or -1
 * in the optional fields means "perftest's default for the device and test", resolved when the
 * run starts.
 *
 * @param test the tool
 * @param device {@code -d}: the device, or null for rdma_cm's choice by address
 * @param sizes message sizes run in order ({@code -s}, or {@code -a}'s 2..2^23, or jrdma's list)
 * @param allSizes whether this is perftest's {@code -a} (RUN_ALL): a Linux peer must be given
 *     {@code -a} too, and jrdma's {@code --sizes} runs the same way
 * @param iterations {@code -n}: messages (bandwidth) or round trips (latency) per QP and size
 * @param durationSeconds {@code -D}: run each size this long; 0 runs {@code iterations}
 * @param marginSeconds {@code -f}: warm-up and cool-down inside a {@code -D} run
 * @param numQps {@code -q}
 * @param txDepth {@code -t}; 0 for perftest's default
 * @param rxDepth {@code -r}; 0 for perftest's default
 * @param cqMod {@code -Q}; 0 for perftest's default
 * @param connection {@code -c}: RC or UD
 * @param port {@code -p}
 * @param unit MB/sec, or Gb/sec with {@code --report_gbits}
 * @param noPeak {@code -N}
 * @param events {@code -e}: sleep on a completion channel instead of busy-polling
 * @param inlineSize {@code -I}; -1 for the default (0: jrdma's devices are not in perftest's list)
 * @param outReads {@code -o}; 0 for the device's maximum
 * @param gidIndex {@code -x}; {@link #BEST_GID} (-1) for perftest's default on Ethernet link layers, the
 *     best GID with IPv4-mapped GIDs first, or {@link #BEST_IPV6_GID} (-2) for that with IPv6 GIDs first
 *     ({@code --ipv6})
 * @param mtu {@code -m} in bytes; 0 for the port's active MTU
 * @param compareAndSwap {@code -A CMP_AND_SWAP} (atomics; the default is FETCH_AND_ADD)
 * @param verify jrdma's {@code --verify}: fill the source buffers with a known pattern and check
 *     what landed (both sides must be jrdma)
 * @param timeout how long a peer may stay silent, and connection setup may take
 * @param duplex {@code -b}: both sides send (RDMA WRITE, READ and atomic bandwidth tests); the row is the
 *     sum of both sides' figures
 * @param reportBoth {@code --report-both}: with {@code -b}, also print each side's row
 * @param runInfinitely {@code --run_infinitely}: a bandwidth client that prints a row every
 *     {@code durationSeconds} until it is stopped
 * @param postList {@code -l}: WRs chained into one post (bandwidth tests); 1 posts them one by one
 * @param tos {@code -T}: the type of service of the data connections, or -1 ({@code rdma_set_option TOS})
 * @param qpTimeout {@code -u}: the RC data QPs' local ACK timeout (4.096 us &times; 2^t), or -1 for the
 *     connection manager's
 * @param sl {@code -S}: accepted and reported; in the rdma_cm mode the route sets the QP's service level
 * @param latency {@code -C}, {@code -H}, {@code -U}: how latency samples are reported
 * @param warmup {@code --warmup} (jrdma): untimed iterations before each measured run with a jrdma peer, 0 for
 *     none, {@link #AUTO_WARMUP} to pick them by size ({@link #warmupFor})
 */
public record PerfSpec(PerfTest test, String device, List<Integer> sizes, boolean allSizes, long iterations,
        int durationSeconds, int marginSeconds, int numQps, int txDepth, int rxDepth, int cqMod, QpType connection,
        int port, ReportUnit unit, boolean noPeak, boolean events, int inlineSize, int outReads, int gidIndex,
        int mtu, boolean compareAndSwap, boolean verify, Duration timeout, boolean duplex, boolean reportBoth,
        boolean runInfinitely, int postList, int tos, int qpTimeout, int sl, LatencyReport latency, int warmup) {

    /**
     * How a latency test reports its samples besides the row (perftest's {@code -C}, {@code -H},
     * {@code -U}).
     *
     * @param cycles {@code -C}: figures in CPU cycles instead of microseconds
     * @param histogram {@code -H}: every kept sample, sorted, before the row
     * @param unsorted {@code -U}: every sample in the order measured, before the row (implies {@code -H})
     */
    public record LatencyReport(boolean cycles, boolean histogram, boolean unsorted) {
        /** Plain rows in microseconds. */
        public static final LatencyReport PLAIN = new LatencyReport(false, false, false);

        /**
         * Whether any sample list or unit change was asked for.
         *
         * @return true unless plain
         */
        public boolean any() {
            return cycles || histogram || unsorted;
        }
    }

    /** perftest's default duration of a {@code --run_infinitely} period ({@code DEF_DURATION}). */
    public static final int DEFAULT_PERIOD = 5;

    /** perftest's largest service level ({@code MAX_SL}). */
    public static final int MAX_SL = 15;

    /** {@code -x} not given: perftest's {@code get_best_gid_index}, IPv4-mapped GIDs first. */
    public static final int BEST_GID = -1;

    /** {@code -x} not given, {@code --ipv6}: perftest's {@code get_best_gid_index} with IPv6 GIDs first. */
    public static final int BEST_IPV6_GID = -2;

    /** perftest's default port ({@code DEF_PORT}). */
    public static final int DEFAULT_PORT = 18515;

    /** perftest's largest message ({@code MAX_SIZE}, 8 MiB), the top of {@code -a}. */
    public static final int MAX_SIZE = 8 * 1024 * 1024;

    /** perftest's {@code MAX_ITER}. */
    public static final long MAX_ITERATIONS = 100_000_000;

    /** perftest's {@code MAX_TX}. */
    public static final int MAX_TX = 15_000;

    /** perftest's {@code MAX_RX}. */
    public static final int MAX_RX = 16_384;

    /** The most QPs jrdma runs in one test (perftest allows {@code MAX_QP_NUM} = 16384). */
    public static final int MAX_QPS = 256;

    /** perftest's default margin ({@code DEF_MARGIN}). */
    public static final int DEFAULT_MARGIN = 2;

    /** {@code --warmup} not given: {@link #warmupFor} picks the count by size. */
    public static final int AUTO_WARMUP = -1;

    /** An automatic warm-up moves at most about this many bytes (as the raw TCP/UDP tools' warm-up). */
    public static final long WARMUP_BYTES = 64L << 20;

    /** An automatic warm-up runs at most this many iterations, enough for the JIT to compile the loops. */
    public static final int WARMUP_MAX_ITERATIONS = 20_000;

    /** An automatic warm-up runs at least this many iterations. */
    public static final int WARMUP_MIN_ITERATIONS = 16;

    /** Default stall/setup timeout. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

    /**
     * Checks the spec as perftest's parser and {@code force_dependecies} do.
     *
     * @throws IllegalArgumentException with perftest's reason
     */
    public PerfSpec {
        if (test == null || sizes == null || connection == null || unit == null || timeout == null) {
            throw new IllegalArgumentException("test, sizes, connection, unit and timeout are required");
        }
        sizes = List.copyOf(sizes);
        if (warmup < AUTO_WARMUP || warmup > MAX_ITERATIONS) {
            throw new IllegalArgumentException("--warmup must be between 0 and " + MAX_ITERATIONS + " (got " + warmup
                    + ")");
        }
        if (sizes.isEmpty()) {
            throw new IllegalArgumentException("at least one size is required");
        }
        for (int s : sizes) {
            if (s < 1 || s > MAX_SIZE) {
                throw new IllegalArgumentException("size " + s + " is outside 1.." + MAX_SIZE);
            }
            if (test.verb() == io.jrdma.tools.perf.TestInfo.Verb.ATOMIC && s != PerfTest.ATOMIC_SIZE) {
                throw new IllegalArgumentException("Message size cannot be changed for Atomic tests");
            }
        }
        if (connection != QpType.RC && connection != QpType.UD) {
            throw new IllegalArgumentException("connection type must be RC or UD, not " + connection);
        }
        if (connection == QpType.UD && !test.usesReceives()) {
            throw new IllegalArgumentException("UD supports SEND tests only, not " + test.command());
        }
        if (durationSeconds < 0 || marginSeconds < 0) {
            throw new IllegalArgumentException("duration and margin must be >= 0");
        }
        if (durationSeconds > 0 && allSizes) {
            throw new IllegalArgumentException("Duration mode (-D) does not support running on all sizes (-a)");
        }
        if (durationSeconds > 0 && durationSeconds <= 2 * marginSeconds) {
            throw new IllegalArgumentException("the duration (-D " + durationSeconds + ") must be longer than twice "
                    + "the margin (-f " + marginSeconds + ")");
        }
        if (durationSeconds == 0 && (iterations < LatStats.MIN_ITERATIONS || iterations > MAX_ITERATIONS)) {
            throw new IllegalArgumentException("Iteration num must be between " + LatStats.MIN_ITERATIONS + " and "
                    + MAX_ITERATIONS + ", not " + iterations);
        }
        if (numQps < 1 || numQps > MAX_QPS) {
            throw new IllegalArgumentException("number of QPs must be 1.." + MAX_QPS + ", not " + numQps);
        }
        if (txDepth < 0 || txDepth > MAX_TX || rxDepth < 0 || rxDepth > MAX_RX || cqMod < 0 || cqMod > MAX_TX) {
            throw new IllegalArgumentException("tx depth must be 1.." + MAX_TX + ", rx depth 1.." + MAX_RX
                    + ", CQ moderation 1.." + MAX_TX);
        }
        if (port < 0 || port > 0xffff) {
            throw new IllegalArgumentException("port " + port + " is outside 0..65535");
        }
        if (inlineSize < -1 || outReads < 0 || gidIndex < BEST_IPV6_GID || mtu < 0) {
            throw new IllegalArgumentException("negative inline size, outstanding reads, GID index or MTU");
        }
        if (mtu != 0 && mtu != 256 && mtu != 512 && mtu != 1024 && mtu != 2048 && mtu != 4096) {
            throw new IllegalArgumentException("Invalid MTU - " + mtu + " (256, 512, 1024, 2048 or 4096)");
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive");
        }
        if (latency == null) {
            throw new IllegalArgumentException("latency report is required (LatencyReport.PLAIN)");
        }
        checkExtras(test, durationSeconds, iterations, cqMod, txDepth, connection, allSizes, events, verify, duplex,
                reportBoth, runInfinitely, postList, tos, qpTimeout, sl, latency);
    }

    private static void checkExtras(PerfTest test, int durationSeconds, long iterations, int cqMod, int txDepth,
            QpType connection, boolean allSizes, boolean events, boolean verify, boolean duplex, boolean reportBoth,
            boolean runInfinitely, int postList, int tos, int qpTimeout, int sl, LatencyReport latency) {
        if (duplex && !test.bandwidth()) {
            throw new IllegalArgumentException("-b/--bidirectional is for bandwidth tests");
        }
        if (duplex && test == PerfTest.SEND_BW) {
            throw new IllegalArgumentException("-b is not supported by send-bw: a bidirectional SEND test needs "
                    + "perftest's combined send-and-receive loop, which jrdma does not have (write-bw, read-bw and "
                    + "atomic-bw take -b)");
        }
        if (duplex && verify) {
            throw new IllegalArgumentException("--verify checks one direction; leave out -b");
        }
        if (reportBoth && !test.bandwidth()) {
            throw new IllegalArgumentException("--report-both is for bandwidth tests (with -b)");
        }
        if (runInfinitely) {
            if (!test.bandwidth()) {
                throw new IllegalArgumentException("run_infinitely exists only in BW tests for now.");
            }
            if (events) {
                throw new IllegalArgumentException("run_infinitely does not support events feature yet.");
            }
            if (test == PerfTest.SEND_BW) {
                throw new IllegalArgumentException("--run_infinitely is not supported by send-bw: its receiver and "
                        + "iWARP's SEND credits count per run (write-bw, read-bw and atomic-bw take it)");
            }
            if (allSizes || verify) {
                throw new IllegalArgumentException("--run_infinitely runs one size until stopped: leave out -a and "
                        + "--verify");
            }
        }
        if (postList < 1 || postList > MAX_TX) {
            throw new IllegalArgumentException("post list size (-l) must be 1.." + MAX_TX + ", not " + postList);
        }
        if (postList > 1) {
            if (!test.bandwidth()) {
                throw new IllegalArgumentException("Post list is supported in BW tests only");
            }
            if (durationSeconds == 0 && !runInfinitely && iterations % postList != 0) {
                throw new IllegalArgumentException("Number of iterations must be a multiple of post list size");
            }
            if (cqMod != 0 && postList % cqMod != 0) {
                throw new IllegalArgumentException("Post list size must be a multiple of CQ moderation");
            }
            if (txDepth != 0 && postList > txDepth) {
                throw new IllegalArgumentException("post list size (-l " + postList + ") must not exceed the TX depth "
                        + "(-t " + txDepth + "): a list is posted whole");
            }
        }
        if (tos < -1 || tos > 255) {
            throw new IllegalArgumentException("type of service (-T) is 0..255, not " + tos);
        }
        if (qpTimeout < -1 || qpTimeout > 31) {
            throw new IllegalArgumentException("QP timeout (-u) is 0..31 (4.096 us x 2^t), not " + qpTimeout);
        }
        if (qpTimeout != -1 && connection != QpType.RC) {
            throw new IllegalArgumentException("-u sets the ACK timeout of RC QPs; UD has none");
        }
        if (sl < -1 || sl > MAX_SL) {
            throw new IllegalArgumentException(" Service Level " + sl + " is out of range (0.." + MAX_SL + ")");
        }
        if (latency.any() && test.bandwidth()) {
            throw new IllegalArgumentException("-C, -H and -U are for latency tests");
        }
        if (latency.any() && durationSeconds > 0) {
            throw new IllegalArgumentException("-C, -H and -U report the samples of an iteration run; leave out -D");
        }
    }

    /**
     * The untimed iterations a jrdma peer pair runs before the measured run of {@code size}
     * ({@code --warmup}, a jrdma option; perftest has none, and runs against a perftest peer never warm up):
     * the JIT compiles the data path during them, so the figures are the steady state, as the raw TCP/UDP
     * tools' warm-up makes theirs. Automatic: {@link #WARMUP_BYTES} worth of messages, between
     * {@link #WARMUP_MIN_ITERATIONS} and {@link #WARMUP_MAX_ITERATIONS}. None for timed ({@code -D}) runs,
     * which warm up in their margin, or {@code --run_infinitely}.
     *
     * @param size the message size
     * @return iterations, 0 for none
     */
    public long warmupFor(int size) {
        if (timed() || runInfinitely || warmup == 0) {
            return 0;
        }
        if (warmup > 0) {
            return warmup;
        }
        long byBytes = WARMUP_BYTES / Math.max(1, size);
        return Math.max(WARMUP_MIN_ITERATIONS, Math.min(WARMUP_MAX_ITERATIONS, byBytes));
    }

    /**
     * A builder with perftest's defaults for a test.
     *
     * @param test the tool
     * @return the builder
     */
    public static Builder builder(PerfTest test) {
        return new Builder(test);
    }

    /**
     * A builder holding this spec's values.
     *
     * @return the builder
     */
    public Builder toBuilder() {
        Builder b = new Builder(test);
        b.device = device;
        b.sizes = sizes;
        b.allSizes = allSizes;
        b.iterations = iterations;
        b.durationSeconds = durationSeconds;
        b.marginSeconds = marginSeconds;
        b.numQps = numQps;
        b.txDepth = txDepth;
        b.rxDepth = rxDepth;
        b.cqMod = cqMod;
        b.connection = connection;
        b.port = port;
        b.unit = unit;
        b.noPeak = noPeak;
        b.events = events;
        b.inlineSize = inlineSize;
        b.outReads = outReads;
        b.gidIndex = gidIndex;
        b.mtu = mtu;
        b.compareAndSwap = compareAndSwap;
        b.verify = verify;
        b.timeout = timeout;
        b.duplex = duplex;
        b.reportBoth = reportBoth;
        b.runInfinitely = runInfinitely;
        b.postList = postList;
        b.tos = tos;
        b.qpTimeout = qpTimeout;
        b.sl = sl;
        b.latency = latency;
        b.warmup = warmup;
        return b;
    }

    /**
     * perftest's {@code -a} sizes: 2, 4, ... 2^23.
     *
     * @return the sizes
     */
    public static List<Integer> allSizesList() {
        List<Integer> l = new ArrayList<>();
        for (int i = 1; i < 24; i++) {
            l.add(1 << i);
        }
        return l;
    }

    /**
     * Whether each size runs for a duration.
     *
     * @return true for {@code -D}
     */
    public boolean timed() {
        return durationSeconds > 0;
    }

    /**
     * The largest size of the run.
     *
     * @return bytes
     */
    public int maxSize() {
        int m = 0;
        for (int s : sizes) {
            m = Math.max(m, s);
        }
        return m;
    }

    /**
     * Whether more than one size runs over one connection (perftest's RUN_ALL, or jrdma's list).
     *
     * @return true when the sizes are run in a loop
     */
    public boolean multiSize() {
        return allSizes || sizes.size() > 1;
    }

    /** Builds a {@link PerfSpec}; starts from perftest's defaults for the test. */
    public static final class Builder {
        private final PerfTest test;
        private String device;
        private List<Integer> sizes;
        private boolean allSizes;
        private long iterations;
        private int durationSeconds;
        private int marginSeconds;
        private int numQps = 1;
        private int txDepth;
        private int rxDepth;
        private int cqMod;
        private QpType connection = QpType.RC;
        private int port = DEFAULT_PORT;
        private ReportUnit unit = ReportUnit.MB_PER_SEC;
        private boolean noPeak;
        private boolean events;
        private int inlineSize = -1;
        private int outReads;
        private int gidIndex = -1;
        private int mtu;
        private boolean compareAndSwap;
        private boolean verify;
        private Duration timeout = DEFAULT_TIMEOUT;
        private boolean duplex;
        private boolean reportBoth;
        private boolean runInfinitely;
        private int postList = 1;
        private int tos = -1;
        private int qpTimeout = -1;
        private int sl = -1;
        private LatencyReport latency = LatencyReport.PLAIN;
        private int warmup = AUTO_WARMUP;

        private Builder(PerfTest test) {
            this.test = test;
            this.sizes = List.of(test.defaultSize());
            this.iterations = test.defaultIterations();
        }

        /**
         * Sets {@code -d}.
         *
         * @param v the device name, or null
         * @return this builder
         */
        public Builder device(String v) {
            device = v;
            return this;
        }

        /**
         * Sets one size ({@code -s}).
         *
         * @param v bytes
         * @return this builder
         */
        public Builder size(int v) {
            sizes = List.of(v);
            allSizes = false;
            return this;
        }

        /**
         * Sets a list of sizes run in turn over one connection (jrdma's {@code --sizes}).
         *
         * @param v the sizes
         * @return this builder
         */
        public Builder sizes(List<Integer> v) {
            sizes = v;
            allSizes = false;
            return this;
        }

        /**
         * Sets {@code -a}: every power of two from 2 to 2^23.
         *
         * @return this builder
         */
        public Builder allSizes() {
            sizes = allSizesList();
            allSizes = true;
            return this;
        }

        /**
         * Sets {@code -n}.
         *
         * @param v iterations
         * @return this builder
         */
        public Builder iterations(long v) {
            iterations = v;
            return this;
        }

        /**
         * Sets {@code -D} and {@code -f}.
         *
         * @param seconds the duration
         * @param margin the margin
         * @return this builder
         */
        public Builder duration(int seconds, int margin) {
            durationSeconds = seconds;
            marginSeconds = margin;
            return this;
        }

        /**
         * Sets {@code -q}.
         *
         * @param v QPs
         * @return this builder
         */
        public Builder numQps(int v) {
            numQps = v;
            return this;
        }

        /**
         * Sets {@code -t}.
         *
         * @param v TX depth, 0 for the default
         * @return this builder
         */
        public Builder txDepth(int v) {
            txDepth = v;
            return this;
        }

        /**
         * Sets {@code -r}.
         *
         * @param v RX depth, 0 for the default
         * @return this builder
         */
        public Builder rxDepth(int v) {
            rxDepth = v;
            return this;
        }

        /**
         * Sets {@code -Q}.
         *
         * @param v CQ moderation, 0 for the default
         * @return this builder
         */
        public Builder cqMod(int v) {
            cqMod = v;
            return this;
        }

        /**
         * Sets {@code -c}.
         *
         * @param v RC or UD
         * @return this builder
         */
        public Builder connection(QpType v) {
            connection = v;
            return this;
        }

        /**
         * Sets {@code -p}.
         *
         * @param v the port
         * @return this builder
         */
        public Builder port(int v) {
            port = v;
            return this;
        }

        /**
         * Sets the bandwidth unit ({@code --report_gbits}).
         *
         * @param v the unit
         * @return this builder
         */
        public Builder unit(ReportUnit v) {
            unit = v;
            return this;
        }

        /**
         * Sets {@code -N}.
         *
         * @param v no peak
         * @return this builder
         */
        public Builder noPeak(boolean v) {
            noPeak = v;
            return this;
        }

        /**
         * Sets {@code -e}.
         *
         * @param v events instead of busy-polling
         * @return this builder
         */
        public Builder events(boolean v) {
            events = v;
            return this;
        }

        /**
         * Sets {@code -I}.
         *
         * @param v inline bytes, -1 for the default
         * @return this builder
         */
        public Builder inlineSize(int v) {
            inlineSize = v;
            return this;
        }

        /**
         * Sets {@code -o}.
         *
         * @param v outstanding reads, 0 for the device maximum
         * @return this builder
         */
        public Builder outReads(int v) {
            outReads = v;
            return this;
        }

        /**
         * Sets {@code -x}.
         *
         * @param v GID index, {@link #BEST_GID} or {@link #BEST_IPV6_GID} for the default
         * @return this builder
         */
        public Builder gidIndex(int v) {
            gidIndex = v;
            return this;
        }

        /**
         * Sets {@code -m}.
         *
         * @param v MTU bytes, 0 for the port's
         * @return this builder
         */
        public Builder mtu(int v) {
            mtu = v;
            return this;
        }

        /**
         * Sets {@code -A CMP_AND_SWAP}.
         *
         * @param v compare-and-swap instead of fetch-and-add
         * @return this builder
         */
        public Builder compareAndSwap(boolean v) {
            compareAndSwap = v;
            return this;
        }

        /**
         * Sets jrdma's {@code --verify}.
         *
         * @param v fill and check the data
         * @return this builder
         */
        public Builder verify(boolean v) {
            verify = v;
            return this;
        }

        /**
         * Sets the stall and setup timeout.
         *
         * @param v the timeout
         * @return this builder
         */
        public Builder timeout(Duration v) {
            timeout = v;
            return this;
        }

        /**
         * Sets {@code -b}.
         *
         * @param v both sides send
         * @return this builder
         */
        public Builder duplex(boolean v) {
            duplex = v;
            return this;
        }

        /**
         * Sets {@code --report-both}.
         *
         * @param v also print each side's row of a {@code -b} run
         * @return this builder
         */
        public Builder reportBoth(boolean v) {
            reportBoth = v;
            return this;
        }

        /**
         * Sets {@code --run_infinitely}: a row every {@code periodSeconds} until stopped.
         *
         * @param periodSeconds the period ({@code -D}, perftest's default {@link #DEFAULT_PERIOD})
         * @return this builder
         */
        public Builder runInfinitely(int periodSeconds) {
            runInfinitely = true;
            durationSeconds = periodSeconds;
            marginSeconds = 0;
            return this;
        }

        /**
         * Sets {@code -l}.
         *
         * @param v WRs per post
         * @return this builder
         */
        public Builder postList(int v) {
            postList = v;
            return this;
        }

        /**
         * Sets {@code -T}.
         *
         * @param v the type of service, or -1
         * @return this builder
         */
        public Builder tos(int v) {
            tos = v;
            return this;
        }

        /**
         * Sets {@code -u}.
         *
         * @param v the ACK timeout exponent, or -1
         * @return this builder
         */
        public Builder qpTimeout(int v) {
            qpTimeout = v;
            return this;
        }

        /**
         * Sets {@code -S}.
         *
         * @param v the service level, or -1
         * @return this builder
         */
        public Builder sl(int v) {
            sl = v;
            return this;
        }

        /**
         * Sets {@code -C}, {@code -H}, {@code -U}.
         *
         * @param v how latency samples are reported
         * @return this builder
         */
        public Builder latency(LatencyReport v) {
            latency = v;
            return this;
        }

        /**
         * Sets {@code --warmup}.
         *
         * @param v untimed iterations before each measured run with a jrdma peer, 0 for none, or
         *     {@link #AUTO_WARMUP}
         * @return this builder
         */
        public Builder warmup(int v) {
            warmup = v;
            return this;
        }

        /**
         * Builds the spec.
         *
         * @return the spec
         * @throws IllegalArgumentException as {@link PerfSpec}'s constructor
         */
        public PerfSpec build() {
            return new PerfSpec(test, device, sizes, allSizes, iterations, durationSeconds, marginSeconds, numQps,
                    txDepth, rxDepth, cqMod, connection, port, unit, noPeak, events, inlineSize, outReads, gidIndex,
                    mtu, compareAndSwap, verify, timeout, duplex, reportBoth, runInfinitely, postList, tos, qpTimeout,
                    sl, latency, warmup);
        }
    }
}
