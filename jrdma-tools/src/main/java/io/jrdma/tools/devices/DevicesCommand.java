package io.jrdma.tools.devices;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import io.jrdma.tools.cli.ExitCodes;
import io.jrdma.tools.cli.Hosts;
import io.jrdma.tools.cli.ToolHost;
import io.jrdma.tools.perf.JsonObject;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.Rdma;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code jrdma devices}: every device of every provider, as {@code ibv_devices} prints them (name
 * and node GUID), in rdma_cm's preference order.
 *
 * <p>Layout from rdma-core {@code libibverbs/examples/device_list.c}.
 */
@Command(name = "devices", usageHelpWidth = 100,
        description = "List RDMA devices (loop0, siw0, rxe*), as ibv_devices does.")
public final class DevicesCommand implements Callable<Integer> {

    @ParentCommand
    private ToolHost parent;

    @Option(names = "--json", description = "One JSON object per device (name, provider, transport, GUID, addresses).")
    private boolean json;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    /** Creates the command (picocli instantiates it). */
    public DevicesCommand() {
    }

    /**
     * Prints the list.
     *
     * @return the exit code
     */
    @Override
    public Integer call() {
        print(Rdma.devices(), parent.context().out(), json);
        return ExitCodes.OK;
    }

    /**
     * Prints devices as {@code ibv_devices} does.
     *
     * @param devices the devices
     * @param out where to print
     * @param json JSON lines instead
     */
    public static void print(List<Device> devices, PrintStream out, boolean json) {
        print(devices, Rdma.unavailableProviders(), out, json);
    }

    /**
     * Prints devices as {@code ibv_devices} does, with each device's provider in a third column, then one
     * line per provider that offers no device here and why (e.g. the native provider on a host without
     * RDMA devices).
     *
     * @param devices the devices
     * @param unavailable provider name to the reason it offers no device
     * @param out where to print
     * @param json JSON lines instead
     */
    public static void print(List<Device> devices, java.util.Map<String, String> unavailable, PrintStream out,
            boolean json) {
        if (json) {
            for (Device d : devices) {
                String[] addrs = new String[d.addresses().size()];
                for (int i = 0; i < addrs.length; i++) {
                    addrs[i] = Hosts.literal(d.addresses().get(i));
                }
                out.println(new JsonObject().put("device", d.name()).put("provider", d.provider())
                        .put("transport", d.transport().name()).put("node_guid", String.format(Locale.ROOT, "%016x",
                                d.nodeGuid())).put("addresses", String.join(",", addrs)));
            }
            for (java.util.Map.Entry<String, String> e : unavailable.entrySet()) {
                out.println(new JsonObject().put("provider", e.getKey()).put("unavailable", e.getValue()));
            }
            return;
        }
        out.printf(Locale.ROOT, "    %-16s\t   node GUID\tprovider%n", "device");
        out.printf(Locale.ROOT, "    %-16s\t----------------\t--------%n", "------");
        for (Device d : devices) {
            out.printf(Locale.ROOT, "    %-16s\t%016x\t%s%n", d.name(), d.nodeGuid(), d.provider());
        }
        for (java.util.Map.Entry<String, String> e : unavailable.entrySet()) {
            out.printf(Locale.ROOT, "    (provider %s unavailable: %s)%n", e.getKey(), e.getValue());
        }
    }
}
