package io.jrdma.cm;

/**
 * A connection-manager event ({@code struct rdma_cm_event}).
 *
 * @param type the event type
 * @param id the id the event is for; for CONNECT_REQUEST the new id of the connection
 * @param listenId for CONNECT_REQUEST, the listening id; otherwise {@code null}
 * @param status 0, a negative errno, or for REJECTED on IB/RoCE the positive IB reject reason
 * @param param connection parameters (CONNECT_REQUEST, CONNECT_RESPONSE, ESTABLISHED, REJECTED's
 *     private data) or {@code null}
 * @param ud UD parameters for UDP-port-space ids, or {@code null}
 * @param ece the remote side's ECE, or {@link Ece#NONE}
 */
public record CmEvent(CmEventType type, CmId id, CmId listenId, int status, ConnParam param, UdParam ud, Ece ece) {
    /**
     * The private data of the event (empty if none). Linux: {@code rdma_cm_event.param.conn.private_data} (or
     * {@code param.ud.private_data}).
     */
    public byte[] privateData() {
        if (param != null) {
            return param.privateData();
        }
        if (ud != null) {
            return ud.privateData();
        }
        return new byte[0];
    }

    @Override
    public String toString() {
        return type.str() + " status=" + status + (param != null ? " " + param : "") + (ud != null
                ? " ud[qpn=0x" + Integer.toHexString(ud.qpNum()) + ", qkey=0x" + Integer.toHexString(ud.qkey()) + "]"
                : "");
    }
}
