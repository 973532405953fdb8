package io.jrdma.internal.roce;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight over the RDMA Extended Transport Header (IBTA Vol 1 §9.3.3; Linux {@code rxe_hdr.h
 * struct rxe_reth}), 16 bytes after the BTH of RDMA WRITE First/Only and RDMA READ Request:
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                     Virtual Address (64 bits)                 |  0
 *  +                                                               +
 *  |                                                               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                         Remote Key (R_Key)                    |  8
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                        DMA Length (32 bits)                   | 12
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 * The DMA length is the length of the whole message, not of this packet's payload.
 */
public final class Reth {
    /** Header length. */
    public static final int LENGTH = 16;
    /** Offset of the virtual address. */
    public static final int VA_OFFSET = 0;
    /** Offset of the R_Key. */
    public static final int RKEY_OFFSET = 8;
    /** Offset of the DMA length. */
    public static final int DMA_LENGTH_OFFSET = 12;

    private MemorySegment segment;
    private long offset;

    /** An unwrapped flyweight; {@link #wrap} it before use. */
    public Reth() {
    }

    /**
     * Points this flyweight at a header.
     *
     * @param segment the buffer
     * @param offset offset of the RETH
     * @return this
     */
    public Reth wrap(MemorySegment segment, long offset) {
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    /**
     * Remote virtual address.
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
    public Reth va(long va) {
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
    public Reth rkey(int rkey) {
        BigEndian.putU32(segment, offset + RKEY_OFFSET, rkey);
        return this;
    }

    /**
     * DMA length of the whole message (unsigned 32 bits).
     *
     * @return the length as an int; use {@link Integer#toUnsignedLong} above 2 GiB
     */
    public int dmaLength() {
        return BigEndian.u32(segment, offset + DMA_LENGTH_OFFSET);
    }

    /**
     * Sets the DMA length.
     *
     * @param length the message length
     * @return this
     */
    public Reth dmaLength(int length) {
        BigEndian.putU32(segment, offset + DMA_LENGTH_OFFSET, length);
        return this;
    }
}
