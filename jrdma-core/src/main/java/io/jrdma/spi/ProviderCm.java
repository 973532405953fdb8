package io.jrdma.spi;

import io.jrdma.cm.PortSpace;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.QpType;
import java.net.InetAddress;

/**
 * The connection manager of a {@link DeviceProvider}'s devices (the kernel's rdma_cm through librdmacm
 * for the {@code native} provider), offered with {@link DeviceProvider#connectionManager()}. Core's
 * {@link io.jrdma.cm.RdmaCm} hands an id to it when the id's address is served by one of the provider's
 * devices and no software device is chosen for it (see {@code docs/transports.md}, "Which connection
 * manager serves an address"): from the {@code rdma_bind_addr} or {@code rdma_resolve_addr} that decides, the
 * id's calls go to a {@link ProviderCmId} and its events come back through a {@link ProviderCmId.Listener}.
 * Core keeps what is the API's own: the event channels and handlers, acknowledgement, {@code rdma_migrate_id},
 * the handler lock, and the id's state as {@link io.jrdma.cm.CmId#state()} reports it.
 */
public interface ProviderCm {
    /**
     * The device of the provider that this connection manager would bind an id to for {@code address}
     * ({@code cma_acquire_dev_by_src_ip}), or {@code null} when none of its devices serves it. Called at
     * {@code bind} and {@code resolveAddr} (with the source address), never on a data path.
     *
     * @param address a specific (not wildcard) address
     * @return the device, one of the provider's {@link DeviceProvider#devices()}, or null
     */
    Device deviceFor(InetAddress address);

    /**
     * {@code rdma_create_id}: a new id whose events go to {@code listener}.
     *
     * @param portSpace the port space
     * @param qpType the QP type
     * @param listener receives the id's events, on the provider's own thread
     * @return the id
     * @throws UnsupportedOperationException for a port space the provider's CM does not offer
     */
    ProviderCmId createId(PortSpace portSpace, QpType qpType, ProviderCmId.Listener listener);
}
