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
 * names; each serves every loopback address (127.0.0.0/8 and ::1). Idle strategy of the engine:
 * {@code jrdma.loop.idle} = {@code backoff} (default) or {@code spin}.
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
