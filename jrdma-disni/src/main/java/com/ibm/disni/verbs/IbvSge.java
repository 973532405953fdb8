package com.ibm.disni.verbs;

/**
 * A scatter/gather entry ({@code struct ibv_sge}): {@code length} bytes at virtual address {@code addr} of the
 * region whose local key is {@code lkey}. Addresses are those {@link IbvMr#getAddr()} reports: the native address
 * of the registered memory.
 */
public class IbvSge {
    protected long addr;
    protected int length;
    protected int lkey;

    /** An empty entry. */
    public IbvSge() {
    }

    /**
     * The virtual address of the first byte.
     *
     * @return the virtual address of the first byte
     */
    public long getAddr() {
        return addr;
    }

    /**
     * Sets the virtual address of the first byte.
     *
     * @param addr the new value
     */
    public void setAddr(long addr) {
        this.addr = addr;
    }

    /**
     * The length in bytes.
     *
     * @return the length in bytes
     */
    public int getLength() {
        return length;
    }

    /**
     * Sets the length in bytes.
     *
     * @param length the new value
     */
    public void setLength(int length) {
        this.length = length;
    }

    /**
     * The local key of the region.
     *
     * @return the local key of the region
     */
    public int getLkey() {
        return lkey;
    }

    /**
     * Sets the local key of the region.
     *
     * @param lkey the new value
     */
    public void setLkey(int lkey) {
        this.lkey = lkey;
    }

    /**
     * The class name, as DiSNI reports it.
     *
     * @return {@code "IbvSge"}
     */
    public String getClassName() {
        return IbvSge.class.getSimpleName();
    }
}
