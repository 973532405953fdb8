package io.jrdma.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.RdmaCm;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.Rdma;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;

/** What the tests of the kernel's connection manager share: the address, the device rdma_cm binds it to, events. */
final class KernelCm {
    private KernelCm() {
    }

    /** The address the tests use: {@code -Dnative.cm.address}, 10.0.2.15 (the interop guest's) by default. */
    static InetAddress address() {
        try {
            return InetAddress.getByName(System.getProperty("native.cm.address", "10.0.2.15"));
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The name of the kernel device rdma_cm binds {@code address} to (a probe id bound and destroyed), or null. */
    static String boundDevice(InetAddress address) {
        try (NativeCm.Id probe = NativeCm.get().createId()) {
            probe.bind(new InetSocketAddress(address, 0));
            return probe.deviceName();
        } catch (RuntimeException none) {
            return null;
        }
    }

    /** The jrdma-native device rdma_cm binds {@code address} to, or null. */
    static Device deviceOn(InetAddress address) {
        String bound = boundDevice(address);
        return Rdma.devices().stream().filter(d -> d.provider().equals(NativeProvider.NAME)
                && d.name().equals(bound)).findFirst().orElse(null);
    }

    /**
     * The jrdma-native device rdma_cm binds {@code address} to; the test is skipped without librdmacm or
     * such a device.
     */
    static Device assumeDeviceOn(InetAddress address) {
        Assumptions.assumeTrue(Rdmacm.unavailable() == null, () -> "librdmacm: " + Rdmacm.unavailable());
        Device d = deviceOn(address);
        Assumptions.assumeTrue(d != null, () -> "no kernel device on " + address);
        return d;
    }

    /** An {@code RdmaCm} of every kernel device. */
    static RdmaCm open() {
        return RdmaCm.open(Rdma.devices().stream().filter(d -> d.provider().equals(NativeProvider.NAME))
                .map(d -> NativeProvider.NAME + ":" + d.name()).toArray(String[]::new));
    }

    /** The channel's next event, acknowledged, which must be of {@code type} and come within {@code wait}. */
    static CmEvent expect(EventChannel ch, CmEventType type, Duration wait) throws InterruptedException {
        CmEvent e = ch.getEvent(wait);
        assertThat(e).as("a %s within %s", type, wait).isNotNull();
        ch.ackEvent(e);
        assertThat(e.type()).as("%s", e).isEqualTo(type);
        return e;
    }
}
