package io.jrdma.siw;

import java.time.Duration;

/**
 * The knobs of the iWARP transport. Linux siw compiles these in ({@code siw_main.c}: CRC not
 * required, MPA revision 2, no peer-to-peer, Nagle off; {@code siw_cm.c}: both RTR types offered in
 * peer-to-peer mode, MPA timeouts 10 s / 5 s); jrdma reads them from system properties named
 * {@code jrdma.siw.*} so a test or a user can change them.
 *
 * @param mpaRevision MPA revision of requests: 2 (enhanced, RFC 6581) or 1 ({@code jrdma.siw.mpaRevision})
 * @param crcRequired ask for CRC32c and refuse a peer that will not use it ({@code jrdma.siw.crc})
 * @param peerToPeer offer peer-to-peer RTR in requests ({@code jrdma.siw.p2p})
 * @param rtr the RTR messages offered in peer-to-peer mode ({@code jrdma.siw.rtr}: write, read or any)
 * @param initiatorTimeout how long an initiator waits for the MPA reply (siw: 10 s,
 *     {@code jrdma.siw.mpaReqTimeoutMs})
 * @param responderTimeout how long a responder waits for the MPA request (siw: 5 s,
 *     {@code jrdma.siw.mpaRepTimeoutMs})
 * @param engines number of engine threads QPs are spread over
 * @param busyPoll whether engines spin instead of backing off ({@code jrdma.siw.busyPoll})
 * @param applicationDriven whether the threads that post and poll run the engine (default; {@code
 *     jrdma.siw.appDriven=false} hands every post and every receive to the engine's thread instead)
 * @param maxSegment largest FPDU on the wire; 0 = the path MSS as TCP reports it ({@code jrdma.siw.maxSegment})
 * @param tcpCongestion the TCP congestion control of the QPs' sockets, or {@code null} for the kernel's default
 *     ({@code jrdma.siw.tcpCongestion}; Linux only, see {@link #withTcpCongestion})
 */
