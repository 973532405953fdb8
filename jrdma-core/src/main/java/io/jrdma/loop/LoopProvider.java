package io.jrdma.loop;

import io.jrdma.spi.ProviderDevice;
import io.jrdma.spi.RdmaProvider;
import java.util.ArrayList;
import java.util.List;

/**
 * The in-process provider: RDMA between QPs of one JVM, with no wire at all. It is jrdma's semantic
 * oracle — its behaviour follows the IBTA spec and Linux rxe, and the socket transports are tested
 * against the same suites.
 *
 * <p>Devices: {@code jrdma.loop.devices} (default {@code loop0}) is a comma-separated list of device
 * names; each serves every loopback address (127.0.0.0/8 and ::1). The thread that posts a send runs
 * the engine ({@code jrdma.loop.appDriven}, default {@code true}; {@code false} hands every post to the
 * engine's thread). Idle strategy of the engine's thread: {@code jrdma.loop.idle} = {@code backoff}
 * (default) or {@code spin}.
 */
public final class LoopProvider implements RdmaProvider {
    /** The provider name. */
    public static final String NAME = "loop";

    /** Used by {@link java.util.ServiceLoader}. */
    public LoopProvider() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return PRIORITY_LOOP;
    }

    /** Index of the next device opened from a configuration (after those of the property). */
    private static final java.util.concurrent.atomic.AtomicInteger NEXT_INDEX = new java.util.concurrent.atomic
            .AtomicInteger(100);

    @Override
    public ProviderDevice open(io.jrdma.verbs.DeviceConfig config) {
        if (!(config instanceof io.jrdma.verbs.LoopDeviceConfig c)) {
            throw new IllegalArgumentException("the loop provider takes a LoopDeviceConfig, not " + config);
        }
        return LoopFabric.instance().open(c.name(), NEXT_INDEX.getAndIncrement());
    }

    @Override
    public List<ProviderDevice> devices() {
        String spec = System.getProperty("jrdma.loop.devices", "loop0");
        List<ProviderDevice> list = new ArrayList<>();
        int i = 0;
        for (String name : spec.split(",")) {
            String n = name.strip();
            if (!n.isEmpty()) {
                list.add(LoopFabric.instance().device(n, i++));
            }
        }
        return list;
    }
}
