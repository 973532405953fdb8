package io.jrdma.verbs;

import java.util.List;

/**
 * The counters jrdma devices and queue pairs keep. The first fifteen are Linux rxe's
 * {@code hw_counters}, named and ordered as rxe shows them in
 * {@code /sys/class/infiniband/rxe0/ports/1/hw_counters/} and {@code rdma statistic show}
 * ({@code drivers/infiniband/sw/rxe/rxe_hw_counters.c}); the rest are jrdma's own, in the same style:
 * the RoCE ones rxe does not count, and the iWARP ones (Linux siw keeps no counters).
 *
 * <p>Each device keeps the subset its transport can produce ({@link Counters#values()} lists it);
 * {@link #perQp()} tells which are also kept per queue pair. A counter never decreases.
 */
public enum Counter {
    /** Packets handed to the wire (rxe {@code sent_pkts}); on loop, synthetic RoCEv2 packets. */
    SENT_PKTS("sent_pkts", true, "packets sent"),
    /** Packets received and accepted for processing (rxe {@code rcvd_pkts}). */
    RCVD_PKTS("rcvd_pkts", true, "packets received"),
    /** Duplicate requests a responder saw (rxe {@code duplicate_request}). */
    DUPLICATE_REQUEST("duplicate_request", true, "duplicate requests received"),
    /** Requests ahead of the expected PSN (rxe {@code out_of_seq_request}). */
    OUT_OF_SEQ_REQUEST("out_of_seq_request", true, "out-of-sequence requests received"),
    /** RNR NAKs a requester received (rxe {@code rcvd_rnr_err}). */
    RCVD_RNR_ERR("rcvd_rnr_err", true, "RNR NAKs received"),
    /** RNR NAKs a responder sent (rxe {@code send_rnr_err}). */
    SEND_RNR_ERR("send_rnr_err", true, "RNR NAKs sent"),
    /** PSN sequence error NAKs a requester received (rxe {@code rcvd_seq_err}). */
    RCVD_SEQ_ERR("rcvd_seq_err", true, "PSN sequence error NAKs received"),
    /**
     * Responses the completer could not process at once and deferred to a later pass (rxe
     * {@code ack_deferred}, its {@code RXE_CNT_COMPLETER_SCHED}).
     */
    ACK_DEFERRED("ack_deferred", true, "responses deferred to a later completer pass"),
    /** Transport retries exhausted: a WR completed with RETRY_EXC_ERR (rxe {@code retry_exceeded_err}). */
    RETRY_EXCEEDED_ERR("retry_exceeded_err", true, "transport retries exhausted"),
    /** RNR retries exhausted: a WR completed with RNR_RETRY_EXC_ERR (rxe {@code retry_rnr_exceeded_err}). */
    RETRY_RNR_EXCEEDED_ERR("retry_rnr_exceeded_err", true, "RNR retries exhausted"),
    /** Retransmissions started by a requester (rxe {@code completer_retry_err}). */
    COMPLETER_RETRY_ERR("completer_retry_err", true, "retransmissions started"),
    /** Packets the network refused to send (rxe {@code send_err}). */
    SEND_ERR("send_err", true, "packets that could not be sent"),
    /** Times the port went down (rxe {@code link_downed}); jrdma's software ports never do. */
    LINK_DOWNED("link_downed", false, "port down events"),
    /** Send WRs completed successfully (rxe {@code rdma_sends}). */
    RDMA_SENDS("rdma_sends", true, "send work requests completed"),
    /** Receive WRs completed successfully (rxe {@code rdma_recvs}). */
    RDMA_RECVS("rdma_recvs", true, "receive work requests completed"),

    /** Datagrams whose ICRC did not check (jrdma; rxe drops them without counting). */
    RCVD_ICRC_ERR("rcvd_icrc_err", false, "datagrams with a bad ICRC"),
    /** Packets dropped before or by a QP: malformed, unknown QP, bad P_Key or Q_Key, wrong QP state. */
    RCVD_DROPPED("rcvd_dropped", true, "packets dropped"),
    /** Requests dropped because a responder's queue was full (RC retransmits them). */
    RESP_QUEUE_FULL("resp_queue_full", true, "requests dropped on a full responder queue"),
    /** IB CM MADs sent on QP1. */
    CM_TX_MADS("cm_tx_mads", false, "CM MADs sent"),
    /** IB CM MADs received on QP1 and handed to the IB CM. */
    CM_RX_MADS("cm_rx_mads", false, "CM MADs received"),
    /** QP1 datagrams that were not a CM MAD jrdma handles (dropped). */
    CM_MALFORMED_MADS("cm_malformed_mads", false, "malformed CM MADs dropped"),
    /** CM MADs a test hook dropped on purpose. */
    CM_DROPPED_MADS("cm_dropped_mads", false, "CM MADs dropped by a test hook"),
    /**
     * Connection requests a listener rejected because its backlog was full (jrdma; Linux counts them
     * nowhere), on the device the request arrived on, whatever its transport.
     */
    CM_BACKLOG_REJECTS("cm_backlog_rejects", false, "connection requests rejected on a full backlog"),
    /** Packets the fault injector lost on purpose. */
    INJECTED_LOSS("injected_loss", false, "packets lost by the fault injector"),
    /** Packets the fault injector duplicated. */
    INJECTED_DUPLICATE("injected_duplicate", false, "packets duplicated by the fault injector"),
    /** Packets the fault injector reordered. */
    INJECTED_REORDER("injected_reorder", false, "packets reordered by the fault injector"),

