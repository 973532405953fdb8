package io.jrdma.rxe.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.internal.roce.Bth;
import io.jrdma.internal.roce.IbOpcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The opcode table against IBTA Table 38 and the offsets of rxe_opcode.c. */
class IbOpcodeTest {

    @Test
    void everyByteMapsToItsOpcodeOrToNothing() {
        int known = 0;
        for (int code = 0; code < 256; code++) {
            IbOpcode op = IbOpcode.fromCode(code);
            if (op != null) {
                assertThat(op.code()).isEqualTo(code);
                known++;
            }
        }
        assertThat(known).isEqualTo(IbOpcode.values().length).isEqualTo(25 + 12 + 2);
        assertThat(IbOpcode.fromCode(0x15)).as("reserved in RC").isNull();
        assertThat(IbOpcode.fromCode(0x40)).as("RD is not supported by rxe").isNull();
        assertThat(IbOpcode.fromCode(0x81)).as("CNP").isNull();
    }

    @ParameterizedTest
    @EnumSource(IbOpcode.class)
    void theServiceIsTheTopThreeBits(IbOpcode op) {
        assertThat(op.service().name()).isEqualTo(op.name().substring(0, 2));
    }

    @ParameterizedTest
    @EnumSource(IbOpcode.class)
    void eachOpcodeIsEitherARequestOrAResponseAndHasOnePositionInItsMessage(IbOpcode op) {
        assertThat(op.isRequest()).isNotEqualTo(op.isResponse());
        int positions = (op.isFirst() ? 1 : 0) + (op.isMiddle() ? 1 : 0) + (op.isLast() ? 1 : 0)
                + (op.isOnly() ? 1 : 0);
        assertThat(positions).isEqualTo(1);
        assertThat(op.isStart()).isEqualTo(op.isFirst() || op.isOnly());
        assertThat(op.isEnd()).isEqualTo(op.isLast() || op.isOnly());
        assertThat(op.name().contains("IMMEDIATE")).isEqualTo(op.immDtOffset() >= 0);
        assertThat(op.name().contains("INVALIDATE")).isEqualTo(op.iethOffset() >= 0);
        assertThat(op.name().startsWith("UD")).isEqualTo(op.dethOffset() == Bth.LENGTH);
    }

    @Test
    void extendedHeadersSitWhereRxePutsThem() {
        assertThat(IbOpcode.RC_SEND_ONLY.headerLength()).isEqualTo(12);
        assertThat(IbOpcode.RC_SEND_ONLY_WITH_IMMEDIATE.immDtOffset()).isEqualTo(12);
        assertThat(IbOpcode.RC_SEND_ONLY_WITH_IMMEDIATE.payloadOffset()).isEqualTo(16);
        assertThat(IbOpcode.RC_SEND_LAST_WITH_INVALIDATE.iethOffset()).isEqualTo(12);
        assertThat(IbOpcode.RC_RDMA_WRITE_FIRST.rethOffset()).isEqualTo(12);
        assertThat(IbOpcode.RC_RDMA_WRITE_FIRST.payloadOffset()).isEqualTo(28);
        assertThat(IbOpcode.RC_RDMA_WRITE_MIDDLE.payloadOffset()).isEqualTo(12);
        assertThat(IbOpcode.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE.immDtOffset()).isEqualTo(12);
        assertThat(IbOpcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE.rethOffset()).isEqualTo(12);
        assertThat(IbOpcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE.immDtOffset()).isEqualTo(28);
        assertThat(IbOpcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE.payloadOffset()).isEqualTo(32);
        assertThat(IbOpcode.RC_RDMA_READ_REQUEST.headerLength()).isEqualTo(28);
        assertThat(IbOpcode.RC_RDMA_READ_REQUEST.hasPayload()).isFalse();
        assertThat(IbOpcode.RC_RDMA_READ_RESPONSE_FIRST.aethOffset()).isEqualTo(12);
        assertThat(IbOpcode.RC_RDMA_READ_RESPONSE_MIDDLE.payloadOffset()).isEqualTo(12);
        assertThat(IbOpcode.RC_ACKNOWLEDGE.headerLength()).isEqualTo(16);
        assertThat(IbOpcode.RC_ACKNOWLEDGE.hasPayload()).isFalse();
        assertThat(IbOpcode.RC_ATOMIC_ACKNOWLEDGE.aethOffset()).isEqualTo(12);
        assertThat(IbOpcode.RC_ATOMIC_ACKNOWLEDGE.atomicAckEthOffset()).isEqualTo(16);
        assertThat(IbOpcode.RC_ATOMIC_ACKNOWLEDGE.headerLength()).isEqualTo(24);
        assertThat(IbOpcode.RC_COMPARE_SWAP.atomicEthOffset()).isEqualTo(12);
        assertThat(IbOpcode.RC_FETCH_ADD.headerLength()).isEqualTo(40);
        assertThat(IbOpcode.RC_FLUSH.fethOffset()).isEqualTo(12);
        assertThat(IbOpcode.RC_FLUSH.rethOffset()).isEqualTo(16);
        assertThat(IbOpcode.RC_FLUSH.headerLength()).isEqualTo(32);
        assertThat(IbOpcode.RC_ATOMIC_WRITE.rethOffset()).isEqualTo(12);
        assertThat(IbOpcode.RC_ATOMIC_WRITE.hasPayload()).isTrue();
        assertThat(IbOpcode.UD_SEND_ONLY.dethOffset()).isEqualTo(12);
        assertThat(IbOpcode.UD_SEND_ONLY.payloadOffset()).isEqualTo(20);
        assertThat(IbOpcode.UD_SEND_ONLY_WITH_IMMEDIATE.immDtOffset()).isEqualTo(20);
        assertThat(IbOpcode.UD_SEND_ONLY_WITH_IMMEDIATE.payloadOffset()).isEqualTo(24);
    }

    @Test
    void ucMirrorsRcForSendsAndWrites() {
        for (IbOpcode uc : IbOpcode.values()) {
            if (uc.service() != IbOpcode.Service.UC) {
                continue;
            }
            IbOpcode rc = IbOpcode.valueOf("RC" + uc.name().substring(2));
            assertThat(uc.code()).isEqualTo(rc.code() + 0x20);
            assertThat(uc.flags()).isEqualTo(rc.flags());
            assertThat(uc.headerLength()).isEqualTo(rc.headerLength());
        }
    }

    @Test
    void whatCompletesAndConsumesAReceiveFollowsRxe() {
        assertThat(IbOpcode.RC_SEND_FIRST.has(IbOpcode.Flags.CONSUMES_RWR)).isTrue();
        assertThat(IbOpcode.RC_SEND_FIRST.has(IbOpcode.Flags.COMPLETES)).isFalse();
        assertThat(IbOpcode.RC_SEND_LAST.has(IbOpcode.Flags.COMPLETES)).isTrue();
        assertThat(IbOpcode.RC_RDMA_WRITE_ONLY.has(IbOpcode.Flags.CONSUMES_RWR)).isFalse();
        assertThat(IbOpcode.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE.has(IbOpcode.Flags.CONSUMES_RWR
                | IbOpcode.Flags.COMPLETES)).isTrue();
        assertThat(IbOpcode.RC_RDMA_READ_REQUEST.has(IbOpcode.Flags.READ)).isTrue();
        assertThat(IbOpcode.RC_COMPARE_SWAP.has(IbOpcode.Flags.ATOMIC)).isTrue();
    }
}
