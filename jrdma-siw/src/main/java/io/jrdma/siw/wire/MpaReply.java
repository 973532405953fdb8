package io.jrdma.siw.wire;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Optional;

/**
 * An MPA reply frame: key "MPA ID Rep Frame" (RFC 5044 §7.1). Linux siw's reply echoes the request's
 * revision, C and H bits, answers IRD/ORD with its negotiated values and carries the accepting
 * application's private data; a refused request (markers, missing v2 block) gets R set, M cleared and
 * a zero v2 block: {@code ... 30 02 0004 0000 0000} (golden {@code mpa-markers}).
 *
 * @param revision 0 to 2
 * @param markers the M bit (never sent by jrdma)
 * @param crc the C bit: CRC32c on every FPDU (RFC 5044: on if either side asks)
 * @param reject the R bit: the connection is refused
 * @param v2 the MPA v2 block, which sets the H bit; needs revision 2
 * @param privateData ULP private data (copied in and out)
 */
public record MpaReply(int revision, boolean markers, boolean crc, boolean reject, Optional<MpaV2Ctrl> v2,
        byte[] privateData) implements MpaFrame {

    /**
     * Checks the limits and copies the private data.
     *
     * @throws IllegalArgumentException for a revision above 2, a v2 block below revision 2, or more than
     *         256 bytes of PD_Length (v2 block included)
     */
    public MpaReply {
        MpaCodec.checkLimits(revision, v2, privateData);
        privateData = privateData.clone();
    }

    /**
     * The reply siw sends to a request it cannot take (markers, H without v2 block): the request's
     * revision, C and H echoed, M cleared, R set, v2 block zero, no private data
     * ({@code siw_cm.c siw_proc_mpareq}, label {@code reject_conn}).
     *
     * @param request the refused request
     * @return the reject reply
     */
    public static MpaReply refusing(MpaRequest request) {
        return new MpaReply(request.revision(), false, request.crc(), true,
                request.v2().map(v -> MpaV2Ctrl.of(0, 0)), new byte[0]);
    }

    /**
     * The reject siw sends to a request whose H bit promises a v2 block that its PD_Length has no room
     * for: the request's own header with the reply key, R set, M cleared and PD_Length 0. H and the other
     * bits stay as received, since siw echoes the flags it read, and no block follows, since siw never
     * took one from the request ({@code siw_cm.c siw_proc_mpareq}, label {@code reject_conn}). This record
     * cannot hold such a frame (H without a block); {@link MpaFrame#decodeReply} reads it as a reject
     * without a v2 block.
     *
     * @param requestHeader the request's {@value MpaFrame#HEADER_LENGTH} header bytes
     * @return the {@value MpaFrame#HEADER_LENGTH} bytes of the reject
     */
    public static byte[] refusingHeader(byte[] requestHeader) {
        if (requestHeader.length != HEADER_LENGTH) {
            throw new IllegalArgumentException("an MPA header is " + HEADER_LENGTH + " bytes, not "
                    + requestHeader.length);
        }
        byte[] b = requestHeader.clone();
        System.arraycopy(REPLY_KEY.getBytes(java.nio.charset.StandardCharsets.US_ASCII), 0, b, 0, KEY_LENGTH);
        b[FLAGS_OFFSET] = (byte) ((b[FLAGS_OFFSET] | FLAG_REJECT) & ~FLAG_MARKERS);
        b[PD_LENGTH_OFFSET] = 0;
        b[PD_LENGTH_OFFSET + 1] = 0;
        return b;
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    @Override
    public boolean isReply() {
        return true;
    }

    @Override
    public int pdLength() {
        return privateData.length + (v2.isPresent() ? MpaV2Ctrl.LENGTH : 0);
    }

    @Override
    public int encode(MemorySegment segment, long offset) {
        return MpaCodec.encode(segment, offset, true, MpaCodec.flags(markers, crc, reject, v2.isPresent()),
                revision, v2, privateData);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MpaReply r && revision == r.revision && markers == r.markers && crc == r.crc
                && reject == r.reject && v2.equals(r.v2) && Arrays.equals(privateData, r.privateData);
    }

    @Override
    public int hashCode() {
        return (((revision * 31 + Boolean.hashCode(markers)) * 31 + Boolean.hashCode(crc)) * 31
                + Boolean.hashCode(reject)) * 31 + v2.hashCode() * 31 + Arrays.hashCode(privateData);
    }

    @Override
    public String toString() {
        return "MpaReply[revision=" + revision + ", markers=" + markers + ", crc=" + crc + ", reject=" + reject
                + ", v2=" + v2 + ", privateData=" + HexFormat.of().formatHex(privateData) + "]";
    }
}
