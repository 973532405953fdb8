package io.jrdma.siw.wire;

/**
 * Why {@link Terminate#decode} refused a TERMINATE FPDU. siw's own receiver ({@code siw_qp_rx.c
 * siw_proc_terminate}) logs and drops the connection in every case, so these are diagnostics.
 */
public enum TerminateProblem {
    /** Tagged, or an opcode other than 7. */
    NOT_A_TERMINATE,
    /** ULPDU_Length below the fixed part (22). */
    SHORT_MPA_LENGTH,
    /** QN is not 2 or MO is not 0 (siw: "rx bogus TERM"). */
    BAD_QUEUE_FIELDS,
    /** The layer nibble is not 0, 1 or 2 in the layout chosen for the word. */
    UNKNOWN_LAYER,
    /** The copied bytes do not match the D/R flags: too few for the DDP header, or left over. */
    COPIED_LENGTH_MISMATCH
}
