package io.jrdma.rxe.net;

import io.jrdma.verbs.Gid;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * A resolved destination: the UDP socket address a GID maps to on RoCEv2 (the GID is the IP
 * address; IPv4 is IPv4-mapped) and its address in the form the ICRC needs. Built once per QP
 * connection or address handle, on the control path, so the data path never allocates one.
 */
public final class Peer {
    private final InetSocketAddress address;
    private final boolean ipv6;
    private final int ipv4;
    private final long high;
    private final long low;

    /**
     * The peer at {@code address}.
     *
     * @param address the socket address
     */
    public Peer(InetSocketAddress address) {
        this.address = address;
        InetAddress a = address.getAddress();
        byte[] raw = a.getAddress();
        this.ipv6 = !(a instanceof Inet4Address);
        if (ipv6) {
            ByteBuffer b = ByteBuffer.wrap(raw);
            this.high = b.getLong(0);
            this.low = b.getLong(8);
            this.ipv4 = 0;
        } else {
            this.ipv4 = ByteBuffer.wrap(raw).getInt(0);
            this.high = 0;
            this.low = 0;
        }
    }

    /**
     * The peer owning {@code gid}, reached on UDP {@code port}.
     *
     * @param gid the GID
     * @param port the device port
     * @return the peer owning {@code gid}, reached on UDP {@code port}
     */
    public static Peer of(Gid gid, int port) {
        return new Peer(new InetSocketAddress(gid.toInetAddress(), port));
    }

    /**
     * The socket address.
     *
     * @return the socket address
     */
    public InetSocketAddress address() {
        return address;
    }

    /**
     * Whether the peer is an IPv6 address (not IPv4-mapped).
     *
     * @return true if the peer is an IPv6 address (not IPv4-mapped)
     */
    public boolean isIpv6() {
        return ipv6;
    }

    /**
     * The IPv4 address as a network-order int (0 for IPv6).
     *
     * @return the IPv4 address as a network-order int (0 for IPv6)
     */
    public int ipv4() {
        return ipv4;
    }

    /**
     * The first 8 bytes of the IPv6 address.
     *
     * @return the first 8 bytes of the IPv6 address
     */
    public long high() {
        return high;
    }

    /**
     * The last 8 bytes of the IPv6 address.
     *
     * @return the last 8 bytes of the IPv6 address
     */
    public long low() {
        return low;
    }

    @Override
    public String toString() {
        return address.toString();
    }
}
