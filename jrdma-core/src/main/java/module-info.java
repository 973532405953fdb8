/**
 * jrdma core: the verbs API ({@code io.jrdma.verbs}), the RDMA connection manager
 * ({@code io.jrdma.cm}), the provider SPI ({@code io.jrdma.spi}), the engine toolkit shared by the
 * transports, and the in-process {@code loop} provider. No runtime dependencies.
 */
module io.jrdma.core {
    exports io.jrdma.verbs;
    exports io.jrdma.cm;
    exports io.jrdma.spi;
    exports io.jrdma.internal.cm.ib to io.jrdma.rxe;

    uses io.jrdma.spi.RdmaProvider;
}
