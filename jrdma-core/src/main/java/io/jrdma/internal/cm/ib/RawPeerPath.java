package io.jrdma.internal.cm.ib;

import io.jrdma.spi.IbCmProvider;
import io.jrdma.verbs.Gid;

/**
 * An IB CM datagram path on which a test can play a raw peer: a node at a GID no device serves, whose
 * messages the test hands to the IB CM itself ({@link IbCm#receive}) and to which every message the IB CM
 * sends goes to the test's receiver instead of being lost. The loop provider implements it (on RoCE a raw
 * peer is a UDP socket speaking QP1 MADs); the connection manager never calls it.
 */
public interface RawPeerPath {
    /**
     * Delivers what this path sends to {@code gid} to {@code receiver} (with this device's GID as the
     * source) until the returned handle is closed.
     *
     * @param gid the raw peer's GID, one the fabric does not serve
     * @param receiver gets the messages, on the sending thread; must not block
     * @return the handle that detaches the peer
     */
    AutoCloseable attachPeer(Gid gid, IbCmProvider.Receiver receiver);
}
