package io.jrdma.siw.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RdmapOpcodeTest {

    @Test
    void tableMatchesSiwPktinfoControlWordsAndHeaderLengths() {
        // siw_qp.c iwarp_pktinfo[]: DDP_FLAG_LAST | DDP v1 | RDMAP v1 | opcode, T for Write/Read Response
        int[] ctrl = {0xC140, 0x4141, 0xC142, 0x4143, 0x4144, 0x4145, 0x4146, 0x4147};
        int[] hdr = {16, 48, 16, 20, 20, 20, 20, 24};
        for (RdmapOpcode op : RdmapOpcode.values()) {
            assertThat(op.ctrlTemplate()).as(op.name()).isEqualTo(ctrl[op.value()]);
            assertThat(op.headerLength()).as(op.name()).isEqualTo(hdr[op.value()]);
            assertThat(op.mpaLengthTemplate()).as(op.name()).isEqualTo(hdr[op.value()] - 2);
            assertThat(RdmapOpcode.of(op.value())).isSameAs(op);
            assertThat(RdmapOpcode.headerLength(op.value())).isEqualTo(op.headerLength());
        }
    }

    @Test
    void queueNumbersFollowRfc5040() {
        assertThat(RdmapOpcode.SEND.queueNumber()).isZero();
        assertThat(RdmapOpcode.SEND_SE_INVALIDATE.queueNumber()).isZero();
        assertThat(RdmapOpcode.RDMA_READ_REQUEST.queueNumber()).isEqualTo(1);
        assertThat(RdmapOpcode.TERMINATE.queueNumber()).isEqualTo(2);
        assertThat(RdmapOpcode.RDMA_WRITE.queueNumber()).isEqualTo(RdmapOpcode.NO_QUEUE);
        assertThat(RdmapOpcode.RDMA_READ_RESPONSE.tagged()).isTrue();
        assertThat(RdmapOpcode.SEND_INVALIDATE.carriesInvalidateStag()).isTrue();
        assertThat(RdmapOpcode.SEND_SE.carriesInvalidateStag()).isFalse();
        assertThat(RdmapOpcode.TERMINATE.isSend()).isFalse();
    }

    @ParameterizedTest
    @ValueSource(ints = {8, 9, 15, -1, 16, 255})
    void undefinedOpcodesAreNullNotExceptions(int value) {
        assertThat(RdmapOpcode.of(value)).isNull();
        assertThat(RdmapOpcode.headerLength(value)).isEqualTo(-1);
    }

    @Test
    void everyCapturedSiwFpduUsesTheTemplateOfItsOpcodeExceptForTheLFlag() {
        Golden.fpdus().filter(Golden.Fixture::fromSiw).forEach(f -> {
            MemorySegment s = MemorySegment.ofArray(f.bytes());
            FpduHeader h = new FpduHeader().wrap(s, 0);
            RdmapOpcode op = RdmapOpcode.of(h.opcode());
            assertThat(op).as(f.name()).isNotNull();
            assertThat(h.ctrl() | FpduHeader.FLAG_LAST).as(f.name()).isEqualTo(op.ctrlTemplate());
        });
    }
}
