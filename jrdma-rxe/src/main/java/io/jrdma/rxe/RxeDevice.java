package io.jrdma.rxe;

import io.jrdma.internal.capture.PacketTap;
import io.jrdma.internal.net.Ip;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.internal.verbs.DeviceRegistry;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.rxe.cm.RxeCm;
import io.jrdma.rxe.net.FaultInjector;
import io.jrdma.rxe.net.RxeEngine;
import io.jrdma.rxe.net.RxePort;
import io.jrdma.rxe.net.UdpPort;
import io.jrdma.rxe.qp.RxeQp;
import io.jrdma.spi.AbstractProviderDevice;
import io.jrdma.spi.CmTransport;
import io.jrdma.spi.DeviceCounters;
import io.jrdma.spi.ProviderQp;
import io.jrdma.verbs.AtomicCap;
import io.jrdma.verbs.Counter;
import io.jrdma.verbs.DeviceAttributes;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.LinkLayer;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.PacketCapture;
import io.jrdma.verbs.PortAttributes;
import io.jrdma.verbs.PortState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.TransportType;
import io.jrdma.verbs.WrOpcode;
import java.io.IOException;
import java.net.InetAddress;
import java.util.List;

/**
 * An rxe device: one IP address served over RoCEv2 (Linux {@code rxe.c}/{@code rxe_verbs.c}, a
 * {@code rdma link add rxeN type rxe netdev ...}). Its limits are rxe's ({@code rxe_param.h}), its
 * GID 0 is its IP address (IPv4-mapped for IPv4, as rxe fills the GID table from the netdev's
 * addresses), its port's MTU comes from the configuration (1024 by default, what rxe derives from a
 * 1500-byte Ethernet MTU). The data path sees the device as its {@link RxePort}: the sockets, the QP
 * table, the counters and the capture; QPs run on the JVM's {@link RxeEngine}; the IB CM's datagrams
 * travel as QP1 MADs ({@link RxeCm}). This class answers the verbs and wires those three together.
 */
public final class RxeDevice extends AbstractProviderDevice {
    /**
     * The counters an rxe device keeps: Linux rxe's fifteen {@code hw_counters} ({@code ack_deferred} and
     * {@code link_downed} stay 0: responses are processed as they arrive, and the port never goes down),
     * then jrdma's for what rxe drops silently, the CM MADs on QP1 and the fault injector.
     */
    static final List<Counter> COUNTERS = List.of(Counter.SENT_PKTS, Counter.RCVD_PKTS, Counter.DUPLICATE_REQUEST,
            Counter.OUT_OF_SEQ_REQUEST, Counter.RCVD_RNR_ERR, Counter.SEND_RNR_ERR, Counter.RCVD_SEQ_ERR,
            Counter.ACK_DEFERRED, Counter.RETRY_EXCEEDED_ERR, Counter.RETRY_RNR_EXCEEDED_ERR,
            Counter.COMPLETER_RETRY_ERR, Counter.SEND_ERR, Counter.LINK_DOWNED, Counter.RDMA_SENDS,
            Counter.RDMA_RECVS, Counter.RCVD_ICRC_ERR, Counter.RCVD_DROPPED, Counter.RESP_QUEUE_FULL,
            Counter.CM_TX_MADS, Counter.CM_RX_MADS, Counter.CM_MALFORMED_MADS, Counter.CM_DROPPED_MADS,
            Counter.CM_BACKLOG_REJECTS,
            Counter.INJECTED_LOSS, Counter.INJECTED_DUPLICATE, Counter.INJECTED_REORDER);
    /** rxe's {@code RXE_MAX_QP}; {@code jrdma.rxe.maxQp} lowers it (for tests that reach the limit). */
    public static final int MAX_QP = 0x10000;
    /** rxe's {@code RXE_MAX_MR}; {@code jrdma.rxe.maxMr} lowers it. */
    public static final int MAX_MR = 256 * 1024;
    /** rxe's {@code RXE_MAX_INLINE_DATA}. */
    public static final int MAX_INLINE = 400;
    /** rxe's {@code RXE_PORT_MAX_MSG_SZ}: 8 MiB. */
    public static final long MAX_MSG_SIZE = 0x800000;

    private final InetAddress address;
    private final RxeEngine engine;
    private final RxePort port;
    private final RxeCm cm;

    /** Whether {@link #close} stops the engine: it is the device's own ({@code Rdma.open}). */
    private volatile boolean ownsEngine;

    /** Makes the engine the device's own, stopped when the device is closed. */
    void ownEngine() {
        this.ownsEngine = true;
    }

    /**
     * The device was closed ({@code Rdma.open}'s device): its sockets close, and its engine stops when it
     * is the device's own.
     */
    @Override
    public void close() {
        engine.removePort(port);
        if (ownsEngine) {
            engine.stop();
        }
    }

    /** The engine that owns this device's socket, QPs and timers ({@code jrdma.rxe.engines}; tests). */
    RxeEngine engine() {
        return engine;
    }

