package io.jrdma.siw.wire;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Optional;

/**
 * An MPA request frame: key "MPA ID Req Frame" (RFC 5044 §7.1). Linux siw sends revision 2 with H set,
 * no CRC, no markers and IRD/ORD from the rdma_cm parameters: {@code 4d50...6d65 10 02 0004 0001 0001}
 * for rping (golden {@code guest-client-rping.00.siw.mpa-req}).
 *
 * @param revision 0 to 2
 * @param markers the M bit (never sent by jrdma; decoded so it can be refused)
 * @param crc the C bit: ask for CRC32c on every FPDU
 * @param v2 the MPA v2 block, which sets the H bit; needs revision 2
 * @param privateData ULP private data (copied in and out)
 */
public record MpaRequest(int revision, boolean markers, boolean crc, Optional<MpaV2Ctrl> v2, byte[] privateData)
        implements MpaFrame {

    /**
     * Checks the limits and copies the private data.
     *
     * @throws IllegalArgumentException for a revision above 2, a v2 block below revision 2, or more than
     *         256 bytes of PD_Length (v2 block included)
     */
    public MpaRequest {
        MpaCodec.checkLimits(revision, v2, privateData);
        privateData = privateData.clone();
    }

    /**
     * A revision 2 request with the v2 block, like siw's.
     *
     * @param crc whether to ask for CRC
     * @param ird inbound RDMA Read queue depth
     * @param ord outbound RDMA Read queue depth
     * @param privateData ULP private data, at most 252 bytes
     * @return the request
     */
    public static MpaRequest v2(boolean crc, int ird, int ord, byte[] privateData) {
        return new MpaRequest(REVISION_2, false, crc, Optional.of(MpaV2Ctrl.of(ird, ord)), privateData);
    }

    @Override
    public boolean reject() {
        return false;
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    @Override
    public boolean isReply() {
        return false;
    }

    @Override
    public int pdLength() {
        return privateData.length + (v2.isPresent() ? MpaV2Ctrl.LENGTH : 0);
    }

    @Override
    public int encode(MemorySegment segment, long offset) {
        return MpaCodec.encode(segment, offset, false, MpaCodec.flags(markers, crc, false, v2.isPresent()),
                revision, v2, privateData);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MpaRequest r && revision == r.revision && markers == r.markers && crc == r.crc
                && v2.equals(r.v2) && Arrays.equals(privateData, r.privateData);
    }

    @Override
    public int hashCode() {
        return ((revision * 31 + Boolean.hashCode(markers)) * 31 + Boolean.hashCode(crc)) * 31
                + v2.hashCode() * 31 + Arrays.hashCode(privateData);
    }

    @Override
    public String toString() {
        return "MpaRequest[revision=" + revision + ", markers=" + markers + ", crc=" + crc + ", v2=" + v2
                + ", privateData=" + HexFormat.of().formatHex(privateData) + "]";
    }
}
