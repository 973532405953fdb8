package io.jrdma.internal.cm;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmState;
import io.jrdma.cm.CmStrings;
import io.jrdma.internal.obs.Trace;
import io.jrdma.verbs.Errno;
import java.net.InetSocketAddress;

/**
 * Control-plane observations of the connection manager: id state changes, events, backlog
 * overflows. Each becomes a JFR event ({@code jrdma.CmIdState}, {@code jrdma.CmEvent} with the reject
 * reason; {@link Trace}) and a log line through {@link System.Logger} with the id prefix
 * {@code [cm N]}: DEBUG for every state change and event, INFO for connections that failed
 * (REJECTED, UNREACHABLE, CONNECT_ERROR) and backlog overflows.
 */
public class CmEvents {
    private static final System.Logger LOG = System.getLogger("io.jrdma.cm");

    /** An id changed state. */
    public void idStateChanged(CmIdImpl id, CmState from, CmState to) {
        Trace.cmIdState(id.handle, id.portSpace().name(), from.name(), to.name());
        if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
            LOG.log(System.Logger.Level.DEBUG, "[cm " + id.handle + "] " + from + " -> " + to);
        }
    }

    /** An event is about to be delivered. */
    public void cmEvent(CmIdImpl id, CmEvent e) {
        CmEventType t = e.type();
        boolean failed = t == CmEventType.REJECTED || t == CmEventType.UNREACHABLE || t == CmEventType.CONNECT_ERROR
                || t == CmEventType.ADDR_ERROR || t == CmEventType.ROUTE_ERROR;
        if (Trace.cmEventEnabled()) {
            Trace.cmEvent(id.handle, t.str(), e.status(), reason(id, e),
                    id.device() == null ? null : id.device().name(), text(id.localAddress()), text(id.peerAddress()),
                    id.qp() == null ? 0 : id.qp().qpNum());
        }
        System.Logger.Level level = failed ? System.Logger.Level.INFO : System.Logger.Level.DEBUG;
        if (LOG.isLoggable(level)) {
            String r = reason(id, e);
            LOG.log(level, "[cm " + id.handle + "] " + e + (r.isEmpty() ? "" : " (" + r + ")"));
        }
    }

    /**
     * Why an event failed: {@code rdma_reject_msg} for REJECTED, the errno for a negative status,
     * empty otherwise.
     */
    static String reason(CmIdImpl id, CmEvent e) {
        if (e.type() == CmEventType.REJECTED) {
            return CmStrings.rejectMsg(id, e.status());
        }
        if (e.status() < 0) {
            Errno errno = Errno.of(e.status());
            return errno == null ? "errno " + -e.status() : errno.name();
        }
        return "";
    }

    private static String text(InetSocketAddress a) {
        if (a == null) {
            return null;
        }
        return (a.getAddress() == null ? a.getHostString() : a.getAddress().getHostAddress()) + ":" + a.getPort();
    }

    /** A listener rejected a request because its backlog was full. */
    public void backlogOverflow(CmIdImpl listener) {
        LOG.log(System.Logger.Level.INFO, "[cm " + listener.handle + "] backlog of " + listener.backlog()
                + " full: request rejected");
    }
}
