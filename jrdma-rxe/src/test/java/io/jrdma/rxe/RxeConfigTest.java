package io.jrdma.rxe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.rxe.cm.RxeCm;
import io.jrdma.rxe.net.FaultInjector;
import io.jrdma.verbs.Mtu;
import java.net.InetAddress;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The provider's configuration keys, their defaults and their checks. */
class RxeConfigTest {
    private static Properties props(String... kv) {
        Properties p = new Properties();
        for (int i = 0; i < kv.length; i += 2) {
            p.setProperty(kv[i], kv[i + 1]);
        }
        return p;
    }

    @Test
    void withoutConfigurationThereIsNoDeviceAndRxesDefaults() {
        RxeConfig c = RxeConfig.from(props());
        assertThat(c.devices()).isEmpty();
        assertThat(c.mtu()).isEqualTo(Mtu.MTU_1024);
        assertThat(c.udpPort()).isEqualTo(4791);
        assertThat(c.checkIcrc()).isTrue();
        assertThat(c.packetLifeTime()).isEqualTo(18);
        assertThat(c.busySpin()).isFalse();
        assertThat(c.engines()).as("one engine thread for every device").isEqualTo(1);
    }

    @Test
    void enginesAreOneToSixteen() {
        assertThat(RxeConfig.from(props("jrdma.rxe.engines", " 2 ")).engines()).isEqualTo(2);
        assertThat(RxeConfig.from(props("jrdma.rxe.engines", "16")).engines()).isEqualTo(16);
        for (String bad : new String[] {"0", "-1", "17"}) {
            assertThatThrownBy(() -> RxeConfig.from(props("jrdma.rxe.engines", bad)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("jrdma.rxe.engines " + bad.strip() + " outside 1..16");
        }
        assertThatThrownBy(() -> RxeConfig.from(props("jrdma.rxe.engines", "two")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("jrdma.rxe.engines is not a number: two");
    }

    @Test
    void devicesAreNameAddressPairsIpv4OrIpv6() throws Exception {
        RxeConfig c = RxeConfig.from(props("jrdma.rxe.devices", " rxe0:127.0.0.1, rxe1:127.0.0.2 ,rxe6:[::1]",
                "jrdma.rxe.faults", "loss=0.1,seed=3", "jrdma.rxe.faults.rxe1", "dup=0.5"));
        assertThat(c.devices()).extracting(RxeConfig.DeviceSpec::name).containsExactly("rxe0", "rxe1", "rxe6");
        assertThat(c.devices().get(0).address()).isEqualTo(InetAddress.getByName("127.0.0.1"));
        assertThat(c.devices().get(2).address()).isEqualTo(InetAddress.getByName("::1"));
        assertThat(c.devices().get(0).faults()).isEqualTo(new FaultInjector.Settings(0.1, 0, 0, 3));
        assertThat(c.devices().get(1).faults()).isEqualTo(new FaultInjector.Settings(0, 0.5, 0, 0));
    }

    @Test
    void badValuesAreClearErrors() {
        assertThatThrownBy(() -> RxeConfig.from(props("jrdma.rxe.devices", "rxe0")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("name:address");
        assertThatThrownBy(() -> RxeConfig.from(props("jrdma.rxe.devices", "rxe0:localhost")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("IP literal");
        assertThatThrownBy(() -> RxeConfig.from(props("jrdma.rxe.mtu", "1500")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("IB MTU");
        assertThatThrownBy(() -> RxeConfig.from(props("jrdma.rxe.icrc", "maybe")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RxeConfig.from(props("jrdma.rxe.port", "0")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RxeConfig.from(props("jrdma.rxe.packetLifeTime", "32")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RxeConfig.from(props("jrdma.rxe.faults", "loss=2")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void everyIbMtuIsAccepted() {
        for (Mtu m : Mtu.values()) {
            assertThat(RxeConfig.from(props("jrdma.rxe.mtu", Integer.toString(m.bytes()))).mtu()).isEqualTo(m);
        }
    }

    @Test
    void qp1SendsFromRxesHashedSourcePort() {
        // 0xC000 + hash_32(1, 14), as the golden captures show for Linux 6.1 rxe
        assertThat(RxeCm.QP1_SOURCE_PORT).isEqualTo(55410);
    }

    @Test
    void theNodeGuidIsAnEui64OfALocallyAdministeredMacHoldingTheAddress() throws Exception {
        assertThat(RxeDevice.guidOf(InetAddress.getByName("10.0.4.2"))).isEqualTo(0x00000aff_fe000402L);
        assertThat(RxeDevice.guidOf(InetAddress.getByName("127.0.0.1")))
                .isNotEqualTo(RxeDevice.guidOf(InetAddress.getByName("127.0.0.2")));
    }
}
