package com.ibm.disni.verbs;

import java.util.LinkedList;

/**
 * A send work request ({@code struct ibv_send_wr}) with libibverbs' opcodes and flags. The remote part of RDMA
 * READ/WRITE is {@link #getRdma()}, that of the two atomics {@link #getAtomic()}.
 */
@SuppressWarnings("checkstyle:methodname")
public class IbvSendWR {
    /** {@code IBV_WR_RDMA_WRITE}. */
    public static final int IBV_WR_RDMA_WRITE = 0;
    /** {@code IBV_WR_RDMA_WRITE_WITH_IMM}. */
    public static final int IBV_WR_RDMA_WRITE_WITH_IMM = 1;
    /** {@code IBV_WR_SEND}. */
    public static final int IBV_WR_SEND = 2;
    /** {@code IBV_WR_SEND_WITH_IMM}. */
    public static final int IBV_WR_SEND_WITH_IMM = 3;
    /** {@code IBV_WR_RDMA_READ}. */
    public static final int IBV_WR_RDMA_READ = 4;
    /** {@code IBV_WR_ATOMIC_CMP_AND_SWP}. */
    public static final int IBV_WR_ATOMIC_CMP_AND_SWP = 5;
    /** {@code IBV_WR_ATOMIC_FETCH_AND_ADD}. */
    public static final int IBV_WR_ATOMIC_FETCH_AND_ADD = 6;

    /** {@code IBV_SEND_FENCE}. */
    public static int IBV_SEND_FENCE = 1;
    /** {@code IBV_SEND_SIGNALED}. */
    public static int IBV_SEND_SIGNALED = 1 << 1;
    /** {@code IBV_SEND_SOLICITED}. */
    public static int IBV_SEND_SOLICITED = 1 << 2;
    /** {@code IBV_SEND_INLINE}. */
    public static int IBV_SEND_INLINE = 1 << 3;

    /** The opcodes by name; {@code ordinal()} is the libibverbs value. */
    public enum IbvWrOcode {
        /** RDMA WRITE. */
        IBV_WR_RDMA_WRITE,
        /** RDMA WRITE with immediate data. */
        IBV_WR_RDMA_WRITE_WITH_IMM,
        /** SEND. */
        IBV_WR_SEND,
        /** SEND with immediate data. */
        IBV_WR_SEND_WITH_IMM,
        /** RDMA READ. */
        IBV_WR_RDMA_READ,
        /** Atomic compare and swap. */
        IBV_WR_ATOMIC_CMP_AND_SWP,
        /** Atomic fetch and add. */
        IBV_WR_ATOMIC_FETCH_AND_ADD
    }

    protected long wr_id;
    protected LinkedList<IbvSge> sg_list;
    protected int num_sge;
    protected int opcode;
    protected int send_flags;
    protected int imm_data;
    protected Rdma rdma;
    protected Atomic atomic;
    protected Ud ud;

    /** An empty request (a SEND with no entries). */
    public IbvSendWR() {
        this(new Rdma(), new Atomic(), new Ud(), new LinkedList<>());
    }

    /**
     * A request over the given parts.
     *
     * @param rdma the RDMA part
     * @param atomic the atomic part
     * @param ud the datagram part
     * @param sg_list the scatter/gather list
     */
    protected IbvSendWR(Rdma rdma, Atomic atomic, Ud ud, LinkedList<IbvSge> sg_list) {
        this.rdma = rdma;
        this.atomic = atomic;
        this.ud = ud;
        this.sg_list = sg_list;
    }

    /**
     * The id returned in the completion.
     *
     * @return the id returned in the completion
     */
    public long getWr_id() {
        return wr_id;
    }

    /**
     * Sets the id returned in the completion.
     *
     * @param wr_id the new value
     */
    public void setWr_id(long wr_id) {
        this.wr_id = wr_id;
    }

    /**
     * The scatter/gather list (the object itself).
     *
     * @return the list
     */
    public LinkedList<IbvSge> getSg_list() {
        return sg_list;
    }

    /**
     * The {@code index}-th scatter/gather entry.
     *
     * @param index the position
     * @return the entry
     */
    public IbvSge getSge(int index) {
        return sg_list.get(index);
    }

    /**
     * Replaces the entries by those of {@code sg_list} (copied into this request's list) and sets {@code num_sge}.
     *
     * @param sg_list the entries
     */
    public void setSg_list(LinkedList<IbvSge> sg_list) {
        this.sg_list.clear();
        this.sg_list.addAll(sg_list);
        this.num_sge = sg_list.size();
    }

    /**
     * The number of scatter/gather entries.
     *
     * @return the number of scatter/gather entries
     */
    public int getNum_sge() {
        return num_sge;
    }

    /**
     * Sets the number of scatter/gather entries.
     *
     * @param num_sge the new value
     */
    public void setNum_sge(int num_sge) {
        this.num_sge = num_sge;
    }

    /**
     * The opcode ({@code IBV_WR_*}).
     *
     * @return the opcode ({@code IBV_WR_*})
     */
    public int getOpcode() {
        return opcode;
    }

    /**
     * Sets the opcode ({@code IBV_WR_*}).
     *
     * @param opcode the new value
     */
    public void setOpcode(int opcode) {
        this.opcode = opcode;
    }

    /**
     * The flags ({@code IBV_SEND_*}).
     *
     * @return the flags ({@code IBV_SEND_*})
     */
    public int getSend_flags() {
        return send_flags;
    }

