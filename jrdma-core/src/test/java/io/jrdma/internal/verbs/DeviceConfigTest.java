package io.jrdma.internal.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.cm.RdmaCm;
import io.jrdma.endpoint.Endpoint;
import io.jrdma.endpoint.EndpointListener;
import io.jrdma.endpoint.Message;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.DeviceConfig;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.LoopDeviceConfig;
import io.jrdma.verbs.OwnedDevice;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.RdmaException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Devices opened with a typed configuration ({@link Rdma#open}): found, used, closed, refused. */
@Timeout(60)
class DeviceConfigTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    @Test
    void anOpenedDeviceIsFoundByNameCarriesConnectionsAndLeavesWhenClosed() {
        try (OwnedDevice loop7 = Rdma.open(LoopDeviceConfig.named("loop7"))) {
            assertThat(loop7.config()).isEqualTo(LoopDeviceConfig.named("loop7"));
            assertThat(Rdma.device("loop7").name()).isEqualTo("loop7");
            assertThat(Rdma.devices()).extracting(io.jrdma.verbs.Device::name).contains("loop0", "loop7");
            try (RdmaCm cm = RdmaCm.open("loop7");
                    EndpointListener l = EndpointListener.listen(cm, new InetSocketAddress("127.0.0.1", 0));
                    Endpoint client = Endpoint.connect(cm, l.localAddress());
                    Endpoint server = l.accept(WAIT)) {
                assertThat(client.device().name()).isEqualTo("loop7");
                client.send("on loop7".getBytes(StandardCharsets.UTF_8));
                try (Message m = server.receive(WAIT)) {
                    assertThat(m.text()).isEqualTo("on loop7");
                }
            }
        }
        assertThatThrownBy(() -> Rdma.device("loop7")).isInstanceOfSatisfying(RdmaException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.ENODEV));
        // the name is free again
        Rdma.open(LoopDeviceConfig.named("loop7")).close();
    }

    @Test
    void aNameInUseAnUnknownProviderAndAProviderWithoutConfigurationsAreRefused() {
        assertThatThrownBy(() -> Rdma.open(LoopDeviceConfig.named("loop0")))
                .isInstanceOfSatisfying(RdmaException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EEXIST))
                .hasMessageContaining("a device named 'loop0' exists already");
        DeviceConfig nobody = new DeviceConfig() {
            @Override
            public String provider() {
                return "nope";
            }

            @Override
            public String name() {
                return "nope0";
            }
        };
        assertThatThrownBy(() -> Rdma.open(nobody)).isInstanceOfSatisfying(RdmaException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.ENODEV))
                .hasMessageContaining("no RDMA provider named 'nope'").hasMessageContaining("loop");
    }

    @Test
    void closingTheDeviceClosesItsContextsAndEndsItsConnections() {
        OwnedDevice loop8 = Rdma.open(LoopDeviceConfig.named("loop8"));
        Context ctx = loop8.open();
        ProtectionDomain pd = ctx.allocPd();
        QueuePair qp = pd.createQp(QpInitAttr.rc(ctx.createCq(8), new QpCap(2, 2, 1, 1, 0)));
        try (RdmaCm cm = RdmaCm.open("loop8");
                EndpointListener l = EndpointListener.listen(cm, new InetSocketAddress("127.0.0.1", 0));
                Endpoint client = Endpoint.connect(cm, l.localAddress());
                Endpoint server = l.accept(WAIT)) {
            loop8.close();
            assertThat(qp.state()).isEqualTo(QpState.ERR);
            assertThatThrownBy(ctx::allocPd).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
            assertThatThrownBy(() -> client.receive(WAIT)).as("the connection ended with its device")
                    .isInstanceOf(RdmaException.class);
            assertThat(client.isOpen()).isFalse();
            assertThatThrownBy(loop8::open).isInstanceOfSatisfying(RdmaException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.ENODEV));
        }
        loop8.close(); // idempotent
        pd.close();
        ctx.close();
    }
}
