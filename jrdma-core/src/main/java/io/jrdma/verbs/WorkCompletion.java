package io.jrdma.verbs;

/**
 * A work completion ({@code struct ibv_wc}). {@link CompletionQueue#poll} fills caller-owned
 * instances, so polling allocates nothing: create an array once and poll into it. Not thread-safe:
 * each polling thread keeps its own.
 */
public final class WorkCompletion {
    private long wrId;
    private WcStatus status = WcStatus.SUCCESS;
    private WcOpcode opcode = WcOpcode.SEND;
    private int vendorErr;
    private int byteLen;
    private int immOrInvalidate;
    private int qpNum;
    private int srcQp;
    private int wcFlags;
    private int pkeyIndex;
    private int slid;
    private int sl;

    /** An empty completion to poll into. Linux: a {@code struct ibv_wc} in the array given to {@code ibv_poll_cq}. */
    public WorkCompletion() {
    }

    /**
     * Fills every field; called by the completion queue. Linux: what the provider's {@code poll_cq} writes into the
     * {@code ibv_wc}.
     */
    public void fill(long wrId, WcStatus status, WcOpcode opcode, int vendorErr, int byteLen, int immOrInvalidate,
            int qpNum, int srcQp, int wcFlags, int pkeyIndex, int slid, int sl) {
        this.wrId = wrId;
        this.status = status;
        this.opcode = opcode;
        this.vendorErr = vendorErr;
        this.byteLen = byteLen;
        this.immOrInvalidate = immOrInvalidate;
        this.qpNum = qpNum;
        this.srcQp = srcQp;
        this.wcFlags = wcFlags;
        this.pkeyIndex = pkeyIndex;
        this.slid = slid;
        this.sl = sl;
    }

    /** The id of the completed work request. Linux: {@code ibv_wc.wr_id}. */
    public long wrId() {
        return wrId;
    }

    /** The status. Linux: {@code ibv_wc.status}. */
    public WcStatus status() {
        return status;
    }

    /**
     * The opcode; only meaningful when the status is {@link WcStatus#SUCCESS} (as in libibverbs). Linux:
     * {@code ibv_wc.opcode}.
     */
    public WcOpcode opcode() {
        return opcode;
    }

    /** A provider-specific error detail (siw/rxe report 0 where they have none). Linux: {@code ibv_wc.vendor_err}. */
    public int vendorErr() {
        return vendorErr;
    }

    /** Bytes transferred (receives, RDMA READ, atomics' 8 bytes). Linux: {@code ibv_wc.byte_len}. */
    public int byteLen() {
        return byteLen;
    }

    /**
     * Immediate data, valid when {@link WcFlags#WITH_IMM} is set. Linux: {@code ibv_wc.imm_data} (here in host order).
     */
    public int immData() {
        return immOrInvalidate;
    }

    /** The invalidated rkey, valid when {@link WcFlags#WITH_INV} is set. Linux: {@code ibv_wc.invalidated_rkey}. */
    public int invalidatedRkey() {
        return immOrInvalidate;
    }

    /** The local QP number. Linux: {@code ibv_wc.qp_num}. */
    public int qpNum() {
        return qpNum;
    }

    /** The remote QP number (UD receives). Linux: {@code ibv_wc.src_qp}. */
    public int srcQp() {
        return srcQp;
    }

    /** The {@link WcFlags}. Linux: {@code ibv_wc.wc_flags}. */
    public int wcFlags() {
        return wcFlags;
    }

    /** The P_Key index (UD). Linux: {@code ibv_wc.pkey_index}. */
    public int pkeyIndex() {
        return pkeyIndex;
    }

    /** The source LID (0 on Ethernet). Linux: {@code ibv_wc.slid}. */
    public int slid() {
        return slid;
    }

    /** The service level. Linux: {@code ibv_wc.sl}. */
    public int sl() {
        return sl;
    }

    /** Whether the status is success. Linux: {@code wc.status == IBV_WC_SUCCESS}. */
    public boolean isSuccess() {
        return status == WcStatus.SUCCESS;
    }

    @Override
    public String toString() {
        return "WorkCompletion[wrId=" + wrId + ", status=" + status + ", opcode=" + opcode + ", byteLen=" + byteLen
                + ", qp=0x" + Integer.toHexString(qpNum) + ", flags=" + wcFlags + "]";
    }
}
