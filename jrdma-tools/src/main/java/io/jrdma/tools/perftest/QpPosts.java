package io.jrdma.tools.perftest;

import java.lang.foreign.MemorySegment;

import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.tools.perf.TestInfo.Verb;
import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WrOpcode;

/**
 * The per-QP posting state of a {@link DataPath}: each QP's send request (a list of them with
 * {@code -l}), receive request and credit WRITE, the addresses of its regions here and at the peer,
 * and its UD destination; set up once per message size ({@code ctx_set_send_wqes},
 * {@code ctx_set_recv_wqes}, {@code ctx_set_credit_wqes}) and then reused by the loops, which only
 * move addresses and flags.
 *
 * <p>The arrays are indexed by QP and read by {@link BandwidthLoops}, {@link LatencyLoops} and
 * {@link PayloadVerifier}, which keep their own references to them.
 */
final class QpPosts {

    final QueuePair[] qps;
    final SendWr[] wr;
    final RecvWr[] rwr;
    final SendWr[] creditWr;
    /** Where each QP's send (source) region starts. */
    final long[] myAddr;
    /** Where each QP's region at the peer starts (its {@code vaddr}). */
    final long[] remAddr;
    final int[] remKey;
    /** Where each QP's region the peer writes, reads or sends into starts. */
    final long[] rxBufferAddr;
    private final AddressHandle[] ah;
    private final int[] remoteQpn;
    private final int[] remoteQkey;

    private final PerfTest test;
    private final Verb verb;
    private final int numQps;
    private final boolean ud;
    private final int rxDepth;
    private final int inlineSize;
    private final boolean credits;
    private final int cycleBuffer;
    private final int cacheLine;
    private final boolean compareAndSwap;
    private final int postList;
    private final MemoryRegion mr;
    private final MemorySegment ctrl;
    private final MemoryRegion creditMr;

    /**
     * Lays out the regions in the buffer: QP {@code i} sends from {@code i * region} and is written,
     * read or sent to at {@code (numQps + i) * region}.
     *
     * @param c the configuration
     * @param mr the buffer's MR
     * @param ctrl the credit buffer, or null without credits
     * @param creditMr the credit buffer's MR, or null without credits
     */
    QpPosts(PathConfig c, MemoryRegion mr, MemorySegment ctrl, MemoryRegion creditMr) {
        this.test = c.test();
        this.verb = c.verb();
        this.numQps = c.numQps();
        this.ud = c.ud();
        this.rxDepth = c.rxDepth();
        this.inlineSize = c.inlineSize();
        this.credits = c.credits();
        this.cycleBuffer = c.cycleBuffer();
        this.cacheLine = c.cacheLine();
        this.compareAndSwap = c.compareAndSwap();
        this.postList = c.postList();
        this.mr = mr;
        this.ctrl = ctrl;
        this.creditMr = creditMr;
        qps = new QueuePair[numQps];
        wr = new SendWr[numQps];
        rwr = new RecvWr[numQps];
        creditWr = new SendWr[numQps];
        myAddr = new long[numQps];
        remAddr = new long[numQps];
        remKey = new int[numQps];
        rxBufferAddr = new long[numQps];
        ah = new AddressHandle[numQps];
        remoteQpn = new int[numQps];
        remoteQkey = new int[numQps];
        for (int i = 0; i < numQps; i++) {
            myAddr[i] = mr.address() + (long) i * c.region();
            rxBufferAddr[i] = mr.address() + (long) (numQps + i) * c.region();
        }
    }

    /**
     * Sets the UD destination of connection {@code i}.
     *
     * @param i the index
     * @param handle the address handle
     * @param qpn the remote QPN
     * @param qkey the remote Q_Key
     */
    void udDestination(int i, AddressHandle handle, int qpn, int qkey) {
        ah[i] = handle;
        remoteQpn[i] = qpn;
        remoteQkey[i] = qkey;
    }

    /**
     * {@code set_up_connection}: this side's record for QP {@code i}; on iWARP SEND tests
     * ({@code ctx_alloc_credit}) the rkey and address are the credit buffer's.
     *
     * @param i the index
     * @param lid the port LID
     * @param outReads outstanding reads
     * @param psn the PSN
     * @param gid the GID
     * @param gidIndex the GID index
     * @return the record
     */
    PingpongDest localDest(int i, int lid, int outReads, int psn, byte[] gid, int gidIndex) {
        int rkey = mr.rkey();
        long vaddr = rxBufferAddr[i];
        if (credits) {
            rkey = creditMr.rkey();
            vaddr = creditMr.address() + (long) (numQps + i) * Integer.BYTES;
        }
        return new PingpongDest(lid, outReads, qps[i].qpNum(), psn, rkey, vaddr, gid, 0, gidIndex);
    }

    /**
     * {@code ctx_set_credit_wqes}: the RDMA WRITEs that carry credits to the peer's credit buffer.
     *
     * @param remote the peer's records
     */
    void setCreditWqes(PingpongDest[] remote) {
        if (!credits) {
            return;
        }
        for (int i = 0; i < numQps; i++) {
            creditWr[i] = new SendWr().wrId(i).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .sg(creditMr, (long) i * Integer.BYTES, Integer.BYTES).rdma(remote[i].vaddr(), remote[i].rkey());
        }
    }

    /** Zeroes the credit counters ({@code credit_buf[j] = 0} between sizes). */
    void resetCredits() {
        if (credits) {
            ctrl.fill((byte) 0);
        }
    }

