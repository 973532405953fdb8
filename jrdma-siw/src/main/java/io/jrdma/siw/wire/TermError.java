package io.jrdma.siw.wire;

/**
 * The TERMINATE errors: layer, error type and error code as RFC 5040 §7.2 (RDMAP), RFC 5041 §7.2 (DDP)
 * and RFC 5044 §8 + RFC 6581 §6 (MPA) number them. The values match Linux {@code siw/iwarp.h}
 * ({@code enum rdmap_ecode}, {@code ddp_ecode}, {@code llp_ecode}) and Wireshark's iWARP dissector; the
 * RDMAP error codes form one 0x00-0x09 space split between the protection and operation types.
 *
 * <pre>
 *  layer  etype                     ecode  constant
 *  RDMAP  0 local catastrophic      0x00   RDMAP_LOCAL_CATASTROPHIC
 *                                   0xFF   RDMAP_CATASTROPHIC_UNSPECIFIED (what siw sends)
 *  RDMAP  1 remote protection       0x00   RDMAP_INVALID_STAG
 *                                   0x01   RDMAP_BASE_BOUNDS
 *                                   0x02   RDMAP_ACCESS_RIGHTS
 *                                   0x03   RDMAP_STAG_NOT_ASSOCIATED
 *                                   0x04   RDMAP_TO_WRAP
 *                                   0x09   RDMAP_CANNOT_INVALIDATE
 *                                   0xFF   RDMAP_PROTECTION_UNSPECIFIED
 *  RDMAP  2 remote operation        0x05   RDMAP_INVALID_VERSION
 *                                   0x06   RDMAP_UNEXPECTED_OPCODE
 *                                   0x07   RDMAP_CATASTROPHIC_STREAM
 *                                   0x08   RDMAP_CATASTROPHIC_GLOBAL
 *                                   0x09   RDMAP_OPERATION_CANNOT_INVALIDATE (siw, non-EACCES)
 *                                   0xFF   RDMAP_OPERATION_UNSPECIFIED
 *  DDP    0 local catastrophic      0x00   DDP_LOCAL_CATASTROPHIC
 *  DDP    1 tagged buffer           0x00-0x04  DDP_TAGGED_*
 *  DDP    2 untagged buffer         0x01-0x06  DDP_UNTAGGED_*
 *  LLP    0 MPA                     0x01-0x07  MPA_*  (0x05-0x07: MPA v2, RFC 6581)
 * </pre>
 * Errors verified on the wire from siw: DDP_TAGGED_INVALID_STAG, DDP_TAGGED_INVALID_VERSION,
 * DDP_UNTAGGED_INVALID_QN, DDP_UNTAGGED_INVALID_MSN_RANGE, RDMAP_INVALID_STAG (in a READ response),
 * RDMAP_INVALID_VERSION, RDMAP_UNEXPECTED_OPCODE, MPA_CRC_ERROR, MPA_INVALID_REQUEST_REPLY and
 * MPA_INSUFFICIENT_IRD (golden {@code term-*} and {@code guest-client-*}).
 */
public enum TermError {
    /** RDMAP local catastrophic error. */
    RDMAP_LOCAL_CATASTROPHIC(TermLayer.RDMAP, 0, 0x00),
    /** RDMAP local catastrophic error with code 0xFF, as siw reports it ({@code siw_qp_tx.c}). */
    RDMAP_CATASTROPHIC_UNSPECIFIED(TermLayer.RDMAP, 0, 0xFF),
    /** RDMAP remote protection: invalid STag. */
    RDMAP_INVALID_STAG(TermLayer.RDMAP, 1, 0x00),
    /** RDMAP remote protection: base or bounds violation. */
    RDMAP_BASE_BOUNDS(TermLayer.RDMAP, 1, 0x01),
    /** RDMAP remote protection: access rights violation. */
    RDMAP_ACCESS_RIGHTS(TermLayer.RDMAP, 1, 0x02),
    /** RDMAP remote protection: STag not associated with RDMAP stream. */
    RDMAP_STAG_NOT_ASSOCIATED(TermLayer.RDMAP, 1, 0x03),
    /** RDMAP remote protection: TO wrap. */
    RDMAP_TO_WRAP(TermLayer.RDMAP, 1, 0x04),
    /** RDMAP remote protection: STag cannot be invalidated. */
    RDMAP_CANNOT_INVALIDATE(TermLayer.RDMAP, 1, 0x09),
    /** RDMAP remote protection: unspecified error. */
    RDMAP_PROTECTION_UNSPECIFIED(TermLayer.RDMAP, 1, 0xFF),
    /** RDMAP remote operation: invalid RDMAP version. */
    RDMAP_INVALID_VERSION(TermLayer.RDMAP, 2, 0x05),
    /** RDMAP remote operation: unexpected opcode. */
    RDMAP_UNEXPECTED_OPCODE(TermLayer.RDMAP, 2, 0x06),
    /** RDMAP remote operation: catastrophic error, localized to the RDMAP stream. */
    RDMAP_CATASTROPHIC_STREAM(TermLayer.RDMAP, 2, 0x07),
    /** RDMAP remote operation: catastrophic error, global. */
    RDMAP_CATASTROPHIC_GLOBAL(TermLayer.RDMAP, 2, 0x08),
    /** RDMAP remote operation: STag cannot be invalidated (siw uses this type unless access was denied). */
    RDMAP_OPERATION_CANNOT_INVALIDATE(TermLayer.RDMAP, 2, 0x09),
    /** RDMAP remote operation: unspecified error. */
    RDMAP_OPERATION_UNSPECIFIED(TermLayer.RDMAP, 2, 0xFF),

