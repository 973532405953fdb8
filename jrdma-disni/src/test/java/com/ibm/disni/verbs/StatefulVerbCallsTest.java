package com.ibm.disni.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.LinkedList;
import java.util.List;

import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The stateful verb calls on two connected QPs of loop0: edits, errors, and no allocation per execute. */
@Timeout(120)
class StatefulVerbCallsTest {
    private static final int ACCESS = IbvMr.IBV_ACCESS_LOCAL_WRITE | IbvMr.IBV_ACCESS_REMOTE_WRITE
            | IbvMr.IBV_ACCESS_REMOTE_READ;

    private LoopPair pair;
    private ByteBuffer src;
    private ByteBuffer dst;
    private IbvMr srcMr;
    private IbvMr dstMr;

    @BeforeEach
    void connect() throws IOException {
        pair = new LoopPair();
        src = ByteBuffer.allocateDirect(4096);
        dst = ByteBuffer.allocateDirect(4096);
        for (int i = 0; i < 4096; i++) {
            src.put(i, (byte) i);
        }
        srcMr = pair.client.pd.regMr(src, ACCESS).execute().free().getMr();
        dstMr = pair.server.pd.regMr(dst, ACCESS).execute().free().getMr();
    }

    @AfterEach
    void close() throws IOException {
        pair.close();
    }

    private static LinkedList<IbvSge> sge(long addr, int length, int lkey) {
        IbvSge s = new IbvSge();
        s.setAddr(addr);
        s.setLength(length);
        s.setLkey(lkey);
        LinkedList<IbvSge> l = new LinkedList<>();
        l.add(s);
        return l;
    }

    private List<IbvSendWR> write(long wrId, int length) {
        IbvSendWR w = new IbvSendWR();
        w.setWr_id(wrId);
        w.setOpcode(IbvSendWR.IBV_WR_RDMA_WRITE);
        w.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
        w.setSg_list(sge(srcMr.getAddr(), length, srcMr.getLkey()));
        w.getRdma().setRemote_addr(dstMr.getAddr());
        w.getRdma().setRkey(dstMr.getRkey());
        LinkedList<IbvSendWR> l = new LinkedList<>();
        l.add(w);
        return l;
    }

