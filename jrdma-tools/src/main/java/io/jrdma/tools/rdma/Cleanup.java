package io.jrdma.tools.rdma;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Releases what a tool set up, last first: QPs before CQs, CQs before the event channel, ids
 * before the connection manager. Each release runs even when an earlier one failed; the first
 * failure is kept (and the later ones added to it as suppressed) for {@link #firstFailure()}.
 * Teardown never throws: a tool that already reported its result should not fail in cleanup.
 */
public final class Cleanup implements AutoCloseable {

    private final Deque<AutoCloseable> stack = new ArrayDeque<>();
    private Exception firstFailure;

    /** Creates an empty stack. */
    public Cleanup() {
    }

    /**
     * Registers a resource to close at {@link #close()}.
     *
     * @param <T> the resource type
     * @param resource the resource, or null (ignored)
     * @return the resource
     */
    public <T extends AutoCloseable> T add(T resource) {
        if (resource != null) {
            stack.push(resource);
        }
        return resource;
    }

    /**
     * Registers an action to run at {@link #close()}.
     *
     * @param action the action
     */
    public void onClose(Runnable action) {
        stack.push(action::run);
    }

    /**
     * The first failure seen while closing, if any.
     *
     * @return the exception, or null
     */
    public Exception firstFailure() {
        return firstFailure;
    }

    /** Closes everything registered, most recent first, and keeps going past failures. */
    @Override
    public void close() {
        while (!stack.isEmpty()) {
            AutoCloseable c = stack.pop();
            try {
                c.close();
            } catch (Exception e) {
                if (firstFailure == null) {
                    firstFailure = e;
                } else {
                    firstFailure.addSuppressed(e);
                }
            }
        }
    }
}
