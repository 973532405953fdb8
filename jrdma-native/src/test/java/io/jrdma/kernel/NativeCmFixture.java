package io.jrdma.kernel;

import io.jrdma.testkit.cm.CmCapability;
import io.jrdma.testkit.cm.CmFixture;
import io.jrdma.testkit.cm.CmMessageKind;
import io.jrdma.testkit.cm.CmQuirk;
import io.jrdma.testkit.cm.MessageDrop;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.TransportType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;

/**
 * The fixture of the CM conformance suite over the kernel's rdma_cm ({@code native:NAME}): client and server in
 * one JVM, each with its own {@link io.jrdma.cm.RdmaCm} opened on the kernel device, both on the address
 * {@code -Dnative.cm.address} (10.0.2.15 in the interop rig). The kernel binds an address to one device: the
 * suite over {@code native:rxe0} needs siw0 deleted first ({@code NATIVE_SUITES_LINKS='rxe0:rxe:eth0'}), and
 * the fixture skips naming the device rdma_cm chose otherwise.
 *
 * <p>What the kernel's CM offers: on IB and RoCE the UDP port space, multicast, ECE and TIMEWAIT_EXIT; on iWARP
 * none of those. The IB port space is not offered on either (librdmacm's {@code rdma_create_id} makes its ids RC
 * only, so the UD half of {@link CmCapability#IB_PORT_SPACE} cannot be had). The suite cannot lose CM messages on purpose (no hook into the kernel), has no raw IB CM peer
 * and no iw_cm id of its own (both kernel-internal). Messages sent are read from the kernel's counters: on IB
 * and RoCE the device's packets sent, on iWARP, where MPA has no counter, the host's TCP segments sent
 * ({@code /proc/net/snmp}), which counts every MPA frame.
 */
final class NativeCmFixture implements CmFixture {
    private final String name;
    private final InetAddress address;
    private final boolean iwarp;

    NativeCmFixture(String name) {
        this.name = name;
        Device d = null;
        try {
            d = Rdma.device("native:" + name);
        } catch (RuntimeException e) {
            Assumptions.abort("native:" + name + " is not here: " + e.getMessage());
        }
        Assumptions.assumeTrue(Rdmacm.unavailable() == null, () -> "librdmacm: " + Rdmacm.unavailable());
        address = KernelCm.address();
        String chosen = KernelCm.boundDevice(address);
        Assumptions.assumeTrue(name.equals(chosen), () -> "rdma_cm binds " + address + " to " + chosen + ", not "
                + name + " (delete the other device first)");
        iwarp = d.transport() == TransportType.IWARP;
    }

    @Override
    public List<String> deviceNames() {
        return List.of("native:" + name);
    }

    @Override
    public InetAddress address() {
        return address;
    }

    @Override
    public Set<CmCapability> capabilities() {
        return iwarp ? EnumSet.noneOf(CmCapability.class)
                : EnumSet.of(CmCapability.UD_SIDR, CmCapability.ECE, CmCapability.TIMEWAIT_EXIT,
                        CmCapability.MULTICAST, CmCapability.CONNECT_RESPONSE);
    }

