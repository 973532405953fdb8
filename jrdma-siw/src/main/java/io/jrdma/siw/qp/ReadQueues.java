package io.jrdma.siw.qp;

import io.jrdma.internal.verbs.MrImpl;

/**
 * A QP's two RDMA READ queues (Linux siw's {@code orq} and {@code irq} in {@code siw_qp}): the ORQ holds
 * this side's outstanding READs, oldest first, as send queue indexes (or {@link #RTR_READ}); the IRQ holds
 * the peer's READ requests the transmit side still has to answer, with where each response comes from and
 * goes to. RFC 5040 §4.4 bounds them by the negotiated ORD and IRD. Both are rings whose arrays start empty
 * and double up to {@link #MAX_DEPTH} with the READs actually outstanding, so an idle QP holds none.
 * Engine thread only.
 */
final class ReadQueues {
    /** The deepest either queue gets (siw's {@code SIW_MAX_ORD_QP} and {@code SIW_MAX_IRD_QP}). */
    static final int MAX_DEPTH = 128;
    /** Entries allocated at the first READ; they double up to the negotiated ORD/IRD. */
    static final int START = 4;
    /** ORQ entry of the zero-length READ sent as RTR: not a send WQE, completes nothing. */
    static final long RTR_READ = -1L;

    private static final long[] EMPTY_LONGS = new long[0];
    private static final int[] EMPTY_INTS = new int[0];

    // ORQ: send queue indexes (or RTR_READ), a ring
    private long[] orq = EMPTY_LONGS;
    private int orqHead;
    private int orqCount;

    // IRQ: one entry per inbound READ request, a ring over parallel arrays
    private int[] irqSinkStag = EMPTY_INTS;
    private long[] irqSinkTo = EMPTY_LONGS;
    private int[] irqLength = EMPTY_INTS;
    private MrImpl[] irqSource = new MrImpl[0];
    private long[] irqSourceOff = EMPTY_LONGS;
    private int[] irqSent = EMPTY_INTS;
    private int irqHead;
    private int irqCount;

    /** Forgets every entry (a reset, a failed WQE); the arrays stay. */
    void clear() {
        orqHead = 0;
        orqCount = 0;
        irqHead = 0;
        irqCount = 0;
    }

    // ------------------------------------------------------------------------------------------- ORQ

    /** READs outstanding. */
    int orqCount() {
        return orqCount;
    }

    /** Forgets the outstanding READs (a failed WQE: they are flushed). */
    void orqClear() {
        orqHead = 0;
        orqCount = 0;
    }

    /** Queues {@code entry} (an SQ index or {@link #RTR_READ}) as the newest outstanding READ. */
    void orqAdd(long entry) {
        if (orqCount == orq.length) {
            orq = grown(orq, orqHead, orqCount, Math.max(START, orqCount * 2));
            orqHead = 0;
        }
        orq[(orqHead + orqCount) % orq.length] = entry;
        orqCount++;
    }

    /** The oldest outstanding READ; only while {@link #orqCount()} is positive. */
    long orqHead() {
        return orq[orqHead];
    }

    /** The oldest outstanding READ is over. */
    void orqPop() {
        orqHead = (orqHead + 1) % orq.length;
        orqCount--;
    }

    /** The {@code i}-th outstanding READ, oldest first (tests). */
    long orqEntry(int i) {
        return orq[(orqHead + i) % orq.length];
    }

    // ------------------------------------------------------------------------------------------- IRQ

    /** Inbound READs not yet answered completely. */
    int irqCount() {
        return irqCount;
    }

    /** The array index of the {@code k}-th unanswered READ, oldest first. */
    int irqIndex(int k) {
        return (irqHead + k) % irqSinkStag.length;
    }

    /**
     * Queues an inbound READ: {@code length} bytes from {@code source} at segment offset {@code sourceOff}
     * (no region for a zero-length READ), to the peer's {@code sinkStag} at {@code sinkTo}. The caller has
     * checked the IRD.
     */
    void irqAdd(int sinkStag, long sinkTo, int length, MrImpl source, long sourceOff) {
        if (irqCount == irqSinkStag.length) {
            growIrq();
        }
        int i = (irqHead + irqCount) % irqSinkStag.length;
        irqSinkStag[i] = sinkStag;
        irqSinkTo[i] = sinkTo;
        irqLength[i] = length;
        irqSource[i] = source;
        irqSourceOff[i] = sourceOff;
        irqSent[i] = 0;
        irqCount++;
    }

    /** The oldest inbound READ is answered completely (its last byte is on the wire). */
    void irqPop() {
        irqSource[irqHead] = null;
        irqHead = (irqHead + 1) % irqSinkStag.length;
        irqCount--;
    }

    int irqSinkStag(int i) {
        return irqSinkStag[i];
    }

    long irqSinkTo(int i) {
        return irqSinkTo[i];
    }

    int irqLength(int i) {
        return irqLength[i];
    }

    MrImpl irqSource(int i) {
        return irqSource[i];
    }

    long irqSourceOff(int i) {
        return irqSourceOff[i];
    }

    /** Response bytes of entry {@code i} already queued for transmit. */
    int irqSent(int i) {
        return irqSent[i];
    }

    void irqSent(int i, int sent) {
        irqSent[i] = sent;
    }

    /** Doubles the IRQ (up to {@link #MAX_DEPTH}), keeping its entries in order from index 0. */
    private void growIrq() {
        int n = Math.min(Math.max(START, irqCount * 2), MAX_DEPTH);
        irqSinkStag = grown(irqSinkStag, irqHead, irqCount, n);
        irqSinkTo = grown(irqSinkTo, irqHead, irqCount, n);
        irqLength = grown(irqLength, irqHead, irqCount, n);
        irqSourceOff = grown(irqSourceOff, irqHead, irqCount, n);
        irqSent = grown(irqSent, irqHead, irqCount, n);
        MrImpl[] src = new MrImpl[n];
        for (int k = 0; k < irqCount; k++) {
            src[k] = irqSource[(irqHead + k) % irqSource.length];
        }
        irqSource = src;
        irqHead = 0;
    }

    private static long[] grown(long[] a, int head, int count, int n) {
        long[] b = new long[n];
        for (int k = 0; k < count; k++) {
            b[k] = a[(head + k) % a.length];
        }
        return b;
    }

    private static int[] grown(int[] a, int head, int count, int n) {
        int[] b = new int[n];
        for (int k = 0; k < count; k++) {
            b[k] = a[(head + k) % a.length];
        }
        return b;
    }
}
