package io.jrdma.loop;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.AddressHandle;
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
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The loop provider's transfer semantics where they follow rxe/IBTA details. */
class LoopTransferTest {
    private static final int QKEY = 0x1111;
    private static final int GRH = 40;
    private Context ctx;
    private Arena arena;
    private ProtectionDomain pd;
    private MemoryRegion mr;
    private Gid gid;

    @BeforeEach
    void open() {
        ctx = Rdma.device("loop0").open();
        arena = Arena.ofShared();
        pd = ctx.allocPd();
        gid = ctx.queryGid(1, 0);
        MemorySegment buf = arena.allocate(16384, 8);
        for (int i = 0; i < 4096; i++) {
            buf.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 1));
        }
        mr = pd.registerMemory(buf, Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ);
    }

    @AfterEach
    void close() {
        ctx.close();
        arena.close();
    }

    private static WorkCompletion poll(CompletionQueue cq) {
        WorkCompletion[] wc = {new WorkCompletion()};
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (cq.poll(wc) == 0) {
            assertThat(System.nanoTime() - deadline).as("a completion within 5 s").isNegative();
            Thread.onSpinWait();
        }
        return wc[0];
    }

    private QueuePair qp(QpType type, CompletionQueue cq) {
        QueuePair qp = pd.createQp(QpInitAttr.of(type, cq, new QpCap(8, 8, 1, 1, 0)));
        QpAttr init = new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1);
        qp.modify(type == QpType.UD ? init.qkey(QKEY) : init.qpAccessFlags(Access.REMOTE_WRITE));
        return qp;
    }

    private static void connect(QueuePair qp, QueuePair peer, Gid gid) {
        QpAttr rtr = new QpAttr().qpState(QpState.RTR);
        if (qp.type() != QpType.UD) {
            rtr.ahAttr(AhAttr.to(gid)).pathMtu(Mtu.MTU_1024).destQpNum(peer.qpNum()).rqPsn(0);
        }
        qp.modify(rtr);
        qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(0));
    }

    @Test
    void localInvalidateOfAnUnknownKeyIsALocalQpOperationError() {
        CompletionQueue cq = ctx.createCq(8);
        QueuePair a = qp(QpType.UC, cq);
        connect(a, a, gid);
        a.postSend(new SendWr().wrId(1).opcode(WrOpcode.LOCAL_INV).flags(SendFlags.SIGNALED)
                .invalidateRkey(mr.lkey() ^ 0xFF));
        WorkCompletion wc = poll(cq);
        assertThat(wc.status()).isEqualTo(WcStatus.LOC_QP_OP_ERR);
        assertThat(mr.isValid()).isTrue();
    }

    @Test
    void aUdSendLongerThanTheMtuCompletesWithoutBeingSent() throws Exception {
        CompletionQueue cqA = ctx.createCq(8);
        CompletionQueue cqB = ctx.createCq(8);
        QueuePair a = qp(QpType.UD, cqA);
        QueuePair b = qp(QpType.UD, cqB);
        connect(a, b, gid);
        connect(b, a, gid);
        AddressHandle ah = pd.createAh(AhAttr.to(gid));
        int mtu = ctx.queryPort(1).activeMtu().bytes();
        b.postRecv(new RecvWr().wrId(9).sg(mr, 8192, GRH + mtu + 8));
        a.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(mr, 0, mtu + 1)
                .ud(ah, b.qpNum(), QKEY));
        assertThat(poll(cqA).status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(a.state()).isEqualTo(QpState.RTS);
        // A datagram that fits, sent after it on the same path, is the first thing receive 9 sees: the
        // long one never reached the wire (it would have completed receive 9 first, being sent first).
        a.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(mr, 0, 40)
                .ud(ah, b.qpNum(), QKEY));
        assertThat(poll(cqA).status()).isEqualTo(WcStatus.SUCCESS);
        WorkCompletion r = poll(cqB);
        assertThat(r.wrId()).isEqualTo(9);
        assertThat(r.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(r.byteLen()).as("the datagram that fits, not the long one").isEqualTo(GRH + 40);
    }

    @Test
    void aDroppedUdDatagramLeavesItsReceiveForTheNextOne() throws Exception {
        CompletionQueue cqA = ctx.createCq(8);
        CompletionQueue cqB = ctx.createCq(8);
        QueuePair a = qp(QpType.UD, cqA);
        QueuePair b = qp(QpType.UD, cqB);
        connect(a, b, gid);
        connect(b, a, gid);
        AddressHandle ah = pd.createAh(AhAttr.to(gid));
        b.postRecv(new RecvWr().wrId(9).sg(mr, 8192, GRH + 50));
        a.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(mr, 0, 100)
                .ud(ah, b.qpNum(), QKEY));
        assertThat(poll(cqA).status()).isEqualTo(WcStatus.SUCCESS);
        b.postRecv(new RecvWr().wrId(10).sg(mr, 12288, GRH + 200));
        a.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(mr, 0, 30)
                .ud(ah, b.qpNum(), QKEY));
        WorkCompletion r = poll(cqB);
        assertThat(r.wrId()).as("the first receive, which the dropped datagram did not use").isEqualTo(9);
        assertThat(r.byteLen()).isEqualTo(GRH + 30);
        assertThat(b.recvQueueDepth()).isEqualTo(1);
        MemorySegment buf = mr.segment();
        assertThat(buf.asSlice(8192 + GRH, 30).toArray(ValueLayout.JAVA_BYTE))
                .as("the payload is in receive 9's buffer")
                .isEqualTo(buf.asSlice(0, 30).toArray(ValueLayout.JAVA_BYTE));
        assertThat(buf.asSlice(12288, GRH + 200).toArray(ValueLayout.JAVA_BYTE)).as("receive 10's buffer")
                .containsOnly((byte) 0);
    }

    @Test
    void aDroppedUcMessageLeavesItsReceiveForTheNextOne() throws Exception {
        CompletionQueue cqA = ctx.createCq(8);
        CompletionQueue cqB = ctx.createCq(8);
        QueuePair a = qp(QpType.UC, cqA);
        QueuePair b = qp(QpType.UC, cqB);
        connect(a, b, gid);
        connect(b, a, gid);
        b.postRecv(new RecvWr().wrId(9).sg(mr, 8192, 50));
        a.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(mr, 0, 100));
        assertThat(poll(cqA).status()).isEqualTo(WcStatus.SUCCESS);
        a.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).flags(SendFlags.SIGNALED)
                .sg(mr, 0, 8).rdma(mr.address(), mr.rkey() ^ 0x40));
        assertThat(poll(cqA).status()).isEqualTo(WcStatus.SUCCESS);
        a.postSend(new SendWr().wrId(3).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(mr, 0, 20));
        assertThat(poll(cqA).status()).isEqualTo(WcStatus.SUCCESS);
        WorkCompletion r = poll(cqB);
        assertThat(r.wrId()).isEqualTo(9);
        assertThat(r.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(r.byteLen()).isEqualTo(20);
    }
}
