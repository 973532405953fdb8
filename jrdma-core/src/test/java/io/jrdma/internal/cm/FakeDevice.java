package io.jrdma.internal.cm;

import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.TransportType;
import java.net.InetAddress;
import java.util.List;

/**
 * A device of a whole-device provider named "fake" that the CM tests route ids to: it serves no address by
 * itself (the tests' provider CM says which it serves) and is never opened.
 *
 * @param name the device name
 * @param transport what its transport is
 */
record FakeDevice(String name, TransportType transport) implements Device {
    @Override
    public String provider() {
        return "fake";
    }

    @Override
    public long nodeGuid() {
        return 7;
    }

    @Override
    public List<InetAddress> addresses() {
        return List.of();
    }

    @Override
    public boolean servesAddress(InetAddress address) {
        return false;
    }

    @Override
    public Context open() {
        throw new UnsupportedOperationException("the fake device is not opened");
    }
}
