package io.jrdma.rxe.net;

import io.jrdma.internal.net.Ip;
import io.jrdma.internal.net.UdpNoCheck6;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.verbs.Gid;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import jdk.net.ExtendedSocketOptions;

/**
 * A device's RoCEv2 socket (rxe's UDP tunnel socket in {@code rxe_net.c}): one unconnected
 * {@link DatagramChannel} bound to the device's address and UDP port 4791, non-blocking, owned by
 * the engine. Data packets of every QP leave and arrive through it. A multicast group's socket
 * ({@link #multicast}) only receives.
 *
 * <p>The socket forces DF ({@code IP_DONTFRAGMENT}, Linux {@code IP_PMTUDISC_DO}): Linux then sends
 * IPv4 identification 0, which is what the sender's ICRC assumes (interop README, "The DF /
 * IPv4-id-0 rule"); a connected socket or one without DF gets a counter id and Linux rxe drops the
 * packet for a bad ICRC. The socket is never connected for the same reason.
 */
public final class UdpPort {
    /** Socket buffer sizes asked for (the kernel caps them at rmem_max/wmem_max). */
    static final int SOCKET_BUFFER = 4 << 20;

    private final DatagramChannel channel;
    private final InetSocketAddress local;
    private final boolean ipv6;
    private final int ipv4;
    private final long high;
    private final long low;
    /** The multicast group this socket receives, or {@code null} for the device's own socket. */
    private final Gid mgid;
    /** The core device whose members of {@link #mgid} get what this socket receives ({@code null}: unicast). */
    private final DeviceImpl core;
    /** The last sender seen on this socket and its address as the ICRC wants it (engine holder). */
    private InetSocketAddress lastSender;
    int senderIpv4;
    long senderHigh;
    long senderLow;

    /**
     * Opens and binds a device's own socket.
     *
     * @param address the device address
     * @param port the UDP port (4791)
     * @return the bound, non-blocking socket
     * @throws IOException if the address cannot be bound (in use, not local)
     */
    static UdpPort unicast(InetAddress address, int port) throws IOException {
        return new UdpPort(address, bindUnicast(address, port), null, null);
    }

    private UdpPort(InetAddress address, DatagramChannel ch, Gid mgid, DeviceImpl core) throws IOException {
        this.ipv6 = !(address instanceof Inet4Address);
        this.mgid = mgid;
        this.core = core;
        this.channel = ch;
        this.local = (InetSocketAddress) ch.getLocalAddress();
        byte[] raw = address.getAddress();
        ByteBuffer b = ByteBuffer.wrap(raw);
        if (ipv6) {
            this.high = b.getLong(0);
            this.low = b.getLong(8);
            this.ipv4 = 0;
        } else {
            this.ipv4 = b.getInt(0);
            this.high = 0;
            this.low = 0;
        }
    }

    private static DatagramChannel bindUnicast(InetAddress address, int port) throws IOException {
        DatagramChannel ch = openDf(!(address instanceof Inet4Address));
        try {
            ch.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER);
            ch.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER);
            ch.bind(new InetSocketAddress(address, port));
            if (!(address instanceof Inet4Address)) {
                acceptZeroChecksums(ch);
            }
            ch.configureBlocking(false);
            return ch;
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /**
     * Linux rxe sends RoCEv2 over IPv6 with UDP checksum 0, which the kernel drops on an ordinary socket:
     * the socket takes them as rxe's own does ({@code UDP_NO_CHECK6_RX}; the ICRC still checks each
     * packet). Where that cannot be set (not Linux), packets from Linux rxe over IPv6 are lost and the
     * device says so once.
     */
    private static void acceptZeroChecksums(DatagramChannel ch) throws IOException {
        try {
            UdpNoCheck6.set(ch);
        } catch (IOException | UnsupportedOperationException e) {
            System.getLogger(UdpPort.class.getName()).log(System.Logger.Level.WARNING, "RoCEv2 socket "
                    + Ip.endpoint((InetSocketAddress) ch.getLocalAddress()) + " takes no zero UDP checksums ("
                    + e.getMessage() + "): Linux rxe's IPv6 packets will be dropped by the kernel");
        }
    }

