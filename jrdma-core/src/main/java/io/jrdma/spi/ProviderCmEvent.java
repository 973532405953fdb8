package io.jrdma.spi;

import io.jrdma.cm.CmEventType;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.UdParam;
import java.net.InetAddress;

/**
 * An event of a {@link ProviderCmId}, copied out of the provider's CM ({@code struct rdma_cm_event}).
 *
 * @param type the event type
 * @param status 0, a negative errno, or the transport's reject status
 * @param newId for CONNECT_REQUEST the request's new id, else null
 * @param param the connection parameters the event carries (private data, the peer's depths), or null
 * @param ud for an id of the UDP port space, what the event carries ({@code struct rdma_ud_param}: the
 *     SIDR request's private data, the peer's or the group's address vector, QP number and Q_Key), or null
 * @param group for MULTICAST_JOIN and MULTICAST_ERROR, the group of the {@link ProviderCmId#joinMulticast}
 *     the event answers; else null
 */
public record ProviderCmEvent(CmEventType type, int status, ProviderCmId newId, ConnParam param, UdParam ud,
        InetAddress group) {
    /**
     * An event of a connected port space, without datagram parameters.
     *
     * @param type the event type
     * @param status 0, a negative errno, or the transport's reject status
     * @param newId for CONNECT_REQUEST the request's new id, else null
     * @param param the connection parameters the event carries, or null
     */
    public ProviderCmEvent(CmEventType type, int status, ProviderCmId newId, ConnParam param) {
        this(type, status, newId, param, null, null);
    }

    /**
     * Checks the event.
     *
     * @throws IllegalArgumentException without a type, or when a CONNECT_REQUEST lacks its new id
     */
    public ProviderCmEvent {
        if (type == null) {
            throw new IllegalArgumentException("an event needs a type");
        }
        if (type == CmEventType.CONNECT_REQUEST && newId == null) {
            throw new IllegalArgumentException("a CONNECT_REQUEST carries its new id");
        }
        if ((type == CmEventType.MULTICAST_JOIN || type == CmEventType.MULTICAST_ERROR) && group == null) {
            throw new IllegalArgumentException("a " + type + " names its group");
        }
    }
}
