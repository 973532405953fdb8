package io.jrdma.internal.net;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.NetworkChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import jdk.net.ExtendedSocketOptions;

/**
 * Makes an IPv6 TCP socket take IPv6 only ({@code setsockopt(IPPROTO_IPV6, IPV6_V6ONLY, 1)}, what Linux
 * siw does for an AFONLY id with {@code ip6_sock_set_v6only}), which the JDK offers no socket option for:
 * its IPv6 sockets are always dual-stack. The option must be set before the socket is bound.
 *
 * <p>The JDK hides the descriptor and an unbound socket has no address to find it by, so the channel is
 * marked first: its {@code TCP_KEEPIDLE} and {@code TCP_KEEPINTVL} get random values (one in 2^30 that
 * another unbound IPv6 TCP socket of the process has the same), the descriptor in {@code /proc/self/fd}
 * that is an unbound IPv6 TCP socket with those values is the channel's, and the two options go back to
 * the host's defaults ({@code net.ipv4.tcp_keepalive_time}, {@code _intvl}) once {@code IPV6_V6ONLY} is
 * set. Control path only (one scan of the process's descriptors per listener).
 */
public final class Ipv6Only {
    private static final int IPPROTO_IPV6 = 41;
    private static final int IPV6_V6ONLY = 26;
    private static final int TCP_KEEPIDLE = 4;
    private static final int TCP_KEEPINTVL = 5;
    private static final int AF_INET6 = 10;
    /** The largest TCP_KEEPIDLE / TCP_KEEPINTVL Linux takes ({@code MAX_TCP_KEEPIDLE}). */
    private static final int KEEP_MAX = 32767;
    private static final Path KEEPALIVE_TIME = Path.of("/proc/sys/net/ipv4/tcp_keepalive_time");
    private static final Path KEEPALIVE_INTVL = Path.of("/proc/sys/net/ipv4/tcp_keepalive_intvl");

    private Ipv6Only() {
    }

    /**
     * Sets {@code IPV6_V6ONLY} on an unbound IPv6 TCP channel.
     *
     * @param unbound a TCP channel opened for {@link java.net.StandardProtocolFamily#INET6}, not yet bound
     * @throws IOException if the socket cannot be found or the kernel refuses
     * @throws UnsupportedOperationException on a system other than Linux
     */
    public static void set(NetworkChannel unbound) throws IOException {
        if (unbound.getLocalAddress() != null) {
            throw new IllegalStateException("IPV6_V6ONLY must be set before the socket is bound");
        }
        ThreadLocalRandom r = ThreadLocalRandom.current();
        int idle = 1 + r.nextInt(KEEP_MAX);
        int interval = 1 + r.nextInt(KEEP_MAX);
        unbound.setOption(ExtendedSocketOptions.TCP_KEEPIDLE, idle);
        unbound.setOption(ExtendedSocketOptions.TCP_KEEPINTERVAL, interval);
        FdScan.setInt((scan, fd) -> scan.option(fd, FdScan.IPPROTO_TCP, TCP_KEEPIDLE) == idle
                && scan.option(fd, FdScan.IPPROTO_TCP, TCP_KEEPINTVL) == interval
                && scan.option(fd, FdScan.SOL_SOCKET, FdScan.SO_PROTOCOL) == FdScan.IPPROTO_TCP
                && unboundIpv6(scan, fd), "the unbound IPv6 TCP socket marked " + idle + "/" + interval,
                IPPROTO_IPV6, IPV6_V6ONLY, 1);
        unbound.setOption(ExtendedSocketOptions.TCP_KEEPIDLE, sysctl(KEEPALIVE_TIME, 7200));
        unbound.setOption(ExtendedSocketOptions.TCP_KEEPINTERVAL, sysctl(KEEPALIVE_INTVL, 75));
    }

    private static boolean unboundIpv6(FdScan scan, int fd) throws Throwable {
        InetSocketAddress a = scan.name(fd);
        return a != null && scan.family() == AF_INET6 && scan.port() == 0 && a.getAddress().isAnyLocalAddress();
    }

    private static int sysctl(Path p, int fallback) {
        try {
            int v = Integer.parseInt(Files.readString(p, StandardCharsets.US_ASCII).strip());
            return v >= 1 && v <= KEEP_MAX ? v : fallback;
        } catch (IOException | NumberFormatException e) {
            return fallback;
        }
    }
}
