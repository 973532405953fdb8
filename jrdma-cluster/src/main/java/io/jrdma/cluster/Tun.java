package io.jrdma.cluster;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;

/**
 * A Linux TUN device (layer 3, no packet information header) through the C library's {@code open}, {@code
 * ioctl(TUNSETIFF)}, {@code read} and {@code write}, called with the foreign function API. The device exists
 * while its descriptor is open and lives in the network namespace the process was in when it was created; it
 * may be moved to another namespace afterwards ({@code ip link set NAME netns NS}) and keeps its descriptor.
 */
@SuppressWarnings("checkstyle:IllegalCatch") // MethodHandle.invokeExact declares Throwable
final class Tun implements AutoCloseable {
    /** {@code _IOW('T', 202, int)}. */
    private static final long TUNSETIFF = 0x400454caL;
    private static final short IFF_TUN = 0x0001;
    private static final short IFF_NO_PI = 0x1000;
    private static final int O_RDWR = 2;
    private static final int O_CLOEXEC = 0x80000;
    private static final int EINTR = 4;
    /** {@code struct ifreq}: the name, then the flags at offset 16, 40 bytes in all. */
    private static final int IFREQ_SIZE = 40;
    private static final int IFNAMSIZ = 16;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle OPEN = handle("open",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT),
            Linker.Option.firstVariadicArg(2), Linker.Option.captureCallState("errno"));
    private static final MethodHandle IOCTL = handle("ioctl",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                    ValueLayout.ADDRESS),
            Linker.Option.firstVariadicArg(2), Linker.Option.captureCallState("errno"));
    private static final MethodHandle READ = handle("read",
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                    ValueLayout.JAVA_LONG),
            Linker.Option.captureCallState("errno"));
    private static final MethodHandle WRITE = handle("write",
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                    ValueLayout.JAVA_LONG),
            Linker.Option.captureCallState("errno"));
    private static final MethodHandle CLOSE = handle("close",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle PRCTL = handle("prctl",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG),
            Linker.Option.firstVariadicArg(1));
    private static final int PR_SET_TIMERSLACK = 29;

    private final String name;
    private final int fd;
    /** Per-thread errno capture: one for the reading thread, one for the writing thread. */
    private final MemorySegment readState;
    private final MemorySegment writeState;
    private volatile boolean closed;

    private Tun(String name, int fd, Arena arena) {
        this.name = name;
        this.fd = fd;
        this.readState = arena.allocate(CALL_STATE);
        this.writeState = arena.allocate(CALL_STATE);
    }

    /**
     * Creates TUN device {@code name} in this process's network namespace.
     *
     * @param arena holds the descriptor's call state; must outlive the device
     * @throws IllegalArgumentException if {@code name} is empty or longer than 15 bytes
     * @throws IllegalStateException if the device cannot be created (no {@code /dev/net/tun}, no permission, the
     *     name is taken by a device that is not a TUN device)
     */
    static Tun create(String name, Arena arena) {
        byte[] n = name.getBytes(StandardCharsets.US_ASCII);
        if (n.length == 0 || n.length >= IFNAMSIZ) {
            throw new IllegalArgumentException("interface name must be 1.." + (IFNAMSIZ - 1) + " bytes: " + name);
        }
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = call.allocate(CALL_STATE);
            int fd = (int) OPEN.invokeExact(state, call.allocateFrom("/dev/net/tun"), O_RDWR | O_CLOEXEC, 0);
            if (fd < 0) {
                throw new IllegalStateException("open /dev/net/tun: errno " + (int) ERRNO.get(state, 0L));
            }
            MemorySegment ifr = call.allocate(IFREQ_SIZE);
            MemorySegment.copy(n, 0, ifr, ValueLayout.JAVA_BYTE, 0, n.length);
            ifr.set(ValueLayout.JAVA_SHORT, IFNAMSIZ, (short) (IFF_TUN | IFF_NO_PI));
            int rc = (int) IOCTL.invokeExact(state, fd, TUNSETIFF, ifr);
            if (rc < 0) {
                int errno = (int) ERRNO.get(state, 0L);
                int ignored = (int) CLOSE.invokeExact(fd);
                throw new IllegalStateException("TUNSETIFF " + name + ": errno " + errno);
            }
            return new Tun(name, fd, arena);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * Sets the calling thread's timer slack: how much later than asked the kernel may end its timed sleeps (50 us
     * by default).
     */
    static void timerSlack(long nanos) {
        try {
            int ignored = (int) PRCTL.invokeExact(PR_SET_TIMERSLACK, nanos);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    String name() {
        return name;
    }

    /**
     * Reads one packet into {@code buf} (blocking); only one thread may read.
     *
     * @return the packet's length, or -1 once the device is closed
     */
    int read(MemorySegment buf) {
        while (true) {
            long n;
            try {
                n = (long) READ.invokeExact(readState, fd, buf, buf.byteSize());
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
            if (n >= 0) {
                return (int) n;
            }
            int errno = (int) ERRNO.get(readState, 0L);
            if (closed) {
                return -1;
            }
            if (errno != EINTR) {
                throw new IllegalStateException("read " + name + ": errno " + errno);
            }
        }
    }

    /**
     * Writes one packet of {@code len} bytes from {@code buf}; only one thread may write. A packet the kernel
     * refuses (the interface is down, the packet is malformed) is dropped.
     *
     * @return whether the kernel took the packet
     */
    boolean write(MemorySegment buf, int len) {
        while (true) {
            long n;
            try {
                n = (long) WRITE.invokeExact(writeState, fd, buf, (long) len);
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
            if (n >= 0) {
                return true;
            }
            if ((int) ERRNO.get(writeState, 0L) != EINTR || closed) {
                return false;
            }
        }
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            try {
                int ignored = (int) CLOSE.invokeExact(fd);
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }
    }

    private static MethodHandle handle(String fn, FunctionDescriptor d, Linker.Option... options) {
        SymbolLookup libc = LINKER.defaultLookup();
        return LINKER.downcallHandle(libc.find(fn).orElseThrow(() -> new IllegalStateException("no " + fn)), d,
                options);
    }
}
