package io.jrdma.tools.perftest;

import java.time.Duration;

import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;

/**
 * How a {@link DataPath}'s loops take completions: the batch of work completions they poll into,
 * waiting for one completion, waiting for a CQ's event with {@code -e} ({@code ctx_notify_events}),
 * the idle turn of a busy-poll, the stall flag the run monitor raises, and the failures a bad
 * completion or a silent peer ends a run with.
 *
 * <p>The loops check the stall flag every {@link #CLOCK_CHECK_MASK} + 1 idle turns, not on every one.
 */
final class CqPoller {

    /** Idle turns between two looks at the clock and the stall flag, minus one (a mask). */
    static final int CLOCK_CHECK_MASK = 0x3ff;

    private static final int SPINS_BEFORE_YIELD = 64;

    /** The work completions every poll of the loops fills ({@link DataPath#POLL_BATCH} of them). */
    final WorkCompletion[] wc = new WorkCompletion[DataPath.POLL_BATCH];

    private final boolean server;
    private final boolean events;
    private final Duration timeout;
    private final CompletionChannel channel;
    private volatile boolean stalled;

    /**
     * A poller.
     *
     * @param c the configuration (side, {@code -e}, timeout)
     * @param channel the completion channel, or null without {@code -e}
     */
    CqPoller(PathConfig c, CompletionChannel channel) {
        this.server = c.server();
        this.events = c.events();
        this.timeout = c.timeout();
        this.channel = channel;
        for (int i = 0; i < DataPath.POLL_BATCH; i++) {
            wc[i] = new WorkCompletion();
        }
    }

    /** Marks the run as stalled (called by the run monitor's thread). */
    void stall() {
        stalled = true;
    }

    /** Clears the stall flag at the start of a run. */
    void clearStall() {
        stalled = false;
    }

    /**
     * Waits for one completion on {@code cq} into {@code wc[0]}, which must be a success.
     *
     * @param cq the CQ
     * @param what what the completion is, for the failure
     */
    void pollOne(CompletionQueue cq, String what) {
        int spins = 0;
        while (true) {
            int ne = cq.poll(wc, 0, 1);
            if (ne > 0) {
                if (wc[0].status() != WcStatus.SUCCESS) {
                    throw completionError(what, wc[0], 0, 0);
                }
                return;
            }
            if ((++spins & CLOCK_CHECK_MASK) == 0) {
                checkStalled(what);
            }
            if (events) {
                awaitEvent(cq, what);
            } else {
                spinWait(spins);
            }
        }
    }

    /**
     * {@code ctx_notify_events}: waits for the CQ's event, acknowledges it and re-arms.
     *
     * @param cq the CQ
     * @param what what is waited for, for the failure
     */
    void awaitEvent(CompletionQueue cq, String what) {
        CompletionQueue got;
        try {
            got = channel.getEvent(timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ToolFailure("interrupted while waiting for " + what, e);
        }
        if (got == null) {
            throw new ToolFailure("no " + what + " within " + timeout.toSeconds() + " s (peer silent)");
        }
        channel.ackEvents(got, 1);
        got.requestNotify(false);
    }

    /**
     * One idle turn of a loop that found nothing: a look at the stall flag now and then, then
     * {@link #spinWait}.
     *
     * @param idle idle turns so far
     * @param what what is waited for, for the failure
     * @return idle turns, this one included
     */
    int idleCheck(int idle, String what) {
        if ((++idle & CLOCK_CHECK_MASK) == 0) {
            checkStalled(what);
        }
        spinWait(idle);
        return idle;
    }

    /**
     * One idle turn of a busy-poll: a spin hint, and after {@link #SPINS_BEFORE_YIELD} turns a
     * yield, so the transport's own engine threads get a core when the pollers of both sides
     * share a small machine (the kernel's siw runs in softirq context and never needs this).
     *
     * @param idle idle turns so far
     */
    static void spinWait(int idle) {
        if (idle > SPINS_BEFORE_YIELD) {
            Thread.yield();
        } else {
            Thread.onSpinWait();
        }
    }

    /**
     * Ends the run when the run monitor saw no progress for the timeout.
     *
     * @param what what was waited for, for the failure
     */
    void checkStalled(String what) {
        if (stalled) {
            throw new ToolFailure("the peer went silent: no " + what + " for " + timeout.toSeconds() + " s");
        }
    }

    /**
     * The failure of a completion in error.
     *
     * @param what what completed
     * @param c the completion
     * @param scnt messages posted
     * @param ccnt messages completed
     * @return the failure, to throw
     */
    ToolFailure completionError(String what, WorkCompletion c, long scnt, long ccnt) {
        return new ToolFailure("Completion with error at " + (server ? "server" : "client") + ": " + what
                + " completed with status " + c.status() + " (scnt=" + scnt + ", ccnt=" + ccnt + ")");
    }

    /**
     * Polls what is still outstanding after a run so the QPs end quiet, for at most the timeout.
     *
     * @param cq the CQ
     * @param outstandingMessages messages whose completions are still due
     * @param cqMod messages per completion
     */
    void drain(CompletionQueue cq, long outstandingMessages, int cqMod) {
        long left = (outstandingMessages + cqMod - 1) / cqMod;
        long deadline = System.nanoTime() + timeout.toNanos();
        while (left > 0 && System.nanoTime() - deadline < 0) {
            int ne = cq.poll(wc, 0, DataPath.POLL_BATCH);
            left -= ne;
            if (ne == 0) {
                Thread.onSpinWait();
            }
        }
    }
}
