package io.jrdma.spi;

import io.jrdma.verbs.DeviceAttributes;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.LinkLayer;
import io.jrdma.verbs.PortAttributes;
import io.jrdma.verbs.TransportType;
import java.net.InetAddress;
import java.util.List;
import java.util.Objects;

/**
 * The part of a {@link ProviderDevice} that every software device has alike: what it is, fixed when it
 * is made — its name, transport, limits, port, GID table, addresses and counters. A device extends it
 * and writes only what its transport decides: which QP types and opcodes it carries, its QPs, its
 * connection manager, and the hooks it needs (multicast, removal, captures). The node GUID is the one
 * of {@link DeviceAttributes#nodeGuid()}, the link layer the port's; the device serves the addresses
 * it lists, unless it says otherwise ({@link #servesAddress}). Linux: the {@code ib_device} fields a
 * driver fills before {@code ib_register_device}.
 */
public abstract class AbstractProviderDevice implements ProviderDevice {
    private final String name;
    private final TransportType transport;
    private final DeviceAttributes attributes;
    private final PortAttributes port;
    private final List<Gid> gids;
    private final List<InetAddress> addresses;
    private final DeviceCounters counters;

    /**
     * A device with these facts.
     *
     * @param name the device name ({@link #name()})
     * @param transport the transport
     * @param attributes the limits core enforces; their node GUID is the device's
     * @param port port 1's attributes; their link layer is the device's
     * @param gids port 1's GID table, index 0 first (copied)
     * @param addresses the IP addresses the device serves (copied)
     * @param counters the device's counters
     * @throws NullPointerException if an argument is {@code null}
     */
    protected AbstractProviderDevice(String name, TransportType transport, DeviceAttributes attributes,
            PortAttributes port, List<Gid> gids, List<InetAddress> addresses, DeviceCounters counters) {
        this.name = Objects.requireNonNull(name, "name");
        this.transport = Objects.requireNonNull(transport, "transport");
        this.attributes = Objects.requireNonNull(attributes, "attributes");
        this.port = Objects.requireNonNull(port, "port");
        this.gids = List.copyOf(gids);
        this.addresses = List.copyOf(addresses);
        this.counters = Objects.requireNonNull(counters, "counters");
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final TransportType transport() {
        return transport;
    }

    /** The link layer of port 1's attributes. */
    @Override
    public final LinkLayer linkLayer() {
        return port.linkLayer();
    }

    /** The node GUID of the device's attributes. */
    @Override
    public final long nodeGuid() {
        return attributes.nodeGuid();
    }

    @Override
    public final DeviceAttributes attributes() {
        return attributes;
    }

    @Override
    public final PortAttributes portAttributes() {
        return port;
    }

    @Override
    public final List<Gid> gids() {
        return gids;
    }

    @Override
    public final List<InetAddress> addresses() {
        return addresses;
    }

    /** Whether {@code address} is one of {@link #addresses()}. */
    @Override
    public boolean servesAddress(InetAddress address) {
        return addresses.contains(address);
    }

    @Override
    public final DeviceCounters deviceCounters() {
        return counters;
    }

    /** The device name. */
    @Override
    public String toString() {
        return name;
    }
}
