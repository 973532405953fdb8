/**
 * jrdma-siw: software iWARP (MPA, DDP and RDMAP over TCP; RFC 5044, 5041, 5040, 6581), wire-compatible
 * with the Linux siw driver ({@code drivers/infiniband/sw/siw}).
 *
 * <p>{@code io.jrdma.siw.wire} holds the codecs. It is not exported yet: only this provider uses it.
 */
module io.jrdma.siw {
    requires io.jrdma.core;
}
