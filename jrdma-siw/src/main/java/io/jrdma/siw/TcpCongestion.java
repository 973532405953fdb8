package io.jrdma.siw;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.NetworkChannel;

/**
 * The TCP congestion control of a socket ({@code setsockopt(IPPROTO_TCP, TCP_CONGESTION)}, Linux only),
 * which the JDK offers no socket option for: what siw applies to its own sockets
 * ({@link SiwConfig#withTcpCongestion}, {@code jrdma.siw.tcpCongestion}), for an application's own TCP
 * sockets, e.g. a plain-TCP baseline measured next to siw on the same algorithm ({@code jrdma tcp-bw
 * --tcp-cc}) or a side channel beside the RDMA connections.
 *
 * <p>A process may choose any algorithm listed in {@code net.ipv4.tcp_allowed_congestion_control}
 * ({@code reno} is always there); the others need {@code CAP_NET_ADMIN}. A listening socket's choice is
 * inherited by the connections it accepts; a connecting socket takes it best before it connects. The JDK
 * does not reveal a channel's file descriptor, so it is found by the channel's addresses among the
 * process's descriptors (a few microseconds when sockets come and go one after the other, a scan of
 * {@code /proc/self/fd} otherwise): a setting for connection setup, not for every message. The calls are
 * restricted FFM methods: run with {@code --enable-native-access=io.jrdma.core} (or {@code ALL-UNNAMED}
 * on the class path), or the JDK prints a warning on first use. Thread-safe.
 */
public final class TcpCongestion {
    private TcpCongestion() {
    }

    /**
     * Whether this system can choose a socket's congestion control (Linux, with {@code /proc}).
     *
     * @return true where {@link #set} can work
     */
    public static boolean supported() {
        return io.jrdma.internal.net.TcpCongestion.supported();
    }

    /**
     * Checks that {@code name} could be a Linux congestion control's name (lower-case letters, digits and
     * underscores, at most 15), for configuration read from a user. Whether the kernel has the algorithm
     * and allows it to this process shows only when {@link #set} asks it.
     *
     * @param name the algorithm, e.g. {@code reno}, {@code cubic}, {@code bbr}
     * @return {@code name}
     * @throws IllegalArgumentException naming what is wrong
     */
    public static String checkName(String name) {
        return io.jrdma.internal.net.TcpCongestion.checkName(name);
    }

    /**
     * Puts {@code channel}'s socket on congestion control {@code name}.
     *
     * @param channel a bound TCP channel: a {@link java.nio.channels.SocketChannel} (bound or connected) or
     *     a {@link java.nio.channels.ServerSocketChannel}
     * @param name the algorithm, as {@link #checkName} accepts it
     * @throws IllegalArgumentException if {@code channel} is null or {@code name} is malformed
     * @throws IOException if the channel is not bound, or the kernel refuses: the message names the
     *     algorithm and why (not available on this host, not allowed to this process, with the lists)
     * @throws UnsupportedOperationException on a system other than Linux
     */
    public static void set(NetworkChannel channel, String name) throws IOException {
        io.jrdma.internal.net.TcpCongestion.set(requireChannel(channel), name);
    }

    /**
     * The congestion control of {@code channel}'s socket.
     *
     * @param channel a bound TCP channel
     * @return the algorithm's name, e.g. {@code cubic}
     * @throws IllegalArgumentException if {@code channel} is null
     * @throws IOException if the channel is not bound or its socket cannot be read
     * @throws UnsupportedOperationException on a system other than Linux
     */
    public static String get(NetworkChannel channel) throws IOException {
        return io.jrdma.internal.net.TcpCongestion.get(requireChannel(channel));
    }

    /**
     * The congestion control of this process's TCP socket from {@code local} to {@code remote}, for a
     * caller that knows a connection's endpoints but not its channel (the sockets siw opens for its QPs).
     *
     * @param local the socket's local endpoint
     * @param remote its peer, or {@code null} for a listening or unconnected socket
     * @return the algorithm's name
     * @throws IllegalArgumentException if {@code local} is null
     * @throws IOException if no such socket is open in this process
     * @throws UnsupportedOperationException on a system other than Linux
     */
    public static String get(InetSocketAddress local, InetSocketAddress remote) throws IOException {
        if (local == null) {
            throw new IllegalArgumentException("the socket's local endpoint is required");
        }
        return io.jrdma.internal.net.TcpCongestion.get(local, remote);
    }

    private static NetworkChannel requireChannel(NetworkChannel channel) {
        if (channel == null) {
            throw new IllegalArgumentException("channel must not be null");
        }
        return channel;
    }
}
