package com.ibm.disni.verbs;

/**
 * A work completion ({@code struct ibv_wc}) with libibverbs' numbers: {@link #getStatus()} is an
 * {@code enum ibv_wc_status} value (5 is {@code IBV_WC_WR_FLUSH_ERR}) and {@link #getOpcode()} an
 * {@code enum ibv_wc_opcode} value (128 is {@code IBV_WC_RECV}). Polling fills caller-owned instances.
 */
@SuppressWarnings("checkstyle:methodname")
public class IbvWC implements Cloneable {
    /** The size of {@code struct ibv_wc} on x86-64, as DiSNI reports it. */
    public static int CSIZE = 48;
    /** {@link #getErr()}: the poll succeeded. */
    public static int CQ_OK = 0;
    /** {@link #getErr()}: the queue was empty. */
    public static int CQ_EMPTY = -1;
    /** {@link #getErr()}: the poll failed. */
    public static int CQ_POLL_ERR = -2;

    /** Work-completion status ({@code enum ibv_wc_status}); {@code ordinal()} is libibverbs' value. */
    public enum IbvWcStatus {
        /** Success. */
        IBV_WC_SUCCESS,
        /** Local length error. */
        IBV_WC_LOC_LEN_ERR,
        /** Local QP operation error. */
        IBV_WC_LOC_QP_OP_ERR,
        /** Local EE context operation error. */
        IBV_WC_LOC_EEC_OP_ERR,
        /** Local protection error (a bad lkey or an address outside the region). */
        IBV_WC_LOC_PROT_ERR,
        /** Flushed: the QP is in the error state. */
        IBV_WC_WR_FLUSH_ERR,
        /** Memory window bind error. */
        IBV_WC_MW_BIND_ERR,
        /** Bad response. */
        IBV_WC_BAD_RESP_ERR,
        /** Local access error. */
        IBV_WC_LOC_ACCESS_ERR,
        /** Remote invalid request. */
        IBV_WC_REM_INV_REQ_ERR,
        /** Remote access error. */
        IBV_WC_REM_ACCESS_ERR,
        /** Remote operation error. */
        IBV_WC_REM_OP_ERR,
        /** Transport retry counter exceeded. */
        IBV_WC_RETRY_EXC_ERR,
        /** RNR retry counter exceeded. */
        IBV_WC_RNR_RETRY_EXC_ERR,
        /** Local RDD violation. */
        IBV_WC_LOC_RDD_VIOL_ERR,
        /** Remote invalid RD request. */
        IBV_WC_REM_INV_RD_REQ_ERR,
        /** Remote abort. */
        IBV_WC_REM_ABORT_ERR,
        /** Invalid EE context number. */
        IBV_WC_INV_EECN_ERR,
        /** Invalid EE context state. */
        IBV_WC_INV_EEC_STATE_ERR,
        /** Fatal error. */
        IBV_WC_FATAL_ERR,
        /** Response timeout. */
        IBV_WC_RESP_TIMEOUT_ERR,
        /** General error. */
        IBV_WC_GENERAL_ERR;

        private static final IbvWcStatus[] BY_VALUE = values();

        /**
         * The status with libibverbs' value {@code value}.
         *
         * @param value a status value
         * @return the status
         * @throws IllegalArgumentException for a value libibverbs does not define
         */
        public static IbvWcStatus valueOf(int value) {
            if (value < 0 || value >= BY_VALUE.length) {
                throw new IllegalArgumentException("no work-completion status " + value);
            }
            return BY_VALUE[value];
        }
    }

    /** Work-completion opcodes ({@code enum ibv_wc_opcode}) with libibverbs' values. */
    public enum IbvWcOpcode {
        /** A SEND completed. */
        IBV_WC_SEND(0),
        /** An RDMA WRITE completed. */
        IBV_WC_RDMA_WRITE(1),
        /** An RDMA READ completed. */
        IBV_WC_RDMA_READ(2),
        /** A compare-and-swap completed. */
        IBV_WC_COMP_SWAP(3),
        /** A fetch-and-add completed. */
        IBV_WC_FETCH_ADD(4),
        /** A memory-window bind completed. */
        IBV_WC_BIND_MW(5),
        /** A receive was consumed by a SEND. */
        IBV_WC_RECV(128),
        /** A receive was consumed by an RDMA WRITE with immediate data. */
        IBV_WC_RECV_RDMA_WITH_IMM(129);

        private final int opcode;

