package io.jrdma.cm;

import java.net.InetSocketAddress;

/**
 * An iWARP CM event ({@code struct iw_cm_event}).
 *
 * @param type the event type
 * @param status 0 or a negative errno (CONNECT_REPLY: -ECONNRESET for an MPA reject, -ECONNREFUSED,
 *     -ETIMEDOUT)
 * @param localAddress local address of the connection
 * @param remoteAddress remote address of the connection
 * @param privateData the peer's private data (CONNECT_REQUEST, CONNECT_REPLY)
 * @param ird the peer's inbound READ depth
 * @param ord the peer's outbound READ depth
 * @param newId for CONNECT_REQUEST, the id to accept or reject
 */
public record IwCmEvent(IwCmEventType type, int status, InetSocketAddress localAddress,
        InetSocketAddress remoteAddress, byte[] privateData, int ird, int ord, IwCmId newId) {
    /** Copies the private data. Linux: {@code struct iw_cm_event}. */
    public IwCmEvent {
        privateData = privateData == null ? new byte[0] : privateData.clone();
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }
}