    /**
     * A socket that receives the IP multicast group {@code mgid} maps to on the device's interface: bound to
     * the group's address and the RoCEv2 port (with SO_REUSEADDR, so that every device of the host that has
     * members gets its own copy), joined on the interface that carries {@code deviceAddress}. It only
     * receives; the device's own socket sends to the group. The counterpart of rdma_cm's IGMP join
     * ({@code cma_igmp_send}) plus rxe's {@code rxe_mcast_add} (which lets the group's frames in).
     *
     * @param mgid the group (an IPv4-mapped or IPv6 multicast GID of the device's address family)
     * @param port the UDP port (4791)
     * @param deviceAddress the address of the device whose members receive
     * @param core the core device whose members of the group get the datagrams
     * @return the bound, joined, non-blocking socket
     * @throws IOException if the socket cannot be bound or the group joined
     */
    public static UdpPort multicast(Gid mgid, int port, InetAddress deviceAddress, DeviceImpl core)
            throws IOException {
        InetAddress group = mgid.toInetAddress();
        NetworkInterface nif = NetworkInterface.getByInetAddress(deviceAddress);
        if (nif == null && deviceAddress.isLoopbackAddress()) {
            // 127.0.0.2 and the rest of 127.0.0.0/8 are lo's without being listed as its addresses.
            nif = NetworkInterface.getByInetAddress(deviceAddress instanceof Inet4Address
                    ? InetAddress.getByAddress(new byte[] {127, 0, 0, 1}) : InetAddress.getLoopbackAddress());
        }
        if (nif == null) {
            throw new IOException("no network interface carries " + Ip.literal(deviceAddress));
        }
        DatagramChannel ch = DatagramChannel.open(group instanceof Inet4Address ? StandardProtocolFamily.INET
                : StandardProtocolFamily.INET6);
        try {
            ch.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            ch.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER);
            ch.bind(new InetSocketAddress(group, port));
            ch.join(group, nif);
            ch.configureBlocking(false);
            return new UdpPort(group, ch, mgid, core);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /**
     * The multicast group this socket receives, or {@code null} for the device's own socket.
     *
     * @return the group's GID or {@code null}
     */
    public Gid mgid() {
        return mgid;
    }

    /**
     * The core device whose members of {@link #mgid()} get this socket's datagrams ({@code null} for the
     * device's own socket).
     *
     * @return the core device or {@code null}
     */
    public DeviceImpl core() {
        return core;
    }

    /**
     * An unconnected UDP channel of the address family with DF forced, as every RoCEv2 sender here
     * needs it (the DF / IPv4-id-0 rule).
     *
     * @param ipv6 whether to open an IPv6 socket
     * @return the channel, unbound
     * @throws IOException if it cannot be opened or DF cannot be forced on IPv4
     */
    public static DatagramChannel openDf(boolean ipv6) throws IOException {
        DatagramChannel ch = DatagramChannel.open(ipv6 ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET);
        try {
            ch.setOption(ExtendedSocketOptions.IP_DONTFRAGMENT, true);
        } catch (IOException | UnsupportedOperationException e) {
            if (!ipv6) {
                ch.close();
                throw new IOException("cannot force DF on the RoCEv2 socket; the IPv4 id would not be 0", e);
            }
            // IPv6 has no identification field in the ICRC: DF only matters for IPv4.
        }
        return ch;
    }

    /**
     * Remembers the sender of the datagram just received. The JDK hands back the same
     * {@link InetSocketAddress} while a socket's sender does not change, so the address is decoded
     * once per change of sender, not per packet.
     */
    void sender(InetSocketAddress from) {
        if (from != lastSender) {
            lastSender = from;
            byte[] a = from.getAddress().getAddress();
            ByteBuffer b = ByteBuffer.wrap(a);
            if (a.length == 4) {
                senderIpv4 = b.getInt(0);
            } else {
                senderHigh = b.getLong(0);
                senderLow = b.getLong(8);
            }
        }
    }

    /**
     * The channel.
     *
     * @return the channel
     */
    public DatagramChannel channel() {
        return channel;
    }

    /**
     * The bound address.
     *
     * @return the bound address
     */
    public InetSocketAddress local() {
        return local;
    }

    /**
     * The bound UDP port.
     *
     * @return the bound UDP port
     */
    public int localPort() {
        return local.getPort();
    }

    /**
     * Whether the socket is IPv6.
     *
     * @return true if the socket is IPv6
     */
    public boolean isIpv6() {
        return ipv6;
    }

    /**
     * The bound IPv4 address as a network-order int (0 on IPv6).
     *
     * @return the bound IPv4 address as a network-order int (0 on IPv6)
     */
    public int ipv4() {
        return ipv4;
    }

    /**
     * First 8 bytes of the bound IPv6 address.
     *
     * @return first 8 bytes of the bound IPv6 address
     */
    public long high() {
        return high;
    }

    /**
     * Last 8 bytes of the bound IPv6 address.
     *
     * @return last 8 bytes of the bound IPv6 address
     */
    public long low() {
        return low;
    }

    /** Closes the socket. */
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            // nothing to do: the socket is gone either way
        }
    }

    @Override
    public String toString() {
        return "udp " + local;
    }
}
