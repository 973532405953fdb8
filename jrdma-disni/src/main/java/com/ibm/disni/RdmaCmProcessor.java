package com.ibm.disni;

import java.io.IOException;

import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;

/**
 * A group's event channel and the daemon thread that hands its events to the group, then acknowledges them.
 */
public class RdmaCmProcessor implements Runnable {
    private static final System.Logger LOG = System.getLogger("com.ibm.disni");

    private final RdmaEventChannel cmChannel;
    private final RdmaEndpointGroup<? extends RdmaEndpoint> cmConsumer;
    private final Thread thread;
    private volatile boolean closed = true;
    private final int timeout;

    /**
     * A processor for {@code cmConsumer}.
     *
     * @param cmConsumer the group
     * @param timeout milliseconds the thread waits for an event at a time
     * @throws IOException if no event channel can be made
     */
    public RdmaCmProcessor(RdmaEndpointGroup<? extends RdmaEndpoint> cmConsumer, int timeout) throws IOException {
        this.cmChannel = RdmaEventChannel.createEventChannel();
        this.cmConsumer = cmConsumer;
        this.timeout = timeout > 0 ? timeout : 1000;
        this.thread = new Thread(this, "disni-cm-" + cmChannel.getFd());
        this.thread.setDaemon(true);
    }

    /** Starts the thread. */
    public synchronized void start() {
        closed = false;
        thread.start();
    }

    /** The thread's loop. */
    @Override
    public void run() {
        while (!closed) {
            try {
                RdmaCmEvent e = cmChannel.getCmEvent(timeout);
                if (e != null) {
                    try {
                        cmConsumer.dispatchCmEvent(e);
                    } finally {
                        e.ackEvent();
                    }
                }
            } catch (IOException | RuntimeException e) {
                if (closed || cmConsumer.isClosed()) {
                    break;
                }
                LOG.log(System.Logger.Level.WARNING, "CM processor: " + e.getMessage(), e);
            }
        }
    }

    /**
     * Stops the thread and destroys the channel.
     *
     * @throws IOException while ids still use the channel
     * @throws InterruptedException if interrupted while waiting for the thread
     */
    public synchronized void close() throws IOException, InterruptedException {
        if (closed) {
            return;
        }
        closed = true;
        thread.interrupt();
        thread.join();
        cmChannel.destroyEventChannel();
    }

    RdmaCmId createId(short ps) throws IOException {
        return cmChannel.createId(ps);
    }
}
