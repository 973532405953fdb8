package io.jrdma.siw.wire;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The MPA FPDU CRC (RFC 5044 §4.1): CRC32c over the ULPDU_Length field, the DDP/RDMAP header, the
 * payload and the pad, i.e. everything before the 4-byte trailer. Linux: {@code siw_qp_tx.c
 * siw_tx_hdt}, {@code siw_qp_rx.c siw_get_trailer} (kernel crypto "crc32c").
 *
 * <p>Byte order, verified against Linux 6.1 siw with CRC negotiated (golden {@code rping-crc},
 * {@code term-bad-crc}): the trailer holds the standard CRC32c value, as {@link CRC32C#getValue()}
 * returns it, written <b>little-endian</b>: siw's READ request in {@code rping-crc.03} ends in
 * {@code d78eae83}, the CRC32c value 0x83ae8ed7; siw accepted jrdma-style trailers on every FPDU, and its
 * log for a corrupted one printed the expected value as a little-endian load of the right bytes. With CRC
 * off the trailer is present and zero.
 *
 * <p>One instance per engine or QP (not thread-safe). It keeps a {@link ByteBuffer} view of the last
 * segment it saw, so that passing the same buffer segment (not fresh slices) allocates nothing.
 */
public final class MpaCrc {
    private final CRC32C crc = new CRC32C();
    private MemorySegment viewed;
    private ByteBuffer view;

    /** Creates a CRC helper for one engine or QP. */
    public MpaCrc() {
    }

    /**
     * CRC32c of a byte range.
     *
     * @param segment the buffer (at most 2 GiB, as a {@link ByteBuffer} view is used)
     * @param offset first byte
     * @param length number of bytes
     * @return the CRC32c value (as {@link CRC32C#getValue()}, in the low 32 bits)
     */
    public int compute(MemorySegment segment, long offset, int length) {
        if (segment != viewed) {
            view = segment.asByteBuffer();
            viewed = segment;
        }
        view.limit((int) (offset + length)).position((int) offset);
        crc.reset();
        crc.update(view);
        return (int) crc.getValue();
    }

    /**
     * CRC of a whole FPDU, computed over what precedes its trailer.
     *
     * @param segment the buffer holding the whole FPDU
     * @param offset offset of the ULPDU_Length field
     * @return the CRC32c value the trailer must hold
     */
    public int computeFpdu(MemorySegment segment, long offset) {
        int mpaLength = FpduHeader.mpaLength(segment, offset);
        return compute(segment, offset, FpduHeader.fpduLength(mpaLength) - FpduHeader.CRC_LENGTH);
    }

    /**
     * Computes the CRC of a whole FPDU and writes its trailer (the pad bytes must already be zero).
     *
     * @param segment the buffer holding the whole FPDU
     * @param offset offset of the ULPDU_Length field
     * @return the FPDU length
     */
    public int seal(MemorySegment segment, long offset) {
        int length = FpduHeader.fpduLength(FpduHeader.mpaLength(segment, offset));
        trailer(segment, offset + length - FpduHeader.CRC_LENGTH, computeFpdu(segment, offset));
        return length;
    }

    /**
     * Checks the trailer of a received FPDU.
     *
     * @param segment the buffer holding the whole FPDU
     * @param offset offset of the ULPDU_Length field
     * @return true when the trailer matches
     */
    public boolean verify(MemorySegment segment, long offset) {
        int length = FpduHeader.fpduLength(FpduHeader.mpaLength(segment, offset));
        return trailer(segment, offset + length - FpduHeader.CRC_LENGTH) == computeFpdu(segment, offset);
    }

    /**
     * Reads a trailer.
     *
     * @param segment the buffer
     * @param crcOffset offset of the 4 trailer bytes
     * @return the CRC32c value they carry (little-endian on the wire)
     */
    public static int trailer(MemorySegment segment, long crcOffset) {
        return segment.get(Wire.LE32, crcOffset);
    }

    /**
     * Writes a trailer.
     *
     * @param segment the buffer
     * @param crcOffset offset of the 4 trailer bytes
     * @param value the CRC32c value, written little-endian
     */
    public static void trailer(MemorySegment segment, long crcOffset, int value) {
        segment.set(Wire.LE32, crcOffset, value);
    }
}
