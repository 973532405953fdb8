package com.ibm.disni.verbs;

import java.io.IOException;

/**
 * A registered memory region ({@code struct ibv_mr}). {@link #getAddr()} is the native address of the registered
 * memory (the address {@link IbvSge#setAddr(long)} and remote RDMA requests name); the local and remote keys are
 * equal, as on siw and rxe.
 */
@SuppressWarnings("checkstyle:methodname")
public class IbvMr {
    /** {@code IBV_ACCESS_LOCAL_WRITE}. */
    public static int IBV_ACCESS_LOCAL_WRITE = 1;
    /** {@code IBV_ACCESS_REMOTE_WRITE}. */
    public static int IBV_ACCESS_REMOTE_WRITE = 1 << 1;
    /** {@code IBV_ACCESS_REMOTE_READ}. */
    public static int IBV_ACCESS_REMOTE_READ = 1 << 2;
    /** {@code IBV_ACCESS_REMOTE_ATOMIC}. */
    public static int IBV_ACCESS_REMOTE_ATOMIC = 1 << 3;
    /** {@code IBV_ACCESS_MW_BIND} (no memory windows in jrdma: accepted and ignored). */
    public static int IBV_ACCESS_MW_BIND = 1 << 4;
    /** {@code IBV_ACCESS_ON_DEMAND} (jrdma never pins memory: accepted, every region behaves so). */
    public static int IBV_ACCESS_ON_DEMAND = 1 << 6;

    private final RdmaVerbs verbs;
    protected IbvContext context;
    protected long addr;
    protected int length;
    protected int access;
    protected int lkey;
    protected int rkey;
    protected int handle;
    protected volatile boolean isOpen;

    /**
     * A region with the given properties.
     *
     * @param context the device context
     * @param addr the address of the first byte
     * @param length the length (clamped to {@link Integer#MAX_VALUE} for regions beyond it)
     * @param access the access flags
     * @param lkey the local key
     * @param rkey the remote key
     * @param handle the handle
     * @throws IOException if the verbs cannot be opened
     */
    public IbvMr(IbvContext context, long addr, int length, int access, int lkey, int rkey, int handle)
            throws IOException {
        this.verbs = RdmaVerbs.open();
        this.context = context;
        this.addr = addr;
        this.length = length;
        this.access = access;
        this.lkey = lkey;
        this.rkey = rkey;
        this.handle = handle;
        this.isOpen = true;
    }

    /**
     * The native address of the first byte.
     *
     * @return the address
     */
    public long getAddr() {
        return addr;
    }

    /**
     * Changes the address this object reports (not the registration).
     *
     * @param addr the address
     */
    public void setAddr(long addr) {
        this.addr = addr;
    }

    /**
     * The length in bytes; a region of 2 GiB or more reports {@link Integer#MAX_VALUE} here and its real length
     * from {@link #getLengthLong()}.
     *
     * @return the length
     */
    public int getLength() {
        return length;
    }

    /**
     * Changes the length this object reports (not the registration).
     *
     * @param length the length
     */
    public void setLength(int length) {
        this.length = length;
    }

    /**
     * jrdma: the length in bytes, whatever the size of the region ({@code ibv_mr.length} is a {@code size_t}).
     *
     * @return the length
     */
    public long getLengthLong() {
        return length;
    }

    /**
     * The local key.
     *
     * @return the key
     */
    public int getLkey() {
        return lkey;
    }

    /**
     * Changes the local key this object reports.
     *
     * @param lkey the key
     */
    public void setLkey(int lkey) {
        this.lkey = lkey;
    }

    /**
     * The remote key peers name in RDMA READ, WRITE and atomics.
     *
     * @return the key
     */
    public int getRkey() {
        return rkey;
    }

    /**
     * Changes the remote key this object reports.
     *
     * @param rkey the key
     */
    public void setRkey(int rkey) {
        this.rkey = rkey;
    }

    /**
     * The region's handle.
     *
     * @return a number unique in the process
     */
    public int getHandle() {
        return handle;
    }

    @Override
    public String toString() {
        return "handle=" + handle + ", addr= " + addr + ", length=" + getLengthLong() + ", access= " + access
                + ", lkey=" + lkey + ", rkey=" + rkey;
    }

    /**
     * The device context.
     *
     * @return the context
     */
    public IbvContext getContext() {
        return context;
    }

    /**
     * Whether the region is registered.
     *
     * @return {@code false} once deregistered
     */
    public boolean isOpen() {
        return isOpen;
    }

    /** Marks the region closed (it does not deregister it: {@link #deregMr()} does). */
    public void close() {
        isOpen = false;
    }

    /**
     * {@code ibv_dereg_mr}, prepared.
     *
     * @return the prepared deregistration
     * @throws IOException on failure
     */
    public SVCDeregMr deregMr() throws IOException {
        return verbs.deregMr(this);
    }

    /**
     * Faults in {@code length} bytes at {@code address} of this region ahead of use.
     *
     * @param address the first byte
     * @param length the bytes
     * @return 0, or {@code EINVAL} (22) if the range is not inside the region
     * @throws IOException if the region is deregistered
     */
    public int expPrefetchMr(long address, int length) throws IOException {
        return verbs.expPrefetchMr(this, address, length);
    }
}
