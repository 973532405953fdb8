package io.jrdma.spi;

import io.jrdma.spi.ibcm.CmMessage;
import io.jrdma.verbs.Gid;

/**
 * The IB CM datagram path of a device (Linux's GSI QP1 MAD service as {@code cm.c} uses it): core's
 * IB CM sends and receives CM messages through it. RoCE encodes them as MADs on QP1 over UDP 4791;
 * the loop provider hands them over in memory.
 */
public non-sealed interface IbCmProvider extends CmTransport {
    /**
     * Starts delivering received CM messages to {@code receiver} (called once). Linux: {@code ib_register_mad_agent}
     * for the CM class on QP1.
     */
    void start(Receiver receiver);

    /**
     * Sends {@code message} to the CM agent of the node that owns {@code destination}. Never blocks;
     * a datagram may be lost (the CM retransmits). Linux: {@code ib_post_send_mad} of a CM MAD.
     *
     * @param tid the MAD transaction id
     */
    void send(Gid destination, long tid, CmMessage message);

    /** The local CA ACK delay (IB time exponent; rxe: 15). */
    int caAckDelay();

    /** The packet life time rdma_cm puts in its path records (IB time exponent; RoCE: 18). */
    int packetLifeTime();

    /**
     * The node a GID stands for on this path: the IB CM matches a message to a connection only if it comes
     * from the connection's peer, and takes two GIDs of one node for one peer. On RoCE a GID is an IP address
     * and a node (the default: the GID itself); the loop fabric is one node for every loopback address.
     *
     * @param gid a peer's GID or a message's source
     * @return a GID that is equal for every GID of the node
     */
    default Gid node(Gid gid) {
        return gid;
    }

    /** Receives CM messages. */
    interface Receiver {
        /**
         * A message arrived from the node owning {@code source}. Any thread. Linux: the MAD agent's
         * {@code recv_handler} ({@code cm_recv_handler}).
         */
        void receive(Gid source, long tid, CmMessage message);
    }
}
