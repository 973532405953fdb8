package com.example.provider;

import io.jrdma.spi.AbstractProviderDevice;
import io.jrdma.spi.CmTransport;
import io.jrdma.spi.DeviceCounters;
import io.jrdma.spi.ProviderQp;
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
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The example device: an IB-transport device that serves {@link #ADDRESS} (TEST-NET-1, RFC 5737, which
 * no host carries, so it never takes an address from another device) and offers RC QPs with SEND.
 */
public final class ExampleDevice extends AbstractProviderDevice {
    /** The address the device serves, and its GID 0. */
    public static final InetAddress ADDRESS = address(192, 0, 2, 1);
    /** The node GUID. */
    public static final long NODE_GUID = 0x0200_00ff_fe00_0001L;
    /** The limits core enforces for the device. */
    public static final DeviceAttributes ATTRIBUTES = new DeviceAttributes("example 1.0", NODE_GUID, NODE_GUID,
            1L << 32, 0, 0, 64, 256, 4, 4, 64, 1024, 256, 64, 1, 1, AtomicCap.NONE, 0, 0, 0, 64, 0, 1);
    /** Port 1. */
    public static final PortAttributes PORT = new PortAttributes(PortState.ACTIVE, Mtu.MTU_1024, Mtu.MTU_1024, 1,
            LinkLayer.ETHERNET, 0, 1L << 31, 1, 1);
    /** The counters the device keeps (shown even when zero). */
    public static final List<Counter> KEPT = List.of(Counter.RDMA_SENDS, Counter.RDMA_RECVS, Counter.CM_TX_MADS,
            Counter.CM_RX_MADS);

    private final ExampleCm cm;
    private final Map<Integer, ExampleQp> qps = new ConcurrentHashMap<>();

    ExampleDevice(String name) {
        super(name, TransportType.IB, ATTRIBUTES, PORT, List.of(Gid.of(ADDRESS)), List.of(ADDRESS),
                new DeviceCounters(name, KEPT));
        this.cm = new ExampleCm(deviceCounters().shared());
    }

    private static InetAddress address(int a, int b, int c, int d) {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) a, (byte) b, (byte) c, (byte) d});
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /**
     * The provider's half of the QP numbered {@code qpNum}, or {@code null}.
     *
     * @param qpNum a QP number
     * @return the QP's provider half
     */
    public ExampleQp qp(int qpNum) {
        return qps.get(qpNum);
    }

    /**
     * The IB CM datagram path.
     *
     * @return the path
     */
    public ExampleCm cm() {
        return cm;
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
        ExampleQp q = new ExampleQp(qp, () -> qps.remove(qp.qpNum()));
        qps.put(qp.qpNum(), q);
        return q;
    }

    @Override
    public CmTransport cmTransport() {
        return cm;
    }
}
