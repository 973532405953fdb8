package io.jrdma.siw.wire;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight over the RDMAP part of an RDMA Read Request (RFC 5040 §4.4), which follows the untagged
 * DDP header on queue 1. Linux: {@code siw/iwarp.h struct iwarp_rdma_rreq}.
 *
 * <pre>
 *  offset
 *   0  | ULPDU_Length | ctrl 0x4141 |  untagged DDP header (FpduHeader): RsvdULP 0, QN 1,
 *   4  ... 16 bytes ...             |  MSN (per queue 1, from 1), MO 0
 *  20  |                     Data Sink STag                     |  the requester's buffer: where
 *  24  |              Data Sink Tagged Offset (64 bits)         |  the Read Response is placed
 *  32  |                 RDMA Read Message Size                 |
 *  36  |                    Data Source STag                    |  the responder's buffer: what
 *  40  |             Data Source Tagged Offset (64 bits)        |  is read
 *  48  | CRC32c (4)                                             |  no payload (siw: -EPROTO if any)
 * </pre>
 * Offsets are from the ULPDU_Length field. Captured from siw: golden {@code rping-*.03.siw.read-req}.
 * The flyweight neither allocates nor checks anything.
 */
public final class ReadRequestHeader {
    /** Offset of the Data Sink STag. */
    public static final int SINK_STAG_OFFSET = 20;
    /** Offset of the 64-bit Data Sink Tagged Offset. */
    public static final int SINK_TO_OFFSET = 24;
    /** Offset of the RDMA Read Message Size. */
    public static final int READ_SIZE_OFFSET = 32;
    /** Offset of the Data Source STag. */
    public static final int SOURCE_STAG_OFFSET = 36;
    /** Offset of the 64-bit Data Source Tagged Offset. */
    public static final int SOURCE_TO_OFFSET = 40;
    /** Length of the whole header, MPA length included (ULPDU_Length 46, FPDU 52 bytes). */
    public static final int LENGTH = 48;
    /** Length of the RDMAP part alone, as copied into a TERMINATE (RFC 5040 §4.8). */
    public static final int RDMAP_LENGTH = LENGTH - FpduHeader.UNTAGGED_LENGTH;

    private MemorySegment segment;
    private long offset;

    /** Creates an unwrapped flyweight; call {@code wrap} before any accessor. */
    public ReadRequestHeader() {
    }

    /**
     * Points the flyweight at an FPDU.
     *
     * @param segment the buffer
     * @param offset offset of the ULPDU_Length field
     * @return this
     */
    public ReadRequestHeader wrap(MemorySegment segment, long offset) {
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    /** {@return the Data Sink STag} */
    public int sinkStag() {
        return segment.get(Wire.U32, offset + SINK_STAG_OFFSET);
    }

    /**
     * Sets the Data Sink STag.
     *
     * @param value the STag
     * @return this
     */
    public ReadRequestHeader sinkStag(int value) {
        segment.set(Wire.U32, offset + SINK_STAG_OFFSET, value);
        return this;
    }

    /** {@return the Data Sink Tagged Offset} */
    public long sinkTo() {
        return segment.get(Wire.U64, offset + SINK_TO_OFFSET);
    }

    /**
     * Sets the Data Sink Tagged Offset.
     *
     * @param value the TO
     * @return this
     */
    public ReadRequestHeader sinkTo(long value) {
        segment.set(Wire.U64, offset + SINK_TO_OFFSET, value);
        return this;
    }

    /** {@return the RDMA Read Message Size (unsigned 32 bits, held in an int)} */
    public int readSize() {
        return segment.get(Wire.U32, offset + READ_SIZE_OFFSET);
    }

    /**
     * Sets the RDMA Read Message Size.
     *
     * @param value bytes to read
     * @return this
     */
    public ReadRequestHeader readSize(int value) {
        segment.set(Wire.U32, offset + READ_SIZE_OFFSET, value);
        return this;
    }

    /** {@return the Data Source STag} */
    public int sourceStag() {
        return segment.get(Wire.U32, offset + SOURCE_STAG_OFFSET);
    }

    /**
     * Sets the Data Source STag.
     *
     * @param value the STag
     * @return this
     */
    public ReadRequestHeader sourceStag(int value) {
        segment.set(Wire.U32, offset + SOURCE_STAG_OFFSET, value);
        return this;
    }

    /** {@return the Data Source Tagged Offset} */
    public long sourceTo() {
        return segment.get(Wire.U64, offset + SOURCE_TO_OFFSET);
    }

    /**
     * Sets the Data Source Tagged Offset.
     *
     * @param value the TO
     * @return this
     */
    public ReadRequestHeader sourceTo(long value) {
        segment.set(Wire.U64, offset + SOURCE_TO_OFFSET, value);
        return this;
    }
}
