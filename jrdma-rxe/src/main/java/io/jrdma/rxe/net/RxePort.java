package io.jrdma.rxe.net;

import io.jrdma.internal.capture.PacketTap;
import io.jrdma.internal.net.Ip;
import io.jrdma.internal.verbs.QpNumbers;
import io.jrdma.internal.roce.Icrc;
import io.jrdma.spi.CounterSet;
import io.jrdma.spi.DeviceCounters;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.Mtu;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;

/**
 * The port of an rxe device (rxe has one, port 1), as the data path sees it: the device's RoCEv2 socket
 * and the sockets of the multicast groups its QPs joined, the table of its QPs by number, its counters,
 * its fault injector and its packet capture. The engine receives on the port's sockets and hands what
 * arrives to the port's QPs (QP1 to its {@link Gsi}, the IB CM); the QPs and the CM send through it. The
 * device ({@code io.jrdma.rxe.RxeDevice}) is the verbs face above it and the only one that knows both
 * the port and its engine.
 *
 * <p>{@link #seal} is where every packet the port sends gets its ICRC and is written to the capture,
 * whoever sends it: the engine for the QPs, the CM for QP1.
 */
public final class RxePort {
    /** The GSI QP that carries CM MADs. */
    public static final int GSI_QPN = 1;
    private static final VarHandle QPS = MethodHandles.arrayElementVarHandle(Qp[].class);

    /** A QP's transport, as the engine hands it packets. */
    public interface Qp {
        /**
         * A packet for this QP arrived (engine holder; the packet is valid for this call only).
         *
         * @param p the packet
         */
        void receive(RxePacket p);
    }

    /** Where QP1's datagrams go: the IB CM of the device. */
    public interface Gsi {
        /**
         * A QP1 datagram arrived (engine holder; its ICRC was checked).
         *
         * @param datagram the UDP payload, BTH first
         * @param length its length, ICRC included
         * @param from the sender
         */
        void receive(MemorySegment datagram, int length, InetSocketAddress from);
    }

    private final String name;
    private final InetAddress address;
    private final int peerPort;
    private final Mtu mtu;
    private final DeviceCounters counters;
    private final CounterSet engineCounters;
    private final FaultInjector faults;
    private final UdpPort udp;
    /** The device's socket, then those of its multicast groups (written by the engine holder). */
    private volatile UdpPort[] sockets;
    private volatile Qp[] qps = new Qp[64];
    private volatile PacketTap tap;
    private volatile Gsi gsi;
    /** A packet the fault injector holds back (engine holder). */
    PacketPool.Buffer held;

    /**
     * Binds the port's socket to {@code address} and {@code udpPort}.
     *
     * @param name the device's name
     * @param address the address the device serves
     * @param udpPort the UDP port of RoCEv2 (4791), which peers listen on too
     * @param mtu the port's active MTU
     * @param faults the fault injector for the port's outgoing data packets
     * @param counters the device's counters
     * @throws IOException if the address cannot be bound (in use, not local)
     */
    public RxePort(String name, InetAddress address, int udpPort, Mtu mtu, FaultInjector faults,
            DeviceCounters counters) throws IOException {
        this.name = name;
        this.address = address;
        this.peerPort = udpPort;
        this.mtu = mtu;
        this.faults = faults;
        this.counters = counters;
        this.engineCounters = counters.newEngineSet();
        this.udp = UdpPort.unicast(address, udpPort);
        this.sockets = new UdpPort[] {udp};
    }

    /**
     * The device's name (log lines, traces).
     *
     * @return the device's name
     */
    public String name() {
        return name;
    }

    /**
     * The IP address the port serves.
     *
     * @return the IP address the port serves
     */
    public InetAddress address() {
        return address;
    }

    /**
     * The port's active MTU.
     *
     * @return the port's active MTU
     */
    public Mtu mtu() {
        return mtu;
    }

    /**
     * The UDP port peers listen on (4791).
     *
     * @return the UDP port peers listen on (4791)
     */
    public int peerPort() {
        return peerPort;
    }

    /**
     * The device's own socket, which every QP sends from.
     *
     * @return the device's own socket
     */
    public UdpPort udp() {
        return udp;
    }

    /**
     * The sockets the engine receives on: the device's own, then those of its multicast groups.
     *
     * @return the sockets (do not modify)
     */
    UdpPort[] sockets() {
        return sockets;
    }

    /** Adds a multicast group's socket (engine holder, once the engine has registered it). */
    void attach(UdpPort s) {
        UdpPort[] cur = sockets;
        UdpPort[] next = Arrays.copyOf(cur, cur.length + 1);
        next[cur.length] = s;
        sockets = next;
    }

    /** Removes a socket (engine holder). */
    void detach(UdpPort s) {
        UdpPort[] cur = sockets;
        UdpPort[] next = new UdpPort[cur.length];
        int n = 0;
        for (UdpPort p : cur) {
            if (p != s) {
                next[n++] = p;
            }
        }
        sockets = Arrays.copyOf(next, n);
    }

