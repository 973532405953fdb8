package io.jrdma.verbs;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A snapshot of the counters of a device ({@link Context#queryCounters()}, what Linux shows in
 * {@code /sys/class/infiniband/DEV/ports/1/hw_counters} and with {@code rdma statistic show link}) or of
 * one queue pair ({@link QueuePair#queryCounters()}, {@code rdma statistic qp}). Values are keyed by
 * their Linux names ({@link Counter#linuxName()}) in {@link Counter} order; a device lists every counter
 * its transport keeps, zero or not.
 *
 * <p>Counters are written by the engine threads without locks and read here without stopping them, so
 * a snapshot is not one instant across counters: each value is exact, the set is approximately
 * simultaneous, as with Linux's per-counter reads.
 *
 * @param device the device name, e.g. {@code rxe0}
 * @param qpNum the QP number for a QP snapshot, or {@link #DEVICE} for the device
 * @param nanoTime {@link System#nanoTime()} when the snapshot was taken (for rates)
 * @param values the values by Linux name, in {@link Counter} order (unmodifiable)
 */
public record Counters(String device, int qpNum, long nanoTime, Map<String, Long> values) {
    /** The {@link #qpNum()} of a device snapshot. Linux: a port's {@code hw_counters}, not a QP's. */
    public static final int DEVICE = -1;

    /**
     * Checks the components and freezes the map (in its iteration order). Linux: one read of
     * {@code struct rdma_hw_stats}.
     *
     * @param device the device name
     * @param qpNum a QP number or {@link #DEVICE}
     * @param nanoTime when the snapshot was taken
     * @param values the values by name
     * @throws IllegalArgumentException if the device or the values are missing, or a value is negative
     */
    public Counters {
        if (device == null || values == null) {
            throw new IllegalArgumentException("device and values are required");
        }
        if (qpNum != DEVICE && (qpNum & ~0xFFFFFF) != 0) {
            throw new IllegalArgumentException("QP number 0x" + Integer.toHexString(qpNum) + " is not 24 bits");
        }
        Map<String, Long> copy = new LinkedHashMap<>();
        for (Map.Entry<String, Long> e : values.entrySet()) {
            Long v = Objects.requireNonNull(e.getValue(), "value of " + e.getKey());
            if (v < 0) {
                throw new IllegalArgumentException("counter " + e.getKey() + " is negative: " + v);
            }
            copy.put(Objects.requireNonNull(e.getKey(), "counter name"), v);
        }
        values = Collections.unmodifiableMap(copy);
    }

    /**
     * Whether this is a device snapshot (not a QP's). Linux: {@code rdma statistic show link} rather than
     * {@code rdma statistic qp}.
     *
     * @return true for a device snapshot
     */
    public boolean isDevice() {
        return qpNum == DEVICE;
    }

    /**
     * Whether the device or QP keeps {@code counter}. Linux: whether the {@code hw_counters} directory has the file.
     *
     * @param counter a counter
     * @return true if it is in {@link #values()}
     */
    public boolean has(Counter counter) {
        return values.containsKey(counter.linuxName());
    }

    /**
     * One counter's value; 0 for a counter this device does not keep. Linux: the content of {@code hw_counters/NAME}.
     *
     * @param counter the counter
     * @return its value
     */
    public long get(Counter counter) {
        return get(counter.linuxName());
    }

    /**
     * One counter's value by Linux name; 0 for a name this device does not keep. Linux: the content of
     * {@code hw_counters/NAME}.
     *
     * @param linuxName e.g. {@code sent_pkts}
     * @return its value
     */
    public long get(String linuxName) {
        Long v = values.get(linuxName);
        return v == null ? 0 : v;
    }

    /**
     * What changed since {@code earlier}: each value minus the earlier one (same device and QP). Linux has no delta;
     * {@code rdma statistic} users subtract two reads.
     *
     * @param earlier an earlier snapshot of the same device or QP
     * @return the differences, stamped with this snapshot's time
     * @throws IllegalArgumentException if {@code earlier} is of another device or QP
     */
    public Counters minus(Counters earlier) {
        if (!device.equals(earlier.device) || qpNum != earlier.qpNum) {
            throw new IllegalArgumentException("cannot subtract the counters of " + earlier.scope() + " from "
                    + scope());
        }
        Map<String, Long> d = new LinkedHashMap<>();
        for (Map.Entry<String, Long> e : values.entrySet()) {
            d.put(e.getKey(), Math.max(0, e.getValue() - earlier.get(e.getKey())));
        }
        return new Counters(device, qpNum, nanoTime, d);
    }

    /**
     * The counters that are not zero, in order. A jrdma helper (as {@code rdma statistic} prints every counter).
     *
     * @return a map of the non-zero values
     */
    public Map<String, Long> nonZero() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (Map.Entry<String, Long> e : values.entrySet()) {
            if (e.getValue() != 0) {
                m.put(e.getKey(), e.getValue());
            }
        }
        return Collections.unmodifiableMap(m);
    }

    /**
     * What the snapshot is of: {@code rxe0} or {@code rxe0 qp 0x11}.
     *
     * @return a short label
     */
    public String scope() {
        return isDevice() ? device : device + " qp 0x" + Integer.toHexString(qpNum);
    }

    /**
     * {@code sent_pkts}.
     *
     * @return packets sent
     */
    public long sentPkts() {
        return get(Counter.SENT_PKTS);
    }

    /**
     * {@code rcvd_pkts}.
     *
     * @return packets received
     */
    public long rcvdPkts() {
        return get(Counter.RCVD_PKTS);
    }

    /**
     * {@code duplicate_request}.
     *
     * @return duplicate requests received
     */
    public long duplicateRequest() {
        return get(Counter.DUPLICATE_REQUEST);
    }

    /**
     * {@code out_of_seq_request}.
     *
     * @return out-of-sequence requests received
     */
    public long outOfSeqRequest() {
        return get(Counter.OUT_OF_SEQ_REQUEST);
    }

    /**
     * {@code rcvd_rnr_err}.
     *
     * @return RNR NAKs received
     */
    public long rcvdRnrErr() {
        return get(Counter.RCVD_RNR_ERR);
    }

    /**
     * {@code send_rnr_err}.
     *
     * @return RNR NAKs sent
     */
    public long sendRnrErr() {
        return get(Counter.SEND_RNR_ERR);
    }

    /**
     * {@code rcvd_seq_err}.
     *
     * @return PSN sequence error NAKs received
     */
    public long rcvdSeqErr() {
        return get(Counter.RCVD_SEQ_ERR);
    }

    /**
     * {@code ack_deferred}.
     *
     * @return responses deferred to a later completer pass
     */
    public long ackDeferred() {
        return get(Counter.ACK_DEFERRED);
    }

    /**
     * {@code retry_exceeded_err}.
     *
     * @return WRs failed with RETRY_EXC_ERR
     */
    public long retryExceededErr() {
        return get(Counter.RETRY_EXCEEDED_ERR);
    }

    /**
     * {@code retry_rnr_exceeded_err}.
     *
     * @return WRs failed with RNR_RETRY_EXC_ERR
     */
    public long retryRnrExceededErr() {
        return get(Counter.RETRY_RNR_EXCEEDED_ERR);
    }

    /**
     * {@code completer_retry_err}.
     *
     * @return retransmissions started
     */
    public long completerRetryErr() {
        return get(Counter.COMPLETER_RETRY_ERR);
    }

    /**
     * {@code send_err}.
     *
     * @return packets that could not be sent
     */
    public long sendErr() {
        return get(Counter.SEND_ERR);
    }

    /**
     * {@code rdma_sends}.
     *
     * @return send WRs completed
     */
    public long rdmaSends() {
        return get(Counter.RDMA_SENDS);
    }

    /**
     * {@code rdma_recvs}.
     *
     * @return receive WRs completed
     */
    public long rdmaRecvs() {
        return get(Counter.RDMA_RECVS);
    }

    /**
     * {@code fpdus_sent}.
     *
     * @return iWARP FPDUs sent
     */
    public long fpdusSent() {
        return get(Counter.FPDUS_SENT);
    }

    /**
     * {@code fpdus_received}.
     *
     * @return iWARP FPDUs received
     */
    public long fpdusReceived() {
        return get(Counter.FPDUS_RECEIVED);
    }

    /**
     * {@code crc_errors}.
     *
     * @return FPDUs with a bad CRC
     */
    public long crcErrors() {
        return get(Counter.CRC_ERRORS);
    }

    /**
     * {@code terminate_sent}.
     *
     * @return TERMINATEs sent
     */
    public long terminateSent() {
        return get(Counter.TERMINATE_SENT);
    }

    /**
     * {@code terminate_received}.
     *
     * @return TERMINATEs received
     */
    public long terminateReceived() {
        return get(Counter.TERMINATE_RECEIVED);
    }

    /**
     * {@code mpa_rejects_sent} plus {@code mpa_rejects_received}.
     *
     * @return MPA rejects sent and received
     */
    public long mpaRejects() {
        return get(Counter.MPA_REJECTS_SENT) + get(Counter.MPA_REJECTS_RECEIVED);
    }

    /**
     * One line in the style of {@code rdma statistic show}: {@code link rxe0/1 sent_pkts 5 rcvd_pkts 1 ...}
     * for a device, {@code qp rxe0/1 lqpn 17 sent_pkts 3 ...} for a QP.
     *
     * @return the line
     */
    public String toLine() {
        StringBuilder sb = new StringBuilder(isDevice() ? "link " : "qp ").append(device).append("/1");
        if (!isDevice()) {
            sb.append(" lqpn ").append(qpNum);
        }
        for (Map.Entry<String, Long> e : values.entrySet()) {
            sb.append(' ').append(e.getKey()).append(' ').append(e.getValue());
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(scope()).append(':');
        for (Map.Entry<String, Long> e : nonZero().entrySet()) {
            sb.append(' ').append(e.getKey()).append('=').append(e.getValue());
        }
        return sb.toString();
    }
}
