package io.jrdma.internal.net;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteOrder;
import java.nio.channels.NetworkChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Chooses the TCP congestion control of one socket ({@code setsockopt(IPPROTO_TCP, TCP_CONGESTION)},
 * Linux only), which the JDK offers no socket option for.
 *
 * <p>Why a transport wants it: on a host whose default is BBR and whose loopback has no fq qdisc, TCP
 * paces each socket itself, and segments sent from the pacing timer on one CPU overtake those sent by
 * the writer on the other; the receiver sees reordering, answers with duplicate ACKs, and the sender
 * retransmits spuriously and cuts its window (siw 1 MiB streams lost 15-25% to this on loopback;
 * docs/design/007-tcp-congestion-control.md). A process may pick any algorithm listed in
 * {@code net.ipv4.tcp_allowed_congestion_control} ({@code reno} is always there); others need
 * {@code CAP_NET_ADMIN}.
 *
 * <p>The JDK hides a channel's file descriptor, so it is found by its addresses: descriptors are asked
 * {@code getsockname}, {@code getpeername} and {@code SO_PROTOCOL} until one is the TCP socket with the
 * channel's local and remote endpoints (a bound, unconnected or listening channel: no peer), those
 * around the last one found first, then every one in {@code /proc/self/fd} (see {@link #fdOf(
 * InetSocketAddress, InetSocketAddress)} for the cost). A listening socket's choice is inherited by the
 * connections it accepts (Linux {@code tcp_ca_openreq_child}).
 *
 * <p>The calls are restricted FFM methods: run with {@code --enable-native-access=io.jrdma.core} (or
 * {@code ALL-UNNAMED} on the class path), or the JDK prints a warning on first use.
 */
public final class TcpCongestion {
    /** Linux {@code TCP_CA_NAME_MAX}: names are at most 15 characters and a NUL. */
    public static final int NAME_MAX = 16;
    private static final Pattern NAME = Pattern.compile("[a-z0-9_]{1,15}");
    private static final int IPPROTO_TCP = 6;
    private static final int TCP_CONGESTION = 13;
    private static final int SOL_SOCKET = 1;
    private static final int SO_PROTOCOL = 38;
    private static final int AF_INET = 2;
    private static final int AF_INET6 = 10;
    private static final int SOCKADDR_MAX = 128;
    private static final int ENOENT = 2;
    private static final int EPERM = 1;
    private static final Path FDS = Path.of("/proc/self/fd");
    private static final Path ALLOWED = Path.of("/proc/sys/net/ipv4/tcp_allowed_congestion_control");
    private static final Path AVAILABLE = Path.of("/proc/sys/net/ipv4/tcp_available_congestion_control");
    /** Descriptors tried either side of the last one found before the full scan. */
    static final int PROBE = 8;
    /** The descriptor found last, or -1. */
    private static volatile int hint = -1;

    private TcpCongestion() {
    }

