package com.ibm.disni.verbs;

import java.io.IOException;

/** A completion queue ({@code struct ibv_cq}). */
@SuppressWarnings("checkstyle:methodname")
public class IbvCQ {
    private final RdmaVerbs verbs;
    protected IbvContext context;
    protected IbvCompChannel channel;
    protected int cqe;
    protected int handle;
    protected volatile boolean isOpen;

    /**
     * A queue of {@code context}.
     *
     * @param context the device context
     * @param compChannel its channel, or {@code null}
     * @param handle its handle
     * @throws IOException if the verbs cannot be opened
     */
    public IbvCQ(IbvContext context, IbvCompChannel compChannel, int handle) throws IOException {
        this.verbs = RdmaVerbs.open();
        this.context = context;
        this.channel = compChannel;
        this.handle = handle;
        this.isOpen = true;
    }

    /**
     * The queue's handle.
     *
     * @return a number unique in the process
     */
    public int getHandle() {
        return handle;
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
     * The completion channel.
     *
     * @return the channel, or {@code null}
     */
    public IbvCompChannel getChannel() {
        return channel;
    }

    /**
     * The number of entries.
     *
     * @return {@code cq->cqe}
     */
    public int getCqe() {
        return cqe;
    }

    /**
     * Whether the queue is open.
     *
     * @return {@code false} once destroyed
     */
    public boolean isOpen() {
        return isOpen;
    }

    /** Marks the queue closed (it does not destroy it: {@link #destroyCQ()} does). */
    public void close() {
        isOpen = false;
    }

    /**
     * {@code ibv_poll_cq}, prepared: each execute fills at most {@code ne} entries of {@code wcList}.
     *
     * @param wcList where completions go
     * @param ne at most this many per poll
     * @return the prepared call
     * @throws IOException on failure
     */
    public SVCPollCq poll(IbvWC[] wcList, int ne) throws IOException {
        return verbs.pollCQ(this, wcList, ne);
    }

    /**
     * {@code ibv_req_notify_cq}, prepared.
     *
     * @param solicited_only only solicited and error completions signal
     * @return the prepared call
     * @throws IOException on failure
     */
    public SVCReqNotify reqNotification(boolean solicited_only) throws IOException {
        return verbs.reqNotifyCQ(this, solicited_only);
    }

    /**
     * {@code ibv_ack_cq_events}.
     *
     * @param nevents events acknowledged
     * @return 0
     * @throws IOException on failure
     */
    public int ackEvents(int nevents) throws IOException {
        return verbs.ackCqEvents(this, nevents);
    }

    /**
     * {@code ibv_destroy_cq}.
     *
     * @return 0
     * @throws IOException while a QP uses the queue
     */
    public int destroyCQ() throws IOException {
        return verbs.destroyCQ(this);
    }
}
