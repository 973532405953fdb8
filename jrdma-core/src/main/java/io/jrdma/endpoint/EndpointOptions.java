package io.jrdma.endpoint;

import io.jrdma.cm.ConnParam;
import java.time.Duration;
import java.util.Objects;

/**
 * How an {@link Endpoint} is built: its registered message buffers, its connection parameters, the
 * bound on its waits, and where its completions go. Immutable; change a copy with the {@code with}
 * methods: {@code EndpointOptions.defaults().withMessageSize(64 * 1024).withSlots(16, 32)}.
 *
 * @param messageSize the size of each registered message buffer: the largest message {@link Endpoint#send}
 *     takes and {@link Endpoint#receive} delivers (default 4 KiB)
 * @param sendSlots message buffers for sends: how many sends may be outstanding (default 8)
 * @param recvSlots message buffers for receives, all posted while connected: how many messages the peer may
 *     send before this side takes one (default 8)
 * @param connParam what connect and accept offer (default {@link ConnParam#defaults()})
 * @param timeout the bound on resolving, connecting, accepting and on waiting for a free send buffer
 *     (default 10 s)
 * @param completions the shared completions the endpoint joins, or {@code null} (the default) for
 *     completions of its own, delivered by a thread of its own
 * @param handler receives every message on the completions' thread, or {@code null} (the default) to take
 *     messages with {@link Endpoint#receive} and {@link Endpoint#poll}
 */
public record EndpointOptions(int messageSize, int sendSlots, int recvSlots, ConnParam connParam, Duration timeout,
        CompletionGroup completions, MessageHandler handler) {
    /** The default size of a message buffer. */
    public static final int DEFAULT_MESSAGE_SIZE = 4096;
    /** The default number of send and of receive buffers. */
    public static final int DEFAULT_SLOTS = 8;
    /** The default bound on waits. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
    /** The most buffers of one kind: a QP's queue holds them all. */
    public static final int MAX_SLOTS = 4096;

    /** Checks the values. */
    public EndpointOptions {
        if (messageSize < 1) {
            throw new IllegalArgumentException("messageSize must be at least 1 byte: " + messageSize);
        }
        if (sendSlots < 1 || sendSlots > MAX_SLOTS || recvSlots < 1 || recvSlots > MAX_SLOTS) {
            throw new IllegalArgumentException("send and receive slots must be 1.." + MAX_SLOTS + ": " + sendSlots
                    + ", " + recvSlots);
        }
        if ((long) messageSize * Math.max(sendSlots, recvSlots) > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("messageSize x slots exceeds 2 GiB: " + messageSize + " x "
                    + Math.max(sendSlots, recvSlots));
        }
        Objects.requireNonNull(connParam, "connParam");
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
    }

    /** 4 KiB messages, 8 send and 8 receive buffers, librdmacm's connection parameters, 10 s waits. */
    public static EndpointOptions defaults() {
        return new EndpointOptions(DEFAULT_MESSAGE_SIZE, DEFAULT_SLOTS, DEFAULT_SLOTS, ConnParam.defaults(),
                DEFAULT_TIMEOUT, null, null);
    }

    /** These options with message buffers of {@code bytes}. */
    public EndpointOptions withMessageSize(int bytes) {
        return new EndpointOptions(bytes, sendSlots, recvSlots, connParam, timeout, completions, handler);
    }

    /** These options with {@code send} send buffers and {@code recv} receive buffers. */
    public EndpointOptions withSlots(int send, int recv) {
        return new EndpointOptions(messageSize, send, recv, connParam, timeout, completions, handler);
    }

    /** These options offering {@code param} on connect and accept (private data, IRD/ORD, retries). */
    public EndpointOptions withConnParam(ConnParam param) {
        return new EndpointOptions(messageSize, sendSlots, recvSlots, param, timeout, completions, handler);
    }

    /** These options with waits bounded by {@code bound}. */
    public EndpointOptions withTimeout(Duration bound) {
        return new EndpointOptions(messageSize, sendSlots, recvSlots, connParam, bound, completions, handler);
    }

    /** These options joining {@code group}'s shared completions ({@code null}: the endpoint's own). */
    public EndpointOptions withCompletions(CompletionGroup group) {
        return new EndpointOptions(messageSize, sendSlots, recvSlots, connParam, timeout, group, handler);
    }

    /** These options delivering messages to {@code h} ({@code null}: to receive and poll). */
    public EndpointOptions withHandler(MessageHandler h) {
        return new EndpointOptions(messageSize, sendSlots, recvSlots, connParam, timeout, completions, h);
    }
}
