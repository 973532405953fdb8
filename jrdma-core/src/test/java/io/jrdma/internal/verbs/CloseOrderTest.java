package io.jrdma.internal.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.RdmaException;
import java.lang.foreign.Arena;
import org.junit.jupiter.api.Test;

/**
 * The verbs' rule for a parent closed while children still use it (Linux's {@code ibv_destroy_cq},
 * {@code ibv_dealloc_pd}, {@code ibv_destroy_comp_channel}): the close fails with EBUSY and changes
 * nothing, and the message says what is still open and how many; closing the context closes
 * everything on it, children first.
 */
class CloseOrderTest {
    private static final QpCap CAP = new QpCap(4, 4, 1, 1, 0);

    @Test
    void aCqUsedByOneQpForBothQueuesNamesThatOneQp() {
        try (Context ctx = Rdma.device("loop0").open()) {
            ProtectionDomain pd = ctx.allocPd();
            CompletionQueue cq = ctx.createCq(8);
            QueuePair qp = pd.createQp(new QpInitAttr(QpType.RC, cq, cq, null, CAP, true));
            assertThatThrownBy(cq::close).isInstanceOfSatisfying(RdmaException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.EBUSY))
                    .hasMessageContaining("completion queue is still used by 1 QP (0x"
                            + Integer.toHexString(qp.qpNum()) + ")");
            qp.close();
            cq.close(); // the one user is gone: no count left behind by the QP's second queue
            pd.close();
        }
    }

    @Test
    void aCqUsedByTwoQpsCountsTwoAndNamesBoth() {
        try (Context ctx = Rdma.device("loop0").open()) {
            ProtectionDomain pd = ctx.allocPd();
            CompletionQueue send = ctx.createCq(8);
            CompletionQueue recv = ctx.createCq(8);
            QueuePair a = pd.createQp(new QpInitAttr(QpType.RC, send, recv, null, CAP, true));
            QueuePair b = pd.createQp(new QpInitAttr(QpType.RC, send, send, null, CAP, true));
            assertThatThrownBy(send::close).hasMessageContaining("still used by 2 QPs (0x"
                    + Integer.toHexString(Math.min(a.qpNum(), b.qpNum())) + ", 0x"
                    + Integer.toHexString(Math.max(a.qpNum(), b.qpNum())) + ")");
            assertThatThrownBy(recv::close).hasMessageContaining("still used by 1 QP (0x"
                    + Integer.toHexString(a.qpNum()) + ")");
            a.close();
            recv.close();
            assertThatThrownBy(send::close).hasMessageContaining("still used by 1 QP (0x"
                    + Integer.toHexString(b.qpNum()) + ")");
            b.close();
            send.close();
        }
    }

    @Test
    void aProtectionDomainSaysWhichKindsStillUseItAndHowMany() {
        try (Context ctx = Rdma.device("loop0").open(); Arena arena = Arena.ofShared()) {
            ProtectionDomain pd = ctx.allocPd();
            CompletionQueue cq = ctx.createCq(8);
            MemoryRegion one = pd.registerMemory(arena.allocate(64), Access.LOCAL_WRITE);
            MemoryRegion two = pd.registerMemory(arena.allocate(64), Access.LOCAL_WRITE);
            QueuePair qp = pd.createQp(new QpInitAttr(QpType.RC, cq, cq, null, CAP, true));
            assertThatThrownBy(pd::close).isInstanceOfSatisfying(RdmaException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.EBUSY))
                    .hasMessageContaining("is still used by 2 memory regions and 1 QP (0x"
                            + Integer.toHexString(qp.qpNum()) + "): close them first");
            one.close();
            qp.close();
            assertThatThrownBy(pd::close).hasMessageContaining("is still used by 1 memory region: close them first");
            two.close();
            pd.close();
            cq.close();
        }
    }

    @Test
    void aChannelCountsItsCqs() {
        try (Context ctx = Rdma.device("loop0").open()) {
            CompletionChannel ch = ctx.createCompletionChannel();
            CompletionQueue a = ctx.createCq(8, ch, 0);
            CompletionQueue b = ctx.createCq(8, ch, 0);
            assertThatThrownBy(ch::close).hasMessageContaining("completion channel is still used by 2 CQs");
            a.close();
            assertThatThrownBy(ch::close).hasMessageContaining("still used by 1 CQ:");
            b.close();
            ch.close();
        }
    }

    @Test
    void closingTheContextFirstClosesEverythingOnItAndTheChildrenCloseAgainQuietly() {
        Arena arena = Arena.ofShared();
        Context ctx = Rdma.device("loop0").open();
        CompletionChannel ch = ctx.createCompletionChannel();
        CompletionQueue cq = ctx.createCq(8, ch, 0);
        ProtectionDomain pd = ctx.allocPd();
        MemoryRegion mr = pd.registerMemory(arena.allocate(64), Access.LOCAL_WRITE);
        QueuePair qp = pd.createQp(new QpInitAttr(QpType.RC, cq, cq, null, CAP, true));
        DeviceImpl dev = (DeviceImpl) ctx.device();
        int regions = dev.memoryTable().size();
        ctx.close();
        assertThat(mr.isValid()).as("the region's keys died with the context").isFalse();
        assertThat(dev.memoryTable().size()).as("and its key slot is free").isEqualTo(regions - 1);
        assertThat(qp.state()).isEqualTo(io.jrdma.verbs.QpState.ERR);
        // Children closed after their parent: each close is a no-op, in any order.
        mr.close();
        qp.close();
        pd.close();
        cq.close();
        ch.close();
        ctx.close();
        assertThat(dev.memoryTable().size()).isEqualTo(regions - 1);
        arena.close();
    }
}
