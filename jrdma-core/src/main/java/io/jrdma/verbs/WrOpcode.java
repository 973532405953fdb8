package io.jrdma.verbs;

/** Send work-request opcodes ({@code enum ibv_wr_opcode}, with libibverbs' values). */
public enum WrOpcode {
    /** RDMA WRITE into the remote region. */
    RDMA_WRITE(0),
    /** RDMA WRITE, then consume a remote receive that completes with the immediate data. */
    RDMA_WRITE_WITH_IMM(1),
    /** SEND into the remote receive queue. */
    SEND(2),
    /** SEND carrying 32 bits of immediate data. */
    SEND_WITH_IMM(3),
    /** RDMA READ from the remote region into the local gather list. */
    RDMA_READ(4),
    /** 64-bit compare and swap on remote memory; the original value lands in the local SGE. */
    ATOMIC_CMP_AND_SWP(5),
    /** 64-bit fetch and add on remote memory; the original value lands in the local SGE. */
    ATOMIC_FETCH_AND_ADD(6),
    /** Invalidate a local memory key. */
    LOCAL_INV(7),
    /** SEND that also invalidates an rkey at the responder. */
    SEND_WITH_INV(9);

    private final int value;

    WrOpcode(int value) {
        this.value = value;
    }

    /** The libibverbs value. */
    public int value() {
        return value;
    }

    /**
     * Whether the operation reads remote memory (RDMA READ and atomics), counted against the ORD. Linux: the opcodes
     * that use the initiator depth ({@code max_rd_atomic}).
     */
    public boolean isReadOrAtomic() {
        return this == RDMA_READ || this == ATOMIC_CMP_AND_SWP || this == ATOMIC_FETCH_AND_ADD;
    }

    /**
     * Whether the operation is an atomic. Linux: {@code IBV_WR_ATOMIC_CMP_AND_SWP} and
     * {@code IBV_WR_ATOMIC_FETCH_AND_ADD}.
     */
    public boolean isAtomic() {
        return this == ATOMIC_CMP_AND_SWP || this == ATOMIC_FETCH_AND_ADD;
    }

    /**
     * Whether the operation consumes a receive at the responder. Linux: the opcodes that complete an
     * {@code ibv_recv_wr} at the responder.
     */
    public boolean consumesRecv() {
        return this == SEND || this == SEND_WITH_IMM || this == SEND_WITH_INV || this == RDMA_WRITE_WITH_IMM;
    }

    /**
     * The completion opcode the requester reports for this WR. Linux: the {@code enum ibv_wc_opcode} of this
     * {@code enum ibv_wr_opcode}'s completion.
     */
    public WcOpcode completionOpcode() {
        return switch (this) {
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> WcOpcode.RDMA_WRITE;
            case SEND, SEND_WITH_IMM, SEND_WITH_INV -> WcOpcode.SEND;
            case RDMA_READ -> WcOpcode.RDMA_READ;
            case ATOMIC_CMP_AND_SWP -> WcOpcode.COMP_SWAP;
            case ATOMIC_FETCH_AND_ADD -> WcOpcode.FETCH_ADD;
            case LOCAL_INV -> WcOpcode.LOCAL_INV;
        };
    }
}
