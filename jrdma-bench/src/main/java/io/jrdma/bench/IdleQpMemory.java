package io.jrdma.bench;

/**
 * Memory per idle connected QP: opens {@code n} connections (2n QPs, each with its rdma_cm id, in
 * RTS, with the smallest queues an RC QP may have: one send and one receive WR of one SGE, no
 * inline data, a CQ shared by all), lets them sit idle, and divides the growth of heap and direct
 * memory by 2n. With queues of one WR, what is measured is what a QP costs beyond its queues (the
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
        MemoryProbe d = after.minus(before);
        return new IdleQpMemory(qps, new MemoryProbe(d.heap() / qps, d.direct() / qps));
    }
}
