package io.jrdma.rxe.net;

import io.jrdma.internal.verbs.CounterSet;
import io.jrdma.rxe.RxeDevice;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import jdk.net.ExtendedSocketOptions;

/**
 * A device's RoCEv2 socket (rxe's UDP tunnel socket in {@code rxe_net.c}): one unconnected
 * {@link DatagramChannel} bound to the device's address and UDP port 4791, non-blocking, owned by
 * the engine. Data packets of every QP leave and arrive through it.
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
    private final CounterSet counters;
    private final FaultInjector faults;
    private final RxeDevice device;
    /** A packet the fault injector holds back (engine thread). */
    PacketPool.Buffer held;
    /** The last sender seen on this socket and its address as the ICRC wants it (engine thread). */
    private InetSocketAddress lastSender;
    int senderIpv4;
    long senderHigh;
    long senderLow;

    /**
     * Opens and binds the socket.
     *
     * @param address the device address
     * @param port the UDP port (4791)
     * @param counters the engine's set of the device's counters (the engine writes it)
     * @param faults the device's fault injector
     * @param device the device whose QPs and CM the engine hands received packets to
     * @throws IOException if the address cannot be bound (in use, not local)
     */
    public UdpPort(InetAddress address, int port, CounterSet counters, FaultInjector faults, RxeDevice device)
            throws IOException {
        this.ipv6 = !(address instanceof Inet4Address);
        this.counters = counters;
        this.faults = faults;
        this.device = device;
        DatagramChannel ch = openDf(ipv6);
        try {
            ch.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER);
            ch.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER);
            ch.bind(new InetSocketAddress(address, port));
            ch.configureBlocking(false);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
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

    /**
     * The device-level counters the engine writes for this port (packets no QP claims, injected faults).
     *
     * @return the engine's counter set
     */
    public CounterSet counters() {
        return counters;
    }

    /**
     * The device's fault injector.
     *
     * @return the device's fault injector
     */
    public FaultInjector faults() {
        return faults;
    }

    /**
     * The device this port belongs to.
     *
     * @return the device this port belongs to
     */
    public RxeDevice device() {
        return device;
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
