package com.ibm.disni.verbs;

import java.io.IOException;

/**
 * A connection-manager event channel ({@code struct rdma_event_channel}): the events of its ids queue here until
 * {@link #getCmEvent(int)} returns them and {@link RdmaCmEvent#ackEvent()} acknowledges them.
 */
public class RdmaEventChannel {
    private final RdmaCm cm;
    private final int fd;
    protected volatile boolean isOpen;

    /**
     * A channel known by {@code fd}.
     *
     * @param fd a number unique in the process (there is no file descriptor)
     * @throws IOException if the connection manager cannot be opened
     */
    protected RdmaEventChannel(int fd) throws IOException {
        this.cm = RdmaCm.open();
        this.fd = fd;
        this.isOpen = true;
    }

    /**
     * The channel's number (unique in the process; jrdma has no file descriptor for it).
     *
     * @return the number
     */
    public int getFd() {
        return fd;
    }

    /**
     * Whether the channel is open.
     *
     * @return {@code false} once destroyed
     */
    public boolean isOpen() {
        return isOpen;
    }

    /** Marks the channel closed (it does not destroy it: {@link #destroyEventChannel()} does). */
    public void close() {
        isOpen = false;
    }

    /**
     * {@code rdma_create_event_channel}.
     *
     * @return a new channel
     * @throws IOException on failure
     */
    public static RdmaEventChannel createEventChannel() throws IOException {
        return RdmaCm.open().createEventChannel();
    }

    /**
     * {@code rdma_create_id} on this channel.
     *
     * @param rdma_ps {@link RdmaCm#RDMA_PS_TCP} (or {@link RdmaCm#RDMA_PS_UDP})
     * @return the id
     * @throws IOException for an unknown port space or a closed channel
     */
    public RdmaCmId createId(short rdma_ps) throws IOException {
        return cm.createId(this, rdma_ps);
    }

    /**
     * {@code rdma_get_cm_event}.
     *
     * @param timeout milliseconds to wait, negative to wait without bound
     * @return the next event, or {@code null} if none came in time
     * @throws IOException if the channel is closed or the wait is interrupted
     */
    public RdmaCmEvent getCmEvent(int timeout) throws IOException {
        return cm.getCmEvent(this, timeout);
    }

    /**
     * {@code rdma_destroy_event_channel}.
     *
     * @return 0
     * @throws IOException while ids still use the channel
     */
    public int destroyEventChannel() throws IOException {
        return cm.destroyEventChannel(this);
    }
}
