package io.jrdma.cm;

/**
 * An iWARP CM event handler ({@code iw_cm_handler}); events for one id come one at a time, in order,
 * on the thread of the provider that raised them (for siw an engine thread: keep handlers short and
 * non-blocking, as kernel iw_cm handlers are). An event the handler itself causes for its id (accept
 * raising ESTABLISHED) is delivered after the handler returns.
 */
@FunctionalInterface
public interface IwCmHandler {
    /**
     * Handles an event. Linux: {@code iw_cm_handler}; returning true is its non-zero return, which destroys the id.
     *
     * @return {@code true} to destroy the id after the handler returns
     */
    boolean onEvent(IwCmId id, IwCmEvent event);
}
