package io.jrdma.internal.verbs;

import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;

/**
 * A send queue slot: a copy of a posted {@link SendWr} (siw's {@code siw_sqe}, rxe's
 * {@code rxe_send_wqe}), preallocated with its QP. The provider's engine reads it and keeps its own
 * progress in the {@code tx*} fields; public fields because engines read them on the hot path.
 */
public final class SendWqe {
    /** The work request id. */
    public long wrId;
    /** The opcode. */
    public WrOpcode opcode;
    /** The {@link SendFlags}. */
    public int flags;
    /** Whether a successful completion is reported (SIGNALED or sqSigAll). */
    public boolean signaled;
    /** Number of SGEs. */
    public int numSge;
    /** SGE virtual addresses. */
    public final long[] sgeAddr;
    /** SGE lengths. */
    public final int[] sgeLength;
    /** SGE lkeys. */
    public final int[] sgeLkey;
    /** Total length of the gather list (or of the inline data). */
    public long length;
    /** Immediate data. */
    public int immData;
    /** Key a SEND_WITH_INV or LOCAL_INV invalidates. */
    public int invalidateRkey;
    /** Remote virtual address. */
    public long remoteAddr;
    /** Remote key. */
    public int rkey;
    /** Compare (CAS) or add (FAA) operand. */
    public long compareAdd;
    /** Swap operand. */
    public long swap;
    /** UD address handle. */
    public AhImpl ah;
    /** UD remote QPN. */
    public int remoteQpn;
    /** UD remote Q_Key. */
    public int remoteQkey;
    /** Whether the payload was copied at post time. */
    public boolean inline;
    /** The inline bytes (valid for {@link #length} bytes when {@link #inline}). */
    public final MemorySegment inlineData;
    /** A buffer view of {@link #inlineData} for socket writes (made once with the slot). */
    public final java.nio.ByteBuffer inlineBuffer;
    /** Provider progress: bytes already transmitted. */
    public long txOffset;
    /** Provider progress: a transport-specific state. */
    public int txState;
    /** Provider progress: first PSN / MSN assigned to the message. */
    public int txFirstSeq;
    /** Provider progress: last PSN / MSN assigned to the message. */
    public int txLastSeq;

    SendWqe(int maxSge, int maxInline) {
        sgeAddr = new long[Math.max(1, maxSge)];
        sgeLength = new int[Math.max(1, maxSge)];
        sgeLkey = new int[Math.max(1, maxSge)];
        inlineData = maxInline > 0 ? MemorySegment.ofArray(new byte[maxInline]) : MemorySegment.NULL;
        inlineBuffer = maxInline > 0 ? inlineData.asByteBuffer() : java.nio.ByteBuffer.allocate(0);
    }

    void copyFrom(SendWr wr, boolean sigAll, AhImpl ahImpl) {
        wrId = wr.wrId();
        opcode = wr.opcode();
        flags = wr.flags();
        signaled = sigAll || (flags & SendFlags.SIGNALED) != 0;
        inline = (flags & SendFlags.INLINE) != 0 && opcode != WrOpcode.RDMA_READ && !opcode.isAtomic();
        int n = wr.numSge();
        numSge = inline ? 0 : n;
        long total = 0;
        if (!inline) {
            for (int i = 0; i < n; i++) {
                Sge s = wr.sge(i);
                sgeAddr[i] = s.addr();
                sgeLength[i] = s.length();
                sgeLkey[i] = s.lkey();
                total += s.length() & 0xFFFFFFFFL;
            }
        }
        length = total;
        immData = wr.immData();
        invalidateRkey = wr.invalidateRkey();
        remoteAddr = wr.remoteAddr();
        rkey = wr.rkey();
        compareAdd = wr.compareAdd();
        swap = wr.swap();
        ah = ahImpl;
        remoteQpn = wr.remoteQpn();
        remoteQkey = wr.remoteQkey();
        txOffset = 0;
        txState = 0;
        txFirstSeq = 0;
        txLastSeq = 0;
    }

    /** Whether the SOLICITED flag is set. */
    public boolean solicited() {
        return (flags & SendFlags.SOLICITED) != 0;
    }

    /** Whether the FENCE flag is set. */
    public boolean fenced() {
        return (flags & SendFlags.FENCE) != 0;
    }
}
