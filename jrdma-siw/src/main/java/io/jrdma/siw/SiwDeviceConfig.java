package io.jrdma.siw;

import io.jrdma.verbs.DeviceConfig;
import java.net.InetAddress;
import java.util.List;
import java.util.Objects;

/**
 * The typed configuration of a siw device a program opens itself ({@code Rdma.open}): its name, the
 * addresses it serves, the transport's settings and how its connections detect a dead peer. Start
 * from {@link #named}, whose defaults are the {@code jrdma.siw.*} system properties, and change a
 * copy with the {@code with} methods:
 *
 * <pre>{@code
 * try (OwnedDevice siw1 = Rdma.open(SiwDeviceConfig.named("siw1")
 *         .withTransport(SiwConfig.defaults().withCrcRequired(true).withMaxSegment(1024)))) {
 *     ...
 * }
 * }</pre>
 *
 * The device has engine threads of its own ({@link SiwConfig#engines()}), started on first use and
 * stopped when it is closed. Immutable. Linux: {@code rdma link add siw1 type siw netdev DEV} and
 * siw's module parameters.
 *
 * @param name the device's name
 * @param addresses the IP addresses it serves (one loopback address serves them all, as for siw0)
 * @param transport the iWARP settings (MPA revision, CRC, peer-to-peer, segment size, engines...)
 * @param linkTimeouts how its connections find out the peer is gone
 */
public record SiwDeviceConfig(String name, List<InetAddress> addresses, SiwConfig transport,
        LinkTimeouts linkTimeouts) implements DeviceConfig {
    /** Checks the values. */
    public SiwDeviceConfig {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("a siw device needs a name");
        }
        addresses = List.copyOf(addresses);
        if (addresses.isEmpty()) {
            throw new IllegalArgumentException("a siw device serves at least one address");
        }
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(linkTimeouts, "linkTimeouts");
    }

    /**
     * A device called {@code name} with the defaults of the system properties: the addresses of
     * {@code jrdma.siw.addresses} (else every address of every interface that is up),
     * {@link SiwConfig#fromSystemProperties()} and {@link LinkTimeouts#fromSystemProperties()}.
     */
    public static SiwDeviceConfig named(String name) {
        return new SiwDeviceConfig(name, SiwProvider.addresses(), SiwConfig.fromSystemProperties(),
                LinkTimeouts.fromSystemProperties());
    }

    @Override
    public String provider() {
        return SiwProvider.NAME;
    }

    /** This configuration serving {@code serves}. */
    public SiwDeviceConfig withAddresses(InetAddress... serves) {
        return new SiwDeviceConfig(name, List.of(serves), transport, linkTimeouts);
    }

    /** This configuration with the iWARP settings {@code t}. */
    public SiwDeviceConfig withTransport(SiwConfig t) {
        return new SiwDeviceConfig(name, addresses, t, linkTimeouts);
    }

    /** This configuration with the dead-peer detection {@code t}. */
    public SiwDeviceConfig withLinkTimeouts(LinkTimeouts t) {
        return new SiwDeviceConfig(name, addresses, transport, t);
    }
}
