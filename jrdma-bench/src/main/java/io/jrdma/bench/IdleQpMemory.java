package io.jrdma.bench;

/**
 * Memory per idle connected QP: opens {@code n} connections (2n QPs, each with its rdma_cm id, in
 * RTS, with the smallest queues an RC QP may have: one send and one receive WR of one SGE, no
 * inline data, a CQ shared by all), lets them sit idle, and divides by 2n what heap and direct memory
 * they hold: the larger of the growth from before they were opened and the drop once they are closed
 * (each kind of memory apart). Either alone can miss: garbage of an earlier phase that a later full
 * collection frees shrinks the growth (a negative figure for loop0 in one whole run), memory a
 * closed QP keeps shrinks the drop. With queues of one WR, what is measured is what a QP costs beyond its queues (the
 * two WQE slots are a few hundred bytes and are included). Socket buffers inside the kernel are
 * not JVM memory and are not counted.
 *
 * @param qps the QPs measured
 * @param perQp heap and direct bytes per QP
 */
record IdleQpMemory(int qps, MemoryProbe perQp) {
    /** Connections a warm-up opens and closes first (class loading, pools, first CQ and PD). */
    static final int WARMUP_CONNECTIONS = 8;
    /** Connection attempts outstanding while connections are opened. */
    static final int IN_FLIGHT = 8;

    /**
     * Measures over {@code connections} connections of {@code cycler}. Set {@code jrdma.bench.debug}
     * to print the classes that grew, per QP.
     */
    static IdleQpMemory measure(ConnectionCycler cycler, int connections) throws InterruptedException {
        cycler.hold(WARMUP_CONNECTIONS, IN_FLIGHT);
        cycler.releaseHeld();
        ConnectionCycler.settle();
        MemoryProbe before = MemoryProbe.snapshot();
        String h0 = Boolean.getBoolean("jrdma.bench.debug") ? MemoryProbe.histogram() : null;
        cycler.hold(connections, IN_FLIGHT);
        ConnectionCycler.settle();
        MemoryProbe after = MemoryProbe.snapshot();
        int qps = 2 * connections;
        if (h0 != null) {
            System.err.println(MemoryProbe.growth(h0, MemoryProbe.histogram(), qps, 30));
        }
        cycler.releaseHeld();
        ConnectionCycler.settle();
        MemoryProbe released = MemoryProbe.snapshot();
        return new IdleQpMemory(qps, held(before, after, released, qps));
    }

    /**
     * Per QP, the memory {@code qps} QPs held: for heap and direct apart, the larger of {@code after - before}
     * (growth while they were opened) and {@code after - released} (drop when they were closed).
     */
    static MemoryProbe held(MemoryProbe before, MemoryProbe after, MemoryProbe released, int qps) {
        MemoryProbe grew = after.minus(before);
        MemoryProbe dropped = after.minus(released);
        return new MemoryProbe(Math.max(grew.heap(), dropped.heap()) / qps,
                Math.max(grew.direct(), dropped.direct()) / qps);
    }
}
