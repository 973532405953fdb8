package io.jrdma.tools.cmatose;

import java.net.InetSocketAddress;
import java.time.Duration;

import io.jrdma.tools.cli.Hosts;

/**
 * What one ucmatose or udaddy run does, as their {@code main}s read the flags.
 *
 * @param server whether this is the server (no {@code -s})
 * @param serverAddress {@code -s}: the server to connect to (client), or null
 * @param bindAddress {@code -b}: the address to bind to, or null
 * @param connections {@code -c}
 * @param messageCount {@code -C}
 * @param messageSize {@code -S}
 * @param tos {@code -t}, or -1
 * @param device jrdma's {@code --device}, or null for rdma_cm's choice by address
 * @param timeout how long any step may take
 * @param timings jrdma's {@code --timings}: print how long the connection steps took
 */
public record CmatoseOptions(boolean server, InetSocketAddress serverAddress, InetSocketAddress bindAddress,
        int connections, int messageCount, int messageSize, int tos, String device, Duration timeout,
        boolean timings) {

    /** ucmatose's default port. */
    public static final int CMATOSE_PORT = 7471;

    /** udaddy's default port. */
    public static final int UDADDY_PORT = 7174;

    /** The most connections jrdma opens in one run. */
    public static final int MAX_CONNECTIONS = 4096;

    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException on a count or size out of range
     */
    public CmatoseOptions {
        if (connections < 1 || connections > MAX_CONNECTIONS) {
            throw new IllegalArgumentException("connections (-c) must be 1.." + MAX_CONNECTIONS);
        }
        if (messageCount < 0 || messageSize < 0) {
            throw new IllegalArgumentException("message count (-C) and size (-S) must be >= 0");
        }
        if (!server && serverAddress == null) {
            throw new IllegalArgumentException("a client needs the server address (-s)");
        }
        if (timeout == null || timeout.isZero() || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be positive");
        }
    }

    /**
     * The messages each connection exchanges: none when the size is 0 (as {@code create_message}).
     *
     * @return the count
     */
    public int messages() {
        return messageSize == 0 ? 0 : messageCount;
    }

    /**
     * The peer as printed in messages.
     *
     * @return e.g. {@code 127.0.0.1:7471}
     */
    public String peer() {
        InetSocketAddress a = server ? bindAddress : serverAddress;
        return a == null ? "*" : Hosts.endpoint(a);
    }
}
