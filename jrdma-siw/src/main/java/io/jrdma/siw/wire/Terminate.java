package io.jrdma.siw.wire;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Optional;

/**
 * A TERMINATE message (RFC 5040 §4.8, §7): which layer found which error, and the headers of the
 * segment that caused it. Wire layout: {@link TerminateHeader}; control word layouts: {@link TermLayout}.
 * Linux: {@code siw_qp.c siw_send_terminate}, {@code siw_qp_rx.c siw_proc_terminate}.
 *
 * <p>What siw copies (golden {@code term-*}): for DDP errors M and D with the DDP Segment Length and the
 * 14- or 18-byte DDP header; for an RDMAP remote protection error M, D and R, plus the 28-byte RDMA
 * header when the offender was a Read Request; nothing for catastrophic, version, opcode and LLP
 * errors. In a Read Request it rebuilds from its response queue, siw reports the read size as the MSN
 * ({@code term-read-stag}); jrdma copies such bytes verbatim.
 *
 * <p>jrdma sends {@link TermLayout#SIW_LITTLE_ENDIAN} by default, because that is the only layout Linux
 * siw on x86-64/arm64 parses correctly (see {@link TermLayout}); {@link #encode} can write the RFC
 * layout for other peers. {@link #decode} accepts both.
 *
 * @param layer the layer that detected the error
 * @param etype the 4-bit error type
 * @param ecode the 8-bit error code
 * @param m M: DDP Segment Length valid
 * @param d D: DDP Segment Length and DDP header included
 * @param r R: RDMAP header included
 * @param ddpSegmentLength the copied DDP Segment Length, 0 to 65535 (0 unless {@code d})
 * @param ddpHeader the copied DDP header without its ULPDU_Length: empty, or 14 bytes (T set) or 18
 * @param rdmaHeader the copied RDMA header: empty, or the 28-byte RDMAP part of a Read Request (needs d, r)
 */
