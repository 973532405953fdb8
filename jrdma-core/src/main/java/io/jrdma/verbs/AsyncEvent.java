package io.jrdma.verbs;

/**
 * An asynchronous event ({@code struct ibv_async_event}). Exactly one of {@code qp}, {@code cq},
 * {@code srq} is set for resource events; {@code port} is set for port events.
 *
 * @param type the event type
 * @param qp the QP the event is about, or {@code null}
 * @param cq the CQ the event is about, or {@code null}
 * @param srq the SRQ the event is about, or {@code null}
 * @param port the port number for port events, else 0
 * @param detail a short human-readable reason (jrdma's addition), never {@code null}
 */
public record AsyncEvent(AsyncEventType type, QueuePair qp, CompletionQueue cq, SharedReceiveQueue srq, int port,
        String detail) {
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(type.name());
        if (qp != null) {
            sb.append(" qp 0x").append(Integer.toHexString(qp.qpNum()));
        }
        if (cq != null) {
            sb.append(" cq");
        }
        if (srq != null) {
            sb.append(" srq");
        }
        if (port != 0) {
            sb.append(" port ").append(port);
        }
        if (!detail.isEmpty()) {
            sb.append(": ").append(detail);
        }
        return sb.toString();
    }
}
