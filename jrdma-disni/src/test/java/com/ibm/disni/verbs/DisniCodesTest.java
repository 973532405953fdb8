package com.ibm.disni.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.cm.CmEventType;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import org.junit.jupiter.api.Test;

/** DiSNI's numeric codes are libibverbs' and librdmacm's, and jrdma's map onto them one for one. */
class DisniCodesTest {

    @Test
    void workCompletionStatusesAreLibibverbsValues() {
        assertThat(IbvWC.IbvWcStatus.IBV_WC_SUCCESS.ordinal()).isZero();
        assertThat(IbvWC.IbvWcStatus.IBV_WC_LOC_PROT_ERR.ordinal()).isEqualTo(4);
        assertThat(IbvWC.IbvWcStatus.IBV_WC_WR_FLUSH_ERR.ordinal()).isEqualTo(5);
        assertThat(IbvWC.IbvWcStatus.IBV_WC_REM_ACCESS_ERR.ordinal()).isEqualTo(10);
        assertThat(IbvWC.IbvWcStatus.IBV_WC_RETRY_EXC_ERR.ordinal()).isEqualTo(12);
        assertThat(IbvWC.IbvWcStatus.IBV_WC_RNR_RETRY_EXC_ERR.ordinal()).isEqualTo(13);
        assertThat(IbvWC.IbvWcStatus.IBV_WC_GENERAL_ERR.ordinal()).isEqualTo(21);
        assertThat(IbvWC.IbvWcStatus.valueOf(5)).isEqualTo(IbvWC.IbvWcStatus.IBV_WC_WR_FLUSH_ERR);
        for (WcStatus s : WcStatus.values()) {
            assertThat(IbvWC.IbvWcStatus.valueOf(s.value()).name()).isEqualTo("IBV_WC_" + s.name());
        }
    }

    @Test
    void workCompletionOpcodesAreLibibverbsValues() {
        assertThat(IbvWC.IbvWcOpcode.IBV_WC_SEND.getOpcode()).isZero();
        assertThat(IbvWC.IbvWcOpcode.IBV_WC_RDMA_READ.getOpcode()).isEqualTo(2);
        assertThat(IbvWC.IbvWcOpcode.IBV_WC_FETCH_ADD.getOpcode()).isEqualTo(4);
        assertThat(IbvWC.IbvWcOpcode.IBV_WC_RECV.getOpcode()).isEqualTo(128);
        assertThat(IbvWC.IbvWcOpcode.IBV_WC_RECV_RDMA_WITH_IMM.getOpcode()).isEqualTo(129);
        assertThat(IbvWC.IbvWcOpcode.valueOf(128)).isEqualTo(IbvWC.IbvWcOpcode.IBV_WC_RECV);
        for (WcOpcode o : WcOpcode.values()) {
            if (o != WcOpcode.LOCAL_INV) {
                assertThat(IbvWC.IbvWcOpcode.valueOf(o.value()).name()).isEqualTo("IBV_WC_" + o.name());
            }
        }
    }

    @Test
    void sendOpcodesFlagsAccessAndQpCodesAreLibibverbsValues() throws Exception {
        assertThat(new int[] {IbvSendWR.IBV_WR_RDMA_WRITE, IbvSendWR.IBV_WR_RDMA_WRITE_WITH_IMM, IbvSendWR.IBV_WR_SEND,
            IbvSendWR.IBV_WR_SEND_WITH_IMM, IbvSendWR.IBV_WR_RDMA_READ, IbvSendWR.IBV_WR_ATOMIC_CMP_AND_SWP,
            IbvSendWR.IBV_WR_ATOMIC_FETCH_AND_ADD}).containsExactly(0, 1, 2, 3, 4, 5, 6);
        for (IbvSendWR.IbvWrOcode o : IbvSendWR.IbvWrOcode.values()) {
            WrOpcode j = PostSendCall.opcode(o.ordinal());
            assertThat(j.value()).isEqualTo(o.ordinal());
            assertThat("IBV_WR_" + j.name()).isEqualTo(o.name());
        }
        assertThat(new int[] {IbvSendWR.IBV_SEND_FENCE, IbvSendWR.IBV_SEND_SIGNALED, IbvSendWR.IBV_SEND_SOLICITED,
            IbvSendWR.IBV_SEND_INLINE}).containsExactly(1, 2, 4, 8);
        assertThat(new int[] {IbvMr.IBV_ACCESS_LOCAL_WRITE, IbvMr.IBV_ACCESS_REMOTE_WRITE, IbvMr.IBV_ACCESS_REMOTE_READ,
            IbvMr.IBV_ACCESS_REMOTE_ATOMIC, IbvMr.IBV_ACCESS_MW_BIND, IbvMr.IBV_ACCESS_ON_DEMAND})
                .containsExactly(1, 2, 4, 8, 16, 64);
        assertThat(new int[] {IbvQP.IBV_QPT_RC, IbvQP.IBV_QPT_UC, IbvQP.IBV_QPT_UD}).containsExactly(2, 3, 4);
        assertThat(new int[] {IbvQP.IBV_QPS_RESET, IbvQP.IBV_QPS_INIT, IbvQP.IBV_QPS_RTR, IbvQP.IBV_QPS_RTS,
            IbvQP.IBV_QPS_SQD, IbvQP.IBV_QPS_SQE, IbvQP.IBV_QPS_ERR}).containsExactly(0, 1, 2, 3, 4, 5, 6);
        assertThat(new int[] {RdmaCm.RDMA_PS_IPOIB, RdmaCm.RDMA_PS_TCP, RdmaCm.RDMA_PS_UDP})
                .containsExactly(0x0002, 0x0106, 0x0111);
        assertThat(JrdmaVerbs.access(IbvMr.IBV_ACCESS_LOCAL_WRITE | IbvMr.IBV_ACCESS_ON_DEMAND)).isEqualTo(1);
    }