    /**
     * The kernel's facts the suite's checks contradict, found in the guest (Linux 6.1) and in the kernel's source:
     * both devices go through librdmacm, whose {@code rdma_reject} carries no reason, which keeps no backlog
     * counter, and whose {@code rdma_connect} refuses an initiator depth above the device's; rxe rounds RDMA READ
     * depths up to a power of two and loops a group's datagram back to a sending member; siw's {@code query_qp}
     * reports the depths swapped and rounded and constant access flags, and siw reports an MPA reject as a reset; the
     * kernel tells a request's id nothing before it is accepted.
     */
    @Override
    public String quirk(CmQuirk quirk) {
        return switch (quirk) {
            case REJECT_IS_ALWAYS_CONSUMER_DEFINED -> "librdmacm's rdma_reject takes no reason: every reject the"
                    + " kernel sends is consumer defined (IB 28; on iWARP an MPA reject)";
            case NO_BACKLOG_REJECT_COUNTER -> "the kernel keeps no cm_backlog_rejects counter";
            case INITIATOR_DEPTH_CHECKED_AT_THE_CALL -> "librdmacm's rdma_connect refuses an initiator depth above"
                    + " the device's max_qp_init_rd_atom with EINVAL (ucma_valid_param), so no reply can exceed it";
            case RD_ATOMIC_ROUNDED_UP -> iwarp ? null : "rxe rounds max_rd_atomic and max_dest_rd_atomic up to a"
                    + " power of two (rxe_qp_from_attr)";
            case MULTICAST_LOOPS_BACK -> iwarp ? null : "kernel rxe delivers a group's datagram to every attached"
                    + " QP, the sending one included";
            case QUERY_QP_NOT_NEGOTIATED -> iwarp ? "siw's query_qp reports the IRD as max_rd_atomic and the ORD as"
                    + " max_dest_rd_atomic, each rounded up to a power of two, and constant access flags"
                    + " (LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ)" : null;
            case IWARP_REJECT_IS_A_RESET -> iwarp ? "siw reports an MPA reject as -ECONNRESET (siw_proc_mpareply),"
                    + " the status of a connection reset before the reply, where other iWARP CMs say -ECONNREFUSED;"
                    + " rdma_cm passes it on as REJECTED" : null;
            case NO_EVENT_BEFORE_ACCEPT -> "the kernel's ucma drops every event of a request's id until rdma_accept"
                    + " gives it its user context (ucma_event_handler: ctx->uid is set in ucma_accept): a REJ(timeout)"
                    + " from an active side that gave up ends the request in the IB CM (cm_rej_handler resets it to"
                    + " idle) and no REJECTED reaches user space; rdma_init_qp_attr and rdma_accept then fail (EINVAL)";
        };
    }

    /** On siw, what Linux siw carries (see {@link NativeRdmaCm#SIW_MPA_PRIVATE_DATA}); MPA's otherwise. */
    @Override
    public int mpaPrivateDataLimit() {
        return iwarp ? NativeRdmaCm.SIW_MPA_PRIVATE_DATA : CmFixture.super.mpaPrivateDataLimit();
    }

    @Override
    public long messagesSent() {
        return iwarp ? tcpSegmentsSent() : ibCmMessagesSent();
    }

    /**
     * The packets the device sent ({@code hw_counters/sent_pkts}): the IB CM's MADs go out on QP1 through the
     * device like every other packet. The kernel here has no {@code /sys/class/infiniband_cm} counters; while a
     * suite check compares two readings no QP of the test moves data, so the packets are the CM's.
     */
    private long ibCmMessagesSent() {
        Path f = Path.of("/sys/class/infiniband", name, "ports", "1", "hw_counters", "sent_pkts");
        try {
            return Long.parseLong(Files.readString(f).strip());
        } catch (IOException e) {
            throw new UncheckedIOException("the packet counter of " + name, e);
        }
    }

    private static long tcpSegmentsSent() {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/net/snmp"));
            for (int i = 0; i + 1 < lines.size(); i++) {
                if (lines.get(i).startsWith("Tcp:") && lines.get(i + 1).startsWith("Tcp:")) {
                    List<String> keys = List.of(lines.get(i).split("\\s+"));
                    String[] values = lines.get(i + 1).split("\\s+");
                    return Long.parseLong(values[keys.indexOf("OutSegs")]);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new IllegalStateException("/proc/net/snmp has no Tcp OutSegs");
    }

    /**
     * The PDs, CQs, QPs and memory regions the kernel holds on the device, from iproute2's {@code rdma resource
     * show} (the kernel's resource tracking, every process's objects); -1 where the tool is missing.
     */
    @Override
    public int verbsObjects() {
        List<String> lines;
        try {
            Process p = new ProcessBuilder("rdma", "resource", "show").redirectErrorStream(true).start();
            lines = new String(p.getInputStream().readAllBytes()).lines().toList();
            if (!p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS) || p.exitValue() != 0) {
                return -1;
            }
        } catch (IOException e) {
            return -1; // no iproute2 rdma here
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
        for (String line : lines) {
            // "0: siw0: pd 2 cq 1 qp 1 cm_id 2 mr 1 ctx 2 srq 0"
            String[] w = line.trim().split("\\s+");
            if (w.length > 2 && w[1].equals(name + ":")) {
                int n = 0;
                for (int i = 2; i + 1 < w.length; i += 2) {
                    if (Set.of("pd", "cq", "qp", "mr").contains(w[i])) {
                        n += Integer.parseInt(w[i + 1]);
                    }
                }
                return n;
            }
        }
        return -1;
    }

    @Override
    public MessageDrop drop(Set<CmMessageKind> kinds, int count) {
        throw new UnsupportedOperationException("the kernel's CM messages cannot be dropped from user space");
    }
}