    @Test
    void acknowledgingMoreCqEventsThanTakenAcknowledgesThoseTakenAsLibibverbsAccepts() throws IOException {
        // DiSNI's VerbsTools acknowledges the completions it polled, not the events it took
        LoopPair.Side c = pair.client;
        c.cq.reqNotification(false).execute().free();
        pair.client.qp.postSend(write(1, 16), null).execute().free();
        assertThat(c.compChannel.getCqEvent(c.cq, LoopPair.WAIT_MS)).as("the completion's event").isTrue();
        assertThat(LoopPair.pollOne(c).getStatus()).isEqualTo(IbvWC.IbvWcStatus.IBV_WC_SUCCESS.ordinal());
        assertThat(c.cq.ackEvents(3)).isZero();
        assertThat(c.cq.ackEvents(1)).as("nothing is left to acknowledge").isZero();
        // the one event taken was acknowledged on jrdma's channel: none is left there either
        CompletionChannel channel = ((JrdmaVerbs.JCompChannel) c.compChannel).channel;
        CompletionQueue cq = ((JrdmaVerbs.JCq) c.cq).cq;
        assertThatThrownBy(() -> channel.ackEvents(cq, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("only 0 were delivered");

        // the next event is counted afresh, and the CQ is destroyed with nothing left unacknowledged
        c.cq.reqNotification(false).execute().free();
        pair.client.qp.postSend(write(2, 16), null).execute().free();
        assertThat(c.compChannel.getCqEvent(c.cq, LoopPair.WAIT_MS)).isTrue();
        assertThat(LoopPair.pollOne(c).getWr_id()).isEqualTo(2);
        assertThat(c.cq.ackEvents(2)).isZero();
    }

    @Test
    void everyExecutePostsTheEditsMadeThroughTheModifiers() throws IOException {
        SVCPostSend call = pair.client.qp.postSend(write(1, 16), null);
        call.execute();
        IbvWC wc = LoopPair.pollOne(pair.client);
        assertThat(wc.getStatus()).isEqualTo(IbvWC.IbvWcStatus.IBV_WC_SUCCESS.ordinal());
        assertThat(wc.getWr_id()).isEqualTo(1);
        assertThat(wc.getOpcode()).isEqualTo(IbvWC.IbvWcOpcode.IBV_WC_RDMA_WRITE.getOpcode());
        assertThat(dst.get(15)).isEqualTo((byte) 15);
        assertThat(dst.get(16)).isZero();

        // move the source window to offset 100, write 8 bytes at remote offset 1000, new wr_id
        SVCPostSend.SendWRMod mod = call.getWrMod(0);
        mod.setWr_id(2);
        mod.getSgeMod(0).setAddr(srcMr.getAddr() + 100);
        mod.getSgeMod(0).setLength(8);
        mod.getRdmaMod().setRemote_addr(dstMr.getAddr() + 1000);
        assertThat(mod.getSgeMod(0).getLength()).isEqualTo(8);
        assertThat(mod.getRdmaMod().getRkey()).isEqualTo(dstMr.getRkey());
        call.execute();
        wc = LoopPair.pollOne(pair.client);
        assertThat(wc.getWr_id()).isEqualTo(2);
        for (int i = 0; i < 8; i++) {
            assertThat(dst.get(1000 + i)).isEqualTo((byte) (100 + i));
        }
        assertThat(dst.get(1008)).isZero();

        // and again with other values: the third execute sees the third edit
        mod.setWr_id(3);
        mod.getSgeMod(0).setLength(4);
        mod.getRdmaMod().setRemote_addr(dstMr.getAddr() + 2000);
        call.execute();
        assertThat(LoopPair.pollOne(pair.client).getWr_id()).isEqualTo(3);
        assertThat(dst.get(2003)).isEqualTo((byte) 103);
        assertThat(dst.get(2004)).isZero();
    }

    @Test
    void anEntryOutsideItsRegionCompletesWithLocalProtectionErrorAndTheQpFlushesTheRest() throws IOException {
        SVCPostSend bad = pair.client.qp.postSend(write(7, 16), null);
        bad.getWrMod(0).getSgeMod(0).setAddr(srcMr.getAddr() + 4090);
        bad.execute();
        IbvWC wc = LoopPair.pollOne(pair.client);
        assertThat(wc.getWr_id()).isEqualTo(7);
        assertThat(wc.getStatus()).isEqualTo(4).isEqualTo(IbvWC.IbvWcStatus.IBV_WC_LOC_PROT_ERR.ordinal());
        assertThat(wc.getQp_num()).as("errors keep the QP number").isEqualTo(pair.client.qp.getQp_num());
        assertThat(dst.get(0)).as("nothing was written").isZero();

        pair.client.qp.postSend(write(8, 16), null).execute().free();
        IbvWC flushed = LoopPair.pollOne(pair.client);
        assertThat(flushed.getWr_id()).isEqualTo(8);
        assertThat(flushed.getStatus()).isEqualTo(5).isEqualTo(IbvWC.IbvWcStatus.IBV_WC_WR_FLUSH_ERR.ordinal());
        assertThat(pair.client.qp.getState()).isEqualTo(IbvQP.IBV_QPS_ERR);
    }

    @Test
    void sendAndReceiveReportLibibverbsOpcodesAndLengths() throws IOException {
        IbvRecvWR r = new IbvRecvWR();
        r.setWr_id(40);
        r.setSg_list(sge(dstMr.getAddr(), 4096, dstMr.getLkey()));
        LinkedList<IbvRecvWR> rl = new LinkedList<>();
        rl.add(r);
        SVCPostRecv recv = pair.server.qp.postRecv(rl, null);
        assertThat(recv.getWrMod(0).getWr_id()).isEqualTo(40);
        recv.execute();

        List<IbvSendWR> send = write(41, 100);
        send.get(0).setOpcode(IbvSendWR.IBV_WR_SEND);
        pair.client.qp.postSend(send, null).execute().free();
        IbvWC s = LoopPair.pollOne(pair.client);
        IbvWC got = LoopPair.pollOne(pair.server);
        assertThat(s.getOpcode()).isZero();
        assertThat(s.isSend()).isTrue();
        assertThat(got.getOpcode()).isEqualTo(128);
        assertThat(got.isSend()).isFalse();
        assertThat(got.getByte_len()).isEqualTo(100);
        assertThat(got.getWr_id()).isEqualTo(40);
        assertThat(got.getQp_num()).isEqualTo(pair.server.qp.getQp_num());
        assertThat(dst.get(99)).isEqualTo((byte) 99);
    }

    @Test
    void aFreedCallAndABadIndexAreRefusedWithIoExceptions() throws IOException {
        SVCPostSend call = pair.client.qp.postSend(write(1, 16), null);
        assertThat(call.isValid()).isTrue();
        assertThatThrownBy(() -> call.getWrMod(1)).isInstanceOf(IOException.class)
                .hasMessageContaining("no work request 1");
        call.free();
        assertThat(call.isValid()).isFalse();
        assertThatThrownBy(call::execute).isInstanceOf(IOException.class).hasMessageContaining("freed");
        List<IbvSendWR> unknown = write(1, 16);
        unknown.get(0).setOpcode(12);
        assertThatThrownBy(() -> pair.client.qp.postSend(unknown, null)).isInstanceOf(IOException.class)
                .hasMessageContaining("unknown opcode 12");
    }

    @Test
    void executeAndPollAllocateNothing() throws IOException {
        SVCPostSend call = pair.client.qp.postSend(write(1, 64), null);
        IbvWC[] wcs = {new IbvWC(), new IbvWC()};
        SVCPollCq poll = pair.client.cq.poll(wcs, 2);
        SVCPostSend.SgeMod sgeMod = call.getWrMod(0).getSgeMod(0);
        SVCPostSend.SendWRMod wrMod = call.getWrMod(0);
        for (int i = 0; i < 20_000; i++) {
            roundTrip(call, poll, wrMod, sgeMod, i);
        }
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        long before = mx.getThreadAllocatedBytes(tid);
        int n = 20_000;
        for (int i = 0; i < n; i++) {
            roundTrip(call, poll, wrMod, sgeMod, i);
        }
        long allocated = mx.getThreadAllocatedBytes(tid) - before;
        // a single object per operation would be at least 16 bytes x 20,000
        assertThat(allocated).as("bytes allocated by %d edit+execute+poll rounds", n).isLessThan(16L * n / 10);
    }

    private static void roundTrip(SVCPostSend call, SVCPollCq poll, SVCPostSend.SendWRMod wrMod,
            SVCPostSend.SgeMod sgeMod, int i) throws IOException {
        wrMod.setWr_id(i);
        sgeMod.setLength(8 + (i & 31));
        call.execute();
        while (poll.execute().getPolls() == 0) {
            Thread.onSpinWait();
        }
    }
}
