/**
 * jrdma rxe: RoCEv2 over UDP 4791 with the IB CM, wire-compatible with Linux rdma_rxe. So far the
 * wire codecs: transport headers ({@code io.jrdma.rxe.wire}) and CM MADs ({@code io.jrdma.rxe.cm}).
 */
module io.jrdma.rxe {
    requires io.jrdma.core;
}
