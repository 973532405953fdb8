package io.jrdma.internal.verbs;

import io.jrdma.spi.ProviderDevice;
import io.jrdma.spi.RdmaProvider;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.TransportType;
import java.net.InetAddress;
import java.util.List;

/** Core's {@link Device}: a provider device plus the state core keeps per device. */
public final class DeviceImpl implements Device {
    private final RdmaProvider provider;
    private final ProviderDevice dev;

    DeviceImpl(RdmaProvider provider, ProviderDevice dev) {
        this.provider = provider;
        this.dev = dev;
    }

    /** The provider's device. */
    public ProviderDevice providerDevice() {
        return dev;
    }

    @Override
    public String name() {
        return dev.name();
    }

    @Override
    public String provider() {
        return provider.name();
    }

    @Override
    public TransportType transport() {
        return dev.transport();
    }

    @Override
    public long nodeGuid() {
        return dev.nodeGuid();
    }

    @Override
    public List<InetAddress> addresses() {
        return dev.addresses();
    }

    @Override
    public boolean servesAddress(InetAddress address) {
        return dev.servesAddress(address);
    }

    @Override
    public Context open() {
        throw new UnsupportedOperationException("scaffold: contexts arrive with the verbs implementation");
    }

    @Override
    public String toString() {
        return dev.name();
    }
}
