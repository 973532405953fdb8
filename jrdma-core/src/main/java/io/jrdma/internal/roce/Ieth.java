package io.jrdma.internal.roce;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight over the Invalidate Extended Transport Header (IBTA Vol 1 §9.3.8; Linux {@code rxe_hdr.h
 * struct rxe_ieth}), 4 bytes after the BTH of SEND Last/Only with Invalidate:
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                   R_Key to invalidate                         |  0
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 */
public final class Ieth {
    /** Header length. */
    public static final int LENGTH = 4;
    /** Offset of the R_Key. */
    public static final int RKEY_OFFSET = 0;

    private MemorySegment segment;
    private long offset;

    /** An unwrapped flyweight; {@link #wrap} it before use. */
    public Ieth() {
    }

    /**
     * Points this flyweight at a header.
     *
     * @param segment the buffer
     * @param offset offset of the IETH
     * @return this
     */
    public Ieth wrap(MemorySegment segment, long offset) {
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    /**
     * The R_Key the responder invalidates.
     *
     * @return the R_Key
     */
    public int rkey() {
        return BigEndian.u32(segment, offset + RKEY_OFFSET);
    }

    /**
     * Sets the R_Key to invalidate.
     *
     * @param rkey the R_Key
     * @return this
     */
    public Ieth rkey(int rkey) {
        BigEndian.putU32(segment, offset + RKEY_OFFSET, rkey);
        return this;
    }
}
