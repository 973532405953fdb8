/**
 * jrdma core: the verbs API ({@code io.jrdma.verbs}), the RDMA connection manager
 * ({@code io.jrdma.cm}), ready-made connections ({@code io.jrdma.endpoint}), the provider SPI ({@code io.jrdma.spi}), the engine toolkit shared by the
 * transports, and the in-process {@code loop} provider. No runtime dependencies.
 */
module io.jrdma.core {
    // Transitive: the public DeviceMBeans names its MBeans with javax.management.ObjectName.
    requires transitive java.management;
    requires jdk.jfr;
    requires jdk.net;

    exports io.jrdma.verbs;
    exports io.jrdma.cm;
    exports io.jrdma.endpoint;
    exports io.jrdma.spi;
    exports io.jrdma.spi.ibcm;
    exports io.jrdma.internal.verbs to io.jrdma.siw, io.jrdma.rxe, io.jrdma.testkit, io.jrdma.kernel;
    exports io.jrdma.internal.cm to io.jrdma.siw, io.jrdma.rxe, io.jrdma.testkit;
    exports io.jrdma.internal.cm.ib to io.jrdma.siw, io.jrdma.rxe, io.jrdma.testkit;
    exports io.jrdma.internal.engine to io.jrdma.siw, io.jrdma.rxe, io.jrdma.testkit;
    exports io.jrdma.internal.obs to io.jrdma.siw, io.jrdma.rxe, io.jrdma.testkit;
    exports io.jrdma.internal.capture to io.jrdma.siw, io.jrdma.rxe, io.jrdma.testkit;
    exports io.jrdma.internal.net to io.jrdma.siw, io.jrdma.rxe, io.jrdma.testkit;
    exports io.jrdma.internal.roce to io.jrdma.rxe;

    uses io.jrdma.spi.RdmaProvider;
    uses io.jrdma.spi.DeviceProvider;

    provides io.jrdma.spi.RdmaProvider with io.jrdma.loop.LoopProvider;
}
