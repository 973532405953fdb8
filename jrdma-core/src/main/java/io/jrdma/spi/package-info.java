/**
 * The provider SPI: how a transport (loop, siw, rxe) plugs into jrdma's verbs and connection
 * manager ({@link io.jrdma.spi.RdmaProvider}), or supplies whole devices ({@link io.jrdma.spi.DeviceProvider},
 * e.g. the kernel's through rdma-core). Providers are found with {@link java.util.ServiceLoader}. A device
 * of an {@code RdmaProvider} can extend {@link io.jrdma.spi.AbstractProviderDevice}, which keeps what it is
 * (name, transport, limits, port, GIDs, addresses, counters), and write only what its transport does.
 *
 * <p>The SPI names only the public API ({@code io.jrdma.verbs}, {@code io.jrdma.cm}) and its own types
 * ({@code io.jrdma.spi}, {@code io.jrdma.spi.ibcm}), so a provider compiles in its own module with
 * {@code requires io.jrdma.core} alone. What a provider is handed, type by type:
 * <ul>
 *   <li><b>The QP</b> ({@link io.jrdma.spi.ProviderDevice#createQp}, {@link io.jrdma.spi.IwCmProvider#connect},
 *       {@link io.jrdma.spi.IwCmProvider.Connection#accept}): the {@link io.jrdma.verbs.QueuePair} core
 *       created, as the application sees it (number, type, attributes, state). Core's queues, WQE slots
 *       and completion calls stay out of the SPI: they are the engine side of core's QP, shaped by
 *       jrdma's own engines, and jrdma's providers reach them through the packages core exports to them.
 *       A provider written elsewhere therefore plugs in devices, PDs, regions, CQs and QPs whose state
 *       machine core runs; through the SPI alone it cannot move a QP's data.
 *   <li><b>Counters</b> ({@link io.jrdma.spi.ProviderDevice#deviceCounters}): a contract of the SPI.
 *       {@link io.jrdma.spi.DeviceCounters} gathers a device's counters; a provider creates it with the
 *       counters its transport keeps and writes {@link io.jrdma.spi.CounterSet}s (one writer, an
 *       increment is a load, an add and an opaque store: no lock, no allocation, no boxing) and the
 *       {@link io.jrdma.spi.SharedCounterSet} of its control plane. Core adds each QP's set.
 *   <li><b>Captures</b> ({@link io.jrdma.spi.ProviderDevice#captureChanged}): the running capture as the
 *       public {@link io.jrdma.verbs.PacketCapture}. Writing packets into it takes core's pcap framing
 *       (RoCEv2 over IP and UDP, TCP segments of an MPA stream), which is not part of the SPI; jrdma's
 *       providers reach it through the packages core exports to them.
 *   <li><b>IB CM messages</b> ({@link io.jrdma.spi.IbCmProvider}): a contract of the SPI. The records of
 *       {@code io.jrdma.spi.ibcm} are what core's IB CM sends and takes back; a provider lays them out on
 *       its wire (rxe: CM MADs on QP1) or hands them over as they are (loop).
 * </ul>
 */
package io.jrdma.spi;
