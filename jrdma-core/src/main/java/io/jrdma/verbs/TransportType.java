package io.jrdma.verbs;

/** The transport a device speaks ({@code enum ibv_transport_type}). */
public enum TransportType {
    /** InfiniBand transport: RoCEv2 (rxe) and jrdma's in-process loop provider; connections use the IB CM. */
    IB,
    /** iWARP (MPA/DDP/RDMAP over TCP, siw); connections use the iWARP CM. */
    IWARP
}
