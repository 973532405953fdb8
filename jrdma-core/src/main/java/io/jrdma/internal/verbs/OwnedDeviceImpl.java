package io.jrdma.internal.verbs;

import io.jrdma.verbs.Context;
import io.jrdma.verbs.Counters;
import io.jrdma.verbs.DeviceConfig;
import io.jrdma.verbs.OwnedDevice;
import io.jrdma.verbs.TransportType;
import java.net.InetAddress;
import java.util.List;

/** The handle of a device opened with a configuration: the registered device, and its closing. */
final class OwnedDeviceImpl implements OwnedDevice {
    private final DeviceImpl device;
    private final DeviceConfig config;
    private final DeviceRegistry registry;

    OwnedDeviceImpl(DeviceImpl device, DeviceConfig config, DeviceRegistry registry) {
        this.device = device;
        this.config = config;
        this.registry = registry;
    }

    @Override
    public DeviceConfig config() {
        return config;
    }

    @Override
    public String name() {
        return device.name();
    }

    @Override
    public String provider() {
        return device.provider();
    }

    @Override
    public TransportType transport() {
        return device.transport();
    }

    @Override
    public long nodeGuid() {
        return device.nodeGuid();
    }

    @Override
    public List<InetAddress> addresses() {
        return device.addresses();
    }

    @Override
    public boolean servesAddress(InetAddress address) {
        return device.servesAddress(address);
    }

    @Override
    public Context open() {
        return device.open();
    }

    @Override
    public Counters queryCounters() {
        return device.queryCounters();
    }

    @Override
    public List<Counters> queryQpCounters() {
        return device.queryQpCounters();
    }

    @Override
    public List<Counters> queryDestroyedQpCounters(long sinceNanoTime) {
        return device.queryDestroyedQpCounters(sinceNanoTime);
    }

    @Override
    public void close() {
        registry.close(device);
    }

    @Override
    public String toString() {
        return device.name();
    }
}