    /**
     * {@code ctx_set_send_wqes} for one message size.
     *
     * @param remote the peer's records (address and rkey of RDMA operations)
     * @param size the message size
     * @param cqMod the CQ moderation
     */
    void setSendWqes(PingpongDest[] remote, int size, int cqMod) {
        for (int i = 0; i < numQps; i++) {
            SendWr w = wr[i] == null ? new SendWr() : wr[i].reset();
            wr[i] = w;
            w.wrId(i).sg(mr, myAddr[i] - mr.address(), size);
            int flags = cqMod == 1 ? SendFlags.SIGNALED : 0;
            if ((verb == Verb.SEND || verb == Verb.WRITE) && size <= inlineSize) {
                flags |= SendFlags.INLINE;
            }
            w.flags(flags);
            switch (verb) {
                case WRITE -> w.opcode(WrOpcode.RDMA_WRITE).rdma(remote[i].vaddr(), remote[i].rkey());
                case READ -> w.opcode(WrOpcode.RDMA_READ).rdma(remote[i].vaddr(), remote[i].rkey());
                case ATOMIC -> w.opcode(compareAndSwap ? WrOpcode.ATOMIC_CMP_AND_SWP : WrOpcode.ATOMIC_FETCH_AND_ADD)
                        .atomic(remote[i].vaddr(), remote[i].rkey(),
                                compareAndSwap ? 0 : DataPath.ATOMIC_ADD_VALUE,
                                compareAndSwap ? DataPath.ATOMIC_SWAP_VALUE : 0);
                case SEND -> {
                    w.opcode(WrOpcode.SEND);
                    if (ud) {
                        w.ud(ah[i], remoteQpn[i], remoteQkey[i]);
                    }
                }
                default -> throw new IllegalStateException(verb.toString());
            }
            remAddr[i] = remote[i].vaddr();
            remKey[i] = remote[i].rkey();
            if (postList > 1) {
                chain(i, w, size, cqMod);
            }
        }
    }

    /**
     * {@code -l}: links {@code postList} copies of the QP's request, each a message further along the cycle
     * buffer (when messages fit half of it), every {@code cqMod}-th signaled, posted as one list.
     */
    private void chain(int q, SendWr head, int size, int cqMod) {
        int step = DataPath.inc(size, cacheLine);
        boolean walk = size <= cycleBuffer / 2;
        int slots = walk ? cycleBuffer / step : 1;
        SendWr prev = head;
        for (int j = 0; j < postList; j++) {
            SendWr w = j == 0 ? head : new SendWr();
            if (j > 0) {
                w.wrId(q).opcode(head.opcode()).sg(mr, head.sge(0).addr() - mr.address(), size);
                if (walk) {
                    w.sge(0).addr(myAddr[q] + (long) (j % slots) * step);
                }
                long remote = remAddr[q] + (walk ? (long) (j % slots) * step : 0);
                switch (verb) {
                    case WRITE, READ -> w.rdma(remote, remKey[q]);
                    case ATOMIC -> w.atomic(remote, remKey[q], head.compareAdd(), head.swap());
                    case SEND -> {
                        if (ud) {
                            w.ud(ah[q], remoteQpn[q], remoteQkey[q]);
                        }
                    }
                    default -> throw new IllegalStateException(verb.toString());
                }
                prev.next(w);
                prev = w;
            }
            int flags = head.flags() & SendFlags.INLINE;
            if ((j + 1) % cqMod == 0) {
                flags |= SendFlags.SIGNALED;
            }
            w.flags(flags);
        }
        prev.next(null);
    }

    /**
     * Points QP {@code q}'s send request at {@code addr} in the peer's region (RDMA and atomic
     * requests; a SEND has no remote address).
     *
     * @param q the QP
     * @param addr the remote address
     */
    void setRemote(int q, long addr) {
        SendWr w = wr[q];
        switch (verb) {
            case WRITE, READ -> w.rdma(addr, remKey[q]);
            case ATOMIC -> w.atomic(addr, remKey[q], w.compareAdd(), w.swap());
            default -> {
                // SEND has no remote address
            }
        }
    }

    /**
     * {@code ctx_set_recv_wqes}: posts the receives of a SEND test ({@code rxDepth} per QP, capped
     * by the iterations) walking through the receive region.
     *
     * @param size the message size
     * @return receives posted per QP ({@code rposted})
     */
    int setRecvWqes(int size) {
        int length = ud ? size + DataPath.UD_ADDITION : size;
        int step = DataPath.inc(size, cacheLine);
        // UD receives stay on the first slot: walking, the next slot's GRH would land on this one's tail
        // (perftest walks anyway; where receives land is local and invisible to the peer).
        boolean walk = test.bandwidth() && !ud && size <= cycleBuffer / 2;
        for (int i = 0; i < numQps; i++) {
            long base = rxBufferAddr[i] + (ud ? cacheLine - DataPath.UD_ADDITION : 0);
            RecvWr r = rwr[i] == null ? new RecvWr() : rwr[i];
            rwr[i] = r;
            r.wrId(i).sg(mr, base - mr.address(), length);
            for (int j = 0; j < rxDepth; j++) {
                if (qps[i].postRecv(r) != 1) {
                    throw new ToolFailure("Couldn't post recv Qp = " + i + ": counter=" + j + " (receive queue full)");
                }
                if (walk) {
                    long a = r.sge(0).addr() + step;
                    if ((j + 1) % (cycleBuffer / step) == 0) {
                        a = base;
                    }
                    r.sge(0).addr(a);
                }
            }
            r.sge(0).addr(base);
        }
        return rxDepth;
    }
}
