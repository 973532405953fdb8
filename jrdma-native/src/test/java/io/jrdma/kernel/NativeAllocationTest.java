package io.jrdma.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
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
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.TransportType;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Posting and polling on a kernel device allocate nothing per work request: the calling thread's allocated
 * bytes (the thread allocation counter) grow by far less than one byte per WR over thousands of SEND +
 * RDMA WRITE + RECV rounds between two QPs on one IB-transport device (native:rxe0 in the interop rig).
 */
class NativeAllocationTest {
    private static final int ROUNDS = 2000;
    private static final long TIMEOUT_NANOS = 10_000_000_000L;

    @Test
    void postAndPollAllocateNothingPerWorkRequestOnceWarm() {
        Device d = Rdma.devices().stream().filter(x -> x.provider().equals(NativeProvider.NAME)
                && x.transport() == TransportType.IB).findFirst().orElse(null);
        Assumptions.assumeTrue(d != null, () -> "no kernel IB-transport device: "
                + Rdma.unavailableProviders().getOrDefault(NativeProvider.NAME, "only iWARP devices"));
        Arena arena = Arena.ofAuto();
        try (Context c = d.open()) {
            ProtectionDomain pd = c.allocPd();
            CompletionQueue cq = c.createCq(64);
            QueuePair a = pd.createQp(QpInitAttr.rc(cq, new QpCap(16, 16, 1, 1, 0)));
            QueuePair b = pd.createQp(QpInitAttr.rc(cq, new QpCap(16, 16, 1, 1, 0)));
            MemoryRegion mr = pd.registerMemory(arena.allocate(1 << 16), Access.ALL);
            int idx = 0;
            Gid gid = null;
            for (int i = 0; i < c.queryPort(1).gidTableLength() && gid == null; i++) {
                try {
                    Gid g = c.queryGid(1, i);
                    if (g.isIpv4Mapped()) {
                        gid = g;
                        idx = i;
                    }
                } catch (IllegalArgumentException e) {
                    // empty entry
                }
            }
            Assumptions.assumeTrue(gid != null, d.name() + " has no IPv4 GID");
            connect(a, b.qpNum(), gid, idx);
            connect(b, a.qpNum(), gid, idx);
            SendWr send = new SendWr().wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(mr, 0, 512);
            SendWr write = new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .sg(mr, 1024, 512).rdma(mr.address() + 8192, mr.rkey());
            RecvWr recv = new RecvWr().wrId(3).sg(mr, 16384, 1024);
            WorkCompletion[] wc = new WorkCompletion[8];
            for (int i = 0; i < wc.length; i++) {
                wc[i] = new WorkCompletion();
            }
            com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory
                    .getThreadMXBean();
            traffic(a, b, cq, send, write, recv, wc, 3 * ROUNDS); // warm up: JIT
            long before = mx.getCurrentThreadAllocatedBytes();
            traffic(a, b, cq, send, write, recv, wc, ROUNDS);
            long allocated = mx.getCurrentThreadAllocatedBytes() - before;
            System.out.printf("native:%s: %d bytes allocated for %d work requests%n", d.name(), allocated,
                    3L * ROUNDS);
            assertThat(allocated).as("bytes allocated for %d WRs", 3L * ROUNDS).isLessThan(3L * ROUNDS);
            a.close();
            b.close();
        }
    }

    private static void connect(QueuePair qp, int peer, Gid gid, int idx) {
        qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(Access.REMOTE_WRITE
                | Access.REMOTE_READ));
        qp.modify(new QpAttr().qpState(QpState.RTR).ahAttr(new AhAttr(gid, idx, 0, 64, 0, 0, 1, 0))
                .pathMtu(Mtu.MTU_1024).destQpNum(peer).rqPsn(0).maxDestRdAtomic(1).minRnrTimer(1));
        qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(0).timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(1));
    }

    private static void traffic(QueuePair a, QueuePair b, CompletionQueue cq, SendWr send, SendWr write, RecvWr recv,
            WorkCompletion[] wc, int rounds) {
        for (int r = 0; r < rounds; r++) {
            b.postRecv(recv);
            a.postSend(send);
            a.postSend(write);
            int got = 0;
            long deadline = System.nanoTime() + TIMEOUT_NANOS;
            while (got < 3) {
                int n = cq.poll(wc, 0, wc.length);
                for (int k = 0; k < n; k++) {
                    if (wc[k].status() != WcStatus.SUCCESS) {
                        throw new AssertionError(wc[k].toString());
                    }
                }
                got += n;
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("timed out after " + r + " rounds");
                }
            }
        }
    }
}
