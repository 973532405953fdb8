package io.jrdma.tools.rping;

import java.net.InetSocketAddress;
import java.time.Duration;

import io.jrdma.tools.cli.Hosts;

/**
 * What one rping run does: rping's flags as {@code rping.c}'s {@code main} reads them.
 *
 * @param server {@code -s} (true) or {@code -c} (false)
 * @param address {@code -a}: the address to listen on (server; null for any) or connect to (client)
 * @param source {@code -I}: the client's source address, or null
 * @param count {@code -C}: pings to send, 0 for ever (the server serves until the client leaves)
 * @param size {@code -S}: ping data size, {@link #MIN_SIZE}..{@link #MAX_SIZE}
 * @param verbose {@code -v}: print the ping data
 * @param validate {@code -V}: compare the echoed data with what was sent
 * @param debug {@code -d}: debug lines
 * @param persistent {@code -P}: the server keeps accepting connections
 * @param device {@code -d NAME} is rping's debug flag, so jrdma takes the device as {@code --device};
 *     null for rdma_cm's choice by address
 * @param timeout how long a peer may stay silent once connected (and the client's connection
 *     setup may take)
 * @param acceptTimeout how long the server waits for a client; zero waits for ever
 */
public record RpingOptions(boolean server, InetSocketAddress address, InetSocketAddress source, int count, int size,
        boolean verbose, boolean validate, boolean debug, boolean persistent, String device, Duration timeout,
        Duration acceptTimeout) {

    /** rping's default port. */
    public static final int DEFAULT_PORT = 7174;

    /** rping's default ping data size. */
    public static final int DEFAULT_SIZE = 64;

    /**
     * The smallest size rping accepts, {@code RPING_MIN_BUFSIZE}: room for {@code "rdma-ping-%d: "}
     * with the largest int (the sizes of the two strings with their NULs, 11 + 15).
     */
    public static final int MIN_SIZE = 26;

    /** The largest size rping accepts ({@code RPING_BUFSIZE - 1}). */
    public static final int MAX_SIZE = 64 * 1024 - 1;

    /** The send queue depth ({@code RPING_SQ_DEPTH}). */
    public static final int SQ_DEPTH = 16;

    /** Default peer-silence timeout. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException on a size outside rping's range, a negative count, or a
     *     client without an address
     */
    public RpingOptions {
        if (size < MIN_SIZE || size > MAX_SIZE) {
            throw new IllegalArgumentException("Invalid size " + size + " (valid range is " + MIN_SIZE + " to "
                    + (MAX_SIZE + 1) + ")");
        }
        if (count < 0) {
            throw new IllegalArgumentException("Invalid count " + count);
        }
        if (!server && address == null) {
            throw new IllegalArgumentException("a client needs the server's address (-a)");
        }
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive");
        }
        if (acceptTimeout == null || acceptTimeout.isNegative()) {
            throw new IllegalArgumentException("accept timeout must be >= 0");
        }
    }

    /**
     * The peer as printed in messages, e.g. {@code 127.0.0.1:7174}.
     *
     * @return the text
     */
    public String peer() {
        return address == null ? "*:?" : Hosts.endpoint(address);
    }
}
