package io.jrdma.tools.perftest;

import io.jrdma.tools.perf.LatStats;
import io.jrdma.tools.perf.TestInfo.Kind;
import io.jrdma.tools.perf.TestInfo.Verb;

/**
 * The perftest tools jrdma implements, each an operation (verb) and a test kind, with perftest's
 * defaults for them ({@code src/perftest_parameters.c}, {@code init_perftest_params} and
 * {@code force_dependecies}, v4.5-0.20).
 */
public enum PerfTest {
    /** {@code ib_send_bw}. */
    SEND_BW("send-bw", "ib_send_bw", Verb.SEND, Kind.BW),
    /** {@code ib_write_bw}. */
    WRITE_BW("write-bw", "ib_write_bw", Verb.WRITE, Kind.BW),
    /** {@code ib_read_bw}. */
    READ_BW("read-bw", "ib_read_bw", Verb.READ, Kind.BW),
    /** {@code ib_atomic_bw}. */
    ATOMIC_BW("atomic-bw", "ib_atomic_bw", Verb.ATOMIC, Kind.BW),
    /** {@code ib_send_lat}. */
    SEND_LAT("send-lat", "ib_send_lat", Verb.SEND, Kind.LAT),
    /** {@code ib_write_lat}. */
    WRITE_LAT("write-lat", "ib_write_lat", Verb.WRITE, Kind.LAT),
    /** {@code ib_read_lat}. */
    READ_LAT("read-lat", "ib_read_lat", Verb.READ, Kind.LAT);

    /** perftest's default bandwidth message size ({@code DEF_SIZE_BW}). */
    public static final int DEFAULT_SIZE_BW = 65536;

    /** perftest's default latency message size ({@code DEF_SIZE_LAT}). */
    public static final int DEFAULT_SIZE_LAT = 2;

    /** The only size atomics move ({@code DEF_SIZE_ATOMIC}). */
    public static final int ATOMIC_SIZE = 8;

    /** perftest's default iterations ({@code DEF_ITERS}). */
    public static final int DEFAULT_ITERS = 1000;

    /** perftest's default iterations of ib_write_bw ({@code DEF_ITERS_WB}). */
    public static final int DEFAULT_ITERS_WRITE_BW = 5000;

    /** Bandwidth TX depth ({@code DEF_TX_BW}). */
    public static final int DEFAULT_TX_BW = 128;

    /** Latency TX depth ({@code DEF_TX_LAT}). */
    public static final int DEFAULT_TX_LAT = 1;

    /** SEND receive depth ({@code DEF_RX_SEND}). */
    public static final int DEFAULT_RX_SEND = 512;

    /** RDMA receive depth ({@code DEF_RX_RDMA}). */
    public static final int DEFAULT_RX_RDMA = 1;

    private final String command;
    private final String linuxName;
    private final Verb verb;
    private final Kind kind;

    PerfTest(String command, String linuxName, Verb verb, Kind kind) {
        this.command = command;
        this.linuxName = linuxName;
        this.verb = verb;
        this.kind = kind;
    }

    /**
     * The jrdma subcommand, e.g. {@code write-bw}.
     *
     * @return the name
     */
    public String command() {
        return command;
    }

    /**
     * The perftest program, e.g. {@code ib_write_bw}.
     *
     * @return the name
     */
    public String linuxName() {
        return linuxName;
    }

    /**
     * The operation measured.
     *
     * @return the verb
     */
    public Verb verb() {
        return verb;
    }

    /**
     * Bandwidth or latency.
     *
     * @return the kind
     */
    public Kind kind() {
        return kind;
    }

    /**
     * Whether this is a bandwidth test.
     *
     * @return true for {@code *_bw}
     */
    public boolean bandwidth() {
        return kind == Kind.BW;
    }

    /**
     * perftest's default message size for the test.
     *
     * @return bytes
     */
    public int defaultSize() {
        if (verb == Verb.ATOMIC) {
            return ATOMIC_SIZE;
        }
        return bandwidth() ? DEFAULT_SIZE_BW : DEFAULT_SIZE_LAT;
    }

    /**
     * perftest's default iteration count.
     *
     * @return iterations
     */
    public int defaultIterations() {
        return this == WRITE_BW ? DEFAULT_ITERS_WRITE_BW : DEFAULT_ITERS;
    }

    /**
     * The round-trip factor of a latency sample.
     *
     * @return 2 for SEND and WRITE ping-pong, 1 for READ and atomics
     */
    public int rttFactor() {
        return verb == Verb.SEND || verb == Verb.WRITE ? LatStats.RTT_FACTOR_PING_PONG : LatStats.RTT_FACTOR_READ;
    }

    /**
     * Whether the test needs receive buffers on the passive side.
     *
     * @return true for SEND
     */
    public boolean usesReceives() {
        return verb == Verb.SEND;
    }

    /**
     * The test for a subcommand name.
     *
     * @param command e.g. {@code read-lat}
     * @return the test
     * @throws IllegalArgumentException for an unknown name
     */
    public static PerfTest ofCommand(String command) {
        for (PerfTest t : values()) {
            if (t.command.equals(command)) {
                return t;
            }
        }
        throw new IllegalArgumentException("no perftest tool " + command);
    }
}
