package io.jrdma.loop;

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
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class LoopSmokeTest {
    private static WorkCompletion pollOne(CompletionQueue cq) {
        WorkCompletion[] wc = {new WorkCompletion()};
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (cq.poll(wc) == 1) {
                return wc[0];
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no completion within 5 s");
    }

    @Test
    void sendWriteAndReadMoveBytesBetweenTwoRcQps() throws Exception {
        try (Context ctx = Rdma.device("loop0").open(); Arena arena = Arena.ofShared()) {
            ProtectionDomain pd = ctx.allocPd();
            CompletionQueue cqA = ctx.createCq(16);
            CompletionQueue cqB = ctx.createCq(16);
            QueuePair a = pd.createQp(QpInitAttr.rc(cqA, QpCap.of(8, 8)));
            QueuePair b = pd.createQp(QpInitAttr.rc(cqB, QpCap.of(8, 8)));
            Gid gid = Gid.of(InetAddress.getLoopbackAddress());
            for (QueuePair[] p : new QueuePair[][] {{a, b}, {b, a}}) {
                p[0].modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1)
                        .qpAccessFlags(Access.REMOTE_READ | Access.REMOTE_WRITE));
                p[0].modify(new QpAttr().qpState(QpState.RTR).ahAttr(AhAttr.to(gid)).pathMtu(Mtu.MTU_1024)
                        .destQpNum(p[1].qpNum()).rqPsn(0).maxDestRdAtomic(1).minRnrTimer(1));
                p[0].modify(new QpAttr().qpState(QpState.RTS).timeout(14).retryCnt(7).rnrRetry(7).sqPsn(0)
                        .maxRdAtomic(1));
            }
            MemorySegment bufA = arena.allocate(4096);
            MemorySegment bufB = arena.allocate(4096);
            MemoryRegion mrA = pd.registerMemory(bufA, Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE);
            MemoryRegion mrB = pd.registerMemory(bufB, Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE);
            for (int i = 0; i < 64; i++) {
                bufA.set(ValueLayout.JAVA_BYTE, i, (byte) i);
            }
            b.postRecv(new RecvWr().wrId(9).sg(mrB, 0, 64));
            a.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(mrA, 0, 64));
            WorkCompletion s = pollOne(cqA);
            assertThat(s.status()).isEqualTo(WcStatus.SUCCESS);
            WorkCompletion r = pollOne(cqB);
            assertThat(r.wrId()).isEqualTo(9);
            assertThat(r.opcode()).isEqualTo(WcOpcode.RECV);
            assertThat(r.byteLen()).isEqualTo(64);
            assertThat(bufB.asSlice(0, 64).toArray(ValueLayout.JAVA_BYTE))
                    .isEqualTo(bufA.asSlice(0, 64).toArray(ValueLayout.JAVA_BYTE));

            a.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .sg(mrA, 0, 64).rdma(mrB.address() + 1024, mrB.rkey()));
            assertThat(pollOne(cqA).status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(bufB.get(ValueLayout.JAVA_BYTE, 1024 + 63)).isEqualTo((byte) 63);

            a.postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                    .sg(mrA, 2048, 64).rdma(mrB.address() + 1024, mrB.rkey()));
            WorkCompletion rd = pollOne(cqA);
            assertThat(rd.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(rd.opcode()).isEqualTo(WcOpcode.RDMA_READ);
            assertThat(bufA.get(ValueLayout.JAVA_BYTE, 2048 + 10)).isEqualTo((byte) 10);
            a.close();
            b.close();
        }
    }
}
