package io.jrdma.cm;

/** iWARP CM event types ({@code enum iw_cm_event_type}, include/rdma/iw_cm.h). */
public enum IwCmEventType {
    /** A connection request arrived on a listening id; the event names the new id. */
    CONNECT_REQUEST,
    /** The reply to a connect arrived (status 0) or the connect failed (status -errno). */
    CONNECT_REPLY,
    /** The connection is up. */
    ESTABLISHED,
    /** The peer started an orderly disconnect. */
    DISCONNECT,
    /** The connection is closed; no more events follow. */
    CLOSE
}
