package io.jrdma.examples;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.EventChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.WcStatus;
import java.time.Duration;

/**
 * What the examples share: bounded waits for a work completion and for a connection-manager event
 * (an example must fail, not hang, when its peer does not answer).
 */
final class Completions {
    /** How long an example waits for anything. */
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    private Completions() {
    }

    /**
     * Polls {@code cq} until one completion arrives ({@code ibv_poll_cq} in a loop), and checks it
     * succeeded.
     *
     * @param cq the completion queue
     * @param wc where the completion goes
     * @return {@code wc}
     * @throws IllegalStateException if it failed or none came within {@link #TIMEOUT}
     */
    static io.jrdma.verbs.WorkCompletion next(CompletionQueue cq, io.jrdma.verbs.WorkCompletion wc) {
        io.jrdma.verbs.WorkCompletion[] one = {wc};
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (cq.poll(one) == 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("no completion within " + TIMEOUT);
            }
            Thread.onSpinWait();
        }
        if (wc.status() != WcStatus.SUCCESS) {
            throw new IllegalStateException("work request " + wc.wrId() + " failed: " + wc.status());
        }
        return wc;
    }

    /**
     * The next event of {@code ch} ({@code rdma_get_cm_event}), which must be of {@code type}; it is
     * acknowledged ({@code rdma_ack_cm_event}) before it is returned.
     *
     * @param ch the event channel
     * @param type the expected type
     * @return the event
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException on another event or none within {@link #TIMEOUT}
     */
    static CmEvent expect(EventChannel ch, CmEventType type) throws InterruptedException {
        CmEvent e = ch.getEvent(TIMEOUT);
        if (e == null) {
            throw new IllegalStateException("no " + type.str() + " within " + TIMEOUT);
        }
        ch.ackEvent(e);
        if (e.type() != type) {
            throw new IllegalStateException("expected " + type.str() + ", got " + e);
        }
        return e;
    }
}