    /**
     * Checks that {@code name} could be a Linux congestion control's name (lower-case letters, digits and
     * underscores, at most 15), for configuration read from a user.
     *
     * @return {@code name}
     * @throws IllegalArgumentException naming what is wrong
     */
    public static String checkName(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("TCP congestion control must be a Linux algorithm name (such as "
                    + "reno, cubic or bbr: lower-case letters, digits, '_', at most 15): " + name);
        }
        return name;
    }

    /** Whether this system can choose a socket's congestion control (Linux, with {@code /proc}). */
    public static boolean supported() {
        return Files.isDirectory(FDS) && System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux");
    }

    /**
     * Sets the congestion control of {@code channel}'s socket to {@code name}.
     *
     * @param channel a bound TCP channel ({@link SocketChannel} or server socket channel)
     * @param name the algorithm, as {@link #checkName} accepts
     * @throws IOException if the socket cannot be found or the kernel refuses (the message names the
     *     algorithm and why: not available, not allowed to this process)
     * @throws UnsupportedOperationException on a system other than Linux
     */
    @SuppressWarnings("checkstyle:IllegalCatch") // MethodHandle.invokeExact declares Throwable
    public static void set(NetworkChannel channel, String name) throws IOException {
        checkName(name);
        int fd = fdOf(channel);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = arena.allocateFrom(name);
            MemorySegment state = arena.allocate(Native.STATE);
            int rc = (int) Native.SETSOCKOPT.invokeExact(state, fd, IPPROTO_TCP, TCP_CONGESTION, value,
                    (int) value.byteSize() - 1);
            if (rc != 0) {
                int errno = (int) Native.ERRNO.get(state, 0L);
                throw new IOException(refusal(name, errno));
            }
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("setsockopt(TCP_CONGESTION, " + name + ") failed", t);
        }
    }

    /**
     * The congestion control of {@code channel}'s socket.
     *
     * @throws IOException if the socket cannot be found or read
     * @throws UnsupportedOperationException on a system other than Linux
     */
    public static String get(NetworkChannel channel) throws IOException {
        return get(fdOf(channel));
    }

    /**
     * The congestion control of this process's TCP socket from {@code local} to {@code remote} ({@code
     * null}: a listening or unconnected socket), for a caller that has the endpoints but not the channel.
     *
     * @throws IOException if no such socket is open in this process
     * @throws UnsupportedOperationException on a system other than Linux
     */
    public static String get(InetSocketAddress local, InetSocketAddress remote) throws IOException {
        return get(fdOf(local, remote));
    }

    @SuppressWarnings("checkstyle:IllegalCatch") // MethodHandle.invokeExact declares Throwable
    private static String get(int fd) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = arena.allocate(NAME_MAX);
            MemorySegment len = arena.allocate(JAVA_INT);
            len.set(JAVA_INT, 0, NAME_MAX);
            MemorySegment state = arena.allocate(Native.STATE);
            int rc = (int) Native.GETSOCKOPT.invokeExact(state, fd, IPPROTO_TCP, TCP_CONGESTION, value, len);
            if (rc != 0) {
                throw new IOException("getsockopt(TCP_CONGESTION) failed: errno " + (int) Native.ERRNO.get(state, 0L));
            }
            int n = Math.min(len.get(JAVA_INT, 0), NAME_MAX);
            byte[] b = value.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE);
            int end = 0;
            while (end < b.length && b[end] != 0) {
                end++;
            }
            return new String(b, 0, end, StandardCharsets.US_ASCII);
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("getsockopt(TCP_CONGESTION) failed", t);
        }
    }

    /** The message for a {@code setsockopt(TCP_CONGESTION, name)} that failed with {@code errno}. */
    static String refusal(String name, int errno) {
        return switch (errno) {
            case ENOENT -> "TCP congestion control '" + name + "' is not available on this host (available: "
                    + read(AVAILABLE) + ")";
            case EPERM -> "TCP congestion control '" + name + "' is not allowed to this process (allowed without "
                    + "CAP_NET_ADMIN, net.ipv4.tcp_allowed_congestion_control: " + read(ALLOWED) + ")";
            default -> "setsockopt(TCP_CONGESTION, " + name + ") failed: errno " + errno;
        };
    }

    private static String read(Path p) {
        try {
            return Files.readString(p).strip();
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    /**
     * The file descriptor of {@code channel}'s socket: the descriptor whose local address is the
     * channel's and whose peer is the channel's remote address (none for an unconnected channel).
     */
    static int fdOf(NetworkChannel channel) throws IOException {
        if (!(channel.getLocalAddress() instanceof InetSocketAddress local)) {
            throw new IOException("channel is not bound: " + channel);
        }
        SocketAddress r = channel instanceof SocketChannel sc ? sc.getRemoteAddress() : null;
        return fdOf(local, r instanceof InetSocketAddress isa ? isa : null);
    }

    /**
     * The descriptor of the socket from {@code local} to {@code remote} ({@code null}: no peer). Linux
     * gives a new socket the lowest free descriptor, so one closed a moment ago is usually reused: the
     * descriptors around the last one found are tried first ({@link #PROBE} either side), then all of
     * {@code /proc/self/fd}. Measured here with 130 descriptors open, a new bound socket's {@link #set}
     * cost 9 us with the hint and 128 us scanning every time (socket, bind and close alone: 25-44 us).
     */
    @SuppressWarnings("checkstyle:IllegalCatch") // MethodHandle.invokeExact declares Throwable
    static int fdOf(InetSocketAddress local, InetSocketAddress remote) throws IOException {
        if (!supported()) {
            throw new UnsupportedOperationException("choosing a socket's TCP congestion control needs Linux "
                    + "(setsockopt TCP_CONGESTION and /proc/self/fd)");
        }
        try (Arena arena = Arena.ofConfined()) {
            Probe probe = new Probe(arena, local, remote);
            int h = hint;
            if (h >= 0) {
                for (int d = 0; d <= PROBE; d++) {
                    if (probe.is(h + d)) {
                        return found(h + d);
                    }
                    if (d > 0 && h - d >= 0 && probe.is(h - d)) {
                        return found(h - d);
                    }
                }
            }
            for (int fd : FdScan.descriptors()) {
                if (probe.is(fd)) {
                    return found(fd);
                }
            }
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("cannot find the socket " + local + " -> " + remote, t);
        }
        throw new IOException("no file descriptor of this process is the socket " + local
                + (remote != null ? " -> " + remote : " (unconnected)"));
    }

    private static int found(int fd) {
        hint = fd;
        return fd;
    }

    /** Forgets the last descriptor found, so that the next lookup scans (tests). */
    static void forgetHint() {
        hint = -1;
    }

    /** Tests descriptors for being the TCP socket from {@code local} to {@code remote}. */
    private static final class Probe {
        private final MemorySegment addr;
        private final MemorySegment len;
        private final MemorySegment value;
        private final MemorySegment state;
        private final InetSocketAddress local;
        private final InetSocketAddress remote;

        Probe(Arena arena, InetSocketAddress local, InetSocketAddress remote) {
            this.addr = arena.allocate(SOCKADDR_MAX);
            this.len = arena.allocate(JAVA_INT);
            this.value = arena.allocate(JAVA_INT);
            this.state = arena.allocate(Native.STATE);
            this.local = local;
            this.remote = remote;
        }

        /** Whether {@code fd} is the socket: its name, its peer (or none), and TCP (not UDP on the same port). */
        boolean is(int fd) throws Throwable {
            return matches(Native.GETSOCKNAME, fd, local)
                    && (remote == null ? !named(Native.GETPEERNAME, fd) : matches(Native.GETPEERNAME, fd, remote))
                    && tcp(fd);
        }

        private boolean tcp(int fd) throws Throwable {
            len.set(JAVA_INT, 0, Integer.BYTES);
            int rc = (int) Native.GETSOCKOPT.invokeExact(state, fd, SOL_SOCKET, SO_PROTOCOL, value, len);
            return rc == 0 && value.get(JAVA_INT, 0) == IPPROTO_TCP;
        }

        private boolean named(MethodHandle call, int fd) throws Throwable {
            len.set(JAVA_INT, 0, SOCKADDR_MAX);
            return (int) call.invokeExact(fd, addr, len) == 0;
        }

        private boolean matches(MethodHandle call, int fd, InetSocketAddress want) throws Throwable {
            if (!named(call, fd)) {
                return false;
            }
            int port = Short.toUnsignedInt(addr.get(ValueLayout.JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), 2));
            if (port != want.getPort()) {
                return false;
            }
            InetSocketAddress got = decode(addr);
            if (got == null) {
                return false;
            }
            InetAddress a = got.getAddress();
            InetAddress b = want.getAddress();
            return a.equals(b) || a.isAnyLocalAddress() && b.isAnyLocalAddress();
        }
    }

    /** A {@code struct sockaddr_in} or {@code sockaddr_in6}, or {@code null} for another family. */
    static InetSocketAddress decode(MemorySegment sa) throws IOException {
        int family = Short.toUnsignedInt(sa.get(ValueLayout.JAVA_SHORT, 0));
        int port = Short.toUnsignedInt(sa.get(ValueLayout.JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), 2));
        byte[] ip;
        if (family == AF_INET) {
            ip = sa.asSlice(4, 4).toArray(ValueLayout.JAVA_BYTE);
        } else if (family == AF_INET6) {
            ip = sa.asSlice(8, 16).toArray(ValueLayout.JAVA_BYTE);
        } else {
            return null;
        }
        // A v4-mapped IPv6 address (the JDK's dual-stack sockets) comes back as an Inet4Address, as the JDK
        // reports it.
        return new InetSocketAddress(InetAddress.getByAddress(ip), port);
    }

    /** The bindings, created on first use so that loading this class needs no native access. */
    static final class Native {
        static final Linker LINKER = Linker.nativeLinker();
        static final StructLayout STATE = Linker.Option.captureStateLayout();
        static final VarHandle ERRNO = STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
        static final MethodHandle SETSOCKOPT = errno("setsockopt",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
        static final MethodHandle GETSOCKOPT = errno("getsockopt",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
        static final MethodHandle GETSOCKNAME = plain("getsockname",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
        static final MethodHandle GETPEERNAME = plain("getpeername",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));

        private static MethodHandle errno(String name, FunctionDescriptor d) {
            return LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow(name), d,
                    Linker.Option.captureCallState("errno"));
        }

        private static MethodHandle plain(String name, FunctionDescriptor d) {
            return LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow(name), d);
        }
    }
}
