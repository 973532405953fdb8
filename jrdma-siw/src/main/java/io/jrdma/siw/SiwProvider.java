package io.jrdma.siw;

import io.jrdma.spi.ProviderDevice;
import io.jrdma.spi.RdmaProvider;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The software iWARP provider: MPA/DDP/RDMAP over TCP, wire-compatible with Linux siw
 * (drivers/infiniband/sw/siw). One device, {@code siw0} by default ({@code jrdma.siw.devices}),
 * serving the addresses in {@code jrdma.siw.addresses} (comma-separated) or, by default, every
 * address of every interface that is up, loopback included — like {@code rdma link add siw0 type siw
 * netdev ...} on each netdev at once.
 */
public final class SiwProvider implements RdmaProvider {
    /** The provider name. */
    public static final String NAME = "siw";

    /** Used by {@link java.util.ServiceLoader}. */
    public SiwProvider() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return PRIORITY_IWARP;
    }

    /** Index (low bits of the node GUID) of the next device opened from a configuration. */
    private static final java.util.concurrent.atomic.AtomicInteger NEXT_INDEX = new java.util.concurrent.atomic
            .AtomicInteger(0x100);

    /** A device from a {@link SiwDeviceConfig} ({@code Rdma.open}), with engines of its own. */
    @Override
    public ProviderDevice open(io.jrdma.verbs.DeviceConfig config) {
        if (!(config instanceof SiwDeviceConfig c)) {
            throw new IllegalArgumentException("siw takes a SiwDeviceConfig, not " + config);
        }
        return new SiwDevice(c.name(), NEXT_INDEX.getAndIncrement(), c.addresses(), c.transport(), c.linkTimeouts());
    }

    @Override
    public List<ProviderDevice> devices() {
        SiwConfig config = SiwConfig.fromSystemProperties();
        LinkTimeouts timeouts = LinkTimeouts.fromSystemProperties();
        List<InetAddress> addrs = addresses();
        List<ProviderDevice> list = new ArrayList<>();
        int i = 0;
        for (String name : System.getProperty("jrdma.siw.devices", "siw0").split(",")) {
            String n = name.strip();
            if (!n.isEmpty()) {
                list.add(new SiwDevice(n, i++, addrs, config, timeouts));
            }
        }
        return list;
    }

    /** The addresses of {@code jrdma.siw.addresses}, or of every interface that is up. */
    static List<InetAddress> addresses() {
        String spec = System.getProperty("jrdma.siw.addresses", "");
        List<InetAddress> out = new ArrayList<>();
        if (!spec.isBlank()) {
            for (String a : spec.split(",")) {
                try {
                    out.add(InetAddress.getByName(a.strip()));
                } catch (UnknownHostException e) {
                    throw new IllegalArgumentException("jrdma.siw.addresses: cannot resolve " + a, e);
                }
            }
            return out;
        }
        try {
            for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (ni.isUp()) {
                    out.addAll(Collections.list(ni.getInetAddresses()));
                }
            }
        } catch (SocketException e) {
            out.add(InetAddress.getLoopbackAddress());
        }
        if (out.isEmpty()) {
            out.add(InetAddress.getLoopbackAddress());
        }
        return out;
    }
}
