package io.jrdma.siw;

import io.jrdma.spi.DeviceCounters;
import io.jrdma.verbs.Counter;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * A siw device's counters, by the names the transport uses (Linux siw itself keeps none; jrdma's are
 * listed in {@link Counter}): FPDUs, CRC errors, TERMINATEs, MPA frames and rejects. The data path
 * counts per QP ({@code qp.counters()}, written by the QP's engine without locks); the MPA handshake
 * threads count here, in the device's shared set. The readers add everything up.
 */
public final class SiwCounters {
    /** The counters a siw device keeps, in display order. */
    static final List<Counter> KEPT = List.of(Counter.FPDUS_SENT, Counter.ZERO_COPY_FPDUS_SENT,
            Counter.TX_TAILS_HELD,
            Counter.FPDUS_RECEIVED, Counter.CRC_ERRORS,
            Counter.TERMINATE_SENT, Counter.TERMINATE_RECEIVED, Counter.RDMA_SENDS, Counter.RDMA_RECVS,
            Counter.MPA_FRAMES_SENT, Counter.MPA_REJECTS_SENT, Counter.MPA_REJECTS_RECEIVED,
            Counter.CM_BACKLOG_REJECTS);
    private final LongAdder linkTimeouts = new LongAdder();

    private final DeviceCounters counters;

    SiwCounters(DeviceCounters counters) {
        this.counters = counters;
    }

    /** A TERMINATE went out from a handshake thread (a refused MPA reply). */
    public void terminateSent() {
        counters.shared().inc(Counter.TERMINATE_SENT);
    }

    /** An MPA reject went out. */
    public void mpaRejectSent() {
        counters.shared().inc(Counter.MPA_REJECTS_SENT);
    }

    /** An MPA reject arrived. */
    public void mpaRejectReceived() {
        counters.shared().inc(Counter.MPA_REJECTS_RECEIVED);
    }

    /** An MPA request or reply went out. */
    public void mpaFrameSent() {
        counters.shared().inc(Counter.MPA_FRAMES_SENT);
    }

    /** A connection was given up because it made no progress while the QP waited on the peer. */
    public void linkTimeout() {
        linkTimeouts.increment();
    }

    /** Connections given up for want of progress ({@link LinkTimeouts#stall()}). */
    public long linkTimeouts() {
        return linkTimeouts.sum();
    }

    /** MPA requests and replies sent (rejects included). */
    public long mpaFramesSent() {
        return counters.get(Counter.MPA_FRAMES_SENT);
    }

    /** TERMINATEs sent. */
    public long terminatesSent() {
        return counters.get(Counter.TERMINATE_SENT);
    }

    /** TERMINATEs received. */
    public long terminatesReceived() {
        return counters.get(Counter.TERMINATE_RECEIVED);
    }

    /** MPA rejects sent. */
    public long mpaRejectsSent() {
        return counters.get(Counter.MPA_REJECTS_SENT);
    }

    /** MPA rejects received. */
    public long mpaRejectsReceived() {
        return counters.get(Counter.MPA_REJECTS_RECEIVED);
    }

    /** CRC errors. */
    public long crcErrors() {
        return counters.get(Counter.CRC_ERRORS);
    }

    /** FPDUs sent. */
    public long fpdusSent() {
        return counters.get(Counter.FPDUS_SENT);
    }

    /** FPDUs whose payload was written from its region without a copy. */
    public long zeroCopyFpdusSent() {
        return counters.get(Counter.ZERO_COPY_FPDUS_SENT);
    }

    /** Socket writes that stopped at the last full TCP segment and held the rest for the next post. */
    public long txTailsHeld() {
        return counters.get(Counter.TX_TAILS_HELD);
    }

    /** FPDUs received. */
    public long fpdusReceived() {
        return counters.get(Counter.FPDUS_RECEIVED);
    }

    @Override
    public String toString() {
        return counters.toString();
    }
}
