package io.jrdma.testkit.cm;

/**
 * Where a fixture's connection manager departs from what {@link CmConformanceSuite} checks for reasons outside
 * jrdma: a fact of the kernel or of librdmacm under a provider that wraps them. A fixture names each with the
 * reason ({@link CmFixture#quirk}); the suite then skips the check that the fact contradicts, with that reason,
 * and keeps the rest of the test.
 */
public enum CmQuirk {
    /** The device rounds a QP's {@code max_rd_atomic} up to a power of two (Linux rxe), so an ORD of 3 reads 4. */
    RD_ATOMIC_ROUNDED_UP,
    /**
     * The QP's query does not report the negotiated depths and access flags (Linux siw's {@code query_qp}:
     * {@code max_rd_atomic} is the IRD, {@code max_dest_rd_atomic} the ORD, the access flags a constant).
     */
    QUERY_QP_NOT_NEGOTIATED,
    /** {@code rejectWithReason} cannot put another IB reason on the wire: every reject is consumer defined (28). */
    REJECT_IS_ALWAYS_CONSUMER_DEFINED,
    /** The device has no counter of backlog rejects ({@code cm_backlog_rejects}). */
    NO_BACKLOG_REJECT_COUNTER,
    /** A connect whose initiator depth exceeds the device's maximum is refused at the call (EINVAL). */
    INITIATOR_DEPTH_CHECKED_AT_THE_CALL,
    /** A datagram sent to a multicast group reaches the sending QP too when it is a member. */
    MULTICAST_LOOPS_BACK,
    /**
     * An iWARP consumer reject reaches the active side as REJECTED with -ECONNRESET, not -ECONNREFUSED (Linux
     * siw reports an MPA reject frame as a reset), so it cannot be told from a reset before the reply.
     */
    IWARP_REJECT_IS_A_RESET,
    /**
     * An id made for a connect request gets no event until it is accepted (Linux's ucma drops them), so a request
     * the active side gave up on is not REJECTED on the passive side: the REJ ends it in the CM, and its accept
     * then fails at the call.
     */
    NO_EVENT_BEFORE_ACCEPT
}
