package io.jrdma.testkit.cm;

import io.jrdma.spi.ibcm.CmMessage;
import java.net.InetAddress;
import java.time.Duration;

/**
 * A raw IB CM peer that a test plays message by message, on a node of its own: it sends CM messages to the
 * fixture's main device and receives what that device's IB CM sends to it, nothing checked or answered
 * for it. On RoCE it is a UDP socket on another 127/8 address speaking QP1 MADs with sealed ICRCs; on the
 * loop fabric a hook at a GID no device serves. {@link IbCmPeerChecks} uses two of them: a client and a
 * third host that tries to interfere.
 */
public interface IbCmPeer extends AutoCloseable {
    /**
     * The peer's address; its GID is the IPv4-mapped form.
     *
     * @return the address
     */
    InetAddress address();

    /**
     * Sends {@code message} in a MAD with transaction id {@code tid} to the fixture's main device.
     *
     * @param tid the MAD transaction id
     * @param message the message
     */
    void send(long tid, CmMessage message);

    /**
     * The next message the device sent to this peer.
     *
     * @param wait how long to wait for it
     * @return the message, or {@code null} if none came within {@code wait}
     */
    Received receive(Duration wait);

    /** Releases the peer's socket or hook. */
    @Override
    void close();

    /**
     * One message received.
     *
     * @param tid its MAD transaction id
     * @param message the message
     */
    record Received(long tid, CmMessage message) {
    }
}