public record Terminate(TermLayer layer, int etype, int ecode, boolean m, boolean d, boolean r,
        int ddpSegmentLength, byte[] ddpHeader, byte[] rdmaHeader) {

    private static final byte[] NONE = new byte[0];

    /**
     * Checks field ranges and that the copied headers match the flags, and copies the arrays.
     *
     * @throws IllegalArgumentException when a field is out of range or the copied headers do not fit
     */
    public Terminate {
        if (layer == null || ddpHeader == null || rdmaHeader == null) {
            throw new IllegalArgumentException("layer, ddpHeader and rdmaHeader must not be null");
        }
        if (etype < 0 || etype > 0xF || ecode < 0 || ecode > 0xFF) {
            throw new IllegalArgumentException("etype must be 0..15 and ecode 0..255: " + etype + ", " + ecode);
        }
        if (ddpSegmentLength < 0 || ddpSegmentLength > FpduHeader.MAX_MPA_LENGTH) {
            throw new IllegalArgumentException("DDP segment length must be 0..65535: " + ddpSegmentLength);
        }
        if (!d && (ddpHeader.length != 0 || ddpSegmentLength != 0 || rdmaHeader.length != 0)) {
            throw new IllegalArgumentException("copied DDP/RDMA headers and segment length need the D flag");
        }
        if (d && ddpHeader.length != expectedDdpHeaderLength(ddpHeader)) {
            throw new IllegalArgumentException("a copied DDP header is 14 bytes (tagged) or 18 (untagged), by its"
                    + " T bit; got " + ddpHeader.length);
        }
        if (rdmaHeader.length != 0 && (rdmaHeader.length != TerminateHeader.RDMA_HEADER_LENGTH || !r)) {
            throw new IllegalArgumentException("a copied RDMA header is the 28-byte Read Request part and needs"
                    + " the R flag; got " + rdmaHeader.length + " bytes, r=" + r);
        }
        ddpHeader = ddpHeader.clone();
        rdmaHeader = rdmaHeader.clone();
    }

    /**
     * A TERMINATE without copied headers (catastrophic, version, opcode and LLP errors).
     *
     * @param error the error
     * @return the message
     */
    public static Terminate of(TermError error) {
        return new Terminate(error.layer(), error.etype(), error.ecode(), false, false, false, 0, NONE, NONE);
    }

    /**
     * A TERMINATE reporting a DDP segment, M and D set, as siw sends for DDP errors.
     *
     * @param error the error
     * @param ddpSegmentLength the offending segment's payload length (what siw reports)
     * @param ddpHeader its DDP header without the ULPDU_Length (14 or 18 bytes)
     * @return the message
     */
    public static Terminate withDdpHeader(TermError error, int ddpSegmentLength, byte[] ddpHeader) {
        return new Terminate(error.layer(), error.etype(), error.ecode(), true, true, false, ddpSegmentLength,
                ddpHeader, NONE);
    }

    /**
     * A TERMINATE reporting an RDMAP message, M, D and R set, as siw sends for remote protection errors.
     *
     * @param error the error
     * @param ddpSegmentLength the offending segment's payload length
     * @param ddpHeader its DDP header without the ULPDU_Length (14 or 18 bytes)
     * @param rdmaHeader the 28-byte Read Request part, or empty for a Send
     * @return the message
     */
    public static Terminate withRdmaHeader(TermError error, int ddpSegmentLength, byte[] ddpHeader,
            byte[] rdmaHeader) {
        return new Terminate(error.layer(), error.etype(), error.ecode(), true, true, true, ddpSegmentLength,
                ddpHeader, rdmaHeader);
    }

    private static int expectedDdpHeaderLength(byte[] ddpHeader) {
        if (ddpHeader.length == 0) {
            return -1;
        }
        return (ddpHeader[0] & 0x80) != 0 ? TerminateHeader.TAGGED_DDP_HEADER_LENGTH
                : TerminateHeader.UNTAGGED_DDP_HEADER_LENGTH;
    }

    /** {@return the named error, or empty when this layer/type/code combination is not defined} */
    public Optional<TermError> error() {
        return Optional.ofNullable(TermError.of(layer, etype, ecode));
    }

    /** {@return a copy of the copied DDP header, without its ULPDU_Length (empty unless D)} */
    @Override
    public byte[] ddpHeader() {
        return ddpHeader.clone();
    }

    /** {@return a copy of the copied RDMA header (empty, or 28 bytes of a Read Request)} */
    @Override
    public byte[] rdmaHeader() {
        return rdmaHeader.clone();
    }

    /** {@return the number of copied bytes after the control word} */
    public int copiedLength() {
        return d ? FpduHeader.MPA_LENGTH_FIELD_LENGTH + ddpHeader.length + rdmaHeader.length : 0;
    }

    /** {@return the ULPDU_Length of the TERMINATE FPDU} */
    public int mpaLength() {
        return RdmapOpcode.TERMINATE.mpaLengthTemplate() + copiedLength();
    }

    /** {@return bytes of the whole FPDU: fixed part, copied headers, pad and CRC trailer} */
    public int encodedLength() {
        return FpduHeader.fpduLength(mpaLength());
    }

    /**
     * Writes the whole TERMINATE FPDU as siw does: QN 2, MSN 1, MO 0, zero pad and a zero CRC trailer
     * (seal it with {@link MpaCrc#seal} when CRC is on).
     *
     * @param segment the buffer
     * @param offset where the ULPDU_Length goes
     * @param layout the control word layout; {@link TermLayout#SIW_LITTLE_ENDIAN} for Linux siw
     * @return bytes written, {@link #encodedLength()}
     */
    public int encode(MemorySegment segment, long offset, TermLayout layout) {
        int length = encodedLength();
        segment.asSlice(offset, length).fill((byte) 0);
        new FpduHeader().wrap(segment, offset).start(RdmapOpcode.TERMINATE, true, copiedLength())
                .queueNumber(RdmapOpcode.QN_TERMINATE).messageSequenceNumber(TerminateHeader.TERMINATE_MSN)
                .messageOffset(0);
        segment.set(Wire.U32, offset + TerminateHeader.CONTROL_OFFSET,
                layout.encode(layer.value(), etype, ecode, m, d, r));
        if (d) {
            segment.set(Wire.U16, offset + TerminateHeader.DDP_SEGMENT_LENGTH_OFFSET, (short) ddpSegmentLength);
            MemorySegment.copy(MemorySegment.ofArray(ddpHeader), 0, segment,
                    offset + TerminateHeader.DDP_HEADER_OFFSET, ddpHeader.length);
            MemorySegment.copy(MemorySegment.ofArray(rdmaHeader), 0, segment,
                    offset + TerminateHeader.DDP_HEADER_OFFSET + ddpHeader.length, rdmaHeader.length);
        }
        return length;
    }

    /**
     * {@return the FPDU as a new byte array, CRC trailer zero}
     *
     * @param layout the control word layout
     */
    public byte[] toBytes(TermLayout layout) {
        byte[] b = new byte[encodedLength()];
        encode(MemorySegment.ofArray(b), 0, layout);
        return b;
    }

    /**
     * Decodes a TERMINATE FPDU. The control word layout is detected ({@link TermLayout#detect}); the
     * CRC trailer is not checked here (see {@link MpaCrc#verify}).
     *
     * @param segment the buffer
     * @param offset offset of the ULPDU_Length field
     * @param available bytes readable from {@code offset}
     * @param fallback layout for words that read the same both ways; {@link TermLayout#SIW_LITTLE_ENDIAN}
     *        for a Linux siw peer
     * @return need more, the message, or the problem
     */
    public static TerminateResult decode(MemorySegment segment, long offset, long available, TermLayout fallback) {
        if (available < FpduHeader.MIN_PEEK_LENGTH) {
            return new TerminateResult.NeedMore((int) (FpduHeader.MIN_PEEK_LENGTH - available));
        }
        FpduHeader h = new FpduHeader().wrap(segment, offset);
        if (h.tagged() || h.opcode() != RdmapOpcode.TERMINATE.value()) {
            return malformed(TerminateProblem.NOT_A_TERMINATE, String.format("ctrl 0x%04x", h.ctrl()));
        }
        int mpaLength = h.mpaLength();
        if (mpaLength < RdmapOpcode.TERMINATE.mpaLengthTemplate()) {
            return malformed(TerminateProblem.SHORT_MPA_LENGTH, "ULPDU_Length " + mpaLength + " < "
                    + RdmapOpcode.TERMINATE.mpaLengthTemplate());
        }
        int total = FpduHeader.fpduLength(mpaLength);
        if (available < total) {
            return new TerminateResult.NeedMore((int) (total - available));
        }
        if (h.queueNumber() != RdmapOpcode.QN_TERMINATE || h.messageOffset() != 0) {
            return malformed(TerminateProblem.BAD_QUEUE_FIELDS, "QN " + Integer.toUnsignedString(h.queueNumber())
                    + ", MO " + Integer.toUnsignedString(h.messageOffset()));
        }
        int word = segment.get(Wire.U32, offset + TerminateHeader.CONTROL_OFFSET);
        TermLayout layout = TermLayout.detect(word, fallback);
        TermLayer layer = TermLayer.of(layout.layer(word));
        if (layer == null) {
            return malformed(TerminateProblem.UNKNOWN_LAYER, String.format("control word 0x%08x, layer %d (%s)",
                    word, layout.layer(word), layout));
        }
        int copied = mpaLength + FpduHeader.MPA_LENGTH_FIELD_LENGTH - TerminateHeader.LENGTH;
        boolean d = layout.d(word);
        byte[] ddpHeader = NONE;
        byte[] rdmaHeader = NONE;
        int segmentLength = 0;
        if (d) {
            if (copied < FpduHeader.MPA_LENGTH_FIELD_LENGTH + TerminateHeader.TAGGED_DDP_HEADER_LENGTH) {
                return malformed(TerminateProblem.COPIED_LENGTH_MISMATCH, "D set but only " + copied
                        + " copied bytes");
            }
            boolean tagged = (segment.get(Wire.U16, offset + TerminateHeader.DDP_HEADER_OFFSET)
                    & FpduHeader.FLAG_TAGGED) != 0;
            int ddpLength = tagged ? TerminateHeader.TAGGED_DDP_HEADER_LENGTH
                    : TerminateHeader.UNTAGGED_DDP_HEADER_LENGTH;
            int rest = copied - FpduHeader.MPA_LENGTH_FIELD_LENGTH - ddpLength;
            if (rest != 0 && !(rest == TerminateHeader.RDMA_HEADER_LENGTH && layout.r(word))) {
                return malformed(TerminateProblem.COPIED_LENGTH_MISMATCH, copied + " copied bytes for a "
                        + (tagged ? "tagged" : "untagged") + " DDP header, R=" + layout.r(word));
            }
            segmentLength = Short.toUnsignedInt(segment.get(Wire.U16,
                    offset + TerminateHeader.DDP_SEGMENT_LENGTH_OFFSET));
            ddpHeader = copy(segment, offset + TerminateHeader.DDP_HEADER_OFFSET, ddpLength);
            rdmaHeader = copy(segment, offset + TerminateHeader.DDP_HEADER_OFFSET + ddpLength, rest);
        } else if (copied != 0) {
            return malformed(TerminateProblem.COPIED_LENGTH_MISMATCH, copied + " copied bytes without the D flag");
        }
        Terminate t = new Terminate(layer, layout.etype(word), layout.ecode(word), layout.m(word), d,
                layout.r(word), segmentLength, ddpHeader, rdmaHeader);
        return new TerminateResult.Decoded(t, layout, h.messageSequenceNumber(), total);
    }

    private static byte[] copy(MemorySegment segment, long offset, int length) {
        byte[] b = new byte[length];
        MemorySegment.copy(segment, offset, MemorySegment.ofArray(b), 0, length);
        return b;
    }

    private static TerminateResult malformed(TerminateProblem problem, String detail) {
        return new TerminateResult.Malformed(problem, detail);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Terminate t && layer == t.layer && etype == t.etype && ecode == t.ecode && m == t.m
                && d == t.d && r == t.r && ddpSegmentLength == t.ddpSegmentLength
                && Arrays.equals(ddpHeader, t.ddpHeader) && Arrays.equals(rdmaHeader, t.rdmaHeader);
    }

    @Override
    public int hashCode() {
        int h = layer.hashCode();
        h = h * 31 + etype;
        h = h * 31 + ecode;
        h = h * 31 + (m ? 4 : 0) + (d ? 2 : 0) + (r ? 1 : 0);
        h = h * 31 + ddpSegmentLength;
        h = h * 31 + Arrays.hashCode(ddpHeader);
        return h * 31 + Arrays.hashCode(rdmaHeader);
    }

    @Override
    public String toString() {
        HexFormat hex = HexFormat.of();
        return "Terminate[" + error().map(Enum::name).orElse(layer + "/" + etype + "/" + ecode) + ", m=" + m
                + ", d=" + d + ", r=" + r + ", ddpSegmentLength=" + ddpSegmentLength + ", ddpHeader="
                + hex.formatHex(ddpHeader) + ", rdmaHeader=" + hex.formatHex(rdmaHeader) + "]";
    }
}
