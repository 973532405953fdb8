package io.jrdma.verbs;

/**
 * One scatter/gather entry ({@code struct ibv_sge}): a byte range of a registered region named by
 * its virtual address ({@link MemoryRegion#address()} + offset) and lkey. Mutable and reusable.
 */
public final class Sge {
    private long addr;
    private int length;
    private int lkey;

    /** An empty entry. Linux: a zeroed {@code struct ibv_sge}. */
    public Sge() {
    }

    /** Sets all three fields. Linux: {@code ibv_sge.addr}, {@code .length} and {@code .lkey}. */
    public Sge set(long addr, int length, int lkey) {
        this.addr = addr;
        this.length = length;
        this.lkey = lkey;
        return this;
    }

    /**
     * Points at {@code length} bytes at {@code offset} in {@code mr}. Linux: an {@code ibv_sge} with
     * {@code addr = mr->addr + offset} and {@code lkey = mr->lkey}.
     */
    public Sge set(MemoryRegion mr, long offset, int length) {
        return set(mr.address() + offset, length, mr.lkey());
    }

    /** The virtual address of the first byte. Linux: {@code ibv_sge.addr}. */
    public long addr() {
        return addr;
    }

    /** The length in bytes. Linux: {@code ibv_sge.length}. */
    public int length() {
        return length;
    }

    /** The local key of the region. Linux: {@code ibv_sge.lkey}. */
    public int lkey() {
        return lkey;
    }

    /** Sets the virtual address. Linux: {@code ibv_sge.addr}. */
    public Sge addr(long addr) {
        this.addr = addr;
        return this;
    }

    /** Sets the length. Linux: {@code ibv_sge.length}. */
    public Sge length(int length) {
        this.length = length;
        return this;
    }

    /** Sets the lkey. Linux: {@code ibv_sge.lkey}. */
    public Sge lkey(int lkey) {
        this.lkey = lkey;
        return this;
    }

    @Override
    public String toString() {
        return "Sge[addr=0x" + Long.toHexString(addr) + ", length=" + length + ", lkey=0x"
                + Integer.toHexString(lkey) + "]";
    }
}
