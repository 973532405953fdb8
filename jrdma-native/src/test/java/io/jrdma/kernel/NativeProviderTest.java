package io.jrdma.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.RdmaException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The native provider as Rdma sees it, wherever the tests run: on a host without RDMA devices (CI) it is
 * unavailable with a one-line reason and the software devices work; where the kernel has devices (the
 * interop rig's guest) each is a {@code native:NAME} device that opens.
 */
class NativeProviderTest {
    private static List<Device> nativeDevices() {
        return Rdma.devices().stream().filter(d -> d.provider().equals(NativeProvider.NAME)).toList();
    }

    @Test
    void withoutDevicesTheProviderSaysWhyAndSoftwareDevicesKeepWorking() {
        List<Device> found = nativeDevices();
        if (!found.isEmpty()) {
            assertThat(Rdma.unavailableProviders()).doesNotContainKey(NativeProvider.NAME);
            return;
        }
        String reason = Rdma.unavailableProviders().get(NativeProvider.NAME);
        assertThat(reason).as("the native provider's reason").isNotBlank().doesNotContain("\n");
        assertThat(new NativeProvider().unavailableReason()).contains(reason);
        assertThatThrownBy(() -> Rdma.device("native:siw0")).isInstanceOf(RdmaException.class)
                .hasMessageContaining(reason)
                .satisfies(e -> assertThat(((RdmaException) e).errno()).isEqualTo(Errno.ENODEV));
        try (Context c = Rdma.device("loop0").open(); ProtectionDomain pd = c.allocPd()) {
            assertThat(pd.context()).isSameAs(c);
        }
    }

    @Test
    void everyKernelDeviceIsNamedByProviderAndNameAndOpens() {
        for (Device d : nativeDevices()) {
            assertThat(Rdma.device("native:" + d.name())).isSameAs(d);
            try (Context c = d.open()) {
                assertThat(c.device()).isSameAs(d);
                assertThat(c.queryDevice().physPortCnt()).isGreaterThanOrEqualTo(1);
                assertThat(c.queryPort(1).gidTableLength()).isGreaterThan(0);
            }
        }
    }
}
