package io.jrdma.testkit.cm;

import java.net.InetAddress;
import java.util.List;
import java.util.Set;

/**
 * What a provider supplies so that {@link CmConformanceSuite} can run on it: the devices to open
 * the connection manager with, the address both sides use (client and server run in one JVM), what
 * the transport can do, and — where the provider can — a way to lose CM messages on purpose.
 *
 * <p>One fixture serves one test; the suite closes it after the test, which must undo any
 * {@link #drop} still in force.
 */
public interface CmFixture extends AutoCloseable {
    /** The device names to open {@link io.jrdma.cm.RdmaCm} with (the first is the main one). */
    List<String> deviceNames();

    /** The address both sides bind, listen and connect on (loop: 127.0.0.1 or ::1), of either family. */
    InetAddress address();

    /**
     * An address of the other family than {@link #address()} that the main device serves too (loop: ::1
     * beside 127.0.0.1), used when {@link CmCapability#DUAL_STACK} is offered; {@code null} otherwise.
     */
    default InetAddress otherFamilyAddress() {
        return null;
    }

    /**
     * An address of {@link #address()}'s family that no device of {@link #deviceNames()} serves (default:
     * the documentation addresses 192.0.2.1, RFC 5737, or 2001:db8::1, RFC 3849).
     */
    default InetAddress unservedAddress() {
        try {
            return address() instanceof java.net.Inet6Address ? InetAddress.getByName("2001:db8::1")
                    : InetAddress.getByAddress(new byte[] {(byte) 192, 0, 2, 1});
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Whether this fixture repeats the suite in the other address family for a provider whose first
     * fixture runs it whole: the lifecycle checks (timers, lost messages, leaks, load; nothing there
     * depends on the family) are then skipped, so the second run costs the build less.
     */
    default boolean secondFamily() {
        return false;
    }

    /** What the transport's connection manager can do. */
    Set<CmCapability> capabilities();

    /**
     * Why this fixture's CM departs from the suite on {@code quirk}, or {@code null} (the default) when it does
     * not: the suite skips the check {@code quirk} contradicts and reports the reason.
     */
    default String quirk(CmQuirk quirk) {
        return null;
    }

    /**
     * The most private data an iWARP connect, accept or reject carries: by default 252, MPA's 256 less the
     * 4-byte MPA v2 IRD/ORD block, as jrdma's iWARP CM takes.
     */
    default int mpaPrivateDataLimit() {
        return 252;
    }

    /**
     * The number of connection-establishment messages the devices' connection managers have handed
     * to the wire so far (IB CM: the sum of {@code cm_tx_msgs}); the suite compares two readings.
     */
    long messagesSent();

    /**
     * How much connection state the devices' connection managers hold (IB CM: live ids plus the
     * connections remembered for timewait and duplicate detection), for leak checks; -1 if the
     * provider cannot tell.
     */
    default int connectionStates() {
        return -1;
    }

    /**
     * How many verbs objects (PDs, CQs, QPs, memory regions) the main device holds for all its users, for leak
     * checks; -1 if the fixture cannot tell.
     */
    default int verbsObjects() {
        return -1;
    }

    /**
     * Loses the next {@code count} outgoing messages of the given kinds (all of them with
     * {@link Integer#MAX_VALUE}) until the returned rule is closed. Only one rule is in force at a
     * time: a new one replaces the old.
     *
     * @throws UnsupportedOperationException without {@link CmCapability#DROP_MESSAGES}
     */
    MessageDrop drop(Set<CmMessageKind> kinds, int count);

    /**
     * Sets the IB CM response timeout (an IB time exponent; {@code CMA_CM_RESPONSE_TIMEOUT} is 20, about 4 s)
     * of the fixture's devices until the returned handle is closed, so that a test can run out of the IB CM's
     * retransmissions quickly.
     *
     * @throws UnsupportedOperationException on a transport without the IB CM
     */
    default AutoCloseable cmResponseTimeout(int exponent) {
        throw new UnsupportedOperationException("the fixture has no IB CM");
    }

    /**
     * Removes the main device ({@code ib_unregister_device}: its ids get DEVICE_REMOVAL) until the returned
     * handle is closed, which brings it back.
     *
     * @throws UnsupportedOperationException without {@link CmCapability#DEVICE_REMOVAL}
     */
    default AutoCloseable removeDevice() {
        throw new UnsupportedOperationException("the fixture cannot remove a device");
    }

    /**
     * A raw IB CM peer on a node of its own, neither the fixture's address nor another peer's: index 0, 1 ...
     * are distinct nodes. The suite closes it when the test ends.
     *
     * @param index which peer
     * @return the peer
     * @throws UnsupportedOperationException without {@link CmCapability#RAW_IB_CM_PEER}
     */
    default IbCmPeer ibCmPeer(int index) {
        throw new UnsupportedOperationException("the fixture has no raw IB CM peer");
    }

    /** Releases what the fixture holds (and stops any drop rule). */
    @Override
    default void close() {
    }
}
