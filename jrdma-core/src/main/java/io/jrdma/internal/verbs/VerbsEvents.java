package io.jrdma.internal.verbs;

import io.jrdma.verbs.QpState;

/**
 * The control-plane observations core makes about verbs objects: registrations, QP creation and
 * state changes. The observability layer (JFR events, logging) hooks in here; nothing on the data
 * path calls it.
 */
public class VerbsEvents {
    private static final System.Logger LOG = System.getLogger("io.jrdma.verbs");

    /** A memory region was registered. */
    public void mrRegistered(MrImpl mr) {
        if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
            LOG.log(System.Logger.Level.DEBUG, "[mr 0x" + Integer.toHexString(mr.lkey()) + "] registered " + mr);
        }
    }

    /** A memory region was deregistered. */
    public void mrDeregistered(MrImpl mr) {
        if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
            LOG.log(System.Logger.Level.DEBUG, "[mr 0x" + Integer.toHexString(mr.lkey()) + "] deregistered");
        }
    }

    /** A QP was created. */
    public void qpCreated(QpImpl qp) {
        if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
            LOG.log(System.Logger.Level.DEBUG, "[qp 0x" + Integer.toHexString(qp.qpNum()) + "] created " + qp.type());
        }
    }

    /** A QP changed state (by a modify or from its engine). */
    public void qpStateChanged(QpImpl qp, QpState from, QpState to) {
        if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
            LOG.log(System.Logger.Level.DEBUG, "[qp 0x" + Integer.toHexString(qp.qpNum()) + "] " + from + " -> " + to);
        }
    }
}