        IbvWcOpcode(int opcode) {
            this.opcode = opcode;
        }

        /**
         * The libibverbs value.
         *
         * @return the value
         */
        public int getOpcode() {
            return opcode;
        }

        /**
         * The opcode with libibverbs' value {@code value}.
         *
         * @param value an opcode value
         * @return the opcode
         * @throws IllegalArgumentException for a value this enum does not name
         */
        public static IbvWcOpcode valueOf(int value) {
            for (IbvWcOpcode o : values()) {
                if (o.opcode == value) {
                    return o;
                }
            }
            throw new IllegalArgumentException("no work-completion opcode " + value);
        }
    }

    protected long wr_id;
    protected int status;
    protected int opcode;
    protected int vendor_err;
    protected int byte_len;
    protected int imm_data;
    protected int qp_num;
    protected int src_qp;
    protected int wc_flags;
    protected short pkey_index;
    protected short slid;
    protected short sl;
    protected short dlid_path_bits;
    protected int err;
    protected boolean isSend;
    protected short wqIndex;
    protected short tail1;
    protected short tail2;
    protected short tail3;
    protected short diff;
    protected int wrIndex;
    protected int sqcqn;

    /** An empty completion to poll into. */
    public IbvWC() {
        err = CQ_OK;
    }

    /**
     * A copy of this completion (to keep after the next poll overwrites this one).
     *
     * @return the copy
     */
    @Override
    public IbvWC clone() {
        try {
            return (IbvWC) super.clone();
        } catch (CloneNotSupportedException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * The id of the completed request.
     *
     * @return the id of the completed request
     */
    public long getWr_id() {
        return wr_id;
    }

    /**
     * Sets the id of the completed request.
     *
     * @param wr_id the new value
     */
    public void setWr_id(long wr_id) {
        this.wr_id = wr_id;
    }

    /**
     * The status ({@link IbvWcStatus} ordinal, libibverbs' value).
     *
     * @return the status ({@link IbvWcStatus} ordinal, libibverbs' value)
     */
    public int getStatus() {
        return status;
    }

    /**
     * Sets the status ({@link IbvWcStatus} ordinal, libibverbs' value).
     *
     * @param status the new value
     */
    public void setStatus(int status) {
        this.status = status;
    }

    /**
     * The opcode ({@link IbvWcOpcode} value, libibverbs' value).
     *
     * @return the opcode ({@link IbvWcOpcode} value, libibverbs' value)
     */
    public int getOpcode() {
        return opcode;
    }

    /**
     * Sets the opcode ({@link IbvWcOpcode} value, libibverbs' value).
     *
     * @param opcode the new value
     */
    public void setOpcode(int opcode) {
        this.opcode = opcode;
    }

    /**
     * The vendor error.
     *
     * @return the vendor error
     */
    public int getVendor_err() {
        return vendor_err;
    }

    /**
     * Sets the vendor error.
     *
     * @param vendor_err the new value
     */
    public void setVendor_err(int vendor_err) {
        this.vendor_err = vendor_err;
    }

    /**
     * The bytes transferred.
     *
     * @return the bytes transferred
     */
    public int getByte_len() {
        return byte_len;
    }

    /**
     * Sets the bytes transferred.
     *
     * @param byte_len the new value
     */
    public void setByte_len(int byte_len) {
        this.byte_len = byte_len;
    }

    /**
     * The immediate data.
     *
     * @return the immediate data
     */
    public int getImm_data() {
        return imm_data;
    }

    /**
     * Sets the immediate data.
     *
     * @param imm_data the new value
     */
    public void setImm_data(int imm_data) {
        this.imm_data = imm_data;
    }

    /**
     * The local QP number.
     *
     * @return the local QP number
     */
    public int getQp_num() {
        return qp_num;
    }

    /**
     * Sets the local QP number.
     *
     * @param qp_num the new value
     */
    public void setQp_num(int qp_num) {
        this.qp_num = qp_num;
    }

    /**
     * The remote QP number (datagrams).
     *
     * @return the remote QP number (datagrams)
     */
    public int getSrc_qp() {
        return src_qp;
    }

    /**
     * Sets the remote QP number (datagrams).
     *
     * @param src_qp the new value
     */
    public void setSrc_qp(int src_qp) {
        this.src_qp = src_qp;
    }

    /**
     * The {@code IBV_WC_*} flags.
     *
     * @return the {@code IBV_WC_*} flags
     */
    public int getWc_flags() {
        return wc_flags;
    }

    /**
     * Sets the {@code IBV_WC_*} flags.
     *
     * @param wc_flags the new value
     */
    public void setWc_flags(int wc_flags) {
        this.wc_flags = wc_flags;
    }

    /**
     * The P_Key index.
     *
     * @return the P_Key index
     */
    public short getPkey_index() {
        return pkey_index;
    }

    /**
     * Sets the P_Key index.
     *
     * @param pkey_index the new value
     */
    public void setPkey_index(short pkey_index) {
        this.pkey_index = pkey_index;
    }

    /**
     * The source LID.
     *
     * @return the source LID
     */
    public short getSlid() {
        return slid;
    }

    /**
     * Sets the source LID.
     *
     * @param slid the new value
     */
    public void setSlid(short slid) {
        this.slid = slid;
    }

    /**
     * The service level.
     *
     * @return the service level
     */
    public short getSl() {
        return sl;
    }

    /**
     * Sets the service level.
     *
     * @param sl the new value
     */
    public void setSl(short sl) {
        this.sl = sl;
    }

    /**
     * The destination LID path bits.
     *
     * @return the destination LID path bits
     */
    public short getDlid_path_bits() {
        return dlid_path_bits;
    }

    /**
     * Sets the destination LID path bits.
     *
     * @param dlid_path_bits the new value
     */
    public void setDlid_path_bits(short dlid_path_bits) {
        this.dlid_path_bits = dlid_path_bits;
    }

    /**
     * The class name, as DiSNI reports it.
     *
     * @return {@code "IbvWC"}
     */
    public String getClassName() {
        return IbvWC.class.getSimpleName();
    }

    /**
     * The poll result ({@link #CQ_OK}).
     *
     * @return the poll result ({@link #CQ_OK})
     */
    public int getErr() {
        return err;
    }

    /**
     * Sets the poll result ({@link #CQ_OK}).
     *
     * @param err the new value
     */
    public void setErr(int err) {
        this.err = err;
    }

    /**
     * Whether the completion is of a send-queue request.
     *
     * @return {@code true} for send, RDMA and atomic completions
     */
    public boolean isSend() {
        return isSend;
    }

    /**
     * Sets whether the completion is of a send-queue request.
     *
     * @param isSend the new value
     */
    public void setSend(boolean isSend) {
        this.isSend = isSend;
    }

    /**
     * The work-queue index (unused).
     *
     * @return the work-queue index (unused)
     */
    public short getWqIndex() {
        return wqIndex;
    }

    /**
     * Sets the work-queue index (unused).
     *
     * @param wqIndex the new value
     */
    public void setWqIndex(short wqIndex) {
        this.wqIndex = wqIndex;
    }

    /**
     * An unused word.
     *
     * @return an unused word
     */
    public short getTail1() {
        return tail1;
    }

    /**
     * Sets an unused word.
     *
     * @param tail1 the new value
     */
    public void setTail1(short tail1) {
        this.tail1 = tail1;
    }

    /**
     * An unused word.
     *
     * @return an unused word
     */
    public short getTail2() {
        return tail2;
    }

    /**
     * Sets an unused word.
     *
     * @param tail2 the new value
     */
    public void setTail2(short tail2) {
        this.tail2 = tail2;
    }

    /**
     * An unused word.
     *
     * @return an unused word
     */
    public short getTail3() {
        return tail3;
    }

    /**
     * Sets an unused word.
     *
     * @param tail3 the new value
     */
    public void setTail3(short tail3) {
        this.tail3 = tail3;
    }

    /**
     * Sets an unused word.
     *
     * @param diff the new value
     */
    public void setDiff(short diff) {
        this.diff = diff;
    }

    /**
     * An unused word.
     *
     * @return the value last set
     */
    public short getDiff() {
        return diff;
    }

    /**
     * The send CQ number (unused).
     *
     * @return the value last set
     */
    public int getSqcqn() {
        return sqcqn;
    }

    /**
     * Sets the send CQ number (unused).
     *
     * @param sqcqn the new value
     */
    public void setSqcqn(int sqcqn) {
        this.sqcqn = sqcqn;
    }

    @Override
    public String toString() {
        return "IbvWC[wr_id=" + wr_id + ", status=" + status + ", opcode=" + opcode + ", byte_len=" + byte_len
                + ", qp_num=" + qp_num + "]";
    }
}
