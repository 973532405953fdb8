package io.jrdma.siw;

import java.util.concurrent.atomic.LongAdder;

/**
 * Per-device iWARP counters: FPDUs, CRC errors, TERMINATEs, MPA rejects. Written from the engine
 * and handshake threads (LongAdder: no contention between them), read as a snapshot.
 */
public final class SiwCounters {
    private final LongAdder terminateSent = new LongAdder();
    private final LongAdder terminateReceived = new LongAdder();
    private final LongAdder mpaRejectsSent = new LongAdder();
    private final LongAdder mpaRejectsReceived = new LongAdder();
    private final LongAdder crcErrors = new LongAdder();
    private final LongAdder mpaFramesSent = new LongAdder();
    private final LongAdder linkTimeouts = new LongAdder();

    /** A TERMINATE went out. */
    public void terminateSent() {
        terminateSent.increment();
    }

    /** A TERMINATE arrived. */
    public void terminateReceived() {
        terminateReceived.increment();
    }

    /** An MPA reject went out. */
    public void mpaRejectSent() {
        mpaRejectsSent.increment();
    }

    /** An MPA reject arrived. */
    public void mpaRejectReceived() {
        mpaRejectsReceived.increment();
    }

    /** An FPDU failed its CRC. */
    public void crcError() {
        crcErrors.increment();
    }

    /** An MPA request or reply went out. */
    public void mpaFrameSent() {
        mpaFramesSent.increment();
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
        return mpaFramesSent.sum();
    }

    /** TERMINATEs sent. */
    public long terminatesSent() {
        return terminateSent.sum();
    }

    /** TERMINATEs received. */
    public long terminatesReceived() {
        return terminateReceived.sum();
    }

    /** MPA rejects sent. */
    public long mpaRejectsSent() {
        return mpaRejectsSent.sum();
    }

    /** MPA rejects received. */
    public long mpaRejectsReceived() {
        return mpaRejectsReceived.sum();
    }

    /** CRC errors. */
    public long crcErrors() {
        return crcErrors.sum();
    }
}
