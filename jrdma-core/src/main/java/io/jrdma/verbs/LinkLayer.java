package io.jrdma.verbs;

/** The link layer of a port ({@code IBV_LINK_LAYER_*}); {@link #LOOPBACK} is jrdma's in-process fabric. */
public enum LinkLayer {
    /** Native InfiniBand. */
    INFINIBAND,
    /** Ethernet: RoCE and iWARP over IP. */
    ETHERNET,
    /** jrdma's in-process loop fabric: no wire at all. */
    LOOPBACK
}
