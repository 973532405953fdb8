package io.jrdma.verbs;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/** A protection domain ({@code struct ibv_pd}): memory and queue pairs that may work together. */
public interface ProtectionDomain extends AutoCloseable {
    /** The context the domain belongs to. Linux: {@code ibv_pd.context}. */
    Context context();

    /**
     * {@code ibv_reg_mr}: registers {@code segment} with {@link Access} flags. Native segments (from an
     * {@link java.lang.foreign.Arena}) are the fast path; heap segments work but cost a copy on the
     * socket transports. The caller keeps the segment alive until the region is closed.
     *
     * @throws IllegalArgumentException on an empty segment, unknown flags, or REMOTE_WRITE/ATOMIC without
     *     LOCAL_WRITE (as {@code ibv_reg_mr} returns EINVAL)
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
