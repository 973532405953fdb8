package io.jrdma.cm;

/**
 * The state of an rdma_cm id ({@code enum rdma_cm_state}, drivers/infiniband/core/cma_priv.h).
 */
public enum CmState {
    /** Created, not bound; bind → ADDR_BOUND, resolveAddr → ADDR_QUERY. */
    IDLE,
    /** Address resolution running; → ADDR_RESOLVED or back to ADDR_BOUND/IDLE on error. */
    ADDR_QUERY,
    /** Address resolved, device chosen; resolveRoute → ROUTE_QUERY. */
    ADDR_RESOLVED,
    /** Route resolution running; → ROUTE_RESOLVED or back to ADDR_RESOLVED on error. */
    ROUTE_QUERY,
    /** Route resolved; connect → CONNECT. */
    ROUTE_RESOLVED,
    /** Connecting or connected; disconnect → DISCONNECT. */
    CONNECT,
    /** Disconnected (or disconnecting). */
    DISCONNECT,
    /** Bound to an address; listen → LISTEN, resolveAddr → ADDR_QUERY. */
    ADDR_BOUND,
    /** Listening for connection requests. */
    LISTEN,
    /** The device is being removed. */
    DEVICE_REMOVAL,
    /** Being destroyed: no more events. */
    DESTROYING
}
