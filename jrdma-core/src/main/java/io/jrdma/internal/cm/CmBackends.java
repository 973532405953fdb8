package io.jrdma.internal.cm;

import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.spi.CmTransport;
import io.jrdma.spi.IbCmProvider;
import io.jrdma.spi.IwCmProvider;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One connection-establishment backend per device, shared by every connection manager of the JVM
 * (as Linux's ib_cm and iw_cm are per device, not per process).
 */
final class CmBackends {
    private static final Map<DeviceImpl, CmBackend> BACKENDS = new ConcurrentHashMap<>();

    private CmBackends() {
    }

    static CmBackend of(DeviceImpl device) {
        return BACKENDS.computeIfAbsent(device, d -> {
            CmTransport t = d.providerDevice().cmTransport();
            return switch (t) {
                case IbCmProvider ib -> new IbCmaBackend(d, ib);
                case IwCmProvider iw -> new IwCmaBackend(d, iw);
            };
        });
    }
}
