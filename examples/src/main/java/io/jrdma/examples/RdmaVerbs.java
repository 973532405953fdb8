package io.jrdma.examples;

import io.jrdma.cm.CmId;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.time.Duration;

/**
 * The helpers of librdmacm's {@code rdma_verbs.h} that the rdma_client/rdma_server examples use,
 * and what {@code rdma_create_ep} does for an id given QP attributes and no PD: a PD, a send and a
 * receive CQ each with its completion channel, and the QP ({@code ucma_create_cqs},
 * {@code rdma_create_qp}). Behaviour modelled on rdma-core's {@code librdmacm/rdma_verbs.h}.
 */
public final class RdmaVerbs {
    /** The bound on a wait for a completion: examples must not hang. */
    public static final Duration TIMEOUT = Duration.ofSeconds(10);

    private RdmaVerbs() {
    }

    /**
     * An id with its verbs resources.
     *
     * @param id the connection-manager id
     * @param pd the protection domain
     * @param sendCq the send CQ
     * @param sendChannel the send CQ's completion channel
     * @param recvCq the receive CQ
     * @param recvChannel the receive CQ's completion channel
     * @param qp the QP, created through the id
     */
    public record Endpoint(CmId id, ProtectionDomain pd, CompletionQueue sendCq, CompletionChannel sendChannel,
            CompletionQueue recvCq, CompletionChannel recvChannel, QueuePair qp) {
    }

    /**
     * What {@code rdma_create_ep} adds to an id that knows its device: a PD, CQs with completion
     * channels and an RC QP with {@code cap} that signals every send ({@code sq_sig_all}).
     */
    public static Endpoint createQp(CmId id, QpCap cap) {
        Context verbs = id.verbs();
        ProtectionDomain pd = verbs.allocPd();
        CompletionChannel sendChannel = verbs.createCompletionChannel();
        CompletionQueue sendCq = verbs.createCq(cap.maxSendWr(), sendChannel, 0);
        CompletionChannel recvChannel = verbs.createCompletionChannel();
        CompletionQueue recvCq = verbs.createCq(cap.maxRecvWr(), recvChannel, 0);
        QueuePair qp = id.createQp(pd, new QpInitAttr(QpType.RC, sendCq, recvCq, null, cap, true));
        return new Endpoint(id, pd, sendCq, sendChannel, recvCq, recvChannel, qp);
    }

    /** {@code rdma_reg_msgs}: registers a message buffer for sends and receives. */
    public static MemoryRegion regMsgs(Endpoint ep, MemorySegment msgs) {
        return ep.pd().registerMemory(msgs, Access.LOCAL_WRITE);
    }

    /** {@code rdma_post_recv}: posts one receive into the whole of the registered message {@code mr}. */
    public static void postRecv(Endpoint ep, long wrId, MemoryRegion mr) {
        if (ep.qp().postRecv(new RecvWr().wrId(wrId).sg(mr, 0, (int) mr.length())) != 1) {
            throw new IllegalStateException("rdma_post_recv: the receive queue is full");
        }
    }

    /**
     * {@code rdma_post_send}: sends the whole of the registered message {@code mr} ({@code flags}:
     * {@link SendFlags}, e.g. INLINE). jrdma needs a registered region even for inline data: it copies
     * from it at post time.
     */
    public static void postSend(Endpoint ep, long wrId, MemoryRegion mr, int flags) {
        SendWr wr = new SendWr().wrId(wrId).opcode(WrOpcode.SEND).flags(flags).sg(mr, 0, (int) mr.length());
        if (ep.qp().postSend(wr) != 1) {
            throw new IllegalStateException("rdma_post_send: the send queue is full");
        }
    }

    /** {@code rdma_get_recv_comp}: the next receive completion, waiting on the CQ's channel. */
    public static WorkCompletion getRecvComp(Endpoint ep) throws InterruptedException {
        return getComp(ep.recvCq(), ep.recvChannel());
    }

    /** {@code rdma_get_send_comp}: the next send completion, waiting on the CQ's channel. */
    public static WorkCompletion getSendComp(Endpoint ep) throws InterruptedException {
        return getComp(ep.sendCq(), ep.sendChannel());
    }

    /** Poll; if empty, arm the CQ, poll again (a completion may have come first), then wait. */
    private static WorkCompletion getComp(CompletionQueue cq, CompletionChannel channel)
            throws InterruptedException {
        WorkCompletion[] wc = {new WorkCompletion()};
        while (true) {
            if (cq.poll(wc) == 1) {
                return checked(wc[0]);
            }
            cq.requestNotify(false);
            if (cq.poll(wc) == 1) {
                return checked(wc[0]);
            }
            CompletionQueue signalled = channel.getEvent(TIMEOUT);
            if (signalled == null) {
                throw new IllegalStateException("no completion within " + TIMEOUT);
            }
            channel.ackEvents(signalled, 1);
        }
    }

    private static WorkCompletion checked(WorkCompletion wc) {
        if (wc.status() != WcStatus.SUCCESS) {
            throw new IllegalStateException("work completion " + wc.wrId() + " failed: " + wc.status());
        }
        return wc;
    }
}
