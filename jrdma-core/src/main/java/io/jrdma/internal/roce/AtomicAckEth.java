package io.jrdma.internal.roce;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight over the Atomic ACK Extended Transport Header (IBTA Vol 1 §9.3.6; Linux {@code rxe_hdr.h
 * struct rxe_atmack}), 8 bytes after the AETH of an Atomic Acknowledge:
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |              Original Remote Data (64 bits)                   |  0
 *  +                                                               +
 *  |                                                               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 */
public final class AtomicAckEth {
    /** Header length. */
    public static final int LENGTH = 8;
    /** Offset of the original remote data. */
    public static final int ORIGINAL_DATA_OFFSET = 0;

    private MemorySegment segment;
    private long offset;

    /** An unwrapped flyweight; {@link #wrap} it before use. */
    public AtomicAckEth() {
    }

    /**
     * Points this flyweight at a header.
     *
     * @param segment the buffer
     * @param offset offset of the AtomicAckETH
     * @return this
     */
    public AtomicAckEth wrap(MemorySegment segment, long offset) {
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    /**
     * The value the target held before the atomic operation.
     *
     * @return the original remote data
     */
    public long originalData() {
        return BigEndian.u64(segment, offset + ORIGINAL_DATA_OFFSET);
    }

    /**
     * Sets the original remote data.
     *
     * @param value the value
     * @return this
     */
    public AtomicAckEth originalData(long value) {
        BigEndian.putU64(segment, offset + ORIGINAL_DATA_OFFSET, value);
        return this;
    }
}
