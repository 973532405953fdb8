package io.jrdma.internal.obs;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

/**
 * A connection-manager event was delivered ({@code struct rdma_cm_event}): connection requests,
 * ESTABLISHED, REJECTED with its reason, UNREACHABLE, DISCONNECTED and the rest.
 */
@Name("jrdma.CmEvent")
@Label("CM Event")
@Category({"jrdma", "Connection Manager"})
@Description("An rdma_cm event delivered to an id, with its status and, for rejects, the reason")
final class CmEventEvent extends jdk.jfr.Event {
    @Label("Id")
    int id;

    @Label("Event")
    @Description("rdma_event_str, e.g. RDMA_CM_EVENT_ESTABLISHED")
    String event;

    @Label("Status")
    @Description("0, a negative errno, or (REJECTED on IB/RoCE) the IB reject reason")
    int status;

    @Label("Reason")
    @Description("rdma_reject_msg for REJECTED, the errno name for other failures, empty otherwise")
    String reason;

    @Label("Device")
    String device;

    @Label("Local Address")
    String local;

    @Label("Peer Address")
    String peer;

    @Label("QP Number")
    int qpNum;
}
