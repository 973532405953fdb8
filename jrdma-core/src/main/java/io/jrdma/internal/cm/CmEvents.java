package io.jrdma.internal.cm;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmState;

/**
 * Control-plane observations of the connection manager (the observability layer hooks JFR events
 * and counters here): id state changes, events, backlog overflows. Logging goes through
 * {@link System.Logger} with the id prefix {@code [cm N]}.
 */
public class CmEvents {
    private static final System.Logger LOG = System.getLogger("io.jrdma.cm");

    /** An id changed state. */
    public void idStateChanged(CmIdImpl id, CmState from, CmState to) {
        if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
            LOG.log(System.Logger.Level.DEBUG, "[cm " + id.handle + "] " + from + " -> " + to);
        }
    }

    /** An event is about to be delivered. */
    public void cmEvent(CmIdImpl id, CmEvent e) {
        if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
            LOG.log(System.Logger.Level.DEBUG, "[cm " + id.handle + "] " + e);
        }
    }

    /** A listener rejected a request because its backlog was full. */
    public void backlogOverflow(CmIdImpl listener) {
        LOG.log(System.Logger.Level.INFO, "[cm " + listener.handle + "] backlog of " + listener.backlog()
                + " full: request rejected");
    }
}
