package io.jrdma.verbs;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * A protection domain ({@code struct ibv_pd}): memory and queue pairs that may work together.
 * Thread-safe: regions and QPs may be created and closed from any thread.
 */
public interface ProtectionDomain extends AutoCloseable {
    /** The context the domain belongs to. Linux: {@code ibv_pd.context}. */
    Context context();

    /**
     * {@code ibv_reg_mr}: registers {@code segment} with {@link Access} flags. Native segments (from an
     * {@link java.lang.foreign.Arena}) are the fast path; heap segments over a {@code byte[]} work but
     * cost a copy on the socket transports.
     *
     * <p><b>Which memory.</b> jrdma's engine threads read and write registered memory long after this
     * call, so it must be reachable from any thread: a segment of {@link java.lang.foreign.Arena#ofShared()},
     * {@link java.lang.foreign.Arena#ofAuto()} or {@link java.lang.foreign.Arena#global()}, or
     * {@code MemorySegment.ofArray(byte[])}. A segment of a confined arena, of a closed arena, or a heap
     * segment over another array type is refused here, with a message saying why.
     *
     * <p><b>Lifetime.</b> Keep the arena open until the region is closed ({@code ibv_dereg_mr}); close the
     * region first, then the arena. An arena closed while its memory is registered does not crash or
     * hang jrdma: from then on the region behaves as if it had been deregistered — {@link MemoryRegion#isValid()}
     * is false, a work request that uses it completes with {@link WcStatus#LOC_PROT_ERR} (and its QP goes
     * to ERROR, as for any protection error), a peer's READ, WRITE or atomic on it is refused with a
     * remote access error, and nothing is read from or written to the memory. The region still holds its
     * key until it is closed.
     *
     * @throws IllegalArgumentException on an empty segment, memory the engines cannot reach (see above),
     *     unknown flags, or REMOTE_WRITE/ATOMIC without LOCAL_WRITE (as {@code ibv_reg_mr} returns EINVAL)
     */
    MemoryRegion registerMemory(MemorySegment segment, int access);

    /**
     * {@code ibv_reg_mr} over a direct or heap {@link ByteBuffer} (position to limit). On siw, large
     * payloads (16 KiB or more) of a region registered from a direct buffer of
     * {@link ByteBuffer#allocateDirect} go to TCP straight from it, without the copy a segment's payload
     * takes (the JDK's gathering writes cost nothing extra for such buffers; see docs/tuning.md).
     */
    MemoryRegion registerMemory(ByteBuffer buffer, int access);

    /** {@code ibv_create_qp}. */
    QueuePair createQp(QpInitAttr attr);

    /** {@code ibv_create_srq}. */
    SharedReceiveQueue createSrq(SrqAttr attr);

    /** {@code ibv_create_ah}. */
    AddressHandle createAh(AhAttr attr);

    /** {@code ibv_dealloc_pd}: fails with EBUSY while regions, QPs, SRQs or AHs still use the domain. */
    @Override
    void close();
}
