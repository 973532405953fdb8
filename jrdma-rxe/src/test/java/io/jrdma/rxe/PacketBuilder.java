package io.jrdma.rxe;

import io.jrdma.internal.roce.AtomicEth;
import io.jrdma.internal.roce.Bth;
import io.jrdma.internal.roce.Deth;
import io.jrdma.internal.roce.IbOpcode;
import io.jrdma.internal.roce.Ieth;
import io.jrdma.internal.roce.ImmDt;
import io.jrdma.internal.roce.Reth;
import java.lang.foreign.MemorySegment;

/** Hand-built RoCEv2 packets (BTH and extended headers, payload; no ICRC) for a {@link ScriptedPeer}. */
final class PacketBuilder {
    private final MemorySegment s;
    private final IbOpcode op;
    private final int payload;

    private PacketBuilder(IbOpcode op, int payload) {
        this.op = op;
        this.payload = payload;
        this.s = MemorySegment.ofArray(new byte[op.headerLength() + payload + (-payload & 3)]);
    }

    static PacketBuilder of(IbOpcode op, int destQpn, int psn, boolean ackReq, int payload) {
        PacketBuilder b = new PacketBuilder(op, payload);
        new Bth().wrap(b.s, 0).init(op.code(), false, false, -payload & 3, Bth.DEFAULT_PKEY, destQpn, ackReq, psn);
        return b;
    }

    PacketBuilder reth(long va, int rkey, int length) {
        new Reth().wrap(s, op.rethOffset()).va(va).rkey(rkey).dmaLength(length);
        return this;
    }

    PacketBuilder atomic(long va, int rkey, long swapAdd, long compare) {
        new AtomicEth().wrap(s, op.atomicEthOffset()).va(va).rkey(rkey).swapAdd(swapAdd).compare(compare);
        return this;
    }

    PacketBuilder deth(int qkey, int srcQpn) {
        new Deth().wrap(s, op.dethOffset()).qkey(qkey).srcQpn(srcQpn);
        return this;
    }

    PacketBuilder ieth(int rkey) {
        new Ieth().wrap(s, op.iethOffset()).rkey(rkey);
        return this;
    }

    PacketBuilder imm(int imm) {
        new ImmDt().wrap(s, op.immDtOffset()).immediate(imm);
        return this;
    }

    PacketBuilder payload(byte[] bytes) {
        MemorySegment.copy(MemorySegment.ofArray(bytes), 0, s, op.payloadOffset(), Math.min(bytes.length, payload));
        return this;
    }

    byte[] bytes() {
        return s.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
    }
}
