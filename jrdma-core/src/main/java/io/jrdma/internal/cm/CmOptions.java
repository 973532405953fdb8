package io.jrdma.internal.cm;

import io.jrdma.cm.CmState;
import io.jrdma.verbs.QpType;

/**
 * The options of one id ({@code rdma_set_option}): TOS, REUSEADDR and AFONLY (before bind), the ACK
 * timeout and the minimum RNR timer of RC ids. Guarded by the id's lock.
 */
final class CmOptions {
    private final CmIdImpl id;
    private boolean reuseAddr;
    private boolean afOnly;
    private boolean afOnlySet;
    private volatile int tos = -1;
    private volatile int ackTimeout = -1;
    private volatile int minRnrTimer = -1;

    CmOptions(CmIdImpl id) {
        this.id = id;
    }

    int tos() {
        return tos;
    }

    int ackTimeout() {
        return ackTimeout;
    }

    int minRnrTimer() {
        return minRnrTimer;
    }

    boolean afOnly() {
        synchronized (id) {
            return afOnly;
        }
    }

    /** Whether the user set AFONLY (else bind decides it). */
    boolean afOnlySet() {
        synchronized (id) {
            return afOnlySet;
        }
    }

    boolean reuseAddr() {
        synchronized (id) {
            return reuseAddr;
        }
    }

    /** A request's id takes its listener's TOS. */
    void inheritTos(int t) {
        tos = t;
    }

    /** AFONLY as the user set it, or (bind) {@code otherwise} from now on if the user did not. */
    boolean afOnlyOr(boolean otherwise) {
        synchronized (id) {
            if (!afOnlySet) {
                afOnly = otherwise;
            }
            return afOnly;
        }
    }

    void setTos(int t) {
        synchronized (id) {
            id.checkAlive();
            if (t < 0 || t > 255) {
                throw new IllegalArgumentException("TOS is 8 bits: " + t);
            }
            tos = t;
        }
    }

    void setReuseAddr(boolean reuse) {
        synchronized (id) {
            checkIdle("REUSEADDR");
            reuseAddr = reuse;
        }
    }

    void setAfOnly(boolean only) {
        synchronized (id) {
            checkIdle("AFONLY");
            afOnly = only;
            afOnlySet = true;
        }
    }

    private void checkIdle(String option) {
        id.checkAlive();
        if (id.state() != CmState.IDLE) {
            throw new IllegalStateException(id.tag() + " " + option + " must be set before bind (state "
                    + id.state() + ")");
        }
    }

    void setAckTimeout(int t) {
        synchronized (id) {
            checkRc("the ACK timeout");
            if (t < 0 || t > 31) {
                throw new IllegalArgumentException("ACK timeout is 5 bits: " + t);
            }
            ackTimeout = t;
        }
    }

    void setMinRnrTimer(int code) {
        synchronized (id) {
            checkRc("the minimum RNR timer");
            if (code < 0 || code > 31) {
                throw new IllegalArgumentException("the RNR timer code is 5 bits: " + code);
            }
            minRnrTimer = code;
        }
    }

    private void checkRc(String option) {
        id.checkAlive();
        if (id.qpType() != QpType.RC) {
            throw new IllegalArgumentException(id.tag() + " " + option + " applies to RC ids only");
        }
    }
}