    /** iWARP FPDUs handed to TCP (RTRs and TERMINATEs included). */
    FPDUS_SENT("fpdus_sent", true, "FPDUs sent"),
    /**
     * FPDUs of {@link #FPDUS_SENT} whose payload went to TCP straight from its region (large
     * payloads of regions registered as direct {@code ByteBuffer}s), not copied first.
     */
    ZERO_COPY_FPDUS_SENT("zero_copy_fpdus_sent", true, "FPDUs sent from their region without a copy"),
    /**
     * Socket writes that stopped at the last full TCP segment and kept the rest of their batch for the
     * next post to join (siw, application-driven mode).
     */
    TX_TAILS_HELD("tx_tails_held", true, "writes that kept a partial TCP segment for the next post"),
    /** iWARP FPDUs received whole (and their CRC checked when CRC is on). */
    FPDUS_RECEIVED("fpdus_received", true, "FPDUs received"),
    /** FPDUs whose MPA CRC32c did not match (RFC 5044 §8). */
    CRC_ERRORS("crc_errors", true, "FPDUs with a bad CRC"),
    /** TERMINATE messages sent (RFC 5040 §5.4). */
    TERMINATE_SENT("terminate_sent", true, "TERMINATEs sent"),
    /** TERMINATE messages received. */
    TERMINATE_RECEIVED("terminate_received", true, "TERMINATEs received"),
    /** MPA request and reply frames sent, rejects included (RFC 5044 §7). */
    MPA_FRAMES_SENT("mpa_frames_sent", false, "MPA request and reply frames sent"),
    /** MPA replies with the reject bit sent. */
    MPA_REJECTS_SENT("mpa_rejects_sent", false, "MPA rejects sent"),
    /** MPA replies with the reject bit received. */
    MPA_REJECTS_RECEIVED("mpa_rejects_received", false, "MPA rejects received");

    private static final List<Counter> ALL = List.of(values());

    private final String linuxName;
    private final boolean perQp;
    private final String description;

    Counter(String linuxName, boolean perQp, String description) {
        this.linuxName = linuxName;
        this.perQp = perQp;
        this.description = description;
    }

    /**
     * The name as Linux shows it ({@code hw_counters} file name, {@code rdma statistic} column), or
     * jrdma's name in the same style.
     *
     * @return the name, e.g. {@code sent_pkts}
     */
    public String linuxName() {
        return linuxName;
    }

    /**
     * Whether queue pairs keep this counter too ({@link QueuePair#queryCounters()}); the others are
     * device-wide only (CM datagrams, the fault injector, MPA handshakes). Linux: what {@code rdma statistic qp} shows
     * for a QP bound to a counter.
     *
     * @return true if the counter is kept per QP
     */
    public boolean perQp() {
        return perQp;
    }

    /**
     * A short description (JMX attribute descriptions, {@code jrdma stats --describe}). Linux has no description beside
     * the {@code hw_counters} file name.
     *
     * @return the description
     */
    public String description() {
        return description;
    }

    /**
     * Every counter, in display order (the list is immutable and shared: no copy per call). Linux: the names
     * {@code rdma statistic show link} lists.
     *
     * @return every counter
     */
    public static List<Counter> all() {
        return ALL;
    }

    /**
     * The counter with this Linux name.
     *
     * @param linuxName a name such as {@code rcvd_rnr_err}
     * @return the counter
     * @throws IllegalArgumentException if no counter has that name
     */
    public static Counter ofLinuxName(String linuxName) {
        for (Counter c : ALL) {
            if (c.linuxName.equals(linuxName)) {
                return c;
            }
        }
        throw new IllegalArgumentException("no counter named '" + linuxName + "'");
    }
}
