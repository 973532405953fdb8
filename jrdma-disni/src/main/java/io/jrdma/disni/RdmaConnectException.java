package io.jrdma.disni;

import java.io.IOException;

/**
 * An {@code RdmaEndpoint.connect} (or a server endpoint's accept) that failed: the connection manager reported an
 * error event, or no answer came in time. It is an {@link IOException}, so code written for DiSNI catches it as
 * before; code written for jrdma-disni can read why: the event ({@code RdmaCmEvent.EventType} ordinal), its status
 * (a negative errno, or the IB reject reason of a REJECTED event on IB/RoCE), and the private data the peer sent
 * with its reject.
 */
public class RdmaConnectException extends IOException {
    private static final long serialVersionUID = 1L;

    /** {@link #eventType()} when no event came: the wait ran out. */
    public static final int NO_EVENT = -1;

    private final int eventType;
    private final int status;
    private final byte[] privateData;

    /**
     * A failure.
     *
     * @param message what failed
     * @param eventType the event's {@code RdmaCmEvent.EventType} ordinal, or {@link #NO_EVENT}
     * @param status the event's status
     * @param privateData the peer's private data (copied), or {@code null}
     */
    public RdmaConnectException(String message, int eventType, int status, byte[] privateData) {
        super(message);
        this.eventType = eventType;
        this.status = status;
        this.privateData = privateData == null ? new byte[0] : privateData.clone();
    }

    /**
     * The connection manager's event that ended the attempt.
     *
     * @return an {@code RdmaCmEvent.EventType} ordinal (8 for REJECTED, 7 for UNREACHABLE), or {@link #NO_EVENT}
     */
    public int eventType() {
        return eventType;
    }

    /**
     * The event's status.
     *
     * @return 0, a negative errno, or an IB reject reason
     */
    public int status() {
        return status;
    }

    /**
     * The private data the peer sent with its reject (empty if none).
     *
     * @return a copy of the bytes
     */
    public byte[] privateData() {
        return privateData.clone();
    }
}
