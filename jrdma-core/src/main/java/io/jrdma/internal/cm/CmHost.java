package io.jrdma.internal.cm;

import io.jrdma.cm.PortSpace;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.spi.ProviderCm;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.QpType;
import java.net.InetAddress;
import java.util.List;

/**
 * What an id, its parts and its event channel need of the connection manager that holds them: its
 * devices and the address choices made over them, the backend of a device, the verbs contexts, the
 * event executor, the observation hooks, and the register of live ids and channels. {@link CmCore}
 * is the one implementation; the ids depend on this view of it only, and nothing here names the public
 * {@code RdmaCm}, which depends on this package and not the reverse.
 */
public interface CmHost {

    /**
     * A device of a whole-device provider and that provider's connection manager.
     *
     * @param cm the provider's connection manager
     * @param device the device
     */
    record Foreign(ProviderCm cm, Device device) {
    }

    /** The software devices (core's own) this connection manager may use, in preference order. */
    List<DeviceImpl> devices();

    /** Every device this connection manager may use, the software ones first. */
    List<Device> allDevices();

    /** The first of this manager's software devices that serves {@code ip}, or {@code null}. */
    DeviceImpl deviceFor(InetAddress ip);

    /** The source address for a destination, as the kernel's routing would pick it. */
    InetAddress sourceFor(InetAddress dst);

    /**
     * Which connection manager serves an id whose address is {@code ip}: null for core's own, or a
     * whole-device provider's.
     */
    Foreign foreignFor(InetAddress ip);

    /** The backend of a device. */
    CmBackend backend(DeviceImpl d);

    /** The verbs context this connection manager keeps open on {@code d}. */
    Context context(Device d);

    /** The event executor: every event of this manager is delivered on it, one at a time. */
    SerialExecutor executor();

    /** The observation hooks. */
    CmEvents events();

    /** Replaces the observation hooks (tests). */
    void events(CmEvents e);

    /**
     * The object that opened this connection manager, if it is a {@code type}, else {@code null}: the
     * public connection manager, which {@code CmId.cm()} returns.
     */
    <T> T owner(Class<T> type);

    /** Creates an id that reports to the event channel {@code ch}. */
    CmIdImpl createChannelId(ChannelImpl ch, Object context, PortSpace ps, QpType type, boolean sync);

    /** An event channel was closed. */
    void channelClosed(ChannelImpl c);

    /** Counts {@code id} among the live ids (ids made by a listener's request). */
    void register(CmIdImpl id);

    /** Drops a destroyed id from the live ids. */
    void unregister(CmIdImpl id);
}
