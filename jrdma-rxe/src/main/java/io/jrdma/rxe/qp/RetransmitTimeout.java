package io.jrdma.rxe.qp;

/**
 * The requester's retransmit timeout, adapted to the measured round-trip time as TCP's (RFC 6298):
 * a smoothed RTT and its variation from one timed packet at a time (never a retransmitted one,
 * Karn's rule), RTO = SRTT + 4 RTTVAR, at least {@link #MIN_RTO_NANOS}, doubled after each timeout
 * without progress, and never longer than the QP's ACK timeout attribute, which stays the upper
 * limit and the unit of the {@code retry_cnt} budget (see {@link Completer}). Before the first
 * sample the RTO is {@link #INITIAL_RTO_NANOS}. Engine holder; allocation-free.
 */
final class RetransmitTimeout {
    /**
     * The shortest retransmit timeout: above an idle loopback round trip and a few scheduling
     * delays of a loaded host, so that a timeout is rarely spurious.
     */
    static final long MIN_RTO_NANOS = 2_000_000;
    /**
     * The retransmit timeout before the first sample: long against a loopback or LAN round trip,
     * short against the seconds of rdma_cm's ACK timeout, so that a QP's first lost packet (a
     * connection's first message, say) is not waited for that long. A longer path sees a few
     * duplicates of its first packets, answered by the responder as duplicates.
     */
    static final long INITIAL_RTO_NANOS = 20_000_000;
    /** How many times the RTO doubles at most. */
    private static final int MAX_BACKOFF = 16;

    /** Smoothed RTT in nanoseconds; 0 until the first sample. */
    private long srtt;
    private long rttvar;
    private int backoff;

    /** Forgets every sample (a QP back at RESET). */
    void clear() {
        srtt = 0;
        rttvar = 0;
        backoff = 0;
    }

    /** A round trip of {@code rtt} nanoseconds was measured. */
    void sample(long rtt) {
        long r = Math.max(1, rtt);
        if (srtt == 0) {
            srtt = r;
            rttvar = r / 2;
        } else {
            rttvar = rttvar - (rttvar >> 2) + (Math.abs(srtt - r) >> 2);
            srtt = srtt - (srtt >> 3) + (r >> 3);
        }
    }

    /** The timer fired without progress: the next RTO is twice as long. */
    void backOff() {
        if (backoff < MAX_BACKOFF) {
            backoff++;
        }
    }

    /** An acknowledgement advanced: the RTO is the estimate again. */
    void progress() {
        backoff = 0;
    }

    /** The smoothed RTT in nanoseconds, 0 before the first sample. */
    long srtt() {
        return srtt;
    }

    /**
     * The retransmit timeout in nanoseconds with {@code ackTimeout} (the QP's attribute in
     * nanoseconds, above 0) as the upper limit.
     */
    long rto(long ackTimeout) {
        long base = srtt == 0 ? INITIAL_RTO_NANOS : Math.max(MIN_RTO_NANOS, srtt + 4 * rttvar);
        long r = base << backoff; // no overflow: base < 2^44, backoff <= 16
        return base >= ackTimeout || r >= ackTimeout ? ackTimeout : r;
    }
}
