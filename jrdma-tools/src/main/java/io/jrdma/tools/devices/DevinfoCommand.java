package io.jrdma.tools.devices;

import java.io.PrintStream;
import java.net.Inet6Address;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import io.jrdma.tools.cli.ExitCodes;
import io.jrdma.tools.cli.Hosts;
import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.tools.cli.ToolHost;
import io.jrdma.tools.rdma.ToolDevices;
import io.jrdma.verbs.AtomicCap;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.DeviceAttributes;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.LinkLayer;
import io.jrdma.verbs.PortAttributes;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.TransportType;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code jrdma devinfo}: device and port attributes as {@code ibv_devinfo} prints them: transport,
 * firmware, node and system image GUIDs, vendor, ports with their state, MTUs, LID and link layer;
 * with {@code -v} the device limits and the port's GIDs. Fields jrdma's devices do not have print
 * as 0, as the Linux software devices print them.
 *
 * <p>Layout from rdma-core {@code libibverbs/examples/devinfo.c} ({@code print_hca_cap}), checked
 * against Linux 6.1 siw and rxe output.
 */
@Command(name = "devinfo", usageHelpWidth = 100,
        description = "Print RDMA device attributes, as ibv_devinfo does.")
public final class DevinfoCommand implements Callable<Integer> {

    @ParentCommand
    private ToolHost parent;

    @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEV", description = "Use device DEV (default: all devices).")
    private String device;

    @Option(names = {"-i", "--ib-port"}, paramLabel = "PORT", defaultValue = "0",
            description = "Use port PORT of the device (default: all ports).")
    private int port;

    @Option(names = {"-l", "--list"}, description = "Print only the device names.")
    private boolean list;

    @Option(names = {"-v", "--verbose"}, description = "Print all the attributes of the device(s).")
    private boolean verbose;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    /** Creates the command (picocli instantiates it). */
    public DevinfoCommand() {
    }

    /**
     * Prints the attributes.
     *
     * @return the exit code
     */
    @Override
    public Integer call() {
        PrintStream out = parent.context().out();
        List<Device> devices = Rdma.devices();
        if (list) {
            out.printf(Locale.ROOT, "%d HCA%s found:%n", devices.size(), devices.size() != 1 ? "s" : "");
            for (Device d : devices) {
                out.println("\t" + d.name());
            }
            out.println();
            printUnavailable(out);
            return ExitCodes.OK;
        }
        if (device != null) {
            print(ToolDevices.require(device), port, verbose, out);
            return ExitCodes.OK;
        }
        if (devices.isEmpty()) {
            throw new ToolFailure("No IB devices found");
        }
        for (Device d : devices) {
            print(d, port, verbose, out);
        }
        printUnavailable(out);
        return ExitCodes.OK;
    }

    /** One line per provider that offers no device, with its reason. */
    private static void printUnavailable(PrintStream out) {
        for (java.util.Map.Entry<String, String> e : Rdma.unavailableProviders().entrySet()) {
            out.println("provider " + e.getKey() + " unavailable: " + e.getValue());
        }
    }