    /** DDP local catastrophic error. */
    DDP_LOCAL_CATASTROPHIC(TermLayer.DDP, 0, 0x00),
    /** DDP tagged buffer: invalid STag. */
    DDP_TAGGED_INVALID_STAG(TermLayer.DDP, 1, 0x00),
    /** DDP tagged buffer: base or bounds violation. */
    DDP_TAGGED_BASE_BOUNDS(TermLayer.DDP, 1, 0x01),
    /** DDP tagged buffer: STag not associated with DDP stream. */
    DDP_TAGGED_STAG_NOT_ASSOCIATED(TermLayer.DDP, 1, 0x02),
    /** DDP tagged buffer: TO wrap. */
    DDP_TAGGED_TO_WRAP(TermLayer.DDP, 1, 0x03),
    /** DDP tagged buffer: invalid DDP version. */
    DDP_TAGGED_INVALID_VERSION(TermLayer.DDP, 1, 0x04),
    /** DDP untagged buffer: invalid QN. */
    DDP_UNTAGGED_INVALID_QN(TermLayer.DDP, 2, 0x01),
    /** DDP untagged buffer: invalid MSN, no buffer available. */
    DDP_UNTAGGED_INVALID_MSN_NO_BUFFER(TermLayer.DDP, 2, 0x02),
    /** DDP untagged buffer: invalid MSN, MSN range is not valid. */
    DDP_UNTAGGED_INVALID_MSN_RANGE(TermLayer.DDP, 2, 0x03),
    /** DDP untagged buffer: invalid MO. */
    DDP_UNTAGGED_INVALID_MO(TermLayer.DDP, 2, 0x04),
    /** DDP untagged buffer: DDP message too long for the available buffer. */
    DDP_UNTAGGED_MESSAGE_TOO_LONG(TermLayer.DDP, 2, 0x05),
    /** DDP untagged buffer: invalid DDP version. */
    DDP_UNTAGGED_INVALID_VERSION(TermLayer.DDP, 2, 0x06),

    /** MPA: TCP connection closed, terminated or lost. */
    MPA_TCP_CONNECTION_LOST(TermLayer.LLP, 0, 0x01),
    /** MPA: CRC error. */
    MPA_CRC_ERROR(TermLayer.LLP, 0, 0x02),
    /** MPA: marker and ULPDU pointer mismatch; siw also uses it for an FPDU that starts wrongly. */
    MPA_MARKER_MISMATCH(TermLayer.LLP, 0, 0x03),
    /** MPA: invalid MPA request or reply frame. */
    MPA_INVALID_REQUEST_REPLY(TermLayer.LLP, 0, 0x04),
    /** MPA v2 (RFC 6581): local catastrophic error. */
    MPA_LOCAL_CATASTROPHIC(TermLayer.LLP, 0, 0x05),
    /** MPA v2 (RFC 6581): insufficient IRD resources. */
    MPA_INSUFFICIENT_IRD(TermLayer.LLP, 0, 0x06),
    /** MPA v2 (RFC 6581): no matching RTR model. */
    MPA_NO_MATCHING_RTR(TermLayer.LLP, 0, 0x07);

    private static final TermError[] ALL = values();

    private final TermLayer layer;
    private final int etype;
    private final int ecode;

    TermError(TermLayer layer, int etype, int ecode) {
        this.layer = layer;
        this.etype = etype;
        this.ecode = ecode;
    }

    /**
     * Looks up an error by its three fields, without throwing.
     *
     * @param layer the layer
     * @param etype the 4-bit error type
     * @param ecode the 8-bit error code
     * @return the error, or {@code null} when the combination is not defined
     */
    public static TermError of(TermLayer layer, int etype, int ecode) {
        for (TermError e : ALL) {
            if (e.layer == layer && e.etype == etype && e.ecode == ecode) {
                return e;
            }
        }
        return null;
    }

    /** {@return the layer that detected the error} */
    public TermLayer layer() {
        return layer;
    }

    /** {@return the 4-bit error type} */
    public int etype() {
        return etype;
    }

    /** {@return the 8-bit error code} */
    public int ecode() {
        return ecode;
    }
}
