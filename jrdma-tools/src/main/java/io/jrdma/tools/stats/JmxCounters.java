package io.jrdma.tools.stats;

import io.jrdma.tools.cli.ExitCodes;
import io.jrdma.tools.cli.Hosts;
import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.verbs.Counters;
import io.jrdma.verbs.DeviceMBeans;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * The counters of another JVM's devices, read from its {@code io.jrdma:type=Device} MBeans over a JMX
 * connection: to {@code HOST:PORT} (a JVM started with {@code -Dcom.sun.management.jmxremote.port}),
 * or to a local process id through the attach API, which starts the JVM's local management agent.
 */
final class JmxCounters implements CounterSource {
    private final JMXConnector connector;
    private final MBeanServerConnection server;
    private final String where;

    private JmxCounters(JMXConnector connector, String where) throws IOException {
        this.connector = connector;
        this.server = connector.getMBeanServerConnection();
        this.where = where;
    }

    /** Connects to {@code host:port} (the RMI registry of the JVM's JMX agent). */
    static JmxCounters remote(String hostPort) {
        // HOST:PORT, an IPv6 literal in brackets ([::1]:9010), as the RMI URL writes it too.
        InetSocketAddress at = Hosts.hostPort(hostPort, "--jmx");
        String url = "service:jmx:rmi:///jndi/rmi://" + Hosts.endpoint(at) + "/jmxrmi";
        try {
            return new JmxCounters(JMXConnectorFactory.connect(new JMXServiceURL(url)), hostPort);
        } catch (IOException e) {
            throw new ToolFailure("cannot connect to the JMX agent at " + hostPort + ": " + e.getMessage(), e);
        }
    }

    /** Attaches to the local JVM {@code pid}, starts its local management agent and connects. */
    static JmxCounters attach(long pid) {
        com.sun.tools.attach.VirtualMachine vm;
        try {
            vm = com.sun.tools.attach.VirtualMachine.attach(Long.toString(pid));
        } catch (com.sun.tools.attach.AttachNotSupportedException | IOException e) {
            throw new ToolFailure("cannot attach to process " + pid + ": " + e.getMessage(), e);
        }
        try {
            String address = vm.startLocalManagementAgent();
            return new JmxCounters(JMXConnectorFactory.connect(new JMXServiceURL(address)), "pid " + pid);
        } catch (IOException e) {
            throw new ToolFailure("cannot reach the management agent of process " + pid + ": " + e.getMessage(), e);
        } finally {
            try {
                vm.detach();
            } catch (IOException e) {
                // the JMX connection stays usable
            }
        }
    }

    /** The MBean name of {@code device}, or null for a name no device's MBean can have. */
    private static ObjectName objectName(String device) {
        try {
            return DeviceMBeans.objectName(device);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private List<ObjectName> names(List<String> devices) throws IOException, JMException {
        Set<ObjectName> all = server.queryNames(DeviceMBeans.allDevices(), null);
        List<ObjectName> sorted = new ArrayList<>(all);
        sorted.sort(Comparator.comparing(n -> n.getKeyProperty("name")));
        if (devices == null || devices.isEmpty()) {
            if (sorted.isEmpty()) {
                throw new ToolFailure("no jrdma devices in " + where + " (is it a jrdma application, with JMX on?)");
            }
            return sorted;
        }
        List<ObjectName> out = new ArrayList<>();
        for (String d : devices) {
            ObjectName n = objectName(d);
            if (n == null || !all.contains(n)) {
                throw new ToolFailure("no RDMA device named '" + d + "' in " + where, ExitCodes.USAGE, null);
            }
            out.add(n);
        }
        return out;
    }

    @Override
    public List<Counters> devices(List<String> devices) {
        try {
            List<Counters> out = new ArrayList<>();
            for (ObjectName n : names(devices)) {
                List<String> counters = new ArrayList<>();
                for (MBeanAttributeInfo a : server.getMBeanInfo(n).getAttributes()) {
                    if ("long".equals(a.getType())) {
                        counters.add(a.getName());
                    }
                }
                Map<String, Long> values = new LinkedHashMap<>();
                for (javax.management.Attribute a : server.getAttributes(n, counters.toArray(new String[0]))
                        .asList()) {
                    values.put(a.getName(), ((Number) a.getValue()).longValue());
                }
                out.add(new Counters(n.getKeyProperty("name"), Counters.DEVICE, System.nanoTime(), values));
            }
            return out;
        } catch (IOException | JMException e) {
            throw new ToolFailure("reading the counters of " + where + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public List<String> qpLines(String device) {
        try {
            return List.of((String[]) server.getAttribute(DeviceMBeans.objectName(device),
                    DeviceMBeans.QUEUE_PAIR_COUNTERS));
        } catch (IOException | JMException e) {
            throw new ToolFailure("reading the QPs of " + device + " in " + where + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        try {
            connector.close();
        } catch (IOException e) {
            // gone already
        }
    }
}
