package io.jrdma.verbs;

/**
 * A work completion ({@code struct ibv_wc}). {@link CompletionQueue#poll} fills caller-owned
 * instances, so polling allocates nothing: create an array once and poll into it.
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

    /** An empty completion to poll into. */
    public WorkCompletion() {
    }

    /** Fills every field; called by the completion queue. */
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

    /** The id of the completed work request. */
    public long wrId() {
        return wrId;
    }

    /** The status. */
    public WcStatus status() {
        return status;
    }

    /** The opcode; only meaningful when the status is {@link WcStatus#SUCCESS} (as in libibverbs). */
    public WcOpcode opcode() {
        return opcode;
    }

    /** A provider-specific error detail (siw/rxe report 0 where they have none). */
    public int vendorErr() {
        return vendorErr;
    }

    /** Bytes transferred (receives, RDMA READ, atomics' 8 bytes). */
    public int byteLen() {
        return byteLen;
    }

    /** Immediate data, valid when {@link WcFlags#WITH_IMM} is set. */
    public int immData() {
        return immOrInvalidate;
    }

    /** The invalidated rkey, valid when {@link WcFlags#WITH_INV} is set. */
    public int invalidatedRkey() {
        return immOrInvalidate;
    }

    /** The local QP number. */
    public int qpNum() {
        return qpNum;
    }

    /** The remote QP number (UD receives). */
    public int srcQp() {
        return srcQp;
    }

    /** The {@link WcFlags}. */
    public int wcFlags() {
        return wcFlags;
    }

    /** The P_Key index (UD). */
    public int pkeyIndex() {
        return pkeyIndex;
    }

    /** The source LID (0 on Ethernet). */
    public int slid() {
        return slid;
    }

    /** The service level. */
    public int sl() {
        return sl;
    }

    /** Whether the status is success. */
    public boolean isSuccess() {
        return status == WcStatus.SUCCESS;
    }

    @Override
    public String toString() {
        return "WorkCompletion[wrId=" + wrId + ", status=" + status + ", opcode=" + opcode + ", byteLen=" + byteLen
                + ", qp=0x" + Integer.toHexString(qpNum) + ", flags=" + wcFlags + "]";
    }
}
