package io.jrdma.internal.net;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;

/**
 * Lets a bound IPv6 UDP socket take datagrams whose UDP checksum is zero ({@code setsockopt(SOL_UDP,
 * UDP_NO_CHECK6_RX, 1)}, RFC 6936), which the JDK offers no socket option for. Linux rdma_rxe sends
 * RoCEv2 over IPv6 with a zero UDP checksum (the ICRC protects the packet), as tunnels may (RFC 6935),
 * and its own UDP socket takes such datagrams; an ordinary socket's kernel drops every one of them
 * ({@code Udp6InCsumErrors}), so a jrdma rxe device over IPv6 would hear nothing from Linux rxe (measured
 * on the rig: REP after REP of Linux 6.1 dropped, six {@code Udp6InCsumErrors}). A datagram with a
 * checksum is still checked. Control path: once per socket.
 */
public final class UdpNoCheck6 {
    private static final int SOL_UDP = 17;
    private static final int UDP_NO_CHECK6_RX = 102;

    private UdpNoCheck6() {
    }

    /**
     * Sets {@code UDP_NO_CHECK6_RX} on {@code bound}, a bound unconnected IPv6 UDP channel.
     *
     * @param bound the channel
     * @throws IOException if its socket cannot be found or the kernel refuses
     * @throws UnsupportedOperationException on a system other than Linux
     */
    public static void set(DatagramChannel bound) throws IOException {
        if (!(bound.getLocalAddress() instanceof InetSocketAddress local)) {
            throw new IllegalStateException("UDP_NO_CHECK6_RX needs a bound socket");
        }
        FdScan.setInt((scan, fd) -> {
            InetSocketAddress a = scan.name(fd);
            return a != null && a.getPort() == local.getPort() && a.getAddress().equals(local.getAddress())
                    && scan.option(fd, FdScan.SOL_SOCKET, FdScan.SO_PROTOCOL) == FdScan.IPPROTO_UDP
                    && !scan.connected(fd);
        }, "the UDP socket " + Ip.endpoint(local), SOL_UDP, UDP_NO_CHECK6_RX, 1);
    }
}
