package io.jrdma.spi;

import io.jrdma.cm.CmEventType;
import io.jrdma.cm.ConnParam;

/**
 * An event of a {@link ProviderCmId}, copied out of the provider's CM ({@code struct rdma_cm_event}).
 *
 * @param type the event type
 * @param status 0, a negative errno, or the transport's reject status
 * @param newId for CONNECT_REQUEST the request's new id, else null
 * @param param the connection parameters the event carries (private data, the peer's depths), or null
 */
public record ProviderCmEvent(CmEventType type, int status, ProviderCmId newId, ConnParam param) {
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
    }
}
