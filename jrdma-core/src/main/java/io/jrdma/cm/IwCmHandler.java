package io.jrdma.cm;

/** An iWARP CM event handler ({@code iw_cm_handler}); events for one id come one at a time. */
@FunctionalInterface
public interface IwCmHandler {
    /**
     * Handles an event. Linux: {@code iw_cm_handler}; returning true is its non-zero return, which destroys the id.
     *
     * @return {@code true} to destroy the id after the handler returns
     */
    boolean onEvent(IwCmId id, IwCmEvent event);
}
