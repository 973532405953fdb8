package io.jrdma.rxe.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.internal.roce.Aeth;
import io.jrdma.internal.roce.Bth;
import io.jrdma.internal.roce.Deth;
import io.jrdma.internal.roce.IbOpcode;
import io.jrdma.internal.roce.Icrc;
import io.jrdma.internal.roce.ImmDt;
import io.jrdma.internal.roce.Psn;
import io.jrdma.internal.roce.Reth;
import io.jrdma.rxe.golden.GoldenFrame;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The header flyweights and the opcode table against data packets Linux 6.1 rxe sent: read field by
 * field, then rebuilt with the setters and compared byte for byte.
 */
class TransportHeadersGoldenTest {
    private final Bth bth = new Bth();
    private final Reth reth = new Reth();
    private final Aeth aeth = new Aeth();
    private final Deth deth = new Deth();
    private final ImmDt immDt = new ImmDt();

    static List<GoldenFrame> frames() {
        return GoldenFrame.all();
    }

    private MemorySegment bthOf(String name) {
        MemorySegment p = GoldenFrame.named(name).payload();
        bth.wrap(p, 0);
        return p;
    }

    @ParameterizedTest
    @MethodSource("frames")
    void everyFrameHasAKnownOpcodeAndAPayloadLengthThatAddsUp(GoldenFrame f) {
        MemorySegment p = f.payload();
        bth.wrap(p, 0);
        IbOpcode op = IbOpcode.fromCode(bth.opcode());
        assertThat(op).isNotNull();
        int payload = f.payloadLength() - op.headerLength() - bth.padCount() - Icrc.LENGTH;
        assertThat(payload).isGreaterThanOrEqualTo(0);
        assertThat(op.hasPayload() || payload == 0).isTrue();
        assertThat(bth.tver()).isZero();
        assertThat(bth.pkey()).isEqualTo(Bth.DEFAULT_PKEY);
        assertThat(bth.resv8a()).isZero();
        assertThat(bth.migReq()).isFalse();
        assertThat(bth.solicitedEvent()).isFalse();
    }

    @ParameterizedTest
    @MethodSource("frames")
    void rebuildingTheHeadersWithTheFlyweightsGivesTheCapturedBytes(GoldenFrame f) {
        MemorySegment in = f.payload();
        Bth b = new Bth().wrap(in, 0);
        IbOpcode op = IbOpcode.fromCode(b.opcode());
        MemorySegment out = MemorySegment.ofArray(new byte[op.headerLength()]);
        new Bth().wrap(out, 0).init(b.opcode(), b.solicitedEvent(), b.migReq(), b.padCount(), b.pkey(), b.destQpn(),
                b.ackReq(), b.psn());
        if (op.dethOffset() >= 0) {
            Deth r = new Deth().wrap(in, op.dethOffset());
            new Deth().wrap(out, op.dethOffset()).qkey(r.qkey()).srcQpn(r.srcQpn());
        }
        if (op.rethOffset() >= 0) {
            Reth r = new Reth().wrap(in, op.rethOffset());
            new Reth().wrap(out, op.rethOffset()).va(r.va()).rkey(r.rkey()).dmaLength(r.dmaLength());
        }
        if (op.aethOffset() >= 0) {
            Aeth r = new Aeth().wrap(in, op.aethOffset());
            new Aeth().wrap(out, op.aethOffset()).set(r.syndrome(), r.msn());
        }
        if (op.immDtOffset() >= 0) {
            new ImmDt().wrap(out, op.immDtOffset()).immediate(new ImmDt().wrap(in, op.immDtOffset()).immediate());
        }
        assertThat(out.toArray(ValueLayout.JAVA_BYTE))
                .isEqualTo(Arrays.copyOf(in.toArray(ValueLayout.JAVA_BYTE), op.headerLength()));
    }

    @Test
    void rcSendFirstMiddleLastCarryTheMessageInMtuSizedPieces() {
        MemorySegment first = bthOf("rc-send-first");
        assertThat(IbOpcode.fromCode(bth.opcode())).isEqualTo(IbOpcode.RC_SEND_FIRST);
        assertThat(bth.ackReq()).as("rxe requests an ACK only on the last packet").isFalse();
        int psn = bth.psn();
        assertThat(first.byteSize() - Bth.LENGTH - Icrc.LENGTH).isEqualTo(1024);
        bthOf("rc-send-middle");
        assertThat(IbOpcode.fromCode(bth.opcode())).isEqualTo(IbOpcode.RC_SEND_MIDDLE);
        assertThat(bth.psn()).isEqualTo(Psn.next(psn));
        assertThat(bth.ackReq()).isFalse();
        MemorySegment last = bthOf("rc-send-last");
        assertThat(IbOpcode.fromCode(bth.opcode())).isEqualTo(IbOpcode.RC_SEND_LAST);
        assertThat(bth.psn()).isEqualTo(Psn.add(psn, 2));
        assertThat(bth.ackReq()).isTrue();
        assertThat(last.byteSize() - Bth.LENGTH - Icrc.LENGTH).as("3000 - 2 * 1024").isEqualTo(952);
    }

