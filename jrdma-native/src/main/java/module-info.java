/**
 * jrdma-native: the kernel's RDMA devices (whatever rdma-core drives: mlx5, irdma, bnxt_re, efa, siw, rxe)
 * as jrdma devices named {@code native:NAME}, through {@code libibverbs.so.1} called with the FFM API. The
 * JVM needs {@code --enable-native-access=io.jrdma.kernel} (or {@code ALL-UNNAMED} on the class path).
 */
module io.jrdma.kernel {
    requires io.jrdma.core;

    exports io.jrdma.kernel;

    provides io.jrdma.spi.DeviceProvider with io.jrdma.kernel.NativeProvider;
}
