package io.jrdma.siw.wire;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight over a TERMINATE message (RFC 5040 §4.8): the untagged DDP header on queue 2, the
 * terminate control word, then the copied headers of the offending segment. Linux:
 * {@code siw/iwarp.h struct iwarp_terminate}, {@code siw_qp.c siw_send_terminate}.
 *
 * <pre>
 *  offset
 *   0  | ULPDU_Length | ctrl 0x4147 |  untagged DDP header (FpduHeader): RsvdULP 0, QN 2,
 *   4  ... 16 bytes ...             |  MSN 1 (siw always), MO 0
 *  20  | Terminate Control (32 bits, layout: TermLayout)        |
 *  24  | DDP Segment Length (16) |                              |  if D: 2 + 14 (tagged) or
 *  26  | Terminated DDP Header (14 or 18 bytes, from its ctrl)  |  2 + 18 (untagged) bytes
 *  ..  | Terminated RDMA Header (28 bytes, RDMA Read Request)   |  if R and the offender was a
 *      |                                                        |  Read Request
 *      | pad, CRC32c                                            |
 * </pre>
 * siw fills the DDP Segment Length with the offending segment's <em>payload</em> length (its
 * ULPDU_Length minus the header), e.g. {@code 0x0018} for a 24-byte RDMA Write (golden
 * {@code term-write-stag}). The flyweight neither allocates nor checks anything; {@link Terminate}
 * decodes and validates.
 */
public final class TerminateHeader {
    /** Offset of the 32-bit terminate control word. */
    public static final int CONTROL_OFFSET = 20;
    /** Offset of the DDP Segment Length, first of the copied bytes. */
    public static final int DDP_SEGMENT_LENGTH_OFFSET = 24;
    /** Offset of the terminated DDP header. */
    public static final int DDP_HEADER_OFFSET = 26;
    /** Length of the fixed part, MPA length included (ULPDU_Length 22 without copied headers). */
    public static final int LENGTH = 24;
    /** Length of a terminated tagged DDP header (without the ULPDU_Length). */
    public static final int TAGGED_DDP_HEADER_LENGTH = FpduHeader.TAGGED_LENGTH - FpduHeader.MPA_LENGTH_FIELD_LENGTH;
    /** Length of a terminated untagged DDP header (without the ULPDU_Length). */
    public static final int UNTAGGED_DDP_HEADER_LENGTH =
            FpduHeader.UNTAGGED_LENGTH - FpduHeader.MPA_LENGTH_FIELD_LENGTH;
    /** Length of a terminated RDMA header: the RDMAP part of a Read Request. */
    public static final int RDMA_HEADER_LENGTH = ReadRequestHeader.RDMAP_LENGTH;
    /** The MSN siw puts on its one TERMINATE; siw also expects 1 on the one it receives. */
    public static final int TERMINATE_MSN = 1;

    private MemorySegment segment;
    private long offset;

    /** Creates an unwrapped flyweight; call {@code wrap} before any accessor. */
    public TerminateHeader() {
    }

    /**
     * Points the flyweight at an FPDU.
     *
     * @param segment the buffer
     * @param offset offset of the ULPDU_Length field
     * @return this
     */
    public TerminateHeader wrap(MemorySegment segment, long offset) {
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    /** {@return the raw 32-bit control word, read big-endian; decode it with a {@link TermLayout}} */
    public int control() {
        return segment.get(Wire.U32, offset + CONTROL_OFFSET);
    }

    /**
     * Sets the raw control word (see {@link TermLayout#encode}).
     *
     * @param word the 32-bit control word
     * @return this
     */
    public TerminateHeader control(int word) {
        segment.set(Wire.U32, offset + CONTROL_OFFSET, word);
        return this;
    }

    /** {@return the number of copied header bytes after the control word, from the ULPDU_Length} */
    public int copiedLength() {
        return FpduHeader.mpaLength(segment, offset) + FpduHeader.MPA_LENGTH_FIELD_LENGTH - LENGTH;
    }

    /** {@return the DDP Segment Length of the copied header; valid when the M flag is set} */
    public int ddpSegmentLength() {
        return Short.toUnsignedInt(segment.get(Wire.U16, offset + DDP_SEGMENT_LENGTH_OFFSET));
    }

    /**
     * Sets the DDP Segment Length of the copied header.
     *
     * @param value 0 to 65535
     * @return this
     */
    public TerminateHeader ddpSegmentLength(int value) {
        segment.set(Wire.U16, offset + DDP_SEGMENT_LENGTH_OFFSET, (short) value);
        return this;
    }

    /** {@return the control word of the terminated DDP header (its T bit gives its length)} */
    public int terminatedCtrl() {
        return Short.toUnsignedInt(segment.get(Wire.U16, offset + DDP_HEADER_OFFSET));
    }
}
