package com.example.provider;

import io.jrdma.spi.IbCmProvider;
import io.jrdma.spi.SharedCounterSet;
import io.jrdma.spi.ibcm.CmMessage;
import io.jrdma.verbs.Counter;
import io.jrdma.verbs.Gid;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The example device's IB CM datagram path: it has no wire, so it keeps every message core's IB CM
 * sends for a test to read ({@link #nextSent}), and hands core the messages a test plays from a peer
 * ({@link #deliver}). A real transport lays the records out on its wire instead (rxe: CM MADs on QP1).
 */
public final class ExampleCm implements IbCmProvider {
    /** CA ACK delay, as rxe reports it. */
    static final int CA_ACK_DELAY = 15;
    /** Packet life time, as rdma_cm uses it on RoCE. */
    static final int PACKET_LIFE_TIME = 18;

    /**
     * A message core's IB CM sent.
     *
     * @param destination the GID it was sent to
     * @param tid the MAD transaction id
     * @param message the message
     */
    public record Sent(Gid destination, long tid, CmMessage message) {
    }

    private final SharedCounterSet counters;
    private final BlockingQueue<Sent> sent = new LinkedBlockingQueue<>();
    private volatile Receiver receiver;

    ExampleCm(SharedCounterSet counters) {
        this.counters = counters;
    }

    @Override
    public void start(Receiver r) {
        this.receiver = r;
    }

    @Override
    public void send(Gid destination, long tid, CmMessage message) {
        counters.inc(Counter.CM_TX_MADS);
        sent.add(new Sent(destination, tid, message));
    }

    /**
     * The next message core's IB CM sent, waiting up to {@code timeout}.
     *
     * @param timeout how long to wait
     * @return the message, or {@code null} if none came in time
     * @throws InterruptedException if interrupted while waiting
     */
    public Sent nextSent(Duration timeout) throws InterruptedException {
        return sent.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * Hands core's IB CM a message from the node owning {@code source}, as a received datagram would.
     *
     * @param source the sender's GID
     * @param tid the MAD transaction id
     * @param message the message
     * @throws IllegalStateException if core's IB CM has not started on this device
     */
    public void deliver(Gid source, long tid, CmMessage message) {
        Receiver r = receiver;
        if (r == null) {
            throw new IllegalStateException("core's IB CM has not started on this device");
        }
        counters.inc(Counter.CM_RX_MADS);
        r.receive(source, tid, message);
    }

    @Override
    public int caAckDelay() {
        return CA_ACK_DELAY;
    }

    @Override
    public int packetLifeTime() {
        return PACKET_LIFE_TIME;
    }
}
