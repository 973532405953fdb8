package io.jrdma.cm;

/**
 * A kernel-style event handler ({@code rdma_cm_event_handler}). Events for one id are delivered one
 * at a time, on the connection manager's executor.
 */
@FunctionalInterface
public interface CmEventHandler {
    /**
     * Handles an event. Linux: the kernel's {@code rdma_cm_event_handler}; returning true is its non-zero return, which
     * destroys the id.
     *
     * @return {@code true} to have {@code id} destroyed once the handler returns (the kernel's
     *     non-zero return); the id must not be used after that
     */
    boolean onEvent(CmId id, CmEvent event);
}