    /**
     * Opens a device: binds its UDP socket and starts receiving on {@code engine}.
     *
     * @throws IOException if the address cannot be bound
     */
    RxeDevice(RxeConfig.DeviceSpec spec, RxeConfig config, RxeEngine engine) throws IOException {
        String name = spec.name();
        Mtu mtu = config.mtu();
        long guid = guidOf(spec.address());
        DeviceCounters counters = new DeviceCounters(name, COUNTERS);
        // rxe_param.h: RXE_MAX_QP 0x10000, RXE_MAX_QP_WR 0x4000, RXE_MAX_SGE 32, RXE_MAX_SGE_RD 32,
        // RXE_MAX_CQ 16384, RXE_MAX_LOG_CQE 15, RXE_MAX_MR 256K, RXE_MAX_PD 0x7ffc, RD_ATOM 128/128,
        // RXE_MAX_SRQ 960, RXE_MAX_SRQ_WR 0x4000, RXE_MAX_SRQ_SGE 27, inline 400, RXE_MAX_MCAST_GRP 8192,
        // RXE_MAX_MCAST_QP_ATTACH 56, RXE_MAX_TOT_MCAST_QP_ATTACH 0x70000.
        super(name, TransportType.IB, new DeviceAttributes("jrdma-rxe 0.1", guid, guid, -1L >>> 1, 0, 0,
                limit("jrdma.rxe.maxQp", MAX_QP), 0x4000, 32, 32, 16384, (1 << 15) - 1,
                limit("jrdma.rxe.maxMr", MAX_MR), 0x7ffc, 128, 128, AtomicCap.HCA, 960, 0x4000, 27, 0x8000,
                MAX_INLINE, 1, 8192, 56, 0x70000),
                new PortAttributes(PortState.ACTIVE, mtu, mtu, 1, LinkLayer.ETHERNET, 0, MAX_MSG_SIZE, 1, 1),
                List.of(Gid.of(spec.address())), List.of(spec.address()), counters);
        this.address = spec.address();
        this.engine = engine;
        this.port = new RxePort(name, address, config.udpPort(), mtu, new FaultInjector(spec.faults()), counters);
        try {
            this.cm = new RxeCm(port, this, config.packetLifeTime());
            engine.addPort(port);
        } catch (IOException | RuntimeException e) {
            port.udp().close();
            throw e;
        }
    }

    /** {@code property} if set, between 1 and {@code max}; otherwise {@code max}. */
    private static int limit(String property, int max) {
        int v = Integer.getInteger(property, max);
        if (v < 1 || v > max) {
            throw new IllegalArgumentException(property + " " + v + " outside 1.." + max);
        }
        return v;
    }

    /**
     * A node GUID from the address, the way rxe makes one from the netdev's MAC (EUI-64 with
     * FF:FE in the middle): the MAC here is the locally administered 02:00 followed by the IPv4
     * address (or the last 4 bytes of the IPv6 address).
     */
    static long guidOf(InetAddress a) {
        byte[] raw = a.getAddress();
        int n = raw.length;
        long b2 = raw[n - 4] & 0xff;
        long b3 = raw[n - 3] & 0xff;
        long b4 = raw[n - 2] & 0xff;
        long b5 = raw[n - 1] & 0xff;
        // 02:00:b2:b3:b4:b5 -> EUI-64 00:00:b2:ff:fe:b3:b4:b5 (the U/L bit of the first byte flipped)
        return b2 << 40 | 0xffL << 32 | 0xfeL << 24 | b3 << 16 | b4 << 8 | b5;
    }

    // ------------------------------------------------------------------------------------------ SPI

    @Override
    public boolean followsNetworkLink() {
        return true;
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
        RxeQp q = new RxeQp(QpImpl.of(qp), port, engine);
        port.register(qp.qpNum(), q);
        return q;
    }

    /**
     * Opens a socket on the group ({@link UdpPort#multicast}) and lets the engine receive on it; what arrives
     * there goes to the group's members ({@code rxe_mcast_add}, with rdma_cm's IGMP join). Only groups of the
     * device's own address family can be carried (EAFNOSUPPORT otherwise).
     */
    @Override
    public void multicastGroupAdded(Gid mgid) {
        boolean v4Group = mgid.isIpv4Mapped();
        if (v4Group == port.udp().isIpv6()) {
            throw new RdmaException(Errno.EAFNOSUPPORT, name() + " ("
                    + Ip.literal(address) + ") cannot carry the multicast group " + Ip.literal(mgid.toInetAddress()));
        }
        DeviceImpl core = coreDevice();
        try {
            UdpPort p = UdpPort.multicast(mgid, port.peerPort(), address, core);
            try {
                engine.addSocket(port, p);
            } catch (RuntimeException e) {
                p.close();
                throw e;
            }
        } catch (IOException e) {
            throw new RdmaException(Errno.EADDRNOTAVAIL, name() + " cannot join "
                    + Ip.literal(mgid.toInetAddress()) + ": " + e.getMessage(), e);
        }
    }

    /** Closes the group's socket ({@code rxe_mcast_del}, with rdma_cm's IGMP leave). */
    @Override
    public void multicastGroupRemoved(Gid mgid) {
        UdpPort p = port.group(mgid);
        if (p != null) {
            engine.removeSocket(port, p);
        }
    }

    private DeviceImpl coreDevice() {
        DeviceImpl d = DeviceRegistry.instance().coreDevice(this);
        if (d == null) {
            throw new IllegalStateException(name() + " is not registered");
        }
        return d;
    }

    @Override
    public CmTransport cmTransport() {
        return cm;
    }

    // ------------------------------------------------------------------------------------------ provider side

    /**
     * The device's IB CM datagram path.
     *
     * @return the device's IB CM datagram path
     */
    public RxeCm cm() {
        return cm;
    }

    /**
     * The device's port: its sockets, QPs, counters and capture.
     *
     * @return the device's port
     */
    public RxePort port() {
        return port;
    }

    /**
     * The device's counters (also {@link #deviceCounters()}).
     *
     * @return the device's counters
     */
    public DeviceCounters counters() {
        return deviceCounters();
    }

    @Override
    public void captureChanged(PacketCapture capture) {
        port.tap(PacketTap.of(capture));
    }

    @Override
    public String toString() {
        return name() + " (" + Ip.literal(address) + ")";
    }
}
