package io.jrdma.kernel;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The file descriptors libibverbs hands out for events (a completion channel's, a context's async
 * fd): made non-blocking, and waited on with {@code poll(2)} in the caller's thread, so that no event
 * needs a thread of its own.
 */
@SuppressWarnings("checkstyle:IllegalCatch") // MethodHandle.invokeExact declares Throwable
final class Fds {
    private Fds() {
    }

    /** Sets O_NONBLOCK, so that ibv_get_cq_event / ibv_get_async_event return instead of blocking. */
    static void nonBlocking(int fd) {
        try {
            int flags = (int) Ibv.FCNTL.invokeExact(fd, Ibv.F_GETFL, 0);
            if (flags < 0 || (int) Ibv.FCNTL.invokeExact(fd, Ibv.F_SETFL, flags | Ibv.O_NONBLOCK) < 0) {
                throw new IllegalStateException("fcntl(" + fd + ", O_NONBLOCK) failed");
            }
        } catch (Throwable t) {
            throw Ibv.rethrow(t);
        }
    }

    /** Waits up to {@code millis} for {@code fd} to be readable; true if it is. */
    static boolean waitReadable(int fd, long millis) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment pfd = a.allocate(8, 4);
            pfd.set(JAVA_INT, 0, fd);
            pfd.set(JAVA_SHORT, 4, (short) Ibv.POLLIN);
            MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
            int rc = (int) Ibv.POLL.invokeExact(errno, pfd, 1L, (int) millis);
            return rc > 0;
        } catch (Throwable t) {
            throw Ibv.rethrow(t);
        }
    }
}
