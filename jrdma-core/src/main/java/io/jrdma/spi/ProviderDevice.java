package io.jrdma.spi;

import io.jrdma.verbs.DeviceAttributes;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.LinkLayer;
import io.jrdma.verbs.PacketCapture;
import io.jrdma.verbs.PortAttributes;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.TransportType;
import io.jrdma.verbs.WrOpcode;
import java.net.InetAddress;
import java.util.List;

/**
 * One device of a provider: its identity and limits, and the transport hooks core calls (the
 * counterpart of rdma-core's {@code verbs_context_ops}). Core implements everything generic — PDs,
 * memory registration and key checks, CQs, SRQs, the QP state machine and flushing — and calls the
 * device only for what its wire protocol does.
 */
public interface ProviderDevice {
    /** The device name, e.g. {@code siw0}. Linux: {@code ib_device.name}. */
    String name();

    /** The transport. Linux: {@code rdma_node_get_transport}. */
    TransportType transport();

    /** The link layer of port 1. Linux: {@code ib_device_ops.get_link_layer}. */
    LinkLayer linkLayer();

    /** The node GUID. Linux: {@code ib_device.node_guid}. */
    long nodeGuid();

    /** The limits core enforces. Linux: {@code ib_device_ops.query_device}. */
    DeviceAttributes attributes();

    /** Port 1's attributes (the software devices have one port). Linux: {@code ib_device_ops.query_port}. */
    PortAttributes portAttributes();

    /** The GID table of port 1 (index 0 first). Linux: {@code ib_device_ops.query_gid}. */
    List<Gid> gids();

    /** The IP addresses the device serves. Linux: the addresses of the netdev the device is bound to. */
    List<InetAddress> addresses();

    /**
     * Whether the device serves {@code address}. Linux: the test {@code cma_acquire_dev_by_src_ip} makes for the
     * device.
     */
    boolean servesAddress(InetAddress address);

    /**
     * Whether port 1 follows the state of the host network interface that carries {@link #addresses()}
     * (siw and rxe, bound to a netdev as on Linux), so that interface going down is a port going down.
     * The in-process loop device has no link and keeps the default. Linux: the netdev notifier that makes
     * rxe and siw report {@code IB_EVENT_PORT_ERR} / {@code IB_EVENT_PORT_ACTIVE}.
     */
    default boolean followsNetworkLink() {
        return false;
    }

    /**
     * Whether QPs of {@code type} exist on this device (siw: RC only; rxe and loop: RC, UC, UD). Linux: what the
     * driver's {@code create_qp} accepts ({@code siw_create_qp}: RC only).
     */
    boolean supportsQpType(QpType type);

    /**
     * Whether a send opcode is supported (siw has no immediate data and no atomics). Linux: what the driver's
     * {@code post_send} accepts.
     */
    boolean supportsOpcode(WrOpcode opcode);

    /**
     * Whether regions may be heap memory ({@code MemorySegment.ofArray(byte[])}, heap byte buffers): the
     * software transports copy through the JDK's sockets and can; a transport that hands addresses to
     * hardware or the kernel cannot, and registration then fails with a message saying to use native
     * memory. Linux has no counterpart (every {@code ibv_reg_mr} pins user pages).
     */
    default boolean supportsHeapSegments() {
        return true;
    }

    /**
     * Creates the transport half of a new QP. Core has validated the attributes against
     * {@link #attributes()}, numbered the QP and built its queues, and runs its state machine;
     * {@code qp} is that QP as the application sees it (its number, type, attributes and state). Core
     * registers the QP once this returns. Linux: {@code verbs_context_ops.create_qp} /
     * {@code ib_device_ops.create_qp}.
     *
     * @param qp the QP core created
     * @return the provider's half, which core calls on every change and doorbell
     */
    ProviderQp createQp(QueuePair qp);

    /**
     * The connection-manager transport of this device: an {@link IwCmProvider} for iWARP, an
     * {@link IbCmProvider} for the IB transport (RoCE, loop). Linux: {@code ib_device.ops.iw_*} ({@code iw_cm_verbs})
     * for iWARP, the IB CM over QP1 otherwise.
     */
    CmTransport cmTransport();

    /**
     * The device's counters: the provider creates them with the {@link io.jrdma.verbs.Counter}s its
     * transport keeps, writes its engines' device-level counters into sets taken from them
     * ({@link DeviceCounters#newEngineSet()}, {@link DeviceCounters#shared()}), and core adds each QP's
     * counters (the counterpart of rdma-core's {@code alloc_hw_stats}/{@code get_hw_stats} pair,
     * {@code rxe_hw_counters.c}).
     *
     * @return the device's counters, the same object on every call
     */
    DeviceCounters deviceCounters();

    /**
     * The first QP of this device was attached to the multicast group {@code mgid}: the provider starts
     * receiving what is sent to the group (rxe: joins the IP multicast group the GID maps to and listens
     * on it). Core keeps the group's members and enforces the limits. The default does nothing (a
     * transport that needs no subscription, as loop). Linux: {@code rxe_mcast_add} ({@code dev_mc_add} of
     * the group's MAC) from {@code rxe_attach_mcast}.
     *
     * @param mgid the group's GID
     * @throws io.jrdma.verbs.RdmaException if the device cannot receive the group (the attach fails)
     */
    default void multicastGroupAdded(Gid mgid) {
    }

    /**
     * The last QP of this device left the multicast group {@code mgid}: the provider stops receiving it.
     * Linux: {@code rxe_mcast_del} from {@code rxe_detach_mcast}.
     *
     * @param mgid the group's GID
     */
    default void multicastGroupRemoved(Gid mgid) {
    }

    /**
     * The device is being removed (core unregisters it, as {@code ib_unregister_device}); the provider
     * stops carrying traffic for it until {@link #restored()}. The default does nothing. Linux: the driver's
     * side of {@code ib_unregister_device}.
     */
    default void removed() {
    }

    /**
     * The device was registered again after {@link #removed()} (a test bringing a removed device back, as
     * {@code rdma link add} would). The default does nothing. Linux: {@code ib_register_device}.
     */
    default void restored() {
    }

    /**
     * The device was closed for good (one opened by {@link RdmaProvider#open}, whose
     * {@link io.jrdma.verbs.OwnedDevice} was closed): core has removed it ({@link #removed()}) and closed
     * every context on it; the provider releases what the device holds — its threads, sockets and
     * selectors. The default does nothing. Linux: the driver's {@code dealloc_driver} after
     * {@code rdma link delete}.
     */
    default void close() {
    }

    /**
     * A capture of everything the device sends and receives started ({@link
     * io.jrdma.verbs.Context#startCapture}) or stopped ({@code null}); the provider's engines write
     * packets to it while it is set. Core opens the pcap file and frames what jrdma's own providers hand
     * it; that framing is not part of this SPI, so a provider written elsewhere learns when a capture
     * runs but records nothing into it. QPs have their own captures
     * ({@link io.jrdma.verbs.QueuePair#startCapture}), which providers read themselves. The default
     * ignores device captures. Linux has no counterpart (a capture is {@code tcpdump} on the netdev).
     *
     * @param capture the running capture, or {@code null}
     */
    default void captureChanged(PacketCapture capture) {
    }
}