    @Test
    void everyJrdmaCmEventMapsToLibrdmacmsValue() {
        assertThat(RdmaCmEvent.EventType.RDMA_CM_EVENT_CONNECT_REQUEST.ordinal()).isEqualTo(4);
        assertThat(RdmaCmEvent.EventType.RDMA_CM_EVENT_UNREACHABLE.ordinal()).isEqualTo(7);
        assertThat(RdmaCmEvent.EventType.RDMA_CM_EVENT_REJECTED.ordinal()).isEqualTo(8);
        assertThat(RdmaCmEvent.EventType.RDMA_CM_EVENT_ESTABLISHED.ordinal()).isEqualTo(9);
        assertThat(RdmaCmEvent.EventType.RDMA_CM_EVENT_TIMEWAIT_EXIT.ordinal()).isEqualTo(15);
        for (CmEventType t : CmEventType.values()) {
            assertThat(RdmaCmEvent.EventType.values()[JrdmaCm.eventType(t)].name()).isEqualTo("RDMA_CM_EVENT_"
                    + t.name());
        }
    }

    @Test
    void aPolledCompletionIsCopiedFieldForFieldWithQpNumberEvenOnError() {
        WorkCompletion w = new WorkCompletion();
        w.fill(77, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 3, 100, 0x1234, 0xABCDE, 9, 2, 1, 0, 0);
        IbvWC wc = new IbvWC();
        PollCqCall.copy(w, wc);
        assertThat(wc.getWr_id()).isEqualTo(77);
        assertThat(wc.getStatus()).isEqualTo(5);
        assertThat(wc.getOpcode()).isEqualTo(128);
        assertThat(wc.getVendor_err()).isEqualTo(3);
        assertThat(wc.getByte_len()).isEqualTo(100);
        assertThat(wc.getImm_data()).isEqualTo(0x1234);
        assertThat(wc.getQp_num()).isEqualTo(0xABCDE);
        assertThat(wc.getSrc_qp()).isEqualTo(9);
        assertThat(wc.getWc_flags()).isEqualTo(2);
        assertThat(wc.getPkey_index()).isEqualTo((short) 1);
        assertThat(wc.isSend()).isFalse();
        assertThat(wc.clone()).isNotSameAs(wc).extracting(IbvWC::getWr_id).isEqualTo(77L);
    }

    @Test
    void connectionParametersKeepPrivateDataAndSettableResources() throws Exception {
        RdmaConnParam p = new RdmaConnParam();
        p.setPrivateData(new byte[] {1, 2, 3});
        assertThat(p.getPrivate_data()).isNotZero();
        assertThat(p.getPrivate_data_len()).isEqualTo((byte) 3);
        assertThat(p.getPrivateData()).containsExactly(1, 2, 3);
        p.setInitiator_depth((byte) 4);
        p.setResponder_resources((byte) 200);
        assertThat(p.initiatorDepthSet()).isTrue();
        assertThat(Byte.toUnsignedInt(p.getResponder_resources())).isEqualTo(200);
        assertThat(new RdmaConnParam().responderResourcesSet()).isFalse();
    }
}
