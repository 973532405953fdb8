/**
 * RoCEv2 wire formats as Linux rdma_rxe speaks them, for the rxe transport and for the packets core's
 * captures synthesize ({@code internal.capture.RoceFrames}, the loop provider's): flyweights over
 * {@code (MemorySegment, offset)} for the IBTA transport headers ({@link io.jrdma.internal.roce.Bth},
 * {@link io.jrdma.internal.roce.Reth}, {@link io.jrdma.internal.roce.Aeth},
 * {@link io.jrdma.internal.roce.Deth}, {@link io.jrdma.internal.roce.ImmDt},
 * {@link io.jrdma.internal.roce.Ieth}, {@link io.jrdma.internal.roce.AtomicEth},
 * {@link io.jrdma.internal.roce.AtomicAckEth}), the opcode table ({@link io.jrdma.internal.roce.IbOpcode}),
 * 24-bit PSN arithmetic ({@link io.jrdma.internal.roce.Psn}), the invariant CRC
 * ({@link io.jrdma.internal.roce.Icrc}) and the IPv4/UDP header it covers
 * ({@link io.jrdma.internal.roce.Ipv4UdpHeader}).
 *
 * <p>Flyweights never allocate, never validate implicitly and are reused (one per engine or QP). All
 * fields are big-endian except the ICRC, which rxe stores little-endian. Every codec is pinned by
 * golden frames captured from Linux 6.1 rxe (jrdma-rxe's {@code src/test/resources/golden}, where
 * these codecs' tests live beside the captures).
 */
package io.jrdma.internal.roce;
