package io.jrdma.internal.verbs;

import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.RdmaException;
import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A completion channel: armed CQs put themselves in its queue once per arming. The queue node is the
 * only allocation of the notification path, which is a wake-up path, not the busy-poll one.
 */
public final class CompletionChannelImpl implements CompletionChannel {
    private final ContextImpl context;
    private final LinkedBlockingQueue<CqImpl> events = new LinkedBlockingQueue<>();
    final AtomicInteger cqs = new AtomicInteger();
    private volatile boolean closed;

    CompletionChannelImpl(ContextImpl context) {
        this.context = context;
    }

    void signal(CqImpl cq) {
        cq.unackedEvents.incrementAndGet();
        events.offer(cq);
    }

    void cqClosed(CqImpl cq) {
        cqs.decrementAndGet();
        events.removeIf(c -> c == cq);
    }

    @Override
    public CompletionQueue getEvent() throws InterruptedException {
        checkOpen();
        return events.take();
    }

    @Override
    public CompletionQueue getEvent(Duration timeout) throws InterruptedException {
        checkOpen();
        return events.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public void ackEvents(CompletionQueue cq, int n) {
        if (!(cq instanceof CqImpl c) || c.channelImpl() != this) {
            throw new IllegalArgumentException("the CQ does not belong to this channel");
        }
        if (n < 0) {
            throw new IllegalArgumentException("cannot acknowledge a negative number of events: " + n);
        }
        int left = c.unackedEvents.addAndGet(-n);
        if (left < 0) {
            c.unackedEvents.addAndGet(n);
            throw new IllegalArgumentException("acknowledging " + n + " events but only " + (left + n)
                    + " were delivered");
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("completion channel is closed");
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        int n = cqs.get();
        if (n > 0) {
            throw new RdmaException(Errno.EBUSY, "completion channel is still used by " + Users.count(n, "CQ", "CQs")
                    + ": destroy the CQs first");
        }
        closed = true;
        context.channelClosed(this);
    }
}
