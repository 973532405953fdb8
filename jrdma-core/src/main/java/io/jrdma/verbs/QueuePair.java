package io.jrdma.verbs;

/**
 * A queue pair ({@code struct ibv_qp}). Posting never blocks and never allocates; a full queue is a
 * return value. Misuse (a bad opcode for the QP type, too many SGEs, a post in a state that does not
 * allow it) throws {@link IllegalArgumentException} or {@link IllegalStateException}.
 *
 * <p>Thread-safe: several threads may post sends and receives at once (each queue takes them in
 * turn); a posted WR was copied into the queue, so the {@link SendWr}/{@link RecvWr} may be reused at
 * once.
 */
public interface QueuePair extends AutoCloseable {
    /** The QP number (24 bits). Linux: {@code ibv_qp.qp_num}. */
    int qpNum();

    /** The transport service. Linux: {@code ibv_qp.qp_type}. */
    QpType type();

    /** The current state. Linux: {@code ibv_qp.state} (as {@code ibv_query_qp} reports it). */
    QpState state();

    /**
     * The attributes it was created with (capacities as granted). Linux: the {@code init_attr} {@code ibv_query_qp}
     * returns.
     */
    QpInitAttr initAttr();

    /** The protection domain. Linux: {@code ibv_qp.pd}. */
    ProtectionDomain pd();

    /** {@code ibv_query_qp}: every attribute, with a full mask. */
    QpAttr query();

    /**
     * {@code ibv_modify_qp}: applies the attributes named by {@code attr}'s mask. The transition and
     * the mask are checked against IBTA's table (the kernel's {@code ib_modify_qp_is_ok}).
     *
     * @throws IllegalStateException for an illegal transition
     * @throws IllegalArgumentException for a missing required or a disallowed attribute, or a bad value
     */
    void modify(QpAttr attr);

    /**
     * {@code ibv_post_send}: posts a chain of send WRs. Returns how many were posted; fewer than the
     * chain's length means the send queue was full at that request.
     */
    int postSend(SendWr wr);

    /**
     * {@code ibv_post_recv}: posts a chain of receive WRs. Returns how many were posted; fewer than
     * the chain's length means the receive queue was full at that request.
     */
    int postRecv(RecvWr wr);

    /**
     * This QP's counters now (Linux: {@code rdma statistic qp show}, a QP bound to a counter): packets,
     * retransmissions, RNR NAKs, completions, for the counters the transport keeps per QP
     * ({@link Counter#perQp()}). After {@link #close()} the final values remain readable.
     *
     * @return a snapshot of the QP's counters
     */
    Counters queryCounters();

    /**
     * Starts writing what this QP sends and receives to {@code file} as a pcap file that tshark and
     * Wireshark decode (see {@link PacketCapture}); close the capture to stop it. A debugging aid:
     * while it runs, every packet is copied. Linux has no verb for it; {@code ibdump} or {@code tcpdump -i rxe0} come
     * closest.
     *
     * @param file the pcap file (created or truncated)
     * @return the running capture
     * @throws IllegalStateException if the QP is destroyed or already captured
     * @throws java.io.UncheckedIOException if the file cannot be written
     */
    PacketCapture startCapture(java.nio.file.Path file);

    /**
     * The number of send WRs posted and not yet completed (or retired unsignaled). Linux has no verb for it (the
     * provider knows its send queue's head and tail).
     */
    int sendQueueDepth();

    /**
     * The number of receive WRs posted and not yet completed. Linux has no verb for it (the provider knows its receive
     * queue's head and tail).
     */
    int recvQueueDepth();

    /**
     * {@code ibv_attach_mcast}: attaches this UD QP to the multicast group {@code mgid}, so that it receives
     * a copy of every datagram sent to the group (remote QPN {@code 0xFFFFFF}) that reaches its device; the
     * QP that sent a datagram gets no copy of its own (rxe, {@code rxe_rcv_mcast_pkt}). Attaching a QP to a
     * group it is in already does nothing (rxe). Destroying the QP detaches it from every group.
     *
     * @param mgid the group's GID ({@link Gid#isMulticast()})
     * @param mlid the group's LID (0 on RoCE and loop; ignored)
     * @throws IllegalArgumentException if the QP is not UD or {@code mgid} is not a multicast GID (EINVAL)
     * @throws RdmaException ENOMEM at the device's multicast limits ({@link DeviceAttributes#maxMcastGrp()},
     *     {@link DeviceAttributes#maxMcastQpAttach()}, {@link DeviceAttributes#maxTotalMcastQpAttach()}),
     *     EOPNOTSUPP on a device without multicast, or the provider's error joining the group
     */
    void attachMcast(Gid mgid, int mlid);

    /**
     * {@code ibv_detach_mcast}: detaches this QP from the multicast group {@code mgid}.
     *
     * @param mgid the group's GID
     * @param mlid the group's LID (ignored)
     * @throws RdmaException EINVAL if the QP is not attached to the group
     */
    void detachMcast(Gid mgid, int mlid);

    /**
     * {@code ibv_destroy_qp}: moves the QP to ERROR, completes every outstanding WR with
     * {@link WcStatus#WR_FLUSH_ERR}, then releases it.
     */
    @Override
    void close();
}
