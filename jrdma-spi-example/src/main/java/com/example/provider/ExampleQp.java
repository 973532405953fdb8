package com.example.provider;

import io.jrdma.spi.ProviderQp;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QueuePair;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The provider's half of an example QP: it keeps the QP core handed it and the state changes core
 * reported. It moves no data: the SPI does not reach core's queues, so a posted WR stays outstanding.
 */
public final class ExampleQp implements ProviderQp {
    private final QueuePair qp;
    private final Runnable onDestroy;
    private final List<String> transitions = new CopyOnWriteArrayList<>();
    private volatile boolean destroyed;

    ExampleQp(QueuePair qp, Runnable onDestroy) {
        this.qp = qp;
        this.onDestroy = onDestroy;
    }

    /**
     * The QP core created, as {@link io.jrdma.spi.ProviderDevice#createQp} handed it.
     *
     * @return the QP
     */
    public QueuePair queuePair() {
        return qp;
    }

    /**
     * The state changes core reported, each as {@code FROM>TO}.
     *
     * @return the changes, oldest first
     */
    public List<String> transitions() {
        return List.copyOf(transitions);
    }

    /**
     * Whether core destroyed the QP.
     *
     * @return true once destroyed
     */
    public boolean destroyed() {
        return destroyed;
    }

    @Override
    public void modified(QpState from, QpState to, int mask) {
        transitions.add(from + ">" + to);
    }

    @Override
    public void sendPosted() {
    }

    @Override
    public void recvPosted() {
    }

    @Override
    public void destroy() {
        destroyed = true;
        onDestroy.run();
    }
}
