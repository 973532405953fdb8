package io.jrdma.verbs;

/** Logical port state ({@code enum ibv_port_state}). */
public enum PortState {
    /** Reserved/no state change. */
    NOP,
    /** The link is down. */
    DOWN,
    /** Initializing. */
    INIT,
    /** Armed. */
    ARMED,
    /** Active: usable. */
    ACTIVE,
    /** Deferred activation. */
    ACTIVE_DEFER
}
