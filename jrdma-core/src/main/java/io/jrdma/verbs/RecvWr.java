package io.jrdma.verbs;

/**
 * A receive work request ({@code struct ibv_recv_wr}). Mutable and reusable; posting copies it.
 * Not thread-safe: one thread fills and posts a given request.
 */
public final class RecvWr extends SgList {
    private long wrId;
    private RecvWr next;

    /** A request with room for one SGE (it grows on demand). Linux: a zeroed {@code struct ibv_recv_wr}. */
    public RecvWr() {
        super(1);
    }

    /**
     * A request with room for {@code sgeCapacity} SGEs. Linux: a zeroed {@code struct ibv_recv_wr} with an
     * {@code sg_list} of that size.
     */
    public RecvWr(int sgeCapacity) {
        super(sgeCapacity);
    }

    /** Sets the id returned in the completion. Linux: {@code ibv_recv_wr.wr_id}. */
    public RecvWr wrId(long id) {
        this.wrId = id;
        return this;
    }

    /** Sets the number of SGEs in use. Linux: {@code ibv_recv_wr.num_sge}. */
    public RecvWr numSge(int n) {
        setNumSge(n);
        return this;
    }

    /**
     * Uses exactly one SGE: {@code length} bytes at {@code offset} of {@code mr}. Linux: an entry of
     * {@code ibv_recv_wr.sg_list}.
     */
    public RecvWr sg(MemoryRegion mr, long offset, int length) {
        sge(0).set(mr, offset, length);
        setNumSge(1);
        return this;
    }

    /** Links the next request of a chain (or {@code null}). Linux: {@code ibv_recv_wr.next}. */
    public RecvWr next(RecvWr n) {
        this.next = n;
        return this;
    }

    /** The id returned in the completion. Linux: {@code ibv_recv_wr.wr_id}. */
    public long wrId() {
        return wrId;
    }

    /** The next request of the chain, or {@code null}. Linux: {@code ibv_recv_wr.next}. */
    public RecvWr next() {
        return next;
    }
}