public record SiwConfig(int mpaRevision, boolean crcRequired, boolean peerToPeer, Rtr rtr, Duration initiatorTimeout,
        Duration responderTimeout, int engines, boolean busyPoll, boolean applicationDriven, int maxSegment,
        String tcpCongestion) {
    /** siw's MPA reply timeout for the initiator ({@code MPAREQ_TIMEOUT}). */
    public static final Duration MPA_REQ_TIMEOUT = Duration.ofSeconds(10);
    /** siw's MPA request timeout for the responder ({@code MPAREP_TIMEOUT}). */
    public static final Duration MPA_REP_TIMEOUT = Duration.ofSeconds(5);
    /** The smallest FPDU a configured segment size may ask for: a READ request and its trailer. */
    public static final int MIN_SEGMENT = 64;

    /**
     * The ready-to-receive (RTR) messages an initiator offers in peer-to-peer mode (RFC 6581 §5: the W
     * and R bits; siw's {@code rtr_type} offers both, and sends no zero-length SEND).
     */
    public enum Rtr {
        /** A zero-length RDMA WRITE. */
        WRITE,
        /** A zero-length RDMA READ. */
        READ,
        /** Either; the responder chooses (siw prefers the WRITE). */
        ANY;

        /** Whether a zero-length RDMA WRITE is offered. */
        public boolean write() {
            return this != READ;
        }

        /** Whether a zero-length RDMA READ is offered. */
        public boolean read() {
            return this != WRITE;
        }
    }

    /** Validates the values. */
    public SiwConfig {
        if (mpaRevision != 1 && mpaRevision != 2) {
            throw new IllegalArgumentException("MPA revision must be 1 or 2: " + mpaRevision);
        }
        if (rtr == null) {
            throw new IllegalArgumentException("rtr must not be null");
        }
        if (initiatorTimeout == null || responderTimeout == null || initiatorTimeout.isNegative()
                || initiatorTimeout.isZero() || responderTimeout.isNegative() || responderTimeout.isZero()) {
            throw new IllegalArgumentException("MPA timeouts must be positive: " + initiatorTimeout + ", "
                    + responderTimeout);
        }
        if (engines < 1) {
            throw new IllegalArgumentException("at least one engine: " + engines);
        }
        if (maxSegment < 0 || maxSegment > 0 && maxSegment < MIN_SEGMENT) {
            throw new IllegalArgumentException("maxSegment must be 0 (the path MSS) or at least " + MIN_SEGMENT + ": "
                    + maxSegment);
        }
        if (tcpCongestion != null) {
            TcpCongestion.checkName(tcpCongestion);
        }
    }

    /** Linux siw's defaults (MPA v2, no CRC, no peer-to-peer, 10 s / 5 s, the path MSS), one engine, app-driven. */
    public static SiwConfig defaults() {
        return new SiwConfig(2, false, false, Rtr.ANY, MPA_REQ_TIMEOUT, MPA_REP_TIMEOUT, 1, false, true, 0,
                null);
    }

    /** The configuration from system properties, with Linux siw's defaults. */
    public static SiwConfig fromSystemProperties() {
        return new SiwConfig(Integer.getInteger("jrdma.siw.mpaRevision", 2),
                Boolean.getBoolean("jrdma.siw.crc"),
                Boolean.getBoolean("jrdma.siw.p2p"),
                Rtr.valueOf(System.getProperty("jrdma.siw.rtr", "any").strip().toUpperCase(java.util.Locale.ROOT)),
                Duration.ofMillis(Long.getLong("jrdma.siw.mpaReqTimeoutMs", MPA_REQ_TIMEOUT.toMillis())),
                Duration.ofMillis(Long.getLong("jrdma.siw.mpaRepTimeoutMs", MPA_REP_TIMEOUT.toMillis())),
                Integer.getInteger("jrdma.siw.engines", 1),
                Boolean.getBoolean("jrdma.siw.busyPoll"),
                !"false".equals(System.getProperty("jrdma.siw.appDriven", "true").strip()),
                Integer.getInteger("jrdma.siw.maxSegment", 0),
                congestionProperty());
    }

    /** This configuration with MPA revision {@code revision} (1 or 2). */
    public SiwConfig withMpaRevision(int revision) {
        return new SiwConfig(revision, crcRequired, peerToPeer, rtr, initiatorTimeout, responderTimeout, engines,
                busyPoll, applicationDriven, maxSegment, tcpCongestion);
    }

    /** This configuration requiring CRC32c or not. */
    public SiwConfig withCrcRequired(boolean crc) {
        return new SiwConfig(mpaRevision, crc, peerToPeer, rtr, initiatorTimeout, responderTimeout, engines,
                busyPoll, applicationDriven, maxSegment, tcpCongestion);
    }

    /** This configuration offering peer-to-peer mode with {@code types} as RTR, or not ({@code null}). */
    public SiwConfig withPeerToPeer(Rtr types) {
        return new SiwConfig(mpaRevision, crcRequired, types != null, types != null ? types : rtr, initiatorTimeout,
                responderTimeout, engines, busyPoll, applicationDriven, maxSegment, tcpCongestion);
    }

    /** This configuration with other MPA timeouts. */
    public SiwConfig withTimeouts(Duration initiator, Duration responder) {
        return new SiwConfig(mpaRevision, crcRequired, peerToPeer, rtr, initiator, responder, engines, busyPoll,
                applicationDriven, maxSegment, tcpCongestion);
    }

    /** This configuration with FPDUs of at most {@code bytes} (0: the path MSS). */
    public SiwConfig withMaxSegment(int bytes) {
        return new SiwConfig(mpaRevision, crcRequired, peerToPeer, rtr, initiatorTimeout, responderTimeout, engines,
                busyPoll, applicationDriven, bytes, tcpCongestion);
    }

    /**
     * This configuration with the QPs' sockets on TCP congestion control {@code algorithm} ({@code null}:
     * the kernel's default). Linux siw's sockets take the system's default; jrdma can choose, because on a
     * host running BBR without an fq qdisc, loopback streams reorder and retransmit spuriously (see
     * docs/design/007-tcp-congestion-control.md) and {@code reno} streams them at full rate. The
     * listener's choice is inherited by the connections it accepts; an active side sets it before it
     * connects. A name the kernel does not have or does not allow to the process fails {@code listen} and
     * {@code connect} with a message naming it.
     */
    public SiwConfig withTcpCongestion(String algorithm) {
        return new SiwConfig(mpaRevision, crcRequired, peerToPeer, rtr, initiatorTimeout, responderTimeout, engines,
                busyPoll, applicationDriven, maxSegment, algorithm);
    }

    /** {@code jrdma.siw.tcpCongestion}, blank or absent meaning the kernel's default. */
    private static String congestionProperty() {
        String v = System.getProperty("jrdma.siw.tcpCongestion", "").strip();
        return v.isEmpty() ? null : v;
    }
}
