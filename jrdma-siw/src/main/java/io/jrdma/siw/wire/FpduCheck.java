package io.jrdma.siw.wire;

/**
 * Outcome of {@link FpduHeader#check}: whether a received DDP/RDMAP header may be processed, and if not,
 * which TERMINATE Linux siw answers with ({@code siw_qp_rx.c siw_get_hdr}). The mapping was verified
 * against siw's TERMINATEs in the golden captures {@code term-ddp-version}, {@code term-rdmap-version}
 * and {@code term-opcode}.
 */
public enum FpduCheck {
    /** The whole header is there and its versions, opcode and length are acceptable. */
    OK(null),
    /** Not enough bytes yet: nothing consumed, wait for more. */
    NEED_MORE(null),
    /** DDP version is not 1 in a tagged segment: TERMINATE DDP / tagged buffer / invalid DDP version. */
    DDP_VERSION_TAGGED(TermError.DDP_TAGGED_INVALID_VERSION),
    /** DDP version is not 1 in an untagged segment: TERMINATE DDP / untagged buffer / invalid DDP version. */
    DDP_VERSION_UNTAGGED(TermError.DDP_UNTAGGED_INVALID_VERSION),
    /** RDMAP version is not 1: TERMINATE RDMAP / remote operation / invalid RDMAP version. */
    RDMAP_VERSION(TermError.RDMAP_INVALID_VERSION),
    /** Opcode 8 to 15: TERMINATE RDMAP / remote operation / unexpected opcode. */
    UNKNOWN_OPCODE(TermError.RDMAP_UNEXPECTED_OPCODE),
    /** ULPDU_Length shorter than the opcode's header: siw sends LLP / MPA / FPDU start (marker) error. */
    SHORT_MPA_LENGTH(TermError.MPA_MARKER_MISMATCH);

    private final TermError termError;

    FpduCheck(TermError termError) {
        this.termError = termError;
    }

    /** {@return the TERMINATE error to send, or {@code null} for {@link #OK} and {@link #NEED_MORE}} */
    public TermError termError() {
        return termError;
    }
}
