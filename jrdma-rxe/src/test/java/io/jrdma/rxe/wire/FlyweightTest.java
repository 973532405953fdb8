package io.jrdma.rxe.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.internal.roce.Aeth;
import io.jrdma.internal.roce.AtomicAckEth;
import io.jrdma.internal.roce.AtomicEth;
import io.jrdma.internal.roce.Bth;
import io.jrdma.internal.roce.Deth;
import io.jrdma.internal.roce.Ieth;
import io.jrdma.internal.roce.ImmDt;
import io.jrdma.internal.roce.Psn;
import io.jrdma.internal.roce.Reth;
import io.jrdma.rxe.testing.Gen;
import io.jrdma.rxe.testing.Tries;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** Setters and getters of the flyweights agree, touch only their own bits, and honour the offset. */
class FlyweightTest {
    private static final long AT = 5;

    private static MemorySegment buffer(byte fill) {
        MemorySegment s = MemorySegment.ofArray(new byte[64]);
        s.fill(fill);
        return s;
    }

    @Test
    void bthFieldsRoundTripAndStayInTheirBits() {
        Tries.run("bthFieldsRoundTripAndStayInTheirBits", 1000, FlyweightTest::bthRoundTrip);
    }

    private static void bthRoundTrip(Gen g) {
        int opcode = g.intBetween(0, 255);
        boolean se = g.bool();
        boolean mig = g.bool();
        int pad = g.intBetween(0, 3);
        int pkey = g.intBetween(0, 0xffff);
        int qpn = g.intBetween(0, 0xffffff);
        boolean ack = g.bool();
        int psn = g.intBetween(0, 0xffffff);
        MemorySegment s = buffer((byte) 0x5a);
        Bth b = new Bth().wrap(s, AT).init(opcode, se, mig, pad, pkey, qpn, ack, psn);
        assertThat(b.opcode()).isEqualTo(opcode);
        assertThat(b.solicitedEvent()).isEqualTo(se);
        assertThat(b.migReq()).isEqualTo(mig);
        assertThat(b.padCount()).isEqualTo(pad);
        assertThat(b.tver()).isZero();
        assertThat(b.pkey()).isEqualTo(pkey);
        assertThat(b.resv8a()).isZero();
        assertThat(b.destQpn()).isEqualTo(qpn);
        assertThat(b.ackReq()).isEqualTo(ack);
        assertThat(b.psn()).isEqualTo(psn);
        assertThat(Bth.opcode(s, AT)).isEqualTo(opcode);
        assertThat(Bth.destQpn(s, AT)).isEqualTo(qpn);
        assertThat(s.get(ValueLayout.JAVA_BYTE, AT - 1)).isEqualTo((byte) 0x5a);
        assertThat(s.get(ValueLayout.JAVA_BYTE, AT + Bth.LENGTH)).isEqualTo((byte) 0x5a);
        // single-field setters leave the neighbours alone
        b.padCount(3 - pad).solicitedEvent(!se).psn(Psn.next(psn)).destQpn(qpn ^ 1).resv8a(0xc0);
        assertThat(b.migReq()).isEqualTo(mig);
        assertThat(b.tver()).isZero();
        assertThat(b.ackReq()).isEqualTo(ack);
        assertThat(b.fecn()).isTrue();
        assertThat(b.becn()).isTrue();
        assertThat(b.destQpn()).isEqualTo(qpn ^ 1);
        assertThat(b.psn()).isEqualTo(Psn.next(psn));
        assertThat(b.pkey()).isEqualTo(pkey);
        b.ackReq(!ack).tver(15).migReq(!mig);
        assertThat(b.psn()).isEqualTo(Psn.next(psn));
        assertThat(b.tver()).isEqualTo(15);
        assertThat(b.padCount()).isEqualTo(3 - pad);
    }

    @Test
    void extendedHeadersRoundTrip() {
        Tries.run("extendedHeadersRoundTrip", 1000, FlyweightTest::extendedRoundTrip);
    }

    private static void extendedRoundTrip(Gen g) {
        long va = g.anyLong();
        int rkey = g.anyInt();
        int len = g.anyInt();
        long swap = g.anyLong();
        long compare = g.anyLong();
        int qpn = g.intBetween(0, 0xffffff);
        int qkey = g.anyInt();
        int imm = g.anyInt();
        MemorySegment s = buffer((byte) 0);
        Reth reth = new Reth().wrap(s, AT).va(va).rkey(rkey).dmaLength(len);
        assertThat(reth.va()).isEqualTo(va);
        assertThat(reth.rkey()).isEqualTo(rkey);
        assertThat(reth.dmaLength()).isEqualTo(len);
        AtomicEth a = new AtomicEth().wrap(s, AT).va(va).rkey(rkey).swapAdd(swap).compare(compare);
        assertThat(a.va()).isEqualTo(va);
        assertThat(a.rkey()).isEqualTo(rkey);
        assertThat(a.swapAdd()).isEqualTo(swap);
        assertThat(a.compare()).isEqualTo(compare);
        assertThat(new AtomicAckEth().wrap(s, AT).originalData(swap).originalData()).isEqualTo(swap);
        Deth d = new Deth().wrap(s, AT).qkey(qkey).srcQpn(qpn);
        assertThat(d.qkey()).isEqualTo(qkey);
        assertThat(d.srcQpn()).isEqualTo(qpn);
        assertThat(s.get(ValueLayout.JAVA_BYTE, AT + 4)).as("DETH reserved byte").isZero();
        assertThat(new ImmDt().wrap(s, AT).immediate(imm).immediate()).isEqualTo(imm);
        assertThat(new Ieth().wrap(s, AT).rkey(rkey).rkey()).isEqualTo(rkey);
    }

    @Test
    void aethSyndromesDecodeAsIbtaTable41Says() {
        MemorySegment s = buffer((byte) 0);
        Aeth a = new Aeth().wrap(s, AT);
        a.ack(Aeth.CREDITS_UNLIMITED, 7);
        assertThat(a.syndrome()).isEqualTo(0x1f);
        assertThat(a.isAck()).isTrue();
        assertThat(a.msn()).isEqualTo(7);
        a.rnrNak(14, 8);
        assertThat(a.syndrome()).isEqualTo(0x2e);
        assertThat(a.isRnrNak()).isTrue();
        assertThat(a.value()).isEqualTo(14);
        a.nak(Aeth.NAK_PSN_SEQUENCE_ERROR, 9);
        assertThat(a.syndrome()).isEqualTo(0x60);
        assertThat(a.isNak()).isTrue();
        a.nak(Aeth.NAK_REMOTE_ACCESS_ERROR, 0xffffff);
        assertThat(a.syndrome()).isEqualTo(0x62);
        assertThat(a.msn()).isEqualTo(0xffffff);
        assertThat(a.type()).isEqualTo(Aeth.TYPE_NAK);
        assertThat(s.get(ValueLayout.JAVA_BYTE, AT)).isEqualTo((byte) 0x62);
    }
}
