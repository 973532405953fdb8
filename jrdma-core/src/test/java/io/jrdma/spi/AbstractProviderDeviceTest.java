package io.jrdma.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.verbs.AtomicCap;
import io.jrdma.verbs.Counter;
import io.jrdma.verbs.DeviceAttributes;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.LinkLayer;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.PortAttributes;
import io.jrdma.verbs.PortState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.TransportType;
import io.jrdma.verbs.WrOpcode;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The facts a software device keeps in the SPI's base: derived where Linux derives them, copied, never null. */
class AbstractProviderDeviceTest {
    private static final long GUID = 0x0200_5eff_fe77_0001L;
    private static final DeviceAttributes ATTRS = new DeviceAttributes("test 0.1", GUID, GUID, -1L >>> 1, 0, 0,
            16, 64, 2, 1, 16, 1024, 16, 16, 1, 1, AtomicCap.NONE, 0, 0, 0, 0, 0, 1);
    private static final PortAttributes PORT = new PortAttributes(PortState.ACTIVE, Mtu.MTU_1024, Mtu.MTU_1024, 1,
            LinkLayer.ETHERNET, 0, 1L << 20, 1, 1);

    /** The least a device writes itself. */
    private static final class Device extends AbstractProviderDevice {
        Device(String name, TransportType t, DeviceAttributes a, PortAttributes p, List<Gid> gids,
                List<InetAddress> addresses, DeviceCounters counters) {
            super(name, t, a, p, gids, addresses, counters);
        }

        @Override
        public boolean supportsQpType(QpType type) {
            return type == QpType.RC;
        }

        @Override
        public boolean supportsOpcode(WrOpcode opcode) {
            return opcode == WrOpcode.SEND;
        }

        @Override
        public ProviderQp createQp(QueuePair qp) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CmTransport cmTransport() {
            return null;
        }
    }

    private static InetAddress ip(int last) throws Exception {
        return InetAddress.getByAddress(new byte[] {10, 9, 8, (byte) last});
    }

    private static DeviceCounters counters() {
        return new DeviceCounters("test0", List.of(Counter.RDMA_SENDS));
    }

    @Test
    void theNodeGuidIsTheAttributesAndTheLinkLayerThePorts() throws Exception {
        DeviceCounters c = counters();
        Device d = new Device("test0", TransportType.IWARP, ATTRS, PORT, List.of(Gid.of(ip(1))), List.of(ip(1)), c);
        assertThat(d.name()).isEqualTo("test0").isEqualTo(d.toString());
        assertThat(d.transport()).isEqualTo(TransportType.IWARP);
        assertThat(d.nodeGuid()).isEqualTo(GUID);
        assertThat(d.linkLayer()).isEqualTo(LinkLayer.ETHERNET);
        assertThat(d.attributes()).isSameAs(ATTRS);
        assertThat(d.portAttributes()).isSameAs(PORT);
        assertThat(d.gids()).containsExactly(Gid.of(ip(1)));
        assertThat(d.deviceCounters()).isSameAs(c);
    }

    @Test
    void itServesTheAddressesItListsAndKeepsItsOwnCopyOfThem() throws Exception {
        List<InetAddress> addresses = new ArrayList<>(List.of(ip(1), ip(2)));
        List<Gid> gids = new ArrayList<>(List.of(Gid.of(ip(1))));
        Device d = new Device("test0", TransportType.IB, ATTRS, PORT, gids, addresses, counters());
        addresses.add(ip(3));
        gids.clear();
        assertThat(d.addresses()).containsExactly(ip(1), ip(2));
        assertThat(d.gids()).containsExactly(Gid.of(ip(1)));
        assertThat(d.servesAddress(ip(2))).isTrue();
        assertThat(d.servesAddress(ip(3))).as("added to the caller's list afterwards").isFalse();
        assertThatThrownBy(() -> d.addresses().add(ip(4))).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void aMissingFactIsRefusedByName() throws Exception {
        List<Gid> gids = List.of(Gid.of(ip(1)));
        List<InetAddress> addresses = List.of(ip(1));
        assertThatThrownBy(() -> new Device(null, TransportType.IB, ATTRS, PORT, gids, addresses, counters()))
                .isInstanceOf(NullPointerException.class).hasMessage("name");
        assertThatThrownBy(() -> new Device("d", null, ATTRS, PORT, gids, addresses, counters()))
                .isInstanceOf(NullPointerException.class).hasMessage("transport");
        assertThatThrownBy(() -> new Device("d", TransportType.IB, null, PORT, gids, addresses, counters()))
                .isInstanceOf(NullPointerException.class).hasMessage("attributes");
        assertThatThrownBy(() -> new Device("d", TransportType.IB, ATTRS, null, gids, addresses, counters()))
                .isInstanceOf(NullPointerException.class).hasMessage("port");
        assertThatThrownBy(() -> new Device("d", TransportType.IB, ATTRS, PORT, gids, addresses, null))
                .isInstanceOf(NullPointerException.class).hasMessage("counters");
        assertThatThrownBy(() -> new Device("d", TransportType.IB, ATTRS, PORT, null, addresses, counters()))
                .isInstanceOf(NullPointerException.class);
    }
}
