package io.jrdma.verbs;

/** Atomic operation support ({@code enum ibv_atomic_cap}). */
public enum AtomicCap {
    /** No atomics (siw). */
    NONE,
    /** Atomic with respect to other atomics issued through this device (rxe, loop). */
    HCA,
    /** Atomic with respect to every agent in the system. */
    GLOB
}