    /**
     * The socket of the multicast group {@code mgid}, or {@code null} if the port has none.
     *
     * @param mgid the group
     * @return its socket or {@code null}
     */
    public UdpPort group(Gid mgid) {
        for (UdpPort s : sockets) {
            if (mgid.equals(s.mgid())) {
                return s;
            }
        }
        return null;
    }

    /**
     * Where the packets to {@code gid} go: the GID's IP address on the peer port (IPv4 for an IPv4-mapped
     * GID, as {@code rdma_gid2ip}); a link-local IPv6 GID takes the scope of this port's own address, the
     * interface the device sits on (a GID has no scope). Control path: once per QP or address handle.
     *
     * @param gid the destination GID
     * @return the peer
     */
    public Peer peer(Gid gid) {
        return new Peer(new InetSocketAddress(Ip.withScopeOf(gid.toInetAddress(), address), peerPort));
    }

    /**
     * The device's counters.
     *
     * @return the device's counters
     */
    public DeviceCounters counters() {
        return counters;
    }

    /**
     * The device-level counters the engine writes for this port (packets no QP claims, injected faults,
     * {@code send_err}).
     *
     * @return the engine's counter set
     */
    public CounterSet engineCounters() {
        return engineCounters;
    }

    /**
     * The fault injector for the port's outgoing data packets (off unless configured).
     *
     * @return the fault injector
     */
    public FaultInjector faults() {
        return faults;
    }

    /**
     * The device's running capture, or {@code null} (one volatile read).
     *
     * @return the tap
     */
    public PacketTap tap() {
        return tap;
    }

    /**
     * Starts or stops the device's capture.
     *
     * @param t the capture, or {@code null}
     */
    public void tap(PacketTap t) {
        this.tap = t;
    }

    /**
     * Where QP1's datagrams go, or {@code null} before the CM started.
     *
     * @return the GSI receiver
     */
    public Gsi gsi() {
        return gsi;
    }

    /**
     * Sets where QP1's datagrams go.
     *
     * @param g the CM's datagram path
     */
    public void gsi(Gsi g) {
        this.gsi = g;
    }

    /**
     * Seals a packet this port sends and shows it to the device's capture: computes the ICRC of the
     * {@code length} bytes at the start of {@code seg} (BTH .. ICRC) for the datagram from this port's
     * address and {@code sourcePort} to {@code peer} (IPv4: identification 0 and DF, the DF / IPv4-id-0
     * rule) and stores it in the last 4 bytes. Allocation-free; {@code icrc} belongs to the caller's
     * thread (the engine's, or the CM's under its monitor).
     *
     * @param icrc the caller's calculator
     * @param seg the packet, BTH at offset 0
     * @param length its length, ICRC included
     * @param sourcePort the UDP port it leaves from
     * @param peer the destination
     */
    public void seal(Icrc icrc, MemorySegment seg, int length, int sourcePort, Peer peer) {
        int value = peer.isIpv6()
                ? icrc.ipv6(seg, 0, length, udp.high(), udp.low(), peer.high(), peer.low(), sourcePort,
                        peer.address().getPort())
                : icrc.ipv4ForSend(seg, 0, length, udp.ipv4(), peer.ipv4(), sourcePort, peer.address().getPort());
        Icrc.store(seg, 0, length, value);
        PacketTap t = tap;
        if (t != null) {
            Taps.sent(t, udp, sourcePort, peer, seg, length);
        }
    }

    /**
     * The QP with this number, or {@code null}. Any thread; allocation-free.
     *
     * @param qpn the QP number
     * @return the QP with this number, or {@code null}
     */
    public Qp qp(int qpn) {
        int i = QpNumbers.index(qpn);
        Qp[] t = qps;
        if (i < 0 || i >= t.length) {
            return null;
        }
        return (Qp) QPS.getAcquire(t, i);
    }

    /**
     * Makes a new QP reachable by its number.
     *
     * @param qpn the QP number
     * @param q the QP
     */
    public synchronized void register(int qpn, Qp q) {
        int i = QpNumbers.index(qpn);
        Qp[] t = qps;
        if (i >= t.length) {
            t = Arrays.copyOf(t, Math.min(QpNumbers.WINDOW, Math.max(i + 1, t.length * 2)));
        }
        QPS.setRelease(t, i, q);
        qps = t;
    }

    /**
     * Forgets a destroyed QP.
     *
     * @param qpn the QP number
     * @param q the QP
     */
    public synchronized void unregister(int qpn, Qp q) {
        int i = QpNumbers.index(qpn);
        Qp[] t = qps;
        if (i >= 0 && i < t.length && t[i] == q) {
            QPS.setRelease(t, i, (Qp) null);
        }
    }

    @Override
    public String toString() {
        return name + " port (" + udp + ")";
    }
}
