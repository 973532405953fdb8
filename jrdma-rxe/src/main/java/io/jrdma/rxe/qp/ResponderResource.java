package io.jrdma.rxe.qp;

import io.jrdma.internal.roce.Psn;

/**
 * One responder resource (rxe's {@code struct resp_res}; IBTA's responder resources, the IRD): what
 * the responder remembers of an RDMA READ or an atomic so that a duplicate request can be answered:
 * a READ is executed again over the memory it named, an atomic is answered with the original value
 * it returned (the reply cache) and not executed twice. The QP keeps {@code max_dest_rd_atomic} of
 * them in a ring and recycles the oldest.
 */
final class ResponderResource {
    /** Unused. */
    static final int NONE = 0;
    /** An RDMA READ. */
    static final int READ = 1;
    /** An atomic. */
    static final int ATOMIC = 2;

    int type = NONE;
    int firstPsn;
    int lastPsn;
    int curPsn;
    /** A duplicate request is being answered. */
    boolean replay;
    /** The next READ response is the first of a (re)started reply. */
    boolean fresh;
    long va;
    long vaOrg;
    long resid;
    long length;
    int rkey;
    long originalValue;

    /** Whether {@code psn} lies within this resource's PSN range. */
    boolean covers(int psn) {
        return type != NONE && Psn.diff(psn, firstPsn) >= 0 && Psn.diff(psn, lastPsn) <= 0;
    }
}
