package io.jrdma.kernel;

import io.jrdma.testkit.cm.CmCapability;
import io.jrdma.testkit.cm.CmFixture;
import io.jrdma.testkit.cm.CmMessageKind;
import io.jrdma.testkit.cm.MessageDrop;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.TransportType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;

/**
 * The fixture of the CM conformance suite over the kernel's rdma_cm ({@code native:NAME}): client and server in
 * one JVM, each with its own {@link io.jrdma.cm.RdmaCm} opened on the kernel device, both on the address
 * {@code -Dnative.cm.address} (10.0.2.15 in the interop rig). The kernel binds an address to one device: the
 * suite over {@code native:rxe0} needs siw0 deleted first ({@code NATIVE_SUITES_LINKS='rxe0:rxe:eth0'}), and
 * the fixture skips naming the device rdma_cm chose otherwise.
 *
 * <p>What the kernel's CM offers: on IB and RoCE the UDP port space, multicast, ECE and TIMEWAIT_EXIT; on iWARP
 * none of those. The IB port space is not offered on either (librdmacm's {@code rdma_create_id} makes its ids RC
 * only, so the UD half of {@link CmCapability#IB_PORT_SPACE} cannot be had). The suite cannot lose CM messages on purpose (no hook into the kernel), has no raw IB CM peer
 * and no iw_cm id of its own (both kernel-internal). Messages sent are read from the kernel's counters: on IB
 * and RoCE the device's packets sent, on iWARP, where MPA has no counter, the host's TCP segments sent
 * ({@code /proc/net/snmp}), which counts every MPA frame.
 */
final class NativeCmFixture implements CmFixture {
    private final String name;
    private final InetAddress address;
    private final boolean iwarp;

    NativeCmFixture(String name) {
        this.name = name;
        Device d = null;
        try {
            d = Rdma.device("native:" + name);
        } catch (RuntimeException e) {
            Assumptions.abort("native:" + name + " is not here: " + e.getMessage());
        }
        Assumptions.assumeTrue(Rdmacm.unavailable() == null, () -> "librdmacm: " + Rdmacm.unavailable());
        address = KernelCm.address();
        String chosen = KernelCm.boundDevice(address);
        Assumptions.assumeTrue(name.equals(chosen), () -> "rdma_cm binds " + address + " to " + chosen + ", not "
                + name + " (delete the other device first)");
        iwarp = d.transport() == TransportType.IWARP;
    }

    @Override
    public List<String> deviceNames() {
        return List.of("native:" + name);
    }

    @Override
    public InetAddress address() {
        return address;
    }

    @Override
    public Set<CmCapability> capabilities() {
        return iwarp ? EnumSet.noneOf(CmCapability.class)
                : EnumSet.of(CmCapability.UD_SIDR, CmCapability.ECE, CmCapability.TIMEWAIT_EXIT,
                        CmCapability.MULTICAST, CmCapability.CONNECT_RESPONSE);
    }

    @Override
    public long messagesSent() {
        return iwarp ? tcpSegmentsSent() : ibCmMessagesSent();
    }

    /**
     * The packets the device sent ({@code hw_counters/sent_pkts}): the IB CM's MADs go out on QP1 through the
     * device like every other packet. The kernel here has no {@code /sys/class/infiniband_cm} counters; while a
     * suite check compares two readings no QP of the test moves data, so the packets are the CM's.
     */
    private long ibCmMessagesSent() {
        Path f = Path.of("/sys/class/infiniband", name, "ports", "1", "hw_counters", "sent_pkts");
        try {
            return Long.parseLong(Files.readString(f).strip());
        } catch (IOException e) {
            throw new UncheckedIOException("the packet counter of " + name, e);
        }
    }

    private static long tcpSegmentsSent() {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/net/snmp"));
            for (int i = 0; i + 1 < lines.size(); i++) {
                if (lines.get(i).startsWith("Tcp:") && lines.get(i + 1).startsWith("Tcp:")) {
                    List<String> keys = List.of(lines.get(i).split("\\s+"));
                    String[] values = lines.get(i + 1).split("\\s+");
                    return Long.parseLong(values[keys.indexOf("OutSegs")]);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new IllegalStateException("/proc/net/snmp has no Tcp OutSegs");
    }

    @Override
    public MessageDrop drop(Set<CmMessageKind> kinds, int count) {
        throw new UnsupportedOperationException("the kernel's CM messages cannot be dropped from user space");
    }
}
