package io.jrdma.kernel;

import io.jrdma.verbs.Context;
import io.jrdma.verbs.Counters;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.TransportType;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A kernel RDMA device ({@code struct ibv_device}). It serves no address for jrdma's connection
 * manager: its QPs are connected by hand ({@code ibv_modify_qp} with the peer's GID and QPN).
 */
final class NativeDevice implements Device {
    private final MemorySegment dev;
    private final String name;
    private final long guid;
    private final TransportType transport;
    private final int transportCode;
    /** The largest inline size its QPs take, probed by the first {@code queryDevice}; -1 before. */
    volatile int maxInline = -1;

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

    @Override
    public long nodeGuid() {
        return guid;
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
