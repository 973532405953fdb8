package com.ibm.disni.verbs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The verbs (libibverbs' calls), implemented on {@code io.jrdma.verbs}. Most applications use the object forms on
 * {@link IbvContext}, {@link IbvPd}, {@link IbvCQ} and {@link IbvQP}, which call these.
 */
public abstract class RdmaVerbs {
    /** For the implementation. */
    public RdmaVerbs() {
    }

    /**
     * The process-wide verbs.
     *
     * @return jrdma's verbs
     * @throws IOException if jrdma cannot be opened
     */
    public static RdmaVerbs open() throws IOException {
        return RdmaProvider.provider().openVerbs();
    }

    /**
     * The provider's interface version.
     *
     * @return {@link RdmaProvider#getVersion()}, 0 if there is no provider
     */
    public static int getVersion() {
        try {
            return RdmaProvider.provider().getVersion();
        } catch (IOException e) {
            return 0;
        }
    }

    /**
     * {@code ibv_alloc_pd}.
     *
     * @param context the device context
     * @return the domain
     * @throws IOException on failure
     */
    public abstract IbvPd allocPd(IbvContext context) throws IOException;

    /**
     * {@code ibv_create_comp_channel}.
     *
     * @param context the device context
     * @return the channel
     * @throws IOException on failure
     */
    public abstract IbvCompChannel createCompChannel(IbvContext context) throws IOException;

    /**
     * {@code ibv_create_cq}.
     *
     * @param context the device context
     * @param compChannel the channel notifications go to, or {@code null}
     * @param ncqe at least this many entries
     * @param comp_vector the completion vector (accepted, ignored)
     * @return the queue
     * @throws IOException on failure (for instance more entries than the device has)
     */
    public abstract IbvCQ createCQ(IbvContext context, IbvCompChannel compChannel, int ncqe, int comp_vector)
            throws IOException;

    /**
     * {@code ibv_get_cq_event}: waits for an armed CQ of the channel to signal.
     *
     * @param compChannel the channel
     * @param cq the CQ the caller expects the event for
     * @param timeout milliseconds, negative to wait without bound
     * @return {@code true} if an event came, {@code false} on timeout
     * @throws IOException if the wait is interrupted or the channel closed
     */
    public abstract boolean getCqEvent(IbvCompChannel compChannel, IbvCQ cq, int timeout) throws IOException;

    /**
     * {@code ibv_reg_mr} over a buffer's whole capacity (its address is the base address of the buffer).
     *
     * @param pd the domain
     * @param buffer the memory; DiSNI needs a direct buffer, jrdma takes heap buffers too
     * @param access {@code IbvMr.IBV_ACCESS_*} flags
     * @return the prepared registration
     * @throws IOException on failure
     */
    public abstract SVCRegMr regMr(IbvPd pd, ByteBuffer buffer, int access) throws IOException;

    /**
     * {@code ibv_reg_mr} over native memory by address and length (memory of another library, a mapped file).
     *
     * @param pd the domain
     * @param address the native address of the first byte
     * @param length the length in bytes
     * @param access {@code IbvMr.IBV_ACCESS_*} flags
     * @return the prepared registration
     * @throws IOException on failure
     */
    public abstract SVCRegMr regMr(IbvPd pd, long address, int length, int access) throws IOException;

    /**
     * Whether registered memory may be paged on demand: the {@code IbvContext.IBV_ODP_SUPPORT_*} bits of RC.
     *
     * @param context the device context
     * @return the supported operations' bits
     * @throws IOException on failure
     */
    public abstract int queryOdpSupport(IbvContext context) throws IOException;

    /**
     * Faults in the pages of part of a region ahead of use.
     *
     * @param ibvMr the region
     * @param address the first byte
     * @param length the bytes
     * @return 0, or {@code EINVAL} (22) if the range is not inside the region
     * @throws IOException if the region is deregistered
     */
    public abstract int expPrefetchMr(IbvMr ibvMr, long address, int length) throws IOException;

    /**
     * {@code ibv_dereg_mr}.
     *
     * @param mr the region
     * @return the prepared deregistration
     * @throws IOException on failure
     */
    public abstract SVCDeregMr deregMr(IbvMr mr) throws IOException;

    /**
     * {@code ibv_post_send}, prepared.
     *
     * @param qp the queue pair
     * @param wrList the requests, copied now
     * @param badwrList unused (a failed post throws)
     * @return the prepared call
     * @throws IOException for an unknown opcode or too many entries
     */
    public abstract SVCPostSend postSend(IbvQP qp, List<IbvSendWR> wrList, List<IbvSendWR> badwrList)
            throws IOException;

    /**
     * {@code ibv_post_recv}, prepared.
     *
     * @param qp the queue pair
     * @param wrList the requests, copied now
     * @param badwrList unused (a failed post throws)
     * @return the prepared call
     * @throws IOException for too many entries
     */
    public abstract SVCPostRecv postRecv(IbvQP qp, List<IbvRecvWR> wrList, List<IbvRecvWR> badwrList)
            throws IOException;

    /**
     * {@code ibv_poll_cq}, prepared.
     *
     * @param cq the queue
     * @param wcList where completions go
     * @param ne at most this many per poll
     * @return the prepared call
     * @throws IOException on failure
     */
    public abstract SVCPollCq pollCQ(IbvCQ cq, IbvWC[] wcList, int ne) throws IOException;

    /**
     * {@code ibv_req_notify_cq}, prepared.
     *
     * @param cq the queue, with a channel
     * @param solicited_only only solicited and error completions signal
     * @return the prepared call
     * @throws IOException on failure
     */
    public abstract SVCReqNotify reqNotifyCQ(IbvCQ cq, boolean solicited_only) throws IOException;

    /**
     * {@code ibv_ack_cq_events}.
     *
     * @param cq the queue
     * @param nevents events acknowledged
     * @return 0
     * @throws IOException on failure
     */
    public abstract int ackCqEvents(IbvCQ cq, int nevents) throws IOException;

    /**
     * {@code ibv_destroy_comp_channel}.
     *
     * @param compChannel the channel
     * @return 0
     * @throws IOException while a CQ uses it
     */
    public abstract int destroyCompChannel(IbvCompChannel compChannel) throws IOException;

    /**
     * {@code ibv_dealloc_pd}.
     *
     * @param pd the domain
     * @return 0
     * @throws IOException while regions or QPs use it
     */
    public abstract int deallocPd(IbvPd pd) throws IOException;

    /**
     * {@code ibv_destroy_cq}.
     *
     * @param cq the queue
     * @return 0
     * @throws IOException while a QP uses it
     */
    public abstract int destroyCQ(IbvCQ cq) throws IOException;
}
