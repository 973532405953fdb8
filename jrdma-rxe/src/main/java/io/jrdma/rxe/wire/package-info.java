/**
 * RoCEv2 wire formats as Linux rdma_rxe speaks them: flyweights over {@code (MemorySegment, offset)}
 * for the IBTA transport headers ({@link io.jrdma.rxe.wire.Bth}, {@link io.jrdma.rxe.wire.Reth},
 * {@link io.jrdma.rxe.wire.Aeth}, {@link io.jrdma.rxe.wire.Deth}, {@link io.jrdma.rxe.wire.ImmDt},
 * {@link io.jrdma.rxe.wire.Ieth}, {@link io.jrdma.rxe.wire.AtomicEth},
 * {@link io.jrdma.rxe.wire.AtomicAckEth}), the opcode table ({@link io.jrdma.rxe.wire.IbOpcode}),
 * 24-bit PSN arithmetic ({@link io.jrdma.rxe.wire.Psn}), the invariant CRC
 * ({@link io.jrdma.rxe.wire.Icrc}) and the IPv4/UDP header it covers
 * ({@link io.jrdma.rxe.wire.Ipv4UdpHeader}).
 *
 * <p>Flyweights never allocate, never validate implicitly and are reused (one per engine or QP). All
 * fields are big-endian except the ICRC, which rxe stores little-endian. Every codec is pinned by
 * golden frames captured from Linux 6.1 rxe ({@code src/test/resources/golden}).
 */
package io.jrdma.rxe.wire;