    @Test
    void rdmaWriteCarriesItsRethOnlyInTheFirstPacket() {
        MemorySegment p = bthOf("rc-rdma-write-first");
        assertThat(IbOpcode.fromCode(bth.opcode())).isEqualTo(IbOpcode.RC_RDMA_WRITE_FIRST);
        reth.wrap(p, IbOpcode.RC_RDMA_WRITE_FIRST.rethOffset());
        assertThat(reth.va()).isEqualTo(0x300000L);
        assertThat(reth.rkey()).isEqualTo(0x6161);
        assertThat(reth.dmaLength()).as("the whole message").isEqualTo(2500);
        p = bthOf("rc-rdma-write-last");
        assertThat(IbOpcode.fromCode(bth.opcode()).rethOffset()).isEqualTo(-1);
        assertThat(p.byteSize() - Bth.LENGTH - Icrc.LENGTH).isEqualTo(2500 - 2048);
        p = bthOf("rc-rdma-write-only");
        reth.wrap(p, Bth.LENGTH);
        assertThat(reth.dmaLength()).isEqualTo(64);
        assertThat(p.byteSize()).isEqualTo(Bth.LENGTH + Reth.LENGTH + 64 + Icrc.LENGTH);
    }

    @Test
    void rdmaReadRequestAndItsResponses() {
        MemorySegment p = bthOf("rc-rdma-read-request");
        assertThat(IbOpcode.fromCode(bth.opcode())).isEqualTo(IbOpcode.RC_RDMA_READ_REQUEST);
        assertThat(bth.ackReq()).isTrue();
        reth.wrap(p, Bth.LENGTH);
        assertThat(reth.va()).isEqualTo(0x200000L);
        assertThat(reth.rkey()).isEqualTo(0x5151);
        assertThat(reth.dmaLength()).isEqualTo(2500);
        assertThat(p.byteSize()).as("no payload").isEqualTo(Bth.LENGTH + Reth.LENGTH + Icrc.LENGTH);

        p = bthOf("rc-rdma-read-response-first");
        int psn = bth.psn();
        aeth.wrap(p, IbOpcode.RC_RDMA_READ_RESPONSE_FIRST.aethOffset());
        assertThat(aeth.isAck()).isTrue();
        assertThat(aeth.value()).isEqualTo(Aeth.CREDITS_UNLIMITED);
        int msn = aeth.msn();
        assertThat(p.byteSize() - 16 - Icrc.LENGTH).isEqualTo(1024);
        p = bthOf("rc-rdma-read-response-middle");
        assertThat(bth.psn()).isEqualTo(Psn.next(psn));
        assertThat(IbOpcode.fromCode(bth.opcode()).aethOffset()).isEqualTo(-1);
        p = bthOf("rc-rdma-read-response-last");
        assertThat(bth.psn()).isEqualTo(Psn.add(psn, 2));
        aeth.wrap(p, Bth.LENGTH);
        assertThat(aeth.msn()).as("the READ counts once in the MSN").isEqualTo(msn);
        assertThat(p.byteSize() - 16 - Icrc.LENGTH).isEqualTo(452);

        p = bthOf("rc-rdma-read-response-only");
        aeth.wrap(p, Bth.LENGTH);
        assertThat(aeth.isAck()).isTrue();
        assertThat(p.byteSize() - 16 - Icrc.LENGTH).isEqualTo(64);
    }

    @Test
    void rxeAcknowledgesWithUnlimitedCreditsAndACountingMsn() {
        MemorySegment p = bthOf("rc-ack");
        assertThat(IbOpcode.fromCode(bth.opcode())).isEqualTo(IbOpcode.RC_ACKNOWLEDGE);
        assertThat(bth.ackReq()).isFalse();
        aeth.wrap(p, Bth.LENGTH);
        assertThat(aeth.syndrome()).isEqualTo(0x1f);
        assertThat(aeth.isAck()).isTrue();
        assertThat(aeth.isNak()).isFalse();
        assertThat(aeth.isRnrNak()).isFalse();
        assertThat(aeth.msn()).isEqualTo(2);
        assertThat(p.byteSize()).isEqualTo(Bth.LENGTH + Aeth.LENGTH + Icrc.LENGTH);
    }

    @Test
    void udSendWithImmediateCarriesTheSendersQpnAsUdaddyPutsIt() {
        MemorySegment p = bthOf("ud-send-only-imm-client");
        assertThat(IbOpcode.fromCode(bth.opcode())).isEqualTo(IbOpcode.UD_SEND_ONLY_WITH_IMMEDIATE);
        deth.wrap(p, Bth.LENGTH);
        assertThat(deth.qkey()).as("RDMA_UDP_QKEY").isEqualTo(0x01234567);
        immDt.wrap(p, IbOpcode.UD_SEND_ONLY_WITH_IMMEDIATE.immDtOffset());
        assertThat(immDt.immediate()).as("htobe32(qp_num)").isEqualTo(deth.srcQpn());
        assertThat(p.byteSize() - 24 - Icrc.LENGTH).as("udaddy -S 100").isEqualTo(100);
        assertThat(bth.psn()).as("a fresh UD QP starts at PSN 0").isZero();
    }

    @Test
    void qp1AndUdQpsSendFromTheirCreateTimeUdpPort() {
        // rxe: src_port = 0xC000 + hash_32(qpn, 14) for QPs whose port is not set from a flow label
        for (GoldenFrame f : GoldenFrame.all()) {
            if (!f.fromLinux()) {
                continue;
            }
            MemorySegment p = f.payload();
            int op = Bth.opcode(p, 0);
            if (op == IbOpcode.UD_SEND_ONLY.code() || op == IbOpcode.UD_SEND_ONLY_WITH_IMMEDIATE.code()) {
                int qpn = new Deth().wrap(p, Bth.LENGTH).srcQpn();
                assertThat(f.sourcePort()).as(f.name()).isEqualTo(0xc000 + ((qpn * 0x61C88647) >>> 18));
            }
        }
    }
}
