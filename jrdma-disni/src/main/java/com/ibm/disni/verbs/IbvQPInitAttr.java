package com.ibm.disni.verbs;

/** What a queue pair is created with ({@code struct ibv_qp_init_attr}). */
@SuppressWarnings("checkstyle:methodname")
public class IbvQPInitAttr {
    private long qp_context;
    private long srq;
    private byte qp_type = IbvQP.IBV_QPT_RC;
    private byte sq_sig_all;
    private IbvCQ send_cq;
    private IbvCQ recv_cq;
    private final IbvQPCap cap;

    /** Attributes of an RC QP with zero capacities. */
    public IbvQPInitAttr() {
        cap = new IbvQPCap();
    }

    /**
     * The user context (kept, unused).
     *
     * @return the user context (kept, unused)
     */
    public long getQp_context() {
        return qp_context;
    }

    /**
     * Sets the user context (kept, unused).
     *
     * @param qp_context the new value
     */
    public void setQp_context(long qp_context) {
        this.qp_context = qp_context;
    }

    /**
     * The shared receive queue (unsupported: must stay 0).
     *
     * @return the shared receive queue (unsupported: must stay 0)
     */
    public long getSrq() {
        return srq;
    }

    /**
     * Sets the shared receive queue (unsupported: must stay 0).
     *
     * @param srq the new value
     */
    public void setSrq(long srq) {
        this.srq = srq;
    }

    /**
     * The QP type ({@code IbvQP.IBV_QPT_*}).
     *
     * @return the QP type ({@code IbvQP.IBV_QPT_*})
     */
    public byte getQp_type() {
        return qp_type;
    }

    /**
     * Sets the QP type ({@code IbvQP.IBV_QPT_*}).
     *
     * @param qp_type the new value
     */
    public void setQp_type(byte qp_type) {
        this.qp_type = qp_type;
    }

    /**
     * Whether every send request completes (non-zero) or only signaled ones (0).
     *
     * @return whether every send request completes (non-zero) or only signaled ones (0)
     */
    public byte getSq_sig_all() {
        return sq_sig_all;
    }

    /**
     * Sets whether every send request completes (non-zero) or only signaled ones (0).
     *
     * @param sq_sig_all the new value
     */
    public void setSq_sig_all(byte sq_sig_all) {
        this.sq_sig_all = sq_sig_all;
    }

    /**
     * The CQ of send completions.
     *
     * @return the CQ of send completions
     */
    public IbvCQ getSend_cq() {
        return send_cq;
    }

    /**
     * Sets the CQ of send completions.
     *
     * @param send_cq the new value
     */
    public void setSend_cq(IbvCQ send_cq) {
        this.send_cq = send_cq;
    }

    /**
     * The CQ of receive completions.
     *
     * @return the CQ of receive completions
     */
    public IbvCQ getRecv_cq() {
        return recv_cq;
    }

    /**
     * Sets the CQ of receive completions.
     *
     * @param recv_cq the new value
     */
    public void setRecv_cq(IbvCQ recv_cq) {
        this.recv_cq = recv_cq;
    }

    /**
     * The capacities, to edit in place.
     *
     * @return the capacities
     */
    public IbvQPCap cap() {
        return cap;
    }
}
