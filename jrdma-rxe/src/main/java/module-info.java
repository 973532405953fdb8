/**
 * jrdma rxe: RoCEv2 over UDP 4791 with the IB CM, wire-compatible with Linux rdma_rxe. The CM MAD
 * codec ({@code io.jrdma.rxe.cm}; the transport headers and the ICRC are core's
 * {@code io.jrdma.internal.roce}), the provider ({@code io.jrdma.rxe}), its port and engine
 * ({@code io.jrdma.rxe.net}) and the RC/UC/UD transport ({@code io.jrdma.rxe.qp}).
 */
module io.jrdma.rxe {
    requires io.jrdma.core;
    requires jdk.net;

    exports io.jrdma.rxe;

    provides io.jrdma.spi.RdmaProvider with io.jrdma.rxe.RxeProvider;
}
