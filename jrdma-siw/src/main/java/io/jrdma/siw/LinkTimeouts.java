package io.jrdma.siw;

import java.time.Duration;

/**
 * How a siw QP finds out that its TCP connection is dead (nothing may wait past a configured
 * timeout). iWARP has no acknowledgements of its own (RFC 5040): Linux siw relies on TCP alone, so a
 * peer that vanished, a link that went down or a peer that stopped reading holds a QP for TCP's
 * retransmission timeout (about 15 minutes with Linux's {@code tcp_retries2}), or for ever when the
 * connection is idle or the peer keeps advertising a zero window. jrdma bounds both, with two
 * mechanisms, since Java cannot set {@code TCP_USER_TIMEOUT}:
 * <ul>
 *   <li><b>stall</b>: while the QP waits on the peer — bytes of its own not yet taken by the socket
 *       (the send buffer is full), or RDMA READs not yet answered — and not one byte went out or came
 *       in for {@code stall}, the connection is declared dead: QP to ERROR with QP_FATAL, every WR
 *       flushed, the socket reset, and the iw_cm told (CLOSE with -ETIMEDOUT, rdma_cm DISCONNECTED);</li>
 *   <li><b>keepalive</b>: TCP keepalive on every connection, so an idle connection whose peer is gone
 *       fails after {@code keepIdle + keepInterval × keepCount} (the read then fails and the QP goes to
 *       ERROR as for a reset).</li>
 * </ul>
 * What neither covers: a link that dies after every byte was handed to TCP and while no READ is
 * outstanding; TCP retransmits then, keepalive is off while data is unacknowledged, and the QP has no
 * work that waits — its posted receives wait as they would on a live, quiet connection until TCP gives
 * up. System properties: {@code jrdma.siw.stallTimeoutMs} (0 disables), {@code jrdma.siw.keepIdleS},
 * {@code jrdma.siw.keepIntervalS}, {@code jrdma.siw.keepCount} (idle 0 disables keepalive).
 *
 * @param stall no-progress time after which a QP waiting on its peer gives the connection up; zero
 *     disables the check
 * @param keepIdle idle time before the first keepalive probe; zero disables keepalive
 * @param keepInterval time between keepalive probes
 * @param keepCount unanswered probes before TCP gives up
 */
public record LinkTimeouts(Duration stall, Duration keepIdle, Duration keepInterval, int keepCount) {
    /** Default stall timeout: a minute without a byte while the QP waits on the peer. */
    public static final Duration DEFAULT_STALL = Duration.ofSeconds(60);
    /** Default keepalive idle time. */
    public static final Duration DEFAULT_KEEP_IDLE = Duration.ofSeconds(60);
    /** Default keepalive probe interval. */
    public static final Duration DEFAULT_KEEP_INTERVAL = Duration.ofSeconds(10);
    /** Default number of unanswered keepalive probes. */
    public static final int DEFAULT_KEEP_COUNT = 5;

    /** Checks the values. */
    public LinkTimeouts {
        if (stall == null || keepIdle == null || keepInterval == null || stall.isNegative() || keepIdle.isNegative()
                || keepInterval.isNegative()) {
            throw new IllegalArgumentException("link timeouts must be zero or positive: " + stall + ", " + keepIdle
                    + ", " + keepInterval);
        }
        if (!keepIdle.isZero() && (keepInterval.toSeconds() < 1 || keepIdle.toSeconds() < 1 || keepCount < 1)) {
            throw new IllegalArgumentException("keepalive needs whole seconds and at least one probe: idle "
                    + keepIdle + ", interval " + keepInterval + ", count " + keepCount);
        }
    }

    /** The defaults: 60 s stall, keepalive after 60 s idle, 5 probes 10 s apart. */
    public static LinkTimeouts defaults() {
        return new LinkTimeouts(DEFAULT_STALL, DEFAULT_KEEP_IDLE, DEFAULT_KEEP_INTERVAL, DEFAULT_KEEP_COUNT);
    }

    /** The timeouts from system properties, with the defaults. */
    public static LinkTimeouts fromSystemProperties() {
        return new LinkTimeouts(Duration.ofMillis(Long.getLong("jrdma.siw.stallTimeoutMs", DEFAULT_STALL.toMillis())),
                Duration.ofSeconds(Long.getLong("jrdma.siw.keepIdleS", DEFAULT_KEEP_IDLE.toSeconds())),
                Duration.ofSeconds(Long.getLong("jrdma.siw.keepIntervalS", DEFAULT_KEEP_INTERVAL.toSeconds())),
                Integer.getInteger("jrdma.siw.keepCount", DEFAULT_KEEP_COUNT));
    }

    /** The longest an idle connection to a vanished peer lives, with keepalive on. */
    public Duration keepaliveDetection() {
        return keepIdle.plus(keepInterval.multipliedBy(keepCount));
    }
}
