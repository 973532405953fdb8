package io.jrdma.tools.devices;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import io.jrdma.tools.ToolHarness;
import io.jrdma.tools.ToolHarness.Outcome;
import org.junit.jupiter.api.Test;

/** {@code jrdma devices} and {@code devinfo} with the two rxe devices of this test JVM. */
class DevicesRxeIT {

    @Test
    void devicesListsTheRxeDevicesAfterIwarpAndBeforeLoop() {
        Outcome o = ToolHarness.run("devices");
        assertThat(o.exitCode()).isZero();
        // Device rows, then a "(provider ... unavailable: ...)" line per provider without devices here.
        List<String> names = o.stdout().lines().skip(2).filter(l -> !l.strip().startsWith("("))
                .map(l -> l.strip().split("\\s+")[0]).toList();
        assertThat(names).containsExactly("siw0", "rxe0", "rxe1", "rxe6", "loop0");
        assertThat(o.stdout()).containsPattern("    rxe0 {12}\t[0-9a-f]{16}\trxe\n");
    }

    @Test
    void devicesJsonGivesTheRxeAddress() {
        Outcome o = ToolHarness.run("devices", "--json");
        assertThat(o.stdout().lines()).anyMatch(l -> l.startsWith("{\"device\":\"rxe1\",\"provider\":\"rxe\",")
                && l.contains("\"addresses\":\"127.0.0.2\""));
    }

    @Test
    void devinfoPrintsAnRxeDeviceAsIbvDevinfoPrintsLinuxRxe() {
        Outcome o = ToolHarness.run("devinfo", "-v", "-d", "rxe0");
        assertThat(o.exitCode()).as(o.stderr()).isZero();
        assertThat(o.stdout()).startsWith("hca_id:\trxe0\n\ttransport:\t\t\tInfiniBand (0)\n")
                .contains("\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n", "\t\t\tactive_mtu:\t\t1024 (3)\n",
                        "\t\t\tlink_layer:\t\tEthernet\n", "\tatomic_cap:\t\t\tATOMIC_HCA (1)\n")
                .contains("GID[  0]:\t\t::ffff:127.0.0.1");
    }

    @Test
    void devinfoOfAnRxeDeviceThatIsNotConfiguredSaysWhereRxeDevicesComeFrom() {
        Outcome o = ToolHarness.run("devinfo", "-d", "rxe2");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.stderr()).startsWith("jrdma devinfo: IB device rxe2 not found "
                + "(devices: siw0, rxe0, rxe1, rxe6, loop0); "
                + "jrdma.rxe.devices is rxe0:127.0.0.1,rxe1:127.0.0.2,rxe6:[::1]");
    }
}
