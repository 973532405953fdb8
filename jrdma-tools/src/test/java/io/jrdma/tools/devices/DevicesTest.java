package io.jrdma.tools.devices;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import io.jrdma.tools.ToolHarness;
import io.jrdma.tools.ToolHarness.Outcome;
import org.junit.jupiter.api.Test;

class DevicesTest {

    @Test
    void devicesListsEveryProvidersDevicesInIbvDevicesLayout() {
        Outcome o = ToolHarness.run("devices");
        assertThat(o.exitCode()).isZero();
        List<String> lines = o.stdout().lines().toList();
        assertThat(lines.get(0)).isEqualTo("    device          \t   node GUID\tprovider");
        assertThat(lines.get(1)).isEqualTo("    ------          \t----------------\t--------");
        assertThat(lines.subList(2, lines.size())).anyMatch(l -> l.matches("    siw0 {12}\t[0-9a-f]{16}\tsiw"))
                .anyMatch(l -> l.matches("    loop0 {11}\t[0-9a-f]{16}\tloop"));
        // rdma_cm's preference order: iWARP before the in-process provider.
        assertThat(o.stdout().indexOf("siw0")).isLessThan(o.stdout().indexOf("loop0"));
        // the kernel's devices (native:NAME) are listed by their provider, or it says why there are none
        assertThat(lines).anyMatch(l -> l.endsWith("\tnative") || l.startsWith("    (provider native unavailable: "));
    }

    @Test
    void devinfoPrintsTransportGuidsAndPortsAsIbvDevinfo() {
        Outcome o = ToolHarness.run("devinfo", "-d", "siw0");
        assertThat(o.exitCode()).isZero();
        assertThat(o.stdout()).startsWith("hca_id:\tsiw0\n\ttransport:\t\t\tiWARP (1)\n")
                .containsPattern("\tnode_guid:\t\t\t[0-9a-f]{4}:[0-9a-f]{4}:[0-9a-f]{4}:[0-9a-f]{4}\n")
                .contains("\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n", "\t\t\tlink_layer:\t\tEthernet\n")
                .contains("\tprovider:\t\t\tsiw\n").doesNotContain("max_qp:");
        Outcome v = ToolHarness.run("devinfo", "-v", "-d", "loop0");
        assertThat(v.stdout()).contains("\ttransport:\t\t\tInfiniBand (0)\n", "\tmax_qp_rd_atom:\t\t\t",
                "\tatomic_cap:\t\t\tATOMIC_HCA (1)\n", "\t\t\tactive_mtu:\t\t4096 (5)\n");
    }

    @Test
    void devinfoListsNamesAndRejectsAnUnknownDevice() {
        assertThat(ToolHarness.run("devinfo", "-l").stdout()).containsPattern("^[0-9]+ HCAs found:\n")
                .contains("\tsiw0\n", "\tloop0\n");
        Outcome bad = ToolHarness.run("devinfo", "-d", "mlx5_0");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.stderr()).startsWith("jrdma devinfo: IB device mlx5_0 not found");
    }

    @Test
    void devicesJsonGivesProviderAndAddresses() {
        Outcome o = ToolHarness.run("devices", "--json");
        assertThat(o.stdout().lines()).anyMatch(l -> l.startsWith("{\"device\":\"loop0\",\"provider\":\"loop\","
                + "\"transport\":\"IB\""));
    }
}
