package io.jrdma.internal.net;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds the descriptor of a JDK channel's socket among the process's ({@code /proc/self/fd}) and sets
 * an integer socket option the JDK has no {@link java.net.SocketOption} for. A descriptor is tested
 * with {@code getsockopt} and {@code getsockname} only; control path (one scan per socket).
 */
final class FdScan {
    static final int SOL_SOCKET = 1;
    static final int SO_PROTOCOL = 38;
    static final int IPPROTO_TCP = 6;
    static final int IPPROTO_UDP = 17;
    private static final int SOCKADDR_MAX = 128;
    private static final Path FDS = Path.of("/proc/self/fd");

    /** What a descriptor must be. */
    interface Test {
        /** Whether {@code fd} is the socket sought. */
        boolean is(FdScan scan, int fd) throws Throwable;
    }

    private final MemorySegment state;
    private final MemorySegment value;
    private final MemorySegment len;
    private final MemorySegment addr;

    private FdScan(Arena arena) {
        this.state = arena.allocate(TcpCongestion.Native.STATE);
        this.value = arena.allocate(JAVA_INT);
        this.len = arena.allocate(JAVA_INT);
        this.addr = arena.allocate(SOCKADDR_MAX);
    }

    /**
     * Sets option {@code level}/{@code name} to {@code v} on the one descriptor {@code test} accepts.
     *
     * @param test what the socket is
     * @param what the socket, for messages
     * @param level the option's level
     * @param name the option's name
     * @param v the value
     * @return the descriptor
     * @throws IOException if no descriptor is the socket or the kernel refuses the option
     */
    @SuppressWarnings("checkstyle:IllegalCatch") // MethodHandle.invokeExact declares Throwable
    static int setInt(Test test, String what, int level, int name, int v) throws IOException {
        if (!TcpCongestion.supported()) {
            throw new UnsupportedOperationException("setting " + what + "'s option needs Linux (/proc/self/fd)");
        }
        try (Arena arena = Arena.ofConfined()) {
            FdScan scan = new FdScan(arena);
            int fd = scan.find(test, what);
            scan.value.set(JAVA_INT, 0, v);
            int rc = (int) TcpCongestion.Native.SETSOCKOPT.invokeExact(scan.state, fd, level, name, scan.value,
                    Integer.BYTES);
            if (rc != 0) {
                throw new IOException("setsockopt(" + level + ", " + name + ") on " + what + " failed: errno "
                        + (int) TcpCongestion.Native.ERRNO.get(scan.state, 0L));
            }
            return fd;
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("setsockopt on " + what + " failed", t);
        }
    }

    private int find(Test test, String what) throws Throwable {
        for (int fd : descriptors()) {
            if (test.is(this, fd)) {
                return fd;
            }
        }
        throw new IOException("no file descriptor of this process is " + what);
    }

    /** The process's open descriptors, as {@code /proc/self/fd} lists them. */
    static int[] descriptors() throws IOException {
        int[] out = new int[64];
        int n = 0;
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(FDS)) {
            for (Path p : fds) {
                try {
                    int fd = Integer.parseInt(p.getFileName().toString());
                    if (n == out.length) {
                        out = java.util.Arrays.copyOf(out, 2 * n);
                    }
                    out[n++] = fd;
                } catch (NumberFormatException e) {
                    // not a descriptor
                }
            }
        }
        return java.util.Arrays.copyOf(out, n);
    }

    /** {@code getsockopt} of an int, or -1 when it fails. */
    int option(int fd, int level, int name) throws Throwable {
        len.set(JAVA_INT, 0, Integer.BYTES);
        int rc = (int) TcpCongestion.Native.GETSOCKOPT.invokeExact(state, fd, level, name, value, len);
        return rc == 0 ? value.get(JAVA_INT, 0) : -1;
    }

    /** The socket's local address, or null (not a socket, or another family). */
    InetSocketAddress name(int fd) throws Throwable {
        len.set(JAVA_INT, 0, SOCKADDR_MAX);
        if ((int) TcpCongestion.Native.GETSOCKNAME.invokeExact(fd, addr, len) != 0) {
            return null;
        }
        return TcpCongestion.decode(addr);
    }

    /** Whether the socket has a peer. */
    boolean connected(int fd) throws Throwable {
        len.set(JAVA_INT, 0, SOCKADDR_MAX);
        return (int) TcpCongestion.Native.GETPEERNAME.invokeExact(fd, addr, len) == 0;
    }

    /** The address family of the last {@link #name} (AF_INET 2, AF_INET6 10). */
    int family() {
        return Short.toUnsignedInt(addr.get(ValueLayout.JAVA_SHORT, 0));
    }

    /** The port of the last {@link #name}. */
    int port() {
        return Short.toUnsignedInt(addr.get(ValueLayout.JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), 2));
    }
}
