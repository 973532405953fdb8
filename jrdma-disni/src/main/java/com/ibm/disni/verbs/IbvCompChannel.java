package com.ibm.disni.verbs;

import java.io.IOException;

/** A completion event channel ({@code struct ibv_comp_channel}): armed CQs signal it. */
public class IbvCompChannel {
    private final RdmaVerbs verbs;
    private final int fd;
    protected IbvContext context;
    protected volatile boolean isOpen;

    /**
     * A channel known by {@code fd}.
     *
     * @param fd a number unique in the process
     * @param context the device context
     * @throws IOException if the verbs cannot be opened
     */
    protected IbvCompChannel(int fd, IbvContext context) throws IOException {
        this.verbs = RdmaVerbs.open();
        this.fd = fd;
        this.context = context;
        this.isOpen = true;
    }

    /**
     * The channel's number (unique in the process; there is no file descriptor).
     *
     * @return the number
     */
    public int getFd() {
        return fd;
    }

    /**
     * The device context.
     *
     * @return the context
     */
    public IbvContext getContext() {
        return context;
    }

    /**
     * Whether the channel is open.
     *
     * @return {@code false} once destroyed
     */
    public boolean isOpen() {
        return isOpen;
    }

    /** Marks the channel closed (it does not destroy it: {@link #destroyCompChannel()} does). */
    public void close() {
        isOpen = false;
    }

    /**
     * {@code ibv_get_cq_event}: waits for an armed CQ of this channel to signal.
     *
     * @param cq the CQ expected
     * @param timeout milliseconds, negative to wait without bound
     * @return {@code true} if an event came, {@code false} on timeout
     * @throws IOException if the wait is interrupted or the channel closed
     */
    public boolean getCqEvent(IbvCQ cq, int timeout) throws IOException {
        return verbs.getCqEvent(this, cq, timeout);
    }

    /**
     * {@code ibv_destroy_comp_channel}.
     *
     * @return 0
     * @throws IOException while a CQ uses the channel
     */
    public int destroyCompChannel() throws IOException {
        return verbs.destroyCompChannel(this);
    }
}
