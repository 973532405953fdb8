package io.jrdma.siw.wire;

/**
 * Why an MPA request or reply was refused by {@link MpaFrame#decode}. The checks run in siw's order
 * ({@code siw_cm.c siw_recv_mpa_rr}, {@code siw_proc_mpareq}, {@code siw_proc_mpareply}): PD_Length
 * first (before any private data is read), then revision, then key, then the v2 block, then markers.
 *
 * <p>What Linux siw does with each (golden captures): as responder it closes the connection with a
 * FIN and no reply for {@link #PD_LENGTH_OVER_LIMIT} ({@code mpa-pd257}), {@link #BAD_REVISION}
 * ({@code mpa-rev3}) and {@link #BAD_KEY} ({@code mpa-badkey}); it answers {@link #MISSING_V2_BLOCK}
 * ({@code mpa-h-short0}: the request's header with R set and PD_Length 0, {@link MpaReply#refusingHeader})
 * and {@link #MARKERS_NOT_SUPPORTED} ({@code mpa-markers}) with a reply that has R set and M cleared. As
 * initiator it answers a reply with a bad key with TERMINATE LLP/MPA/invalid request-reply
 * ({@code guest-client-bad-key}).
 */
public enum MpaProblem {
    /** PD_Length above {@link MpaFrame#MAX_PRIVATE_DATA} (256, Linux {@code MPA_MAX_PRIVDATA}). */
    PD_LENGTH_OVER_LIMIT,
    /** Revision above {@link MpaFrame#MAX_REVISION} (siw accepts 0, 1 and 2). */
    BAD_REVISION,
    /** The 16-byte key is neither expected key ("MPA ID Req Frame" / "MPA ID Rep Frame"). */
    BAD_KEY,
    /** Revision 2 with the H bit but PD_Length below the 4-byte v2 block. */
    MISSING_V2_BLOCK,
    /** The M bit: markers are not supported (nor by siw); the frame itself decoded fine. */
    MARKERS_NOT_SUPPORTED
}
