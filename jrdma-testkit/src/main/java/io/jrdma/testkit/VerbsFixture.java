package io.jrdma.testkit;

import io.jrdma.verbs.Device;

/**
 * What a provider supplies so that {@link VerbsConformanceSuite} can run on it: the device, a way
 * to get connected endpoints with given {@link QpOptions}, and the {@link Features} the transport
 * has. Connecting stays behind this interface: the loop provider connects QPs by hand (modify with
 * an address vector and the peer's QPN), the socket transports through the connection manager.
 *
 * <p>One fixture serves one test; the suite closes what the fixture returns and then the fixture.
 */
public interface VerbsFixture extends AutoCloseable {
    /** The device under test. */
    Device device();

    /** What the transport can do; the suite skips the tests of what it cannot. */
    Features features();

    /**
     * Two connected endpoints of {@code options.type()} (RC or UC), each with its own context, PD and
     * CQ, both QPs in RTS with the other as destination. For UD, two QPs in RTS, each with an
     * address handle to the other ({@link Endpoint#ahToPeer()}).
     */
    EndpointPair connect(QpOptions options);

    /**
     * A new pair whose {@code b} side is a new QP in {@code shareWith}'s context and PD, completing
     * into its CQ and receiving from its SRQ (if it has one), connected to a new {@code a} side. Closing
     * the returned {@code b} closes only the new QP.
     */
    EndpointPair connect(QpOptions options, Endpoint shareWith);

    /**
     * Whether this fixture repeats the suite in the other address family for a provider whose first
     * fixture runs it whole (the suite over IPv6 after IPv4): the groups that stay on the host (device
     * queries, memory, CQs, the QP state machine, posting, limits) are then skipped, so the second run
     * costs the build less.
     */
    default boolean secondFamily() {
        return false;
    }

    /** Releases what the fixture holds beyond the endpoints (default: nothing). */
    @Override
    default void close() {
    }
}
