package io.jrdma.internal.verbs;

import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.Sge;

/**
 * A receive queue slot: a copy of a posted {@link RecvWr}, preallocated with its queue. Engines
 * keep their placement progress in {@link #rxOffset}.
 */
public final class RecvWqe {
    /** The work request id. */
    public long wrId;
    /** Number of SGEs. */
    public int numSge;
    /** SGE virtual addresses. */
    public final long[] sgeAddr;
    /** SGE lengths. */
    public final int[] sgeLength;
    /** SGE lkeys. */
    public final int[] sgeLkey;
    /** Total length of the scatter list. */
    public long length;
    /** Provider progress: bytes placed so far. */
    public long rxOffset;

    RecvWqe(int maxSge) {
        sgeAddr = new long[Math.max(1, maxSge)];
        sgeLength = new int[Math.max(1, maxSge)];
        sgeLkey = new int[Math.max(1, maxSge)];
    }

    void copyFrom(RecvWr wr) {
        wrId = wr.wrId();
        int n = wr.numSge();
        numSge = n;
        long total = 0;
        for (int i = 0; i < n; i++) {
            Sge s = wr.sge(i);
            sgeAddr[i] = s.addr();
            sgeLength[i] = s.length();
            sgeLkey[i] = s.lkey();
            total += s.length() & 0xFFFFFFFFL;
        }
        length = total;
        rxOffset = 0;
    }

    /** Copies another slot (SRQ hand-over to a QP). */
    public void copyFrom(RecvWqe o) {
        wrId = o.wrId;
        numSge = o.numSge;
        System.arraycopy(o.sgeAddr, 0, sgeAddr, 0, o.numSge);
        System.arraycopy(o.sgeLength, 0, sgeLength, 0, o.numSge);
        System.arraycopy(o.sgeLkey, 0, sgeLkey, 0, o.numSge);
        length = o.length;
        rxOffset = 0;
    }
}
