package io.jrdma.siw.wire;

import java.lang.foreign.MemorySegment;
import java.util.Optional;

/**
 * An MPA request or reply frame (RFC 5044 §7.1, RFC 6581 §5). Linux: {@code siw/iwarp.h struct mpa_rr},
 * {@code siw_cm.c siw_send_mpareqrep}, {@code siw_recv_mpa_rr}.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |        Key (16 bytes): "MPA ID Req Frame" / "MPA ID Rep Frame" |
 * +-+-+-+-+-------+---------------+-------------------------------+
 * |M|C|R|H| Res   |   Rev         |          PD_Length            |   offset 16
 * +-+-+-+-+-------+---------------+-------------------------------+
 * | MPA v2 block (4 bytes, MpaV2Ctrl) if Rev = 2 and H = 1        |   offset 20
 * | ULP private data                                              |
 * +---------------------------------------------------------------+
 *  M markers, C CRC, R reject (replies), H enhanced connection establishment (RFC 6581).
 * </pre>
 * PD_Length counts the v2 block and the ULP private data. Linux caps it at {@value #MAX_PRIVATE_DATA}
 * bytes ({@code MPA_MAX_PRIVDATA = RDMA_MAX_PRIVATE_DATA}; RFC 5044 allows 512): siw accepts 256 and
 * drops 257 (golden {@code mpa-pd256}, {@code mpa-pd257}), so at most 252 bytes of ULP data fit beside
 * the v2 block.
 *
 * <p>Reading from a blocking socket: read {@link #HEADER_LENGTH} bytes and call {@link #decode}; an
 * {@link MpaResult.Invalid} ends the handshake, {@link MpaResult.NeedMore} (the header passed every
 * check) says how many private data bytes to read next, then decode again from the start.
 *
 * <p>Bits jrdma does not model are dropped on decode: the reserved bits (siw's own {@code GSO_EXP}
 * 0x08 among them), R in a request, and H below revision 2. No captured frame carries them.
 */
public sealed interface MpaFrame permits MpaRequest, MpaReply {
    /** Key of a request. */
    String REQUEST_KEY = "MPA ID Req Frame";
    /** Key of a reply. */
    String REPLY_KEY = "MPA ID Rep Frame";
    /** Length of the key. */
    int KEY_LENGTH = 16;
    /** Offset of the flags byte (M, C, R, H, reserved). */
    int FLAGS_OFFSET = 16;
    /** Offset of the revision byte. */
    int REVISION_OFFSET = 17;
    /** Offset of the 16-bit PD_Length. */
    int PD_LENGTH_OFFSET = 18;
    /** Length of the fixed header; the private data follows. */
    int HEADER_LENGTH = 20;
    /** M: markers (flags byte). */
    int FLAG_MARKERS = 0x80;
    /** C: CRC. */
    int FLAG_CRC = 0x40;
    /** R: reject. */
    int FLAG_REJECT = 0x20;
    /** H: enhanced connection establishment (RFC 6581). */
    int FLAG_ENHANCED = 0x10;
    /** Reserved bits of the flags byte (siw uses 0x08 as its private GSO_EXP bit, off by default). */
    int MASK_RESERVED = 0x0F;
    /** Largest PD_Length Linux accepts ({@code MPA_MAX_PRIVDATA}). */
    int MAX_PRIVATE_DATA = 256;
    /** Highest revision accepted (siw accepts 0, 1, 2). */
    int MAX_REVISION = 2;
    /** Revision 1 (RFC 5044). */
    int REVISION_1 = 1;
    /** Revision 2 (RFC 6581), what siw sends. */
    int REVISION_2 = 2;

    /** {@return the revision, 0 to 2} */
    int revision();

    /** {@return the M bit} */
    boolean markers();

    /** {@return the C bit} */
    boolean crc();

    /** {@return the R bit (always false for a request)} */
    boolean reject();

    /** {@return the v2 block; present exactly when the H bit is set in a revision 2 frame} */
    Optional<MpaV2Ctrl> v2();

    /** {@return a copy of the ULP private data (without the v2 block)} */
    byte[] privateData();

    /** {@return true for a reply} */
    boolean isReply();

    /** {@return the PD_Length: v2 block plus ULP private data} */
    int pdLength();

    /** {@return bytes on the wire: header plus PD_Length} */
    default int encodedLength() {
        return HEADER_LENGTH + pdLength();
    }

    /**
     * Writes the frame.
     *
     * @param segment the buffer
     * @param offset where the key goes
     * @return bytes written, {@link #encodedLength()}
     */
    int encode(MemorySegment segment, long offset);

    /** {@return the frame as a new byte array} */
    default byte[] toBytes() {
        byte[] b = new byte[encodedLength()];
        encode(MemorySegment.ofArray(b), 0);
        return b;
    }

    /**
     * Decodes a request or a reply, whichever key it carries.
     *
     * @param segment the buffer
     * @param offset where the key starts
     * @param available bytes readable from {@code offset}
     * @return need more, the frame, or the problem
     */
    static MpaResult decode(MemorySegment segment, long offset, long available) {
        return MpaCodec.decode(segment, offset, available, MpaCodec.ANY);
    }

    /**
     * Decodes a request; a reply key is {@link MpaProblem#BAD_KEY}.
     *
     * @param segment the buffer
     * @param offset where the key starts
     * @param available bytes readable from {@code offset}
     * @return need more, the request, or the problem
     */
    static MpaResult decodeRequest(MemorySegment segment, long offset, long available) {
        return MpaCodec.decode(segment, offset, available, MpaCodec.REQUEST);
    }

    /**
     * Decodes a reply; a request key is {@link MpaProblem#BAD_KEY}.
     *
     * @param segment the buffer
     * @param offset where the key starts
     * @param available bytes readable from {@code offset}
     * @return need more, the reply, or the problem
     */
    static MpaResult decodeReply(MemorySegment segment, long offset, long available) {
        return MpaCodec.decode(segment, offset, available, MpaCodec.REPLY);
    }

    /**
     * Static peek at PD_Length, for a transport that reads the header first.
     *
     * @param segment the buffer
     * @param offset where the key starts; {@link #HEADER_LENGTH} bytes must be readable
     * @return PD_Length, 0 to 65535 (not checked against the limit; {@link #decode} does that)
     */
    static int pdLength(MemorySegment segment, long offset) {
        return Short.toUnsignedInt(segment.get(Wire.U16, offset + PD_LENGTH_OFFSET));
    }
}
