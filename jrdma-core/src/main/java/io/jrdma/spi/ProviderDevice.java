package io.jrdma.spi;

import io.jrdma.internal.capture.PacketTap;
import io.jrdma.internal.verbs.DeviceCounters;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.verbs.DeviceAttributes;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.LinkLayer;
import io.jrdma.verbs.PortAttributes;
import io.jrdma.verbs.QpType;
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
    /** The device name, e.g. {@code siw0}. */
    String name();

    /** The transport. */
    TransportType transport();

    /** The link layer of port 1. */
    LinkLayer linkLayer();

    /** The node GUID. */
    long nodeGuid();

    /** The limits core enforces. */
    DeviceAttributes attributes();

    /** Port 1's attributes (the software devices have one port). */
    PortAttributes portAttributes();

    /** The GID table of port 1 (index 0 first). */
    List<Gid> gids();

    /** The IP addresses the device serves. */
    List<InetAddress> addresses();

    /** Whether the device serves {@code address}. */
    boolean servesAddress(InetAddress address);

    /**
     * Whether QPs of {@code type} exist on this device (siw: RC only; rxe and loop: RC, UC, UD).
     */
    boolean supportsQpType(QpType type);

    /** Whether a send opcode is supported (siw has no immediate data and no atomics). */
    boolean supportsOpcode(WrOpcode opcode);

    /**
     * Creates the transport half of a new QP. Core has validated the attributes against
     * {@link #attributes()} and built the queues; the provider keeps {@code qp} to reach them.
     */
    ProviderQp createQp(QpImpl qp);

    /**
     * The connection-manager transport of this device: an {@link IwCmProvider} for iWARP, an
     * {@link IbCmProvider} for the IB transport (RoCE, loop).
     */
    CmTransport cmTransport();

    /**
     * The device's counters: the provider creates them with the {@link io.jrdma.verbs.Counter}s its
     * transport keeps, writes its engines' device-level counters into sets taken from them, and core
     * adds each QP's counters (the counterpart of rdma-core's {@code alloc_hw_stats}/{@code get_hw_stats}
     * pair, {@code rxe_hw_counters.c}).
     *
     * @return the device's counters, the same object on every call
     */
    DeviceCounters deviceCounters();

    /**
     * A capture of everything the device sends and receives started ({@code tap}) or stopped
     * ({@code null}); the provider's engines write packets to the tap while it is set. QPs have their
     * own taps ({@link QpImpl#capture()}), which providers read themselves. The default ignores device
     * captures.
     *
     * @param tap the running capture, or {@code null}
     */
    default void captureChanged(PacketTap tap) {
    }
}
