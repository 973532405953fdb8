package io.jrdma.verbs;

/**
 * A send work request ({@code struct ibv_send_wr}). Mutable and meant to be reused: fill it, post
 * it, fill it again. Posting copies it into the send queue, so it may be changed as soon as
 * {@link QueuePair#postSend} returns. Chains are built with {@link #next(SendWr)}. Not thread-safe:
 * one thread fills and posts a given request.
 *
 * <pre>{@code
 * SendWr wr = new SendWr().wrId(7).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
 *         .sg(localMr, 0, 4096).rdma(remoteAddr, rkey);
 * qp.postSend(wr);
 * }</pre>
 */
public final class SendWr extends SgList {
    private long wrId;
    private WrOpcode opcode = WrOpcode.SEND;
    private int flags;
    private int immData;
    private int invalidateRkey;
    private long remoteAddr;
    private int rkey;
    private long compareAdd;
    private long swap;
    private AddressHandle ah;
    private int remoteQpn;
    private int remoteQkey;
    private SendWr next;

    /** A request with room for one SGE (it grows on demand). Linux: a zeroed {@code struct ibv_send_wr}. */
    public SendWr() {
        super(1);
    }

    /**
     * A request with room for {@code sgeCapacity} SGEs. Linux: a zeroed {@code struct ibv_send_wr} with an
     * {@code sg_list} of that size.
     */
    public SendWr(int sgeCapacity) {
        super(sgeCapacity);
    }

    /** Clears every field back to a SEND with no SGEs. Linux: a {@code memset} of the {@code struct ibv_send_wr}. */
    public SendWr reset() {
        wrId = 0;
        opcode = WrOpcode.SEND;
        flags = 0;
        immData = 0;
        invalidateRkey = 0;
        remoteAddr = 0;
        rkey = 0;
        compareAdd = 0;
        swap = 0;
        ah = null;
        remoteQpn = 0;
        remoteQkey = 0;
        next = null;
        setNumSge(0);
        return this;
    }

    /** Sets the id returned in the completion. Linux: {@code ibv_send_wr.wr_id}. */
    public SendWr wrId(long id) {
        this.wrId = id;
        return this;
    }

    /** Sets the opcode. Linux: {@code ibv_send_wr.opcode}. */
    public SendWr opcode(WrOpcode op) {
        if (op == null) {
            throw new IllegalArgumentException("opcode must not be null");
        }
        this.opcode = op;
        return this;
    }

    /** Sets the {@link SendFlags}. Linux: {@code ibv_send_wr.send_flags}. */
    public SendWr flags(int sendFlags) {
        this.flags = sendFlags;
        return this;
    }

    /** Sets the number of SGEs in use. Linux: {@code ibv_send_wr.num_sge}. */
    public SendWr numSge(int n) {
        setNumSge(n);
        return this;
    }

    /**
     * Uses exactly one SGE: {@code length} bytes at {@code offset} of {@code mr}. Linux: an entry of
     * {@code ibv_send_wr.sg_list}.
     */
    public SendWr sg(MemoryRegion mr, long offset, int length) {
        sge(0).set(mr, offset, length);
        setNumSge(1);
        return this;
    }

    /**
     * Sets the immediate data (network order on the wire, as {@code imm_data}). Linux: {@code ibv_send_wr.imm_data}
     * (here in host order).
     */
    public SendWr immData(int imm) {
        this.immData = imm;
        return this;
    }

    /**
     * Sets the rkey a SEND_WITH_INV invalidates, or the key a LOCAL_INV invalidates. Linux:
     * {@code ibv_send_wr.invalidate_rkey}.
     */
    public SendWr invalidateRkey(int key) {
        this.invalidateRkey = key;
        return this;
    }

    /**
     * Sets the remote address and rkey of an RDMA WRITE or READ. Linux: {@code ibv_send_wr.wr.rdma.remote_addr} and
     * {@code .rkey}.
     */
    public SendWr rdma(long remoteAddress, int remoteKey) {
        this.remoteAddr = remoteAddress;
        this.rkey = remoteKey;
        return this;
    }

    /**
     * Sets the fields of an atomic: remote address, rkey, compare (or add) value, swap value. Linux:
     * {@code ibv_send_wr.wr.atomic} ({@code remote_addr}, {@code rkey}, {@code compare_add}, {@code swap}).
     */
    public SendWr atomic(long remoteAddress, int remoteKey, long compareOrAdd, long swapValue) {
        this.remoteAddr = remoteAddress;
        this.rkey = remoteKey;
        this.compareAdd = compareOrAdd;
        this.swap = swapValue;
        return this;
    }

    /**
     * Sets the UD destination: address handle, remote QPN and Q_Key. Linux: {@code ibv_send_wr.wr.ud} ({@code ah},
     * {@code remote_qpn}, {@code remote_qkey}).
     */
    public SendWr ud(AddressHandle handle, int qpn, int qkey) {
        this.ah = handle;
        this.remoteQpn = qpn;
        this.remoteQkey = qkey;
        return this;
    }

    /** Links the next request of a chain (or {@code null}). Linux: {@code ibv_send_wr.next}. */
    public SendWr next(SendWr n) {
        this.next = n;
        return this;
    }

    /** The id returned in the completion. Linux: {@code ibv_send_wr.wr_id}. */
    public long wrId() {
        return wrId;
    }

    /** The opcode. Linux: {@code ibv_send_wr.opcode}. */
    public WrOpcode opcode() {
        return opcode;
    }

    /** The {@link SendFlags}. Linux: {@code ibv_send_wr.send_flags}. */
    public int flags() {
        return flags;
    }

    /** The immediate data. Linux: {@code ibv_send_wr.imm_data}. */
    public int immData() {
        return immData;
    }

    /** The rkey to invalidate. Linux: {@code ibv_send_wr.invalidate_rkey}. */
    public int invalidateRkey() {
        return invalidateRkey;
    }

    /** The remote virtual address. Linux: {@code wr.rdma.remote_addr} or {@code wr.atomic.remote_addr}. */
    public long remoteAddr() {
        return remoteAddr;
    }

    /** The remote key. Linux: {@code wr.rdma.rkey} or {@code wr.atomic.rkey}. */
    public int rkey() {
        return rkey;
    }

    /** The compare value of a CAS, or the value to add of a fetch-and-add. Linux: {@code wr.atomic.compare_add}. */
    public long compareAdd() {
        return compareAdd;
    }

    /** The swap value of a CAS. Linux: {@code wr.atomic.swap}. */
    public long swap() {
        return swap;
    }

    /** The UD address handle. Linux: {@code wr.ud.ah}. */
    public AddressHandle ah() {
        return ah;
    }

    /** The UD remote QPN. Linux: {@code wr.ud.remote_qpn}. */
    public int remoteQpn() {
        return remoteQpn;
    }

    /** The UD remote Q_Key. Linux: {@code wr.ud.remote_qkey}. */
    public int remoteQkey() {
        return remoteQkey;
    }

    /** The next request of the chain, or {@code null}. Linux: {@code ibv_send_wr.next}. */
    public SendWr next() {
        return next;
    }
}
