package com.ibm.disni.verbs;

import java.io.IOException;

/**
 * A connection-manager event ({@code struct rdma_cm_event}). {@link #getEvent()} is the ordinal of
 * {@link EventType}, librdmacm's value. {@link #getStatus()} is librdmacm's status: 0, a negative errno, or for a
 * REJECTED event on IB/RoCE the positive IB reject reason (28: the peer's application rejected). The parameters of
 * {@link #getConn()} carry the peer's private data: what it sent with a request, an accept or a reject.
 */
public class RdmaCmEvent {
    private final RdmaCm cm;

    /** librdmacm's event types, in librdmacm's order ({@code ordinal()} is the value). */
    public enum EventType {
        /** Address resolved. */
        RDMA_CM_EVENT_ADDR_RESOLVED,
        /** Address resolution failed. */
        RDMA_CM_EVENT_ADDR_ERROR,
        /** Route resolved. */
        RDMA_CM_EVENT_ROUTE_RESOLVED,
        /** Route resolution failed. */
        RDMA_CM_EVENT_ROUTE_ERROR,
        /** A connection request arrived; the event's connection id is the new connection's. */
        RDMA_CM_EVENT_CONNECT_REQUEST,
        /** A reply arrived (ids without a QP). */
        RDMA_CM_EVENT_CONNECT_RESPONSE,
        /** Connection setup failed. */
        RDMA_CM_EVENT_CONNECT_ERROR,
        /** The peer did not answer. */
        RDMA_CM_EVENT_UNREACHABLE,
        /** The peer rejected the connection. */
        RDMA_CM_EVENT_REJECTED,
        /** The connection is up. */
        RDMA_CM_EVENT_ESTABLISHED,
        /** The connection went down. */
        RDMA_CM_EVENT_DISCONNECTED,
        /** The device went away. */
        RDMA_CM_EVENT_DEVICE_REMOVAL,
        /** A multicast join completed. */
        RDMA_CM_EVENT_MULTICAST_JOIN,
        /** A multicast join failed. */
        RDMA_CM_EVENT_MULTICAST_ERROR,
        /** The address changed. */
        RDMA_CM_EVENT_ADDR_CHANGE,
        /** The connection left timewait. */
        RDMA_CM_EVENT_TIMEWAIT_EXIT
    }

    protected int event;
    protected int status;
    protected RdmaCmId listenIdPriv;
    protected RdmaCmId connIdPriv;
    protected RdmaConnParam conn;

    /**
     * An event of type {@code event}.
     *
     * @param event an {@link EventType} ordinal
     * @param listenId the listening id (connection requests), or {@code null}
     * @param clientId the id the event is for
     * @throws IOException if the connection manager cannot be opened
     */
    public RdmaCmEvent(int event, RdmaCmId listenId, RdmaCmId clientId) throws IOException {
        this.cm = RdmaCm.open();
        this.event = event;
        this.status = -1;
        this.listenIdPriv = listenId;
        this.connIdPriv = clientId;
        this.conn = new RdmaConnParam();
    }

    /**
     * The event type.
     *
     * @return an {@link EventType} ordinal
     */
    public int getEvent() {
        return event;
    }

    /**
     * The status: 0, a negative errno, or the IB reject reason of a REJECTED event on IB/RoCE.
     *
     * @return the status
     */
    public int getStatus() {
        return status;
    }

    /**
     * The listening id of a connection request.
     *
     * @return the listener, or {@code null} for other events
     */
    public RdmaCmId getListenIdPriv() {
        return listenIdPriv;
    }

    /**
     * The id the event is for: the new connection's id for a connection request.
     *
     * @return the id
     */
    public RdmaCmId getConnIdPriv() {
        return connIdPriv;
    }

    /**
     * The connection parameters the peer sent, with its private data.
     *
     * @return the parameters (empty for events without any)
     */
    public RdmaConnParam getConn() {
        return conn;
    }

    /**
     * {@code rdma_ack_cm_event}.
     *
     * @throws IOException never; declared as DiSNI declares it
     */
    public void ackEvent() throws IOException {
        cm.ackCmEvent(this);
    }

    @Override
    public String toString() {
        String name = event >= 0 && event < EventType.values().length ? EventType.values()[event].name()
                : Integer.toString(event);
        return name + " status=" + status;
    }
}
