package io.jrdma.cm;

/**
 * rdma_cm event types ({@code enum rdma_cm_event_type}); {@link #str()} is {@code rdma_event_str}.
 */
public enum CmEventType {
    /** resolveAddr succeeded: the id is bound to a device. */
    ADDR_RESOLVED,
    /** resolveAddr failed (status: -errno). */
    ADDR_ERROR,
    /** resolveRoute succeeded. */
    ROUTE_RESOLVED,
    /** resolveRoute failed. */
    ROUTE_ERROR,
    /** A connection request arrived on a listener: the event's id is a new id for the connection. */
    CONNECT_REQUEST,
    /** The active side got a reply and must call accept(null) (IB/RoCE, no QP on the id). */
    CONNECT_RESPONSE,
    /** Connection setup failed after a reply. */
    CONNECT_ERROR,
    /** The remote side did not answer (timeout) or could not be reached. */
    UNREACHABLE,
    /** The remote side rejected the connection; status is the reason, private data may follow. */
    REJECTED,
    /** The connection is up; for UD ids it carries the remote QPN and Q_Key. */
    ESTABLISHED,
    /** The connection went down. */
    DISCONNECTED,
    /**
     * The device of the id is being removed: the id is in state DEVICE_REMOVAL, its QP in ERROR, and the
     * user must destroy it (a kernel-style handler may return true).
     */
    DEVICE_REMOVAL,
    /**
     * A multicast join completed: the event's UD parameters carry the group's address vector, QPN
     * 0xFFFFFF and Q_Key; the id's QP, if any, is attached to the group.
     */
    MULTICAST_JOIN,
    /** A multicast join failed (status: -errno), e.g. the id's QP could not be attached to the group. */
    MULTICAST_ERROR,
    /** The address of the id's device changed. */
    ADDR_CHANGE,
    /** The connection left timewait (IB/RoCE): its QP may be reused. */
    TIMEWAIT_EXIT;

    /** {@code rdma_event_str}: e.g. {@code RDMA_CM_EVENT_ESTABLISHED}. */
    public String str() {
        return "RDMA_CM_EVENT_" + name();
    }
}
