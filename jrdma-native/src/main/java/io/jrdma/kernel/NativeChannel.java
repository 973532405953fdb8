package io.jrdma.kernel;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.RdmaException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A completion channel ({@code struct ibv_comp_channel}). Its fd is non-blocking; {@link #getEvent}
 * waits with {@code poll(2)} in the caller's thread (in slices, so that an interrupt or a close is seen)
 * and then takes the event with {@code ibv_get_cq_event}: no thread per channel or CQ.
 */
@SuppressWarnings("checkstyle:IllegalCatch") // MethodHandle.invokeExact declares Throwable
final class NativeChannel extends NativeResource implements CompletionChannel {
    final NativeContext context;
    final MemorySegment channel;
    private final int fd;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment scratch;
    private final Object getLock = new Object();
    final List<NativeCq> cqs = new CopyOnWriteArrayList<>();

    private NativeChannel(NativeContext context, MemorySegment channel) {
        this.context = context;
        this.channel = channel;
        this.fd = channel.get(JAVA_INT, Ibv.CHANNEL_FD);
        this.scratch = arena.allocate(16 + Ibv.ERRNO_SIZE, 8);
        Fds.nonBlocking(fd);
    }

    static NativeChannel create(NativeContext c) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
            MemorySegment ch = (MemorySegment) Ibv.CREATE_COMP_CHANNEL.invokeExact(errno, c.ctx);
            if (ch.address() == 0) {
                throw Ibv.fail("ibv_create_comp_channel", Ibv.errno(errno));
            }
            return new NativeChannel(c, ch.reinterpret(Ibv.CHANNEL_SIZE));
        } catch (Throwable t) {
            throw Ibv.rethrow(t);
        }
    }

    @Override
    String what() {
        return "completion channel fd " + fd;
    }

    @Override
    public CompletionQueue getEvent() throws InterruptedException {
        CompletionQueue cq;
        do {
            cq = getEvent(Duration.ofSeconds(1));
        } while (cq == null);
        return cq;
    }

    @Override
    public CompletionQueue getEvent(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            synchronized (getLock) {
                check();
                NativeCq cq = take();
                if (cq != null) {
                    return cq;
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            Fds.waitReadable(fd, Math.min(100, Math.max(1, left / 1_000_000)));
        }
    }

    /** One non-blocking ibv_get_cq_event: the CQ that had the event, or null. */
    private NativeCq take() {
        try {
            MemorySegment cqOut = scratch.asSlice(0, 8);
            MemorySegment ctxOut = scratch.asSlice(8, 8);
            MemorySegment errno = scratch.asSlice(16, Ibv.ERRNO_SIZE);
            int rc = (int) Ibv.GET_CQ_EVENT.invokeExact(errno, channel, cqOut, ctxOut);
            if (rc != 0) {
                return null;
            }
            long addr = cqOut.get(ADDRESS, 0).address();
            NativeCq cq = context.cqAt(addr);
            if (cq == null) {
                // cannot happen: a CQ acknowledges its events before it is destroyed
                throw new IllegalStateException("completion event for an unknown CQ at 0x" + Long.toHexString(addr));
            }
            cq.eventReceived();
            return cq;
        } catch (Throwable t) {
            throw Ibv.rethrow(t);
        }
    }

    @Override
    public void ackEvents(CompletionQueue cq, int n) {
        if (!(cq instanceof NativeCq ncq) || ncq.channel() != this) {
            throw new IllegalArgumentException("the CQ does not use this channel");
        }
        ncq.ack(n);
    }

    @Override
    void destroy() {
        if (!cqs.isEmpty()) {
            throw new RdmaException(Errno.EBUSY, "completion channel is still used by " + cqs.size() + " CQs");
        }
        synchronized (getLock) {
            try {
                int rc = (int) Ibv.DESTROY_COMP_CHANNEL.invokeExact(channel);
                if (rc != 0) {
                    throw Ibv.fail("ibv_destroy_comp_channel", rc);
                }
            } catch (Throwable t) {
                throw Ibv.rethrow(t);
            }
            closed = true;
            arena.close();
        }
    }

    @Override
    void forget() {
        context.channels.remove(this);
    }
}
