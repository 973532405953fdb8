package io.jrdma.verbs;

import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * The names under which each device's counters are in the platform MBean server, for a JMX client
 * (JConsole, VisualVM, {@code jrdma stats --pid}, a monitoring agent) reading another JVM's devices.
 * Each device is one MBean, {@code io.jrdma:type=Device,name=DEVICE}, with a read-only {@code long}
 * attribute per counter the device keeps, under its Linux name ({@link Counter#linuxName()}:
 * {@code sent_pkts}, {@code fpdus_sent}, ...), and the attributes named here. Every read is a fresh
 * snapshot, as {@link Device#queryCounters()} takes it. In the JVM that carries the traffic,
 * {@link Device#queryCounters()} and {@link Device#queryQpCounters()} read the same values without JMX.
 */
public final class DeviceMBeans {
    /** The JMX domain of jrdma's MBeans. */
    public static final String DOMAIN = "io.jrdma";
    /** The system property that keeps jrdma out of the platform MBean server when {@code false}. */
    public static final String PROPERTY = "jrdma.jmx";
    /** Attribute: the device name ({@link Device#name()}), a {@code String}. */
    public static final String NAME = "Name";
    /** Attribute: the provider ({@link Device#provider()}), a {@code String}. */
    public static final String PROVIDER = "Provider";
    /** Attribute: the transport ({@link Device#transport()}'s constant name), a {@code String}. */
    public static final String TRANSPORT = "Transport";
    /** Attribute: how many queue pairs are alive on the device, an {@code int}. */
    public static final String LIVE_QUEUE_PAIRS = "LiveQueuePairs";
    /**
     * Attribute: a {@code String[]} with each live queue pair's counters as {@link Counters#toLine()} writes
     * them ({@code qp siw0/1 lqpn 17 ...}), the lines of {@link Device#queryQpCounters()}.
     */
    public static final String QUEUE_PAIR_COUNTERS = "QueuePairCounters";

    private DeviceMBeans() {
    }

    /**
     * The object name of one device's MBean.
     *
     * @param device the device name, e.g. {@code siw0}
     * @return {@code io.jrdma:type=Device,name=DEVICE}
     * @throws IllegalArgumentException if the name is null, blank or cannot be a JMX key value (it holds
     *     one of {@code ,=:"*?})
     */
    public static ObjectName objectName(String device) {
        if (device == null || device.isBlank()) {
            throw new IllegalArgumentException("a device name is required, got " + device);
        }
        try {
            ObjectName n = new ObjectName(DOMAIN + ":type=Device,name=" + device);
            if (n.isPattern() || !device.equals(n.getKeyProperty("name"))) {
                throw new IllegalArgumentException("device name '" + device + "' cannot be a JMX key value");
            }
            return n;
        } catch (MalformedObjectNameException e) {
            throw new IllegalArgumentException("device name '" + device + "' cannot be a JMX key value", e);
        }
    }

    /**
     * The pattern that matches every device's MBean, for {@code MBeanServerConnection.queryNames}.
     *
     * @return {@code io.jrdma:type=Device,*}
     */
    public static ObjectName allDevices() {
        try {
            return new ObjectName(DOMAIN + ":type=Device,*");
        } catch (MalformedObjectNameException e) {
            throw new IllegalStateException("a constant object name is well formed", e);
        }
    }
}