    /**
     * Sets the flags ({@code IBV_SEND_*}).
     *
     * @param send_flags the new value
     */
    public void setSend_flags(int send_flags) {
        this.send_flags = send_flags;
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
     * The remote address and key of an RDMA READ or WRITE.
     *
     * @return the RDMA part
     */
    public Rdma getRdma() {
        return rdma;
    }

    /**
     * The remote address, key and operands of an atomic.
     *
     * @return the atomic part
     */
    public Atomic getAtomic() {
        return atomic;
    }

    /**
     * The datagram part (UD QPs, which DiSNI's connection manager does not create).
     *
     * @return the datagram part
     */
    public Ud getUd() {
        return ud;
    }

    /** The remote part of an RDMA READ or WRITE ({@code wr.rdma}). */
    public static class Rdma {
        protected long remote_addr;
        protected int rkey;
        protected int reserved;

        /** An empty remote part. */
        public Rdma() {
        }

        /**
         * The remote virtual address.
         *
         * @return the remote virtual address
         */
        public long getRemote_addr() {
            return remote_addr;
        }

        /**
         * Sets the remote virtual address.
         *
         * @param remote_addr the new value
         */
        public void setRemote_addr(long remote_addr) {
            this.remote_addr = remote_addr;
        }

        /**
         * The remote key.
         *
         * @return the remote key
         */
        public int getRkey() {
            return rkey;
        }

        /**
         * Sets the remote key.
         *
         * @param rkey the new value
         */
        public void setRkey(int rkey) {
            this.rkey = rkey;
        }

        /**
         * The reserved word.
         *
         * @return the reserved word
         */
        public int getReserved() {
            return reserved;
        }

        /**
         * Sets the reserved word.
         *
         * @param reserved the new value
         */
        public void setReserved(int reserved) {
            this.reserved = reserved;
        }

        /**
         * The class name, as DiSNI reports it.
         *
         * @return {@code "Rdma"}
         */
        public String getClassName() {
            return Rdma.class.getSimpleName();
        }
    }

    /** The remote part of an atomic ({@code wr.atomic}). */
    public static class Atomic {
        protected long remote_addr;
        protected long compare_add;
        protected long swap;
        protected int rkey;
        protected int reserved;

        /** An empty atomic part. */
        public Atomic() {
        }

        /**
         * The remote virtual address (8-byte aligned).
         *
         * @return the remote virtual address (8-byte aligned)
         */
        public long getRemote_addr() {
            return remote_addr;
        }

        /**
         * Sets the remote virtual address (8-byte aligned).
         *
         * @param remote_addr the new value
         */
        public void setRemote_addr(long remote_addr) {
            this.remote_addr = remote_addr;
        }

        /**
         * The compare value of a compare-and-swap, or the addend of a fetch-and-add.
         *
         * @return the compare value of a compare-and-swap, or the addend of a fetch-and-add
         */
        public long getCompare_add() {
            return compare_add;
        }

        /**
         * Sets the compare value of a compare-and-swap, or the addend of a fetch-and-add.
         *
         * @param compare_add the new value
         */
        public void setCompare_add(long compare_add) {
            this.compare_add = compare_add;
        }

        /**
         * The swap value of a compare-and-swap.
         *
         * @return the swap value of a compare-and-swap
         */
        public long getSwap() {
            return swap;
        }

        /**
         * Sets the swap value of a compare-and-swap.
         *
         * @param swap the new value
         */
        public void setSwap(long swap) {
            this.swap = swap;
        }

        /**
         * The remote key.
         *
         * @return the remote key
         */
        public int getRkey() {
            return rkey;
        }

        /**
         * Sets the remote key.
         *
         * @param rkey the new value
         */
        public void setRkey(int rkey) {
            this.rkey = rkey;
        }

        /**
         * The reserved word.
         *
         * @return the reserved word
         */
        public int getReserved() {
            return reserved;
        }

        /**
         * Sets the reserved word.
         *
         * @param reserved the new value
         */
        public void setReserved(int reserved) {
            this.reserved = reserved;
        }

        /**
         * The class name, as DiSNI reports it.
         *
         * @return {@code "Atomic"}
         */
        public String getClassName() {
            return Atomic.class.getSimpleName();
        }
    }

    /** The datagram part ({@code wr.ud}). */
    public static class Ud {
        protected int ah;
        protected int remote_qpn;
        protected int remote_qkey;
        protected int reserved;

        /** An empty datagram part. */
        public Ud() {
        }

        /**
         * The address handle.
         *
         * @return the address handle
         */
        public int getAh() {
            return ah;
        }

        /**
         * Sets the address handle.
         *
         * @param ah the new value
         */
        public void setAh(int ah) {
            this.ah = ah;
        }

        /**
         * The remote QP number.
         *
         * @return the remote QP number
         */
        public int getRemote_qpn() {
            return remote_qpn;
        }

        /**
         * Sets the remote QP number.
         *
         * @param remote_qpn the new value
         */
        public void setRemote_qpn(int remote_qpn) {
            this.remote_qpn = remote_qpn;
        }

        /**
         * The remote Q_Key.
         *
         * @return the remote Q_Key
         */
        public int getRemote_qkey() {
            return remote_qkey;
        }

        /**
         * Sets the remote Q_Key.
         *
         * @param remote_qkey the new value
         */
        public void setRemote_qkey(int remote_qkey) {
            this.remote_qkey = remote_qkey;
        }

        /**
         * The reserved word.
         *
         * @return the reserved word
         */
        public int getReserved() {
            return reserved;
        }

        /**
         * Sets the reserved word.
         *
         * @param reserved the new value
         */
        public void setReserved(int reserved) {
            this.reserved = reserved;
        }

        /**
         * The class name, as DiSNI reports it.
         *
         * @return {@code "Ud"}
         */
        public String getClassName() {
            return Ud.class.getSimpleName();
        }
    }
}
