package io.jrdma.internal.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.spi.DeviceProvider;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.TransportType;
import java.net.InetAddress;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** How {@code PROVIDER:NAME} and plain names find the devices of whole-device providers next to software ones. */
class DeviceProviderLookupTest {
    private final Device loop0 = Rdma.device("loop0");

    /** A device of a whole-device provider; only its names matter here. */
    private record FakeDevice(String name, String provider) implements Device {
        @Override
        public TransportType transport() {
            return TransportType.IB;
        }

        @Override
        public long nodeGuid() {
            return 1;
        }

        @Override
        public List<InetAddress> addresses() {
            return List.of();
        }

        @Override
        public boolean servesAddress(InetAddress address) {
            return false;
        }

        @Override
        public Context open() {
            throw new UnsupportedOperationException("not opened in this test");
        }
    }

    private record FakeProvider(String name, List<Device> devices, Optional<String> unavailableReason)
            implements DeviceProvider {
    }

    private static DeviceProvider throwing(String name) {
        return new DeviceProvider() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public List<Device> devices() {
                throw new IllegalStateException("libfoo.so.1 exploded");
            }

            @Override
            public Optional<String> unavailableReason() {
                return Optional.empty();
            }
        };
    }

    @Test
    void qualifiedNamesPickTheProviderAndPlainNamesPreferSoftwareDevices() {
        Device kernelLoop = new FakeDevice("loop0", "native");
        Device mlx = new FakeDevice("mlx5_0", "native");
        DeviceRegistry r = DeviceRegistry.of(List.of(loop0),
                List.of(new FakeProvider("native", List.of(kernelLoop, mlx), Optional.empty())));

        assertThat(r.devices()).containsExactly(loop0, kernelLoop, mlx);
        assertThat(r.device("loop0")).isSameAs(loop0);
        assertThat(r.device("loop:loop0")).isSameAs(loop0);
        assertThat(r.device("native:loop0")).isSameAs(kernelLoop);
        assertThat(r.device("mlx5_0")).isSameAs(mlx);
        assertThat(r.device("native:mlx5_0")).isSameAs(mlx);
        assertThat(r.unavailableProviders()).isEmpty();
        assertThatThrownBy(() -> r.device("loop:mlx5_0")).isInstanceOf(RdmaException.class)
                .hasMessageContaining("native:mlx5_0")
                .satisfies(e -> assertThat(((RdmaException) e).errno()).isEqualTo(Errno.ENODEV));
    }

    @Test
    void anUnavailableProviderGivesItsReasonAndLeavesTheSoftwareDevices() {
        DeviceRegistry r = DeviceRegistry.of(List.of(loop0), List.of(
                new FakeProvider("native", List.of(), Optional.of("no RDMA devices (ibv_get_device_list: 0)")),
                throwing("broken")));

        assertThat(r.devices()).containsExactly(loop0);
        assertThat(r.unavailableProviders()).containsEntry("native", "no RDMA devices (ibv_get_device_list: 0)")
                .hasEntrySatisfying("broken", reason -> assertThat(reason).contains("libfoo.so.1 exploded"));
        assertThatThrownBy(() -> r.device("native:siw0")).isInstanceOf(RdmaException.class)
                .hasMessageContaining("provider native is unavailable (no RDMA devices");
        assertThat(r.device("loop0")).isSameAs(loop0);
    }

    @Test
    void aWholeDeviceProviderCannotTakeASoftwareProvidersName() {
        DeviceRegistry r = DeviceRegistry.of(List.of(loop0),
                List.of(new FakeProvider("loop", List.of(new FakeDevice("loop9", "loop")), Optional.empty())));

        assertThat(r.devices()).containsExactly(loop0);
    }

    @Test
    void aProvidersConnectionManagerIsKeptOnlyWhenItOffersDevices() {
        io.jrdma.spi.ProviderCm cm = new io.jrdma.spi.ProviderCm() {
            @Override
            public Device deviceFor(InetAddress address) {
                return null;
            }

            @Override
            public io.jrdma.spi.ProviderCmId createId(io.jrdma.cm.PortSpace ps, io.jrdma.verbs.QpType type,
                    io.jrdma.spi.ProviderCmId.Listener listener) {
                throw new UnsupportedOperationException("not made here");
            }
        };
        DeviceRegistry r = DeviceRegistry.of(List.of(loop0), List.of(
                withCm(new FakeProvider("native", List.of(new FakeDevice("siw0", "native")), Optional.empty()), cm),
                withCm(new FakeProvider("empty", List.of(), Optional.of("none here")), cm),
                new FakeProvider("plain", List.of(new FakeDevice("mlx5_0", "plain")), Optional.empty())));

        assertThat(r.connectionManager("native")).isSameAs(cm);
        assertThat(r.connectionManager("empty")).isNull();
        assertThat(r.connectionManager("plain")).isNull();
        assertThat(r.connectionManager("loop")).isNull();
    }

    private static DeviceProvider withCm(DeviceProvider p, io.jrdma.spi.ProviderCm cm) {
        return new DeviceProvider() {
            @Override
            public String name() {
                return p.name();
            }

            @Override
            public List<Device> devices() {
                return p.devices();
            }

            @Override
            public Optional<String> unavailableReason() {
                return p.unavailableReason();
            }

            @Override
            public Optional<io.jrdma.spi.ProviderCm> connectionManager() {
                return Optional.of(cm);
            }
        };
    }
}
