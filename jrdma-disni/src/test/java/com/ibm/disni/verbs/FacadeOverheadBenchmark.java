package com.ibm.disni.verbs;

import java.io.IOException;
import java.util.LinkedList;
import java.util.concurrent.TimeUnit;

import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Counters;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.PacketCapture;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What DiSNI's API costs over jrdma's, per post and poll, with the device taken out: both benchmarks post one
 * signaled RDMA WRITE and poll its completion through the same instant queue pair and completion queue (a
 * {@link QueuePair} whose post puts the completion straight on a {@link CompletionQueue}). {@code jrdma} edits a
 * reused {@link SendWr} and polls reused {@link WorkCompletion}s; {@code disni} edits a prepared
 * {@link SVCPostSend} through its modifiers, executes it, and executes a prepared {@link SVCPollCq} (the copy into
 * {@link IbvWC} included). The difference of the two is the facade's cost; {@code -prof gc} shows the allocation
 * (expect 0 B/op for both).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(1)
public class FacadeOverheadBenchmark {
    private static final int LENGTH = 64;

    private InstantCq cq;
    private InstantQp qp;
    private SendWr wr;
    private final WorkCompletion[] wc = {new WorkCompletion()};
    private SVCPostSend post;
    private SVCPostSend.SendWRMod mod;
    private SVCPostSend.SgeMod sgeMod;
    private SVCPollCq poll;
    private long counter;

    /** The instant device, a jrdma request and DiSNI's prepared calls over it. */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        cq = new InstantCq();
        qp = new InstantQp(cq);
        wr = new SendWr().opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED).rdma(0x1000, 7);
        wr.sge(0).set(0x2000, LENGTH, 5);
        wr.numSge(1);

        JrdmaVerbs.JContext ctx = new JrdmaVerbs.JContext(null, 1);
        JrdmaVerbs.JPd pd = new JrdmaVerbs.JPd(null, ctx);
        JrdmaVerbs.JCq dcq = new JrdmaVerbs.JCq(cq, ctx, null);
        JrdmaVerbs.JQp dqp = new JrdmaVerbs.JQp(qp, pd, dcq, dcq);
        IbvSge sge = new IbvSge();
        sge.setAddr(0x2000);
        sge.setLength(LENGTH);
        sge.setLkey(5);
        LinkedList<IbvSge> sges = new LinkedList<>();
        sges.add(sge);
        IbvSendWR w = new IbvSendWR();
        w.setOpcode(IbvSendWR.IBV_WR_RDMA_WRITE);
        w.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
        w.setSg_list(sges);
        w.getRdma().setRemote_addr(0x1000);
        w.getRdma().setRkey(7);
        LinkedList<IbvSendWR> list = new LinkedList<>();
        list.add(w);
        post = dqp.postSend(list, null);
        mod = post.getWrMod(0);
        sgeMod = mod.getSgeMod(0);
        poll = dcq.poll(new IbvWC[] {new IbvWC()}, 1);
    }

    /**
     * jrdma's API.
     *
     * @return the completion's id
     */
    @Benchmark
    public long jrdma() {
        wr.wrId(++counter);
        wr.sge(0).length(LENGTH - (int) (counter & 7));
        qp.postSend(wr);
        cq.poll(wc, 0, 1);
        return wc[0].wrId();
    }

    /**
     * DiSNI's API over jrdma.
     *
     * @return the completions polled
     * @throws IOException never here
     */
    @Benchmark
    public int disni() throws IOException {
        mod.setWr_id(++counter);
        sgeMod.setLength(LENGTH - (int) (counter & 7));
        post.execute();
        return poll.execute().getPolls();
    }

    /** A completion queue the instant QP fills; poll hands out what is there. */
    static final class InstantCq implements CompletionQueue {
        private long wrId;
        private int byteLen;
        private boolean full;

        void complete(long id, int len) {
            wrId = id;
            byteLen = len;
            full = true;
        }

        @Override
        public int poll(WorkCompletion[] out, int offset, int max) {
            if (!full || max == 0) {
                return 0;
            }
            full = false;
            out[offset].fill(wrId, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, 0, byteLen, 0, 0x11, 0, 0, 0, 0, 0);
            return 1;
        }

        @Override
        public void requestNotify(boolean solicitedOnly) {
        }

        @Override
        public void resize(int cqe) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int capacity() {
            return 1;
        }

        @Override
        public CompletionChannel channel() {
            return null;
        }

        @Override
        public boolean isInError() {
            return false;
        }

        @Override
        public void close() {
        }
    }

    /** A queue pair that completes each signaled request at once on its CQ. */
    static final class InstantQp implements QueuePair {
        private final InstantCq cq;

        InstantQp(InstantCq cq) {
            this.cq = cq;
        }

        @Override
        public int postSend(SendWr first) {
            int n = 0;
            for (SendWr w = first; w != null; w = w.next()) {
                cq.complete(w.wrId(), (int) w.totalLength());
                n++;
            }
            return n;
        }

        @Override
        public int qpNum() {
            return 0x11;
        }

        @Override
        public QpType type() {
            return QpType.RC;
        }

        @Override
        public QpState state() {
            return QpState.RTS;
        }

        @Override
        public QpInitAttr initAttr() {
            throw new UnsupportedOperationException();
        }

        @Override
        public ProtectionDomain pd() {
            throw new UnsupportedOperationException();
        }

        @Override
        public QpAttr query() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void modify(QpAttr attr) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int postRecv(RecvWr w) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Counters queryCounters() {
            throw new UnsupportedOperationException();
        }

        @Override
        public PacketCapture startCapture(java.nio.file.Path file) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int sendQueueDepth() {
            return 0;
        }

        @Override
        public int recvQueueDepth() {
            return 0;
        }

        @Override
        public void attachMcast(Gid mgid, int mlid) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void detachMcast(Gid mgid, int mlid) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {
        }
    }
}
