package io.jrdma.tools.rdma;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.EventChannel;
import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.WorkCompletion;

/**
 * Waits for completions on the control path of a tool (rping's ping-pong, perftest's exchange,
 * ucmatose's messages): polls the CQ, and between polls the connection-manager channel, so a peer
 * that disconnects is noticed while waiting. Idles by spinning briefly, then parking for growing
 * intervals up to {@link #MAX_PARK_NANOS}; every wait is bounded.
 *
 * <p>Not for the measured data path: perftest's loops poll their CQs themselves without parking.
 */
public final class CqWaiter {

    /** Spins before the first park. */
    public static final int SPINS = 2_000;

    /** The longest single park (1 ms). */
    public static final long MAX_PARK_NANOS = 1_000_000;

    private final CompletionQueue cq;
    private final EventChannel channel;
    private final WorkCompletion[] wc = {new WorkCompletion()};
    private CmEvent pendingEvent;

    /**
     * Creates a waiter.
     *
     * @param cq the CQ to poll
     * @param channel the channel whose events end a wait (e.g. DISCONNECTED), or null
     */
    public CqWaiter(CompletionQueue cq, EventChannel channel) {
        this.cq = cq;
        this.channel = channel;
    }

    /**
     * Waits for the next completion or a connection-manager event, whichever comes first.
     *
     * @param timeout the longest wait
     * @param what what is awaited, for the timeout message
     * @return the completion (reused by the next call), or null when an event arrived first (see
     *     {@link #takeEvent()})
     * @throws ToolFailure when neither arrives in time
     */
    public WorkCompletion next(Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        int idle = 0;
        long park = 1_000;
        while (true) {
            if (cq.poll(wc) == 1) {
                return wc[0];
            }
            if (channel != null && pendingEvent == null) {
                pendingEvent = channel.pollEvent();
            }
            if (pendingEvent != null) {
                // A completion pushed before the event (the peer's last message, then its DREQ) may have
                // arrived after the poll above: it goes first. Without this, a client saw DISCONNECTED
                // instead of the server's last control message (PerftestRxeIT send-lat UD, 1 in 100).
                return cq.poll(wc) == 1 ? wc[0] : null;
            }
            if (++idle > SPINS) {
                if (System.nanoTime() - deadline > 0) {
                    throw new ToolFailure("no " + what + " within " + timeout.toMillis() + " ms (peer silent)");
                }
                LockSupport.parkNanos(park);
                park = Math.min(MAX_PARK_NANOS, park * 2);
                if (Thread.interrupted()) {
                    Thread.currentThread().interrupt();
                    throw new ToolFailure("interrupted while waiting for " + what);
                }
            } else {
                Thread.onSpinWait();
            }
        }
    }

    /**
     * The channel this waiter watches.
     *
     * @return the channel, or null
     */
    public EventChannel channel() {
        return channel;
    }

    /**
     * The connection-manager event that ended the last wait; the caller acknowledges it.
     *
     * @return the event, or null
     */
    public CmEvent takeEvent() {
        CmEvent e = pendingEvent;
        pendingEvent = null;
        return e;
    }
}
