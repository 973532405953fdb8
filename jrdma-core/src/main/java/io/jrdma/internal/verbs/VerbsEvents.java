package io.jrdma.internal.verbs;

import io.jrdma.internal.obs.Trace;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.QpState;

/**
 * The observations core makes about verbs objects: registrations, QP creation and state changes.
 * Each becomes a JFR event ({@link Trace}) and a DEBUG log line with the id prefix
 * ({@code [qp 0x11]}, {@code [mr 0x...]}). QP state changes may come from an engine thread (a QP
 * entering ERR); with JFR off and DEBUG off they cost a few reads and allocate nothing.
 */
public class VerbsEvents {
    private static final System.Logger LOG = System.getLogger("io.jrdma.verbs");

    /** A memory region was registered. */
    public void mrRegistered(MrImpl mr) {
        if (Trace.mrRegisterEnabled()) {
            Trace.mrRegister(mr.pdImpl().contextImpl().deviceImpl().name(), mr.lkey(), mr.rkey(), mr.address(),
                    mr.length(), Access.toString(mr.access()));
        }
        if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
            LOG.log(System.Logger.Level.DEBUG, "[mr 0x" + Integer.toHexString(mr.lkey()) + "] registered " + mr);
        }
    }

    /** A memory region was deregistered. */
    public void mrDeregistered(MrImpl mr) {
        Trace.mrDeregister(mr.pdImpl().contextImpl().deviceImpl().name(), mr.lkey(), mr.rkey(), mr.length());
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
        Trace.qpState(qp.deviceImpl().name(), qp.qpNum(), qp.type().name(), from.name(), to.name());
        if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
            LOG.log(System.Logger.Level.DEBUG, "[qp 0x" + Integer.toHexString(qp.qpNum()) + "] " + from + " -> " + to);
        }
    }
}
