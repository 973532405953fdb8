package io.jrdma.internal.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Two RC QPs on loop0 connected by hand, with one registered buffer each, for core tests that need
 * traffic (core cannot use the testkit: Maven would see a cycle).
 */
final class LoopPair implements AutoCloseable {
    static final long TIMEOUT_NANOS = 5_000_000_000L;

    final Context ctx;
    final Arena arena = Arena.ofShared();
    final ProtectionDomain pd;
    final CompletionQueue cqA;
    final CompletionQueue cqB;
    final QueuePair a;
    final QueuePair b;
    final MemoryRegion mrA;
    final MemoryRegion mrB;

    LoopPair(QpCap cap, int cqe, int rnrRetry) {
        ctx = Rdma.device("loop0").open();
        pd = ctx.allocPd();
        cqA = ctx.createCq(cqe);
        cqB = ctx.createCq(cqe);
        a = pd.createQp(QpInitAttr.rc(cqA, cap));
        b = pd.createQp(QpInitAttr.rc(cqB, cap));
        Gid gid = ctx.queryGid(1, 0);
        for (QueuePair[] p : new QueuePair[][] {{a, b}, {b, a}}) {
            p[0].modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1)
                    .qpAccessFlags(Access.REMOTE_READ | Access.REMOTE_WRITE | Access.REMOTE_ATOMIC));
            p[0].modify(new QpAttr().qpState(QpState.RTR).ahAttr(AhAttr.to(gid)).pathMtu(Mtu.MTU_1024)
                    .destQpNum(p[1].qpNum()).rqPsn(0).maxDestRdAtomic(4).minRnrTimer(1));
            p[0].modify(new QpAttr().qpState(QpState.RTS).timeout(14).retryCnt(7).rnrRetry(rnrRetry).sqPsn(0)
                    .maxRdAtomic(4));
        }
        MemorySegment bufA = arena.allocate(65536, 8);
        MemorySegment bufB = arena.allocate(65536, 8);
        int all = Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE | Access.REMOTE_ATOMIC;
        mrA = pd.registerMemory(bufA, all);
        mrB = pd.registerMemory(bufB, all);
    }

    LoopPair() {
        this(QpCap.of(16, 16), 64, 7);
    }

    /** Polls one completion from {@code cq} within 5 s. */
    static WorkCompletion poll(CompletionQueue cq) {
        WorkCompletion[] wc = {new WorkCompletion()};
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (cq.poll(wc) == 0) {
            assertThat(System.nanoTime() - deadline).as("a completion within 5 s").isNegative();
            Thread.onSpinWait();
        }
        return wc[0];
    }

    @Override
    public void close() {
        ctx.close();
        arena.close();
    }
}
