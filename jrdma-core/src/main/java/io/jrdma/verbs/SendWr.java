package io.jrdma.verbs;

/**
 * A send work request ({@code struct ibv_send_wr}). Mutable and meant to be reused: fill it, post
 * it, fill it again. Posting copies it into the send queue, so it may be changed as soon as
 * {@link QueuePair#postSend} returns. Chains are built with {@link #next(SendWr)}.
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

    /** A request with room for one SGE (it grows on demand). */
    public SendWr() {
        super(1);
    }

    /** A request with room for {@code sgeCapacity} SGEs. */
    public SendWr(int sgeCapacity) {
        super(sgeCapacity);
    }

    /** Clears every field back to a SEND with no SGEs. */
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

    /** Sets the id returned in the completion. */
    public SendWr wrId(long id) {
        this.wrId = id;
        return this;
    }

    /** Sets the opcode. */
    public SendWr opcode(WrOpcode op) {
        if (op == null) {
            throw new IllegalArgumentException("opcode must not be null");
        }
        this.opcode = op;
        return this;
    }

    /** Sets the {@link SendFlags}. */
    public SendWr flags(int sendFlags) {
        this.flags = sendFlags;
        return this;
    }

    /** Sets the number of SGEs in use. */
    public SendWr numSge(int n) {
        setNumSge(n);
        return this;
    }

    /** Uses exactly one SGE: {@code length} bytes at {@code offset} of {@code mr}. */
    public SendWr sg(MemoryRegion mr, long offset, int length) {
        sge(0).set(mr, offset, length);
        setNumSge(1);
        return this;
    }

    /** Sets the immediate data (network order on the wire, as {@code imm_data}). */
    public SendWr immData(int imm) {
        this.immData = imm;
        return this;
    }

    /** Sets the rkey a SEND_WITH_INV invalidates, or the key a LOCAL_INV invalidates. */
    public SendWr invalidateRkey(int key) {
        this.invalidateRkey = key;
        return this;
    }

    /** Sets the remote address and rkey of an RDMA WRITE or READ. */
    public SendWr rdma(long remoteAddress, int remoteKey) {
        this.remoteAddr = remoteAddress;
        this.rkey = remoteKey;
        return this;
    }

    /** Sets the fields of an atomic: remote address, rkey, compare (or add) value, swap value. */
    public SendWr atomic(long remoteAddress, int remoteKey, long compareOrAdd, long swapValue) {
        this.remoteAddr = remoteAddress;
        this.rkey = remoteKey;
        this.compareAdd = compareOrAdd;
        this.swap = swapValue;
        return this;
    }

    /** Sets the UD destination: address handle, remote QPN and Q_Key. */
    public SendWr ud(AddressHandle handle, int qpn, int qkey) {
        this.ah = handle;
        this.remoteQpn = qpn;
        this.remoteQkey = qkey;
        return this;
    }

    /** Links the next request of a chain (or {@code null}). */
    public SendWr next(SendWr n) {
        this.next = n;
        return this;
    }

    /** The id returned in the completion. */
    public long wrId() {
        return wrId;
    }

    /** The opcode. */
    public WrOpcode opcode() {
        return opcode;
    }

    /** The {@link SendFlags}. */
    public int flags() {
        return flags;
    }

    /** The immediate data. */
    public int immData() {
        return immData;
    }

    /** The rkey to invalidate. */
    public int invalidateRkey() {
        return invalidateRkey;
    }

    /** The remote virtual address. */
    public long remoteAddr() {
        return remoteAddr;
    }

    /** The remote key. */
    public int rkey() {
        return rkey;
    }

    /** The compare value of a CAS, or the value to add of a fetch-and-add. */
    public long compareAdd() {
        return compareAdd;
    }

    /** The swap value of a CAS. */
    public long swap() {
        return swap;
    }

    /** The UD address handle. */
    public AddressHandle ah() {
        return ah;
    }

    /** The UD remote QPN. */
    public int remoteQpn() {
        return remoteQpn;
    }

    /** The UD remote Q_Key. */
    public int remoteQkey() {
        return remoteQkey;
    }

    /** The next request of the chain, or {@code null}. */
    public SendWr next() {
        return next;
    }
}
