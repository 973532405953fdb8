package io.jrdma.siw;

import java.time.Duration;

/**
 * The knobs of the iWARP transport. Linux siw compiles these in ({@code siw_main.c}: CRC not
 * required, MPA revision 2, no peer-to-peer, Nagle off); jrdma reads them from system properties
 * named {@code jrdma.siw.*} so a test or a user can change them.
 *
 * @param mpaRevision MPA revision of requests: 2 (enhanced, RFC 6581) or 1 ({@code jrdma.siw.mpaRevision})
 * @param crcRequired ask for CRC32c and refuse a peer that will not use it ({@code jrdma.siw.crc})
 * @param peerToPeer offer peer-to-peer RTR in requests ({@code jrdma.siw.p2p})
 * @param initiatorTimeout how long an initiator waits for the MPA reply (siw: 10 s)
 * @param responderTimeout how long a responder waits for the MPA request (siw: 5 s)
 * @param engines number of engine threads QPs are spread over
 * @param busyPoll whether engines spin instead of backing off ({@code jrdma.siw.busyPoll})
 * @param applicationDriven whether CQ polls run the engine (no engine thread spins)
 * @param maxSegment largest FPDU on the wire; 0 = the path MSS as TCP reports it
 */
public record SiwConfig(int mpaRevision, boolean crcRequired, boolean peerToPeer, Duration initiatorTimeout,
        Duration responderTimeout, int engines, boolean busyPoll, boolean applicationDriven, int maxSegment) {
    /** siw's MPA reply timeout for the initiator ({@code MPAREQ_TIMEOUT}). */
    public static final Duration MPA_REQ_TIMEOUT = Duration.ofSeconds(10);
    /** siw's MPA request timeout for the responder ({@code MPAREP_TIMEOUT}). */
    public static final Duration MPA_REP_TIMEOUT = Duration.ofSeconds(5);

    /** Validates the values. */
    public SiwConfig {
        if (mpaRevision != 1 && mpaRevision != 2) {
            throw new IllegalArgumentException("MPA revision must be 1 or 2: " + mpaRevision);
        }
        if (engines < 1) {
            throw new IllegalArgumentException("at least one engine: " + engines);
        }
        if (maxSegment < 0) {
            throw new IllegalArgumentException("maxSegment must not be negative: " + maxSegment);
        }
    }

    /** The configuration from system properties, with Linux siw's defaults. */
    public static SiwConfig fromSystemProperties() {
        return new SiwConfig(Integer.getInteger("jrdma.siw.mpaRevision", 2),
                Boolean.getBoolean("jrdma.siw.crc"),
                Boolean.getBoolean("jrdma.siw.p2p"),
                Duration.ofMillis(Long.getLong("jrdma.siw.mpaReqTimeoutMs", MPA_REQ_TIMEOUT.toMillis())),
                Duration.ofMillis(Long.getLong("jrdma.siw.mpaRepTimeoutMs", MPA_REP_TIMEOUT.toMillis())),
                Integer.getInteger("jrdma.siw.engines", 1),
                Boolean.getBoolean("jrdma.siw.busyPoll"),
                Boolean.getBoolean("jrdma.siw.appDriven"),
                Integer.getInteger("jrdma.siw.maxSegment", 0));
    }
}
