package io.jrdma.spi;

/**
 * How a device establishes connections under the RDMA connection manager: iWARP devices offer an
 * {@link IwCmProvider} (Linux {@code struct iw_cm_verbs}), IB-transport devices an
 * {@link IbCmProvider} (a datagram path for IB CM messages, Linux's QP1/GSI).
 */
public sealed interface CmTransport permits IwCmProvider, IbCmProvider {
}
