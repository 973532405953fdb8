package io.jrdma.internal.net;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.channels.NetworkChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
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
    private static final int IPPROTO_TCP = 6;
    private static final int IPPROTO_IPV6 = 41;
    private static final int IPV6_V6ONLY = 26;
    private static final int TCP_KEEPIDLE = 4;
    private static final int TCP_KEEPINTVL = 5;
    private static final int SOL_SOCKET = 1;
    private static final int SO_PROTOCOL = 38;
    private static final int AF_INET6 = 10;
    private static final int SOCKADDR_MAX = 128;
    /** The largest TCP_KEEPIDLE / TCP_KEEPINTVL Linux takes ({@code MAX_TCP_KEEPIDLE}). */
    private static final int KEEP_MAX = 32767;
    private static final Path FDS = Path.of("/proc/self/fd");
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
    @SuppressWarnings("checkstyle:IllegalCatch") // MethodHandle.invokeExact declares Throwable
    public static void set(NetworkChannel unbound) throws IOException {
        if (!TcpCongestion.supported()) {
            throw new UnsupportedOperationException("IPV6_V6ONLY needs Linux (setsockopt and /proc/self/fd)");
        }
        if (unbound.getLocalAddress() != null) {
            throw new IllegalStateException("IPV6_V6ONLY must be set before the socket is bound");
        }
        ThreadLocalRandom r = ThreadLocalRandom.current();
        int idle = 1 + r.nextInt(KEEP_MAX);
        int interval = 1 + r.nextInt(KEEP_MAX);
        unbound.setOption(ExtendedSocketOptions.TCP_KEEPIDLE, idle);
        unbound.setOption(ExtendedSocketOptions.TCP_KEEPINTERVAL, interval);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(TcpCongestion.Native.STATE);
            MemorySegment value = arena.allocate(JAVA_INT);
            MemorySegment len = arena.allocate(JAVA_INT);
            MemorySegment addr = arena.allocate(SOCKADDR_MAX);
            int fd = find(state, value, len, addr, idle, interval);
            value.set(JAVA_INT, 0, 1);
            int rc = (int) TcpCongestion.Native.SETSOCKOPT.invokeExact(state, fd, IPPROTO_IPV6, IPV6_V6ONLY, value,
                    Integer.BYTES);
            if (rc != 0) {
                throw new IOException("setsockopt(IPV6_V6ONLY) failed: errno "
                        + (int) TcpCongestion.Native.ERRNO.get(state, 0L));
            }
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("setsockopt(IPV6_V6ONLY) failed", t);
        }
        unbound.setOption(ExtendedSocketOptions.TCP_KEEPIDLE, sysctl(KEEPALIVE_TIME, 7200));
        unbound.setOption(ExtendedSocketOptions.TCP_KEEPINTERVAL, sysctl(KEEPALIVE_INTVL, 75));
    }

    /** The descriptor that is an unbound IPv6 TCP socket with the two marks. */
    private static int find(MemorySegment state, MemorySegment value, MemorySegment len, MemorySegment addr,
            int idle, int interval) throws Throwable {
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(FDS)) {
            for (Path p : fds) {
                int fd;
                try {
                    fd = Integer.parseInt(p.getFileName().toString());
                } catch (NumberFormatException e) {
                    continue;
                }
                if (option(state, value, len, fd, IPPROTO_TCP, TCP_KEEPIDLE) == idle
                        && option(state, value, len, fd, IPPROTO_TCP, TCP_KEEPINTVL) == interval
                        && option(state, value, len, fd, SOL_SOCKET, SO_PROTOCOL) == IPPROTO_TCP
                        && unboundIpv6(fd, addr, len)) {
                    return fd;
                }
            }
        }
        throw new IOException("no file descriptor of this process is the unbound IPv6 TCP socket marked "
                + idle + "/" + interval);
    }

    private static int option(MemorySegment state, MemorySegment value, MemorySegment len, int fd, int level,
            int name) throws Throwable {
        len.set(JAVA_INT, 0, Integer.BYTES);
        int rc = (int) TcpCongestion.Native.GETSOCKOPT.invokeExact(state, fd, level, name, value, len);
        return rc == 0 ? value.get(JAVA_INT, 0) : -1;
    }

    private static boolean unboundIpv6(int fd, MemorySegment addr, MemorySegment len) throws Throwable {
        len.set(JAVA_INT, 0, SOCKADDR_MAX);
        if ((int) TcpCongestion.Native.GETSOCKNAME.invokeExact(fd, addr, len) != 0) {
            return false;
        }
        int family = Short.toUnsignedInt(addr.get(ValueLayout.JAVA_SHORT, 0));
        int port = Short.toUnsignedInt(addr.get(ValueLayout.JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), 2));
        InetSocketAddress a = family == AF_INET6 ? TcpCongestion.decode(addr) : null;
        return a != null && port == 0 && a.getAddress().isAnyLocalAddress();
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
