/**
 * jrdma-siw: software iWARP (MPA, DDP and RDMAP over TCP; RFC 5044, 5041, 5040, 6581), wire-compatible
 * with the Linux siw driver ({@code drivers/infiniband/sw/siw}).
 */
module io.jrdma.siw {
    requires io.jrdma.core;
    requires jdk.net;

    exports io.jrdma.siw;

    provides io.jrdma.spi.RdmaProvider with io.jrdma.siw.SiwProvider;
}
