package io.jrdma.internal.roce;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight over the Atomic Extended Transport Header (IBTA Vol 1 §9.3.4; Linux {@code rxe_hdr.h
 * struct rxe_atmeth}, packed), 28 bytes after the BTH of Compare &amp; Swap and Fetch &amp; Add:
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                    Virtual Address (64 bits)                  |  0
 *  +                                                               +
 *  |                                                               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                        Remote Key (R_Key)                     |  8
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |              Swap (or Add) Data (64 bits)                     | 12
 *  +                                                               +
 *  |                                                               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                  Compare Data (64 bits)                       | 20
 *  +                                                               +
 *  |                                                               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 */
public final class AtomicEth {
    /** Header length. */
    public static final int LENGTH = 28;
    /** Offset of the virtual address. */
    public static final int VA_OFFSET = 0;
    /** Offset of the R_Key. */
    public static final int RKEY_OFFSET = 8;
    /** Offset of the swap (Compare &amp; Swap) or add (Fetch &amp; Add) operand. */
    public static final int SWAP_ADD_OFFSET = 12;
    /** Offset of the compare operand. */
    public static final int COMPARE_OFFSET = 20;

    private MemorySegment segment;
    private long offset;

    /** An unwrapped flyweight; {@link #wrap} it before use. */
    public AtomicEth() {
    }

    /**
     * Points this flyweight at a header.
     *
     * @param segment the buffer
     * @param offset offset of the AtomicETH
     * @return this
     */
    public AtomicEth wrap(MemorySegment segment, long offset) {
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    /**
     * Remote virtual address (8-byte aligned for rxe).
     *
     * @return the address
     */
    public long va() {
        return BigEndian.u64(segment, offset + VA_OFFSET);
    }

    /**
     * Sets the remote virtual address.
     *
     * @param va the address
     * @return this
     */
    public AtomicEth va(long va) {
        BigEndian.putU64(segment, offset + VA_OFFSET, va);
        return this;
    }

    /**
     * Remote key.
     *
     * @return the R_Key
     */
    public int rkey() {
        return BigEndian.u32(segment, offset + RKEY_OFFSET);
    }

    /**
     * Sets the remote key.
     *
     * @param rkey the R_Key
     * @return this
     */
    public AtomicEth rkey(int rkey) {
        BigEndian.putU32(segment, offset + RKEY_OFFSET, rkey);
        return this;
    }

    /**
     * Swap or add operand.
     *
     * @return the operand
     */
    public long swapAdd() {
        return BigEndian.u64(segment, offset + SWAP_ADD_OFFSET);
    }

    /**
     * Sets the swap or add operand.
     *
     * @param value the operand
     * @return this
     */
    public AtomicEth swapAdd(long value) {
        BigEndian.putU64(segment, offset + SWAP_ADD_OFFSET, value);
        return this;
    }

    /**
     * Compare operand.
     *
     * @return the operand
     */
    public long compare() {
        return BigEndian.u64(segment, offset + COMPARE_OFFSET);
    }

    /**
     * Sets the compare operand.
     *
     * @param value the operand
     * @return this
     */
    public AtomicEth compare(long value) {
        BigEndian.putU64(segment, offset + COMPARE_OFFSET, value);
        return this;
    }
}
