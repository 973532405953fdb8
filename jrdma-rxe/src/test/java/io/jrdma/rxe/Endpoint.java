package io.jrdma.rxe;

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
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * One side of an rxe test: a context on a device, a PD, one CQ for both queues, a QP and a
 * registered buffer. {@link #connect} moves two RC/UC endpoints to RTS pointing at each other, as
 * a connection manager would.
 */
final class Endpoint implements AutoCloseable {
    /** Default wait for a completion. */
    static final long WAIT_MS = 10_000;
    static final int ALL_ACCESS = Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE
            | Access.REMOTE_ATOMIC;

    final Context ctx;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final QueuePair qp;
    final Arena arena = Arena.ofShared();
    final MemorySegment buf;
    final MemoryRegion mr;
    final Gid gid;

    Endpoint(String device, QpType type, int bufferSize, QpCap cap) {
        this.ctx = Rdma.device(device).open();
        this.pd = ctx.allocPd();
        this.cq = ctx.createCq(1024);
        this.qp = pd.createQp(QpInitAttr.of(type, cq, cap));
        this.buf = arena.allocate(bufferSize, 64);
        this.mr = pd.registerMemory(buf, ALL_ACCESS);
        this.gid = ctx.queryGid(1, 0);
    }

    Gid gid() {
        return gid;
    }

    static Endpoint rc(String device, int bufferSize) {
        return new Endpoint(device, QpType.RC, bufferSize, QpCap.of(256, 256));
    }

    /** Connection parameters for {@link #connect}. */
    static final class Options {
        Mtu mtu = Mtu.MTU_1024;
        int timeout = 14;
        int retryCnt = 7;
        int rnrRetry = 7;
        int minRnrTimer = 1;
        int rdAtomic = 16;
        int access = Access.REMOTE_READ | Access.REMOTE_WRITE | Access.REMOTE_ATOMIC;
        int psnA = 0x100;
        int psnB = 0xfffff0;

        Options timeout(int t) {
            this.timeout = t;
            return this;
        }

        Options retryCnt(int n) {
            this.retryCnt = n;
            return this;
        }

        Options rnrRetry(int n) {
            this.rnrRetry = n;
            return this;
        }

        Options minRnrTimer(int t) {
            this.minRnrTimer = t;
            return this;
        }

        Options mtu(Mtu m) {
            this.mtu = m;
            return this;
        }

        Options access(int a) {
            this.access = a;
            return this;
        }

        Options rdAtomic(int n) {
            this.rdAtomic = n;
            return this;
        }
    }

    /** Moves {@code a} and {@code b} to RTS, each the other's destination. */
    static void connect(Endpoint a, Endpoint b, Options o) {
        toRts(a, b, o.psnA, o.psnB, o);
        toRts(b, a, o.psnB, o.psnA, o);
    }

    /** Moves {@code a} to RTS towards {@code peerGid}/{@code peerQpn}, sending from {@code sendPsn}. */
    static void toRts(Endpoint a, Gid peerGid, int peerQpn, int sendPsn, int recvPsn, Options o) {
        a.qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(o.access));
        a.qp.modify(new QpAttr().qpState(QpState.RTR).ahAttr(AhAttr.to(peerGid)).pathMtu(o.mtu)
                .destQpNum(peerQpn).rqPsn(recvPsn).maxDestRdAtomic(o.rdAtomic).minRnrTimer(o.minRnrTimer));
        a.qp.modify(new QpAttr().qpState(QpState.RTS).timeout(o.timeout).retryCnt(o.retryCnt)
                .rnrRetry(o.rnrRetry).sqPsn(sendPsn).maxRdAtomic(o.rdAtomic));
    }

    private static void toRts(Endpoint a, Endpoint b, int sendPsn, int recvPsn, Options o) {
        toRts(a, b.gid, b.qp.qpNum(), sendPsn, recvPsn, o);
    }

    /** One completion, or an AssertionError after {@code ms}. */
    WorkCompletion poll(long ms) {
        WorkCompletion[] wc = {new WorkCompletion()};
        long deadline = System.nanoTime() + ms * 1_000_000L;
        while (System.nanoTime() < deadline) {
            if (cq.poll(wc) == 1) {
                return wc[0];
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no completion on " + qp + " within " + ms + " ms");
    }

    WorkCompletion poll() {
        return poll(WAIT_MS);
    }

    /** {@code n} completions in order. */
    List<WorkCompletion> poll(int n, long ms) {
        List<WorkCompletion> out = new ArrayList<>();
        long deadline = System.nanoTime() + ms * 1_000_000L;
        WorkCompletion[] wc = new WorkCompletion[32];
        for (int i = 0; i < wc.length; i++) {
            wc[i] = new WorkCompletion();
        }
        while (out.size() < n) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("only " + out.size() + " of " + n + " completions on " + qp + " within "
                        + ms + " ms: " + out);
            }
            int k = cq.poll(wc, 0, Math.min(wc.length, n - out.size()));
            for (int i = 0; i < k; i++) {
                WorkCompletion c = new WorkCompletion();
                c.fill(wc[i].wrId(), wc[i].status(), wc[i].opcode(), wc[i].vendorErr(), wc[i].byteLen(),
                        wc[i].immData(), wc[i].qpNum(), wc[i].srcQp(), wc[i].wcFlags(), wc[i].pkeyIndex(),
                        wc[i].slid(), wc[i].sl());
                out.add(c);
            }
            if (k == 0) {
                Thread.onSpinWait();
            }
        }
        return out;
    }

    /** Asserts nothing arrives on the CQ within {@code ms}. */
    void assertQuiet(long ms) throws InterruptedException {
        Thread.sleep(ms);
        WorkCompletion[] wc = {new WorkCompletion()};
        if (cq.poll(wc) != 0) {
            throw new AssertionError("unexpected completion " + wc[0]);
        }
    }

    @Override
    public void close() {
        try {
            qp.close();
            mr.close();
            cq.close();
            pd.close();
            ctx.close();
        } finally {
            arena.close();
        }
    }
}
