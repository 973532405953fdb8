package io.jrdma.internal.obs;

import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.verbs.Counter;
import io.jrdma.verbs.Counters;
import io.jrdma.verbs.DeviceMBeans;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.InstanceAlreadyExistsException;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanException;
import javax.management.MBeanInfo;
import javax.management.MBeanOperationInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * One device's counters over JMX, under the names {@link DeviceMBeans} publishes:
 * {@code io.jrdma:type=Device,name=siw0}, with one read-only {@code long} attribute per counter under its
 * Linux name ({@code sent_pkts}, {@code fpdus_sent}, ...) and a few describing the device ({@code Name},
 * {@code Provider}, {@code Transport}, {@code LiveQueuePairs}, and {@code QueuePairCounters}: one
 * {@code rdma statistic} line per live QP). Every read takes a fresh snapshot; nothing is cached.
 * JConsole, VisualVM and {@code jrdma stats --pid} read them.
 *
 * <p>A dynamic MBean, so the attribute list follows the counters each transport keeps and no
 * interface has to be exported from the module.
 */
public final class DeviceMBean implements DynamicMBean {
    private static final System.Logger LOG = System.getLogger("io.jrdma.verbs");

    private final DeviceImpl device;
    private final MBeanInfo info;

    private DeviceMBean(DeviceImpl device) {
        this.device = device;
        List<MBeanAttributeInfo> attrs = new ArrayList<>();
        attrs.add(new MBeanAttributeInfo(DeviceMBeans.NAME, "java.lang.String", "device name", true, false, false));
        attrs.add(new MBeanAttributeInfo(DeviceMBeans.PROVIDER, "java.lang.String", "provider (loop, siw, rxe)", true,
                false, false));
        attrs.add(new MBeanAttributeInfo(DeviceMBeans.TRANSPORT, "java.lang.String",
                "transport (IB for RoCE and loop, IWARP)", true, false, false));
        attrs.add(new MBeanAttributeInfo(DeviceMBeans.LIVE_QUEUE_PAIRS, "int", "queue pairs alive now", true, false,
                false));
        attrs.add(new MBeanAttributeInfo(DeviceMBeans.QUEUE_PAIR_COUNTERS, "[Ljava.lang.String;",
                "each live QP's counters, one 'rdma statistic' line per QP", true, false, false));
        for (Counter c : device.counters().kept()) {
            attrs.add(new MBeanAttributeInfo(c.linuxName(), "long", c.description(), true, false, false));
        }
        this.info = new MBeanInfo(DeviceMBean.class.getName(), "jrdma device " + device.name() + " ("
                + device.provider() + "): counters named as Linux rxe's hw_counters",
                attrs.toArray(new MBeanAttributeInfo[0]), null, new MBeanOperationInfo[0], null);
    }

    /**
     * Registers one MBean per device with the platform MBean server, unless {@value DeviceMBeans#PROPERTY} is
     * {@code false}. A device already registered (another class loader's registry) is left alone.
     *
     * @param devices the devices
     */
    public static void registerAll(List<DeviceImpl> devices) {
        if ("false".equalsIgnoreCase(System.getProperty(DeviceMBeans.PROPERTY, "true")) || devices.isEmpty()) {
            return;
        }
        MBeanServer server;
        try {
            server = ManagementFactory.getPlatformMBeanServer();
        } catch (RuntimeException | Error e) {
            LOG.log(System.Logger.Level.DEBUG, "no platform MBean server: jrdma counters are not in JMX", e);
            return;
        }
        for (DeviceImpl d : devices) {
            try {
                server.registerMBean(new DeviceMBean(d), DeviceMBeans.objectName(d.name()));
            } catch (InstanceAlreadyExistsException e) {
                LOG.log(System.Logger.Level.DEBUG, "[" + d.name() + "] MBean already registered");
            } catch (JMException | RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "[" + d.name() + "] MBean not registered: " + e);
            }
        }
    }

    /**
     * Unregisters the MBean of a device that was closed, if it has one (its name may be used again).
     *
     * @param device the device
     */
    public static void unregister(DeviceImpl device) {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = DeviceMBeans.objectName(device.name());
            if (server.isRegistered(name)) {
                server.unregisterMBean(name);
            }
        } catch (JMException | RuntimeException | Error e) {
            LOG.log(System.Logger.Level.DEBUG, "[" + device.name() + "] MBean not unregistered: " + e);
        }
    }

    @Override
    public Object getAttribute(String attribute) throws AttributeNotFoundException {
        return switch (attribute) {
            case DeviceMBeans.NAME -> device.name();
            case DeviceMBeans.PROVIDER -> device.provider();
            case DeviceMBeans.TRANSPORT -> device.transport().name();
            case DeviceMBeans.LIVE_QUEUE_PAIRS -> device.counters().liveQpCount();
            case DeviceMBeans.QUEUE_PAIR_COUNTERS -> device.queryQpCounters().stream().map(Counters::toLine)
                    .toArray(String[]::new);
            default -> {
                Counters c = device.counters().snapshot();
                if (!c.values().containsKey(attribute)) {
                    throw new AttributeNotFoundException(device.name() + " has no attribute " + attribute);
                }
                yield c.get(attribute);
            }
        };
    }

    @Override
    public void setAttribute(Attribute attribute) throws AttributeNotFoundException {
        throw new AttributeNotFoundException(attribute.getName() + " is read-only");
    }

    @Override
    public AttributeList getAttributes(String[] attributes) {
        AttributeList l = new AttributeList();
        Counters c = device.counters().snapshot();
        for (String a : attributes) {
            try {
                Object v = c.values().containsKey(a) ? (Object) c.get(a) : getAttribute(a);
                l.add(new Attribute(a, v));
            } catch (AttributeNotFoundException e) {
                // JMX: attributes that cannot be read are left out of the list
            }
        }
        return l;
    }

    @Override
    public AttributeList setAttributes(AttributeList attributes) {
        return new AttributeList();
    }

    @Override
    public Object invoke(String actionName, Object[] params, String[] signature) throws MBeanException {
        throw new MBeanException(new UnsupportedOperationException(actionName),
                "no operations");
    }

    @Override
    public MBeanInfo getMBeanInfo() {
        return info;
    }
}
