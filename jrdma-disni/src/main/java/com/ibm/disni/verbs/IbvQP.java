package com.ibm.disni.verbs;

import java.io.IOException;
import java.util.List;

/** A queue pair ({@code struct ibv_qp}), created with {@link RdmaCmId#createQP}. */
@SuppressWarnings("checkstyle:methodname")
public class IbvQP {
    /** {@code IBV_QPT_RC}: reliable connected. */
    public static final byte IBV_QPT_RC = 2;
    /** {@code IBV_QPT_UC}: unreliable connected. */
    public static final byte IBV_QPT_UC = 3;
    /** {@code IBV_QPT_UD}: unreliable datagram. */
    public static final byte IBV_QPT_UD = 4;
    /** {@code IBV_QPS_RESET}. */
    public static final int IBV_QPS_RESET = 0;
    /** {@code IBV_QPS_INIT}. */
    public static final int IBV_QPS_INIT = 1;
    /** {@code IBV_QPS_RTR}. */
    public static final int IBV_QPS_RTR = 2;
    /** {@code IBV_QPS_RTS}. */
    public static final int IBV_QPS_RTS = 3;
    /** {@code IBV_QPS_SQD}. */
    public static final int IBV_QPS_SQD = 4;
    /** {@code IBV_QPS_SQE}. */
    public static final int IBV_QPS_SQE = 5;
    /** {@code IBV_QPS_ERR}. */
    public static final int IBV_QPS_ERR = 6;

    private final RdmaVerbs verbs;
    protected IbvContext context;
    protected IbvPd pd;
    protected IbvCQ send_cq;
    protected IbvCQ recv_cq;
    protected int handle;
    protected int qp_num;
    protected int state;
    protected int qp_type;
    protected volatile boolean isOpen;

    /**
     * A QP numbered {@code qpnum}.
     *
     * @param qpnum the QP number
     * @throws IOException if the verbs cannot be opened
     */
    public IbvQP(int qpnum) throws IOException {
        this.verbs = RdmaVerbs.open();
        this.qp_num = qpnum;
        this.isOpen = true;
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
     * The protection domain.
     *
     * @return the domain
     */
    public IbvPd getPd() {
        return pd;
    }

    /**
     * The CQ of send completions.
     *
     * @return the queue
     */
    public IbvCQ getSend_cq() {
        return send_cq;
    }

    /**
     * The CQ of receive completions.
     *
     * @return the queue
     */
    public IbvCQ getRecv_cq() {
        return recv_cq;
    }

    /**
     * The QP's handle.
     *
     * @return a number unique in the process
     */
    public int getHandle() {
        return handle;
    }

    /**
     * The QP number (24 bits), as completions report it in {@link IbvWC#getQp_num()}.
     *
     * @return the number
     * @throws IOException never; declared as DiSNI declares it
     */
    public int getQp_num() throws IOException {
        return qp_num;
    }

    /**
     * The state ({@code IBV_QPS_*}).
     *
     * @return the state when this object last looked
     */
    public int getState() {
        return state;
    }

    /**
     * The QP type ({@code IBV_QPT_*}).
     *
     * @return the type
     */
    public int getQp_type() {
        return qp_type;
    }

    @Override
    public String toString() {
        return "handle=" + handle + ",qp_num=" + qp_num + ",state=" + getState();
    }

    /**
     * Whether the QP is open.
     *
     * @return {@code false} once destroyed
     */
    public boolean isOpen() {
        return isOpen;
    }

    /** Marks the QP closed (it does not destroy it: {@link RdmaCmId#destroyQP()} does). */
    public void close() {
        isOpen = false;
    }

    /**
     * {@code ibv_post_send}, prepared: the list is copied now.
     *
     * @param wrList the requests
     * @param badwrList unused (a failed post throws)
     * @return the prepared call
     * @throws IOException for an unknown opcode or more entries than the QP takes
     */
    public SVCPostSend postSend(List<IbvSendWR> wrList, List<IbvSendWR> badwrList) throws IOException {
        return verbs.postSend(this, wrList, badwrList);
    }

    /**
     * {@code ibv_post_recv}, prepared: the list is copied now.
     *
     * @param wrList the requests
     * @param badwrList unused (a failed post throws)
     * @return the prepared call
     * @throws IOException for more entries than the QP takes
     */
    public SVCPostRecv postRecv(List<IbvRecvWR> wrList, List<IbvRecvWR> badwrList) throws IOException {
        return verbs.postRecv(this, wrList, badwrList);
    }
}
