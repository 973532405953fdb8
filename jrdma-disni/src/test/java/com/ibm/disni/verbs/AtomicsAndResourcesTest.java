package com.ibm.disni.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.LinkedList;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What DiSNI 2.1 could not do and its users asked for: settable initiator depth and responder resources, and
 * atomics posted from {@link IbvSendWR#getAtomic()} (loop0 has atomics, as rxe).
 */
@Timeout(120)
class AtomicsAndResourcesTest {
    private static final int ACCESS = IbvMr.IBV_ACCESS_LOCAL_WRITE | IbvMr.IBV_ACCESS_REMOTE_WRITE
            | IbvMr.IBV_ACCESS_REMOTE_READ | IbvMr.IBV_ACCESS_REMOTE_ATOMIC;

    @Test
    void initiatorDepthAndResponderResourcesReachThePeer() throws IOException {
        RdmaConnParam p = new RdmaConnParam();
        p.setInitiator_depth((byte) 3);
        p.setResponder_resources((byte) 2);
        p.setPrivateData(new byte[] {9, 8, 7});
        try (LoopPair pair = new LoopPair(p)) {
            RdmaConnParam seen = pair.request.getConn();
            // as rdma_cm reports a request: from the listener's side, the client's ORD is what it must serve
            assertThat(seen.getResponder_resources()).isEqualTo((byte) 3);
            assertThat(seen.getInitiator_depth()).isEqualTo((byte) 2);
            assertThat(seen.getPrivateData()).startsWith(9, 8, 7);
            assertThat(pair.request.getStatus()).isZero();
        }
    }

    private static LinkedList<IbvSendWR> atomic(int opcode, IbvMr local, IbvMr remote, long compareAdd, long swap) {
        IbvSge sge = new IbvSge();
        sge.setAddr(local.getAddr());
        sge.setLength(8);
        sge.setLkey(local.getLkey());
        LinkedList<IbvSge> sges = new LinkedList<>();
        sges.add(sge);
        IbvSendWR w = new IbvSendWR();
        w.setWr_id(opcode);
        w.setOpcode(opcode);
        w.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
        w.setSg_list(sges);
        w.getAtomic().setRemote_addr(remote.getAddr());
        w.getAtomic().setRkey(remote.getRkey());
        w.getAtomic().setCompare_add(compareAdd);
        w.getAtomic().setSwap(swap);
        LinkedList<IbvSendWR> l = new LinkedList<>();
        l.add(w);
        return l;
    }

    @Test
    void fetchAndAddAndCompareAndSwapWorkThroughDisnisAtomicPart() throws IOException {
        RdmaConnParam p = new RdmaConnParam();
        p.setInitiator_depth((byte) 1);
        p.setResponder_resources((byte) 1);
        try (LoopPair pair = new LoopPair(p)) {
            ByteBuffer remoteBuf = ByteBuffer.allocateDirect(64).order(ByteOrder.nativeOrder());
            ByteBuffer localBuf = ByteBuffer.allocateDirect(64).order(ByteOrder.nativeOrder());
            remoteBuf.putLong(0, 40);
            IbvMr remote = pair.server.pd.regMr(remoteBuf, ACCESS).execute().free().getMr();
            IbvMr local = pair.client.pd.regMr(localBuf, ACCESS).execute().free().getMr();

            pair.client.qp.postSend(atomic(IbvSendWR.IBV_WR_ATOMIC_FETCH_AND_ADD, local, remote, 2, 0), null)
                    .execute().free();
            IbvWC wc = LoopPair.pollOne(pair.client);
            assertThat(wc.getStatus()).isZero();
            assertThat(wc.getOpcode()).isEqualTo(IbvWC.IbvWcOpcode.IBV_WC_FETCH_ADD.getOpcode());
            assertThat(localBuf.getLong(0)).as("the original value").isEqualTo(40);
            assertThat(remoteBuf.getLong(0)).isEqualTo(42);

            SVCPostSend cas = pair.client.qp.postSend(atomic(IbvSendWR.IBV_WR_ATOMIC_CMP_AND_SWP, local, remote, 42,
                    7), null);
            cas.execute();
            assertThat(LoopPair.pollOne(pair.client).getOpcode())
                    .isEqualTo(IbvWC.IbvWcOpcode.IBV_WC_COMP_SWAP.getOpcode());
            assertThat(remoteBuf.getLong(0)).isEqualTo(7);
            // the prepared call's remote address edit goes to the atomic's address
            cas.getWrMod(0).getRdmaMod().setRemote_addr(remote.getAddr() + 8);
            assertThat(cas.getWrMod(0).getRdmaMod().getRemote_addr()).isEqualTo(remote.getAddr() + 8);
            cas.execute();
            LoopPair.pollOne(pair.client);
            assertThat(remoteBuf.getLong(8)).as("compare 42 failed against 0: unchanged").isZero();
            assertThat(remoteBuf.getLong(0)).isEqualTo(7);
        }
    }
}
