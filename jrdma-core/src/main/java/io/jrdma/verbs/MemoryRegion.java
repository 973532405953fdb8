package io.jrdma.verbs;

import java.lang.foreign.MemorySegment;

/**
 * A registered memory region ({@code struct ibv_mr}). Its keys are a 24-bit index and an 8-bit key
 * ({@code index << 8 | key}); closing it ({@code ibv_dereg_mr}) invalidates both keys at once, so
 * any later local or remote access with them fails.
 *
 * <p>Thread-safe. Its memory must stay reachable until the region is closed; what happens when its
 * arena closes first is in {@link ProtectionDomain#registerMemory(java.lang.foreign.MemorySegment, int)}.
 */
public interface MemoryRegion extends AutoCloseable {
    /** The local key, used in {@link Sge}. Linux: {@code ibv_mr.lkey}. */
    int lkey();

    /** The remote key peers use for RDMA READ/WRITE/atomics (equal to the lkey, as on siw and rxe). */
    int rkey();

    /**
     * The virtual address of the first byte: the native address for native segments, a synthetic one
     * for heap segments. SGEs and remote addresses are expressed in this address space. Linux: {@code ibv_mr.addr}.
     */
    long address();

    /** The length in bytes. Linux: {@code ibv_mr.length}. */
    long length();

    /** The {@link Access} flags. Linux: the {@code access} given to {@code ibv_reg_mr}. */
    int access();

    /** The registered memory. Linux: the memory at {@code ibv_mr.addr}. */
    MemorySegment segment();

    /** The protection domain. Linux: {@code ibv_mr.pd}. */
    ProtectionDomain pd();

    /**
     * Whether the keys are still valid (not deregistered, not invalidated). Linux: not invalidated by
     * {@code IBV_WR_LOCAL_INV}, a SEND with invalidate or {@code ibv_dereg_mr}.
     */
    boolean isValid();

    /** {@code ibv_dereg_mr}. */
    @Override
    void close();
}