    /**
     * Prints one device as {@code print_hca_cap} does.
     *
     * @param d the device
     * @param onlyPort the port to print, 0 for all
     * @param verbose {@code -v}
     * @param out where to print
     */
    public static void print(Device d, int onlyPort, boolean verbose, PrintStream out) {
        try (Context ctx = d.open()) {
            DeviceAttributes a = ctx.queryDevice();
            if (onlyPort > a.physPortCnt()) {
                throw new ToolFailure("Invalid port requested for device", 4, null);
            }
            int transport = d.transport() == TransportType.IWARP ? 1 : 0;
            out.println("hca_id:\t" + d.name());
            out.println("\ttransport:\t\t\t" + (transport == 1 ? "iWARP" : "InfiniBand") + " (" + transport + ")");
            if (!a.fwVer().isEmpty()) {
                out.println("\tfw_ver:\t\t\t\t" + a.fwVer());
            }
            out.println("\tnode_guid:\t\t\t" + guid(a.nodeGuid()));
            out.println("\tsys_image_guid:\t\t\t" + guid(a.sysImageGuid()));
            out.printf(Locale.ROOT, "\tvendor_id:\t\t\t0x%04x%n", a.vendorId());
            out.println("\tvendor_part_id:\t\t\t" + a.vendorPartId());
            out.println("\thw_ver:\t\t\t\t0x0");
            out.println("\tphys_port_cnt:\t\t\t" + a.physPortCnt());
            out.println("\tprovider:\t\t\t" + d.provider());
            if (verbose) {
                out.printf(Locale.ROOT, "\tmax_mr_size:\t\t\t0x%x%n", a.maxMrSize());
                out.println("\tpage_size_cap:\t\t\t0x1000");
                out.println("\tmax_qp:\t\t\t\t" + a.maxQp());
                out.println("\tmax_qp_wr:\t\t\t" + a.maxQpWr());
                out.println("\tmax_sge:\t\t\t" + a.maxSge());
                out.println("\tmax_sge_rd:\t\t\t" + a.maxSgeRd());
                out.println("\tmax_cq:\t\t\t\t" + a.maxCq());
                out.println("\tmax_cqe:\t\t\t" + a.maxCqe());
                out.println("\tmax_mr:\t\t\t\t" + a.maxMr());
                out.println("\tmax_pd:\t\t\t\t" + a.maxPd());
                out.println("\tmax_qp_rd_atom:\t\t\t" + a.maxQpRdAtom());
                out.println("\tmax_ee_rd_atom:\t\t\t0");
                out.println("\tmax_res_rd_atom:\t\t" + (long) a.maxQpRdAtom() * a.maxQp());
                out.println("\tmax_qp_init_rd_atom:\t\t" + a.maxQpInitRdAtom());
                out.println("\tmax_ee_init_rd_atom:\t\t0");
                out.println("\tatomic_cap:\t\t\t" + atomic(a.atomicCap()));
                out.println("\tmax_ee:\t\t\t\t0");
                out.println("\tmax_rdd:\t\t\t0");
                out.println("\tmax_mw:\t\t\t\t0");
                out.println("\tmax_ah:\t\t\t\t" + a.maxAh());
                out.println("\tmax_srq:\t\t\t" + a.maxSrq());
                if (a.maxSrq() > 0) {
                    out.println("\tmax_srq_wr:\t\t\t" + a.maxSrqWr());
                    out.println("\tmax_srq_sge:\t\t\t" + a.maxSrqSge());
                }
                out.println("\tmax_pkeys:\t\t\t0");
                out.println("\tlocal_ca_ack_delay:\t\t0");
                out.println("\tmax_inline_data:\t\t" + a.maxInlineData());
            }
            for (int p = 1; p <= a.physPortCnt(); p++) {
                if (onlyPort != 0 && p != onlyPort) {
                    continue;
                }
                PortAttributes pa = ctx.queryPort(p);
                out.println("\t\tport:\t" + p);
                out.println("\t\t\tstate:\t\t\t" + "PORT_" + pa.state().name() + " (" + pa.state().ordinal() + ")");
                out.println("\t\t\tmax_mtu:\t\t" + pa.maxMtu().bytes() + " (" + pa.maxMtu().value() + ")");
                out.println("\t\t\tactive_mtu:\t\t" + pa.activeMtu().bytes() + " (" + pa.activeMtu().value() + ")");
                out.println("\t\t\tsm_lid:\t\t\t0");
                out.println("\t\t\tport_lid:\t\t" + pa.lid());
                out.println("\t\t\tport_lmc:\t\t0x00");
                out.println("\t\t\tlink_layer:\t\t" + linkLayer(pa.linkLayer()));
                if (verbose) {
                    out.printf(Locale.ROOT, "\t\t\tmax_msg_sz:\t\t0x%x%n", pa.maxMsgSize());
                    out.println("\t\t\tgid_tbl_len:\t\t" + pa.gidTableLength());
                    out.println("\t\t\tactive_width:\t\t" + width(pa.activeWidth()) + "X (" + pa.activeWidth() + ")");
                    out.println("\t\t\tactive_speed:\t\t" + speed(pa.activeSpeed()) + " (" + pa.activeSpeed() + ")");
                    for (int i = 0; i < pa.gidTableLength(); i++) {
                        Gid g = ctx.queryGid(p, i);
                        if (isNull(g)) {
                            continue;
                        }
                        if (pa.linkLayer() == LinkLayer.ETHERNET && d.transport() == TransportType.IB) {
                            out.printf(Locale.ROOT, "\t\t\tGID[%3d]:\t\t%s, RoCE v2%n", i, text(g));
                        } else {
                            out.printf(Locale.ROOT, "\t\t\tGID[%3d]:\t\t%s%n", i, g);
                        }
                    }
                }
                out.println();
            }
        }
    }

    static String guid(long g) {
        return String.format(Locale.ROOT, "%04x:%04x:%04x:%04x", (g >>> 48) & 0xffff, (g >>> 32) & 0xffff,
                (g >>> 16) & 0xffff, g & 0xffff);
    }

    private static String atomic(AtomicCap c) {
        return switch (c) {
            case NONE -> "ATOMIC_NONE (0)";
            case HCA -> "ATOMIC_HCA (1)";
            default -> "ATOMIC_GLOB (2)";
        };
    }

    private static String linkLayer(LinkLayer l) {
        return switch (l) {
            case ETHERNET -> "Ethernet";
            case INFINIBAND -> "InfiniBand";
            default -> "Loopback (jrdma in-process)";
        };
    }

    private static String width(int w) {
        return switch (w) {
            case 1 -> "1";
            case 2 -> "4";
            case 4 -> "8";
            case 8 -> "12";
            case 16 -> "2";
            default -> "invalid width";
        };
    }

    private static String speed(int s) {
        return switch (s) {
            case 1 -> "2.5 Gbps";
            case 2 -> "5.0 Gbps";
            case 4, 8 -> "10.0 Gbps";
            case 16 -> "14.0 Gbps";
            case 32 -> "25.0 Gbps";
            case 64 -> "50.0 Gbps";
            case 128 -> "100.0 Gbps";
            case 256 -> "200.0 Gbps";
            default -> "invalid speed";
        };
    }

    /** {@code null_gid}: devinfo skips GIDs whose interface id (bytes 8..15) is zero. */
    private static boolean isNull(Gid g) {
        byte[] r = g.raw();
        for (int i = 8; i < 16; i++) {
            if (r[i] != 0) {
                return false;
            }
        }
        return true;
    }

    /** As {@code inet_ntop(AF_INET6)} writes a GID: {@code fd00:4::15}, {@code ::ffff:10.0.4.15}. */
    private static String text(Gid g) {
        try {
            return Hosts.literal(Inet6Address.getByAddress(null, g.raw(), null));
        } catch (UnknownHostException e) {
            return g.toString();
        }
    }
}
