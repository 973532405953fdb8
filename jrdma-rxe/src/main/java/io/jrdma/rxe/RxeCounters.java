package io.jrdma.rxe;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A device's counters, named like Linux rxe's {@code hw_counters} ({@code rxe_hw_counters.c}) where
 * rxe has one, plus jrdma's own for what rxe does not count (ICRC failures, malformed MADs, injected
 * faults). Updated by the engine thread and the CM senders without locks; read at any time.
 */
public final class RxeCounters {
    /** The counters. */
    public enum Counter {
        /** Packets handed to the wire (rxe {@code sent_pkts}), QP1 datagrams included. */
        SENT_PKTS("sent_pkts"),
        /** Packets received and accepted for processing ({@code rcvd_pkts}). */
        RCVD_PKTS("rcvd_pkts"),
        /** Duplicate requests seen by responders ({@code duplicate_request}). */
        DUPLICATE_REQUEST("duplicate_request"),
        /** Requests ahead of the expected PSN ({@code out_of_seq_request}). */
        OUT_OF_SEQ_REQUEST("out_of_seq_request"),
        /** PSN sequence error NAKs received ({@code rcvd_seq_err}). */
        RCVD_SEQ_ERR("rcvd_seq_err"),
        /** RNR NAKs received ({@code rcvd_rnr_err}). */
        RCVD_RNR_ERR("rcvd_rnr_err"),
        /** RNR NAKs sent ({@code send_rnr_err}). */
        SEND_RNR_ERR("send_rnr_err"),
        /** Retries started by completers ({@code completer_retry_err}). */
        COMPLETER_RETRY_ERR("completer_retry_err"),
        /** Transport retries exhausted ({@code retry_exceeded_err}). */
        RETRY_EXCEEDED_ERR("retry_exceeded_err"),
        /** RNR retries exhausted ({@code retry_rnr_exceeded_err}). */
        RETRY_RNR_EXCEEDED_ERR("retry_rnr_exceeded_err"),
        /** Packets the socket refused ({@code send_err}). */
        SEND_ERR("send_err"),
        /** Receive completions of SENDs ({@code rdma_recvs}). */
        RDMA_RECVS("rdma_recvs"),
        /** Send completions ({@code rdma_sends}). */
        RDMA_SENDS("rdma_sends"),
        /** Datagrams whose ICRC matched no IPv4 identification (jrdma; rxe drops them silently). */
        RCVD_ICRC_ERR("rcvd_icrc_err"),
        /** Datagrams dropped before a QP saw them: too short, unknown opcode or QP, bad P_Key or Q_Key. */
        RCVD_DROPPED("rcvd_dropped"),
        /** Request packets dropped because the responder's queue was full. */
        RESP_QUEUE_FULL("resp_queue_full"),
        /** QP1 datagrams that were not a CM MAD jrdma handles (dropped). */
        CM_MALFORMED("cm_malformed_mads"),
        /** CM MADs sent. */
        CM_SENT("cm_tx_mads"),
        /** CM MADs received and handed to the IB CM. */
        CM_RCVD("cm_rx_mads"),
        /** CM MADs dropped by the test hook. */
        CM_DROPPED("cm_dropped_mads"),
        /** Packets the fault injector lost. */
        INJECTED_LOSS("injected_loss"),
        /** Packets the fault injector duplicated. */
        INJECTED_DUPLICATE("injected_duplicate"),
        /** Packets the fault injector reordered. */
        INJECTED_REORDER("injected_reorder");

        private final String linuxName;

        Counter(String linuxName) {
            this.linuxName = linuxName;
        }

        /**
         * The name as rxe's sysfs shows it (or jrdma's, in the same style).
         *
         * @return the name as rxe's sysfs shows it (or jrdma's, in the same style)
         */
        public String linuxName() {
            return linuxName;
        }
    }

    private static final Counter[] ALL = Counter.values();
    private final AtomicLongArray values = new AtomicLongArray(ALL.length);

    /** A set of zero counters. */
    public RxeCounters() {
    }

    /**
     * Adds one. Allocation-free, lock-free.
     *
     * @param c the counter
     */
    public void inc(Counter c) {
        values.getAndIncrement(c.ordinal());
    }

    /**
     * The value of one counter.
     *
     * @param c the counter
     * @return the value of one counter
     */
    public long get(Counter c) {
        return values.get(c.ordinal());
    }

    /**
     * A snapshot by Linux name, in declaration order.
     *
     * @return a snapshot by Linux name, in declaration order
     */
    public Map<String, Long> snapshot() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (Counter c : ALL) {
            m.put(c.linuxName(), values.get(c.ordinal()));
        }
        return m;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (Counter c : ALL) {
            long v = values.get(c.ordinal());
            if (v != 0) {
                sb.append(sb.isEmpty() ? "" : " ").append(c.linuxName()).append('=').append(v);
            }
        }
        return sb.toString();
    }
}
