package io.jrdma.verbs;

/** Work-completion opcodes ({@code enum ibv_wc_opcode}, with libibverbs' values). */
public enum WcOpcode {
    /** A SEND (any flavour) completed. */
    SEND(0),
    /** An RDMA WRITE completed. */
    RDMA_WRITE(1),
    /** An RDMA READ completed. */
    RDMA_READ(2),
    /** A compare-and-swap completed. */
    COMP_SWAP(3),
    /** A fetch-and-add completed. */
    FETCH_ADD(4),
    /** A local invalidate completed. */
    LOCAL_INV(6),
    /** A receive consumed by a SEND. */
    RECV(128),
    /** A receive consumed by an RDMA WRITE with immediate. */
    RECV_RDMA_WITH_IMM(129);

    private final int value;

    WcOpcode(int value) {
        this.value = value;
    }

    /** The libibverbs value. */
    public int value() {
        return value;
    }
}
