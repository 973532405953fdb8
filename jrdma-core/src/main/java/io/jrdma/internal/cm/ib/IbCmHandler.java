package io.jrdma.internal.cm.ib;

/** Receives the events of an IB CM id ({@code ib_cm_handler}); called on the IB CM's thread, must not block. */
@FunctionalInterface
public interface IbCmHandler {
    /** Handles an event. */
    void onEvent(IbCmId id, IbCmEvent event);
}
