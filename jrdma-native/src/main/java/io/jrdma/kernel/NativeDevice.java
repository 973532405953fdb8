package io.jrdma.kernel;

import io.jrdma.verbs.Context;
import io.jrdma.verbs.Counters;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.LinkLayer;
import io.jrdma.verbs.PortAttributes;
import io.jrdma.verbs.TransportType;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A kernel RDMA device ({@code struct ibv_device}). The addresses a RoCE device serves are the IP
 * addresses in its GID tables (the kernel adds a GID for each address of the netdev: IPv4-mapped ones,
 * and IPv6 ones including the link-local address); an InfiniBand device's GIDs are not IP addresses,
 * and an iWARP device's GID is its MAC address, so for them the list is empty and which device serves
 * an address is the connection manager's to say ({@link NativeRdmaCm}).
 */
final class NativeDevice implements Device {
    private final MemorySegment dev;
    private final String name;
    private final long guid;
    private final TransportType transport;
    private final int transportCode;
    /** The largest inline size its QPs take, probed by the first {@code queryDevice}; -1 before. */
    volatile int maxInline = -1;
    /** Linux siw's vendor id ({@code SIW_VENDOR_ID}, "bmt"). */
    static final int SIW_VENDOR_ID = 0x626d74;
    /** The device's vendor id, read by the first {@link #vendorId()}; -1 before. */
    private volatile int vendorId = -1;

    NativeDevice(MemorySegment dev, String name, long guid, TransportType transport, int transportCode) {
        this.dev = dev;
        this.name = name;
        this.guid = guid;
        this.transport = transport;
        this.transportCode = transportCode;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String provider() {
        return NativeProvider.NAME;
    }

    @Override
    public TransportType transport() {
        return transport;
    }

    /** The device's vendor id ({@code ibv_query_device}), read once. */
    int vendorId() {
        int v = vendorId;
        if (v < 0) {
            try (Context c = open()) {
                v = c.queryDevice().vendorId();
            }
            vendorId = v;
        }
        return v;
    }

    /** Whether the device is Linux's siw (by its vendor id; the name is the user's to choose). */
    boolean linuxSiw() {
        return transport == TransportType.IWARP && vendorId() == SIW_VENDOR_ID;
    }

    /**
     * What to add to the message of a failed CQ, QP or SRQ creation: on Linux siw, that rdma-core's libsiw takes
     * the mmap key 0x90000 (its SIW_INVAL_UOBJ_KEY) for "no queue" and fails the creation without setting errno,
     * while the kernel's siw hands out that key to the queue mapped at page 144 of a context (the kernel gives
     * each context's queue mappings the lowest free pages): with 144 pages of a context's queues alive (72 CQs
     * of 128 entries, for one) every further creation whose first free page is 144 fails.
     */
    String queueCreationHint() {
        return linuxSiw() ? "; on Linux siw the errno may be stale: libsiw refuses a queue whose mmap key is 0x90000"
                + " (SIW_INVAL_UOBJ_KEY), which the kernel gives the queue mapped at page 144 of the context once"
                + " 144 pages of its queues are mapped (free some CQs or QPs)" : "";
    }

    @Override
    public long nodeGuid() {
        return guid;
    }

    /** The IP addresses in the GID tables of the device's Ethernet (RoCE) ports, read now. */
    @Override
    public List<InetAddress> addresses() {
        if (transport != TransportType.IB) {
            return List.of();
        }
        List<InetAddress> r = new ArrayList<>();
        try (Context c = open()) {
            int ports = c.queryDevice().physPortCnt();
            for (int port = 1; port <= ports; port++) {
                PortAttributes pa = c.queryPort(port);
                if (pa.linkLayer() != LinkLayer.ETHERNET) {
                    continue;
                }
                for (int i = 0; i < pa.gidTableLength(); i++) {
                    Gid g;
                    try {
                        g = c.queryGid(port, i);
                    } catch (IllegalArgumentException e) {
                        continue; // an entry the kernel has not filled
                    }
                    InetAddress a = g.equals(Gid.ZERO) ? null : g.toInetAddress();
                    if (a != null && !r.contains(a)) {
                        r.add(a);
                    }
                }
            }
        }
        return r;
    }

    /**
     * On IB and RoCE, whether the address is in the device's GID tables ({@link #addresses()}). An iWARP device's
     * GIDs are not its addresses (siw's is its MAC), so there the kernel is asked: the device {@code rdma_bind_addr}
     * ties a probe id to ({@code cma_acquire_dev_by_src_ip}); false when librdmacm is not there.
     */
    @Override
    public boolean servesAddress(InetAddress address) {
        if (address == null) {
            return false;
        }
        if (transport == TransportType.IWARP) {
            return name.equals(NativeRdmaCm.boundDevice(address));
        }
        for (InetAddress a : addresses()) {
            if (Arrays.equals(a.getAddress(), address.getAddress())) {
                return true;
            }
        }
        return false;
    }

    @Override
    public Context open() {
        return NativeContext.open(this, dev);
    }

    /**
     * The kernel's counters of port 1, from {@code /sys/class/infiniband/DEV/ports/1/hw_counters} (rxe:
     * sent_pkts, rcvd_pkts...; devices without hardware counters give an empty snapshot). The kernel keeps
     * no per-QP counters jrdma could read here, so {@link #queryQpCounters()} is empty.
     */
    @Override
    public Counters queryCounters() {
        Map<String, Long> values = new LinkedHashMap<>();
        Path dir = Path.of("/sys/class/infiniband", name, "ports", "1", "hw_counters");
        if (Files.isDirectory(dir)) {
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : files.sorted().toList()) {
                    try {
                        long v = Long.parseLong(Files.readString(f).trim());
                        if (v >= 0) {
                            values.put(f.getFileName().toString(), v);
                        }
                    } catch (IOException | NumberFormatException e) {
                        // a counter file that cannot be read is left out
                    }
                }
            } catch (IOException e) {
                // no counters
            }
        }
        return new Counters(name, Counters.DEVICE, System.nanoTime(), values);
    }

    @Override
    public String toString() {
        return "native:" + name + " (" + transport + ", ibv transport " + transportCode + ")";
    }
}
