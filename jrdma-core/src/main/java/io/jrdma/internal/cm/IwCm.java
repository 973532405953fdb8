package io.jrdma.internal.cm;

import io.jrdma.cm.IwCmHandler;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.spi.IwCmProvider;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The iWARP connection manager of one device (Linux {@code iwcm.c}): iw_cm ids over the device's
 * {@link IwCmProvider}. Provider upcalls are delivered on the thread that makes them, one at a time
 * per id (see {@code IwCmIdImpl.post}).
 */
public final class IwCm {
    private static final Map<DeviceImpl, IwCm> INSTANCES = new ConcurrentHashMap<>();

    final DeviceImpl device;
    final IwCmProvider provider;

    private IwCm(DeviceImpl device, IwCmProvider provider) {
        this.device = device;
        this.provider = provider;
    }

    /** The iw_cm of an iWARP device. */
    public static IwCm of(DeviceImpl device) {
        return INSTANCES.computeIfAbsent(device, d -> {
            if (!(d.providerDevice().cmTransport() instanceof IwCmProvider p)) {
                throw new IllegalArgumentException(d.name() + " is not an iWARP device");
            }
            return new IwCm(d, p);
        });
    }

    /** {@code iw_create_cm_id}. */
    public IwCmIdImpl createId(IwCmHandler handler, Object context) {
        return new IwCmIdImpl(this, handler, context);
    }
}
