package io.jrdma.kernel;

import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.TransportType;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.List;

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

    @Override
    public String toString() {
        return "native:" + name + " (" + transport + ", ibv transport " + transportCode + ")";
    }
}
