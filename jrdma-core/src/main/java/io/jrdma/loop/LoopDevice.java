package io.jrdma.loop;

import io.jrdma.internal.capture.PacketTap;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.spi.CmTransport;
import io.jrdma.spi.DeviceCounters;
import io.jrdma.spi.AbstractProviderDevice;
import io.jrdma.spi.ProviderQp;
import io.jrdma.verbs.AtomicCap;
import io.jrdma.verbs.Counter;
import io.jrdma.verbs.DeviceAttributes;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.LinkLayer;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.PacketCapture;
import io.jrdma.verbs.PortAttributes;
import io.jrdma.verbs.PortState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.TransportType;
import io.jrdma.verbs.WrOpcode;
import java.net.InetAddress;
import java.util.List;

/**
 * A loop device. Its limits mirror Linux rxe's defaults ({@code rxe_param.h}) so that code tested on
 * it meets the same ceilings on RoCE.
 */
public final class LoopDevice extends AbstractProviderDevice {
    /** rxe's {@code RXE_MAX_MCAST_GRP}: multicast groups per device. */
    public static final int MAX_MCAST_GRP = 8192;
    /** rxe's {@code RXE_MAX_MCAST_QP_ATTACH}: QPs attached to one group. */
    public static final int MAX_MCAST_QP_ATTACH = 56;
    /** rxe's {@code RXE_MAX_TOT_MCAST_QP_ATTACH}: QP attachments per device. */
    public static final int MAX_TOTAL_MCAST_QP_ATTACH = 0x70000;
    /** Largest inline payload per send WR. */
    public static final int MAX_INLINE = 256;
    /**
     * The counters a loop device keeps: rxe's that make sense without a wire (packets are the
     * synthetic RoCEv2 packets of {@link LoopWire}), and the CM datagrams.
     */
    static final List<Counter> COUNTERS = List.of(Counter.SENT_PKTS, Counter.RCVD_PKTS, Counter.RCVD_RNR_ERR,
            Counter.SEND_RNR_ERR, Counter.RETRY_EXCEEDED_ERR, Counter.RETRY_RNR_EXCEEDED_ERR,
            Counter.COMPLETER_RETRY_ERR, Counter.RDMA_SENDS, Counter.RDMA_RECVS, Counter.CM_TX_MADS,
            Counter.CM_RX_MADS, Counter.CM_DROPPED_MADS, Counter.CM_BACKLOG_REJECTS);

    private final LoopCm cm;
    private volatile PacketTap tap;
    /** Removed ({@link #removed()}): its CM datagrams are lost, and no datagram reaches it. */
    volatile boolean removed;
    /** GID 0's bytes, for the GRH of UD receives. */
    final byte[] gidBytes;

    LoopDevice(String name, int index) {
        long guid = 0x0200_5eff_fe00_0000L | index;
        InetAddress lo = InetAddress.getLoopbackAddress();
        super(name, TransportType.IB, new DeviceAttributes("jrdma-loop 0.1", guid, guid, 0xFFFF_FFFFL * 16, 0, 0,
                0x10000, 0x4000, 32, 32, 0x4000, (1 << 15) - 1, 0x4000 * 4, 0x7ffc, 128, 128, AtomicCap.HCA,
                0x4000, 0x4000, 27, 0x8000, MAX_INLINE, 1, MAX_MCAST_GRP, MAX_MCAST_QP_ATTACH,
                MAX_TOTAL_MCAST_QP_ATTACH),
                new PortAttributes(PortState.ACTIVE, Mtu.MTU_4096, Mtu.MTU_4096, 16, LinkLayer.LOOPBACK, 0,
                        1L << 31, 1, 1),
                List.of(Gid.of(lo)), List.of(lo), new DeviceCounters(name, COUNTERS));
        this.gidBytes = gids().get(0).raw();
        this.cm = new LoopCm(this);
    }

    /** Whether a GID is one of this device's: every loopback address. */
    boolean ownsGid(Gid gid) {
        return gid.isLoopback(); // per message: no InetAddress
    }

    @Override
    public boolean servesAddress(InetAddress address) {
        return address.isLoopbackAddress();
    }

    @Override
    public boolean supportsQpType(QpType type) {
        return true;
    }

    @Override
    public boolean supportsOpcode(WrOpcode opcode) {
        return true;
    }

    @Override
    public ProviderQp createQp(QueuePair qp) {
        return new LoopQp(QpImpl.of(qp), LoopFabric.instance().engine());
    }

    @Override
    public CmTransport cmTransport() {
        return cm;
    }

    @Override
    public void removed() {
        removed = true;
    }

    @Override
    public void restored() {
        removed = false;
    }

    @Override
    public void close() {
        removed = true;
        LoopFabric.instance().closed(this);
    }

    @Override
    public void captureChanged(PacketCapture capture) {
        this.tap = PacketTap.of(capture);
    }

    /** The device's running capture, or {@code null}. */
    PacketTap tap() {
        return tap;
    }
}
