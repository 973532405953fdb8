package com.ibm.disni.util;

/**
 * Thread-to-CPU affinity. Without native code a Java thread cannot be pinned: {@link #setAffinity(long)} records
 * the mask and changes nothing, {@link #getAffinity()} returns the last mask set by this thread or, if none, the
 * mask of every CPU the JVM may use.
 */
public class NativeAffinity {
    private static final ThreadLocal<Long> MASK = new ThreadLocal<>();

    /** Not needed: the methods are static. */
    public NativeAffinity() {
    }

    /**
     * Records the calling thread's wished CPU mask (no pinning happens).
     *
     * @param affinity a bit per CPU
     */
    public static void setAffinity(long affinity) {
        MASK.set(affinity);
    }

    /**
     * The calling thread's mask.
     *
     * @return the mask last set by this thread, or a bit for each CPU the JVM may use
     */
    public static long getAffinity() {
        Long m = MASK.get();
        if (m != null) {
            return m;
        }
        int cpus = Math.min(64, Runtime.getRuntime().availableProcessors());
        return cpus == 64 ? -1L : (1L << cpus) - 1;
    }
}
