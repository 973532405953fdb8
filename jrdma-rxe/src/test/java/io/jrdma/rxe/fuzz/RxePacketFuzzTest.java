package io.jrdma.rxe.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.jrdma.rxe.net.RxePacket;
import io.jrdma.internal.roce.Bth;
import io.jrdma.internal.roce.IbOpcode;
import io.jrdma.internal.roce.Icrc;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * RoCEv2 UDP payloads (IBTA Vol 1 §9.2-9.4 headers, RoCEv2 Annex A17 ICRC) from arbitrary bytes: the
 * parser never throws and accepts a packet only when its opcode is known and its headers, payload, pad
 * and ICRC add up to its length; every header field of an accepted packet reads within the bytes; the
 * ICRC solver never throws, finds no IPv4 id for a wrong ICRC most of the time, and always finds id 0 +
 * DF for a payload sealed as jrdma sends it.
 */
class RxePacketFuzzTest {
    private static final int SRC = 0x0a000402;
    private static final int DST = 0x0a00040f;
    private final RxePacket p = new RxePacket();
    private final Icrc icrc = new Icrc();

    @FuzzTest(maxDuration = "5s")
    void roceDatagramsParseWithoutThrowing(byte[] data) {
        MemorySegment s = MemorySegment.ofArray(data);
        if (p.parse(s, 0, data.length)) {
            IbOpcode op = p.opcode();
            assertThat(op).isNotNull();
            assertThat(p.payloadOffset() + p.payloadLength() + p.pad() + Icrc.LENGTH).isEqualTo(data.length);
            long sink = p.psn() + p.destQpn() + (p.ackReq() ? 1 : 0) + (p.solicited() ? 1 : 0) + p.bth.pkey()
                    + p.bth.tver();
            if (op.rethOffset() >= 0) {
                sink += p.reth.va() + p.reth.rkey() + p.reth.dmaLength();
            }
            if (op.aethOffset() >= 0) {
                sink += p.aeth.syndrome() + p.aeth.msn();
            }
            if (op.atomicEthOffset() >= 0) {
                sink += p.atomicEth.va() + p.atomicEth.rkey() + p.atomicEth.swapAdd() + p.atomicEth.compare();
            }
            if (op.atomicAckEthOffset() >= 0) {
                sink += p.atomicAckEth.originalData();
            }
            if (op.dethOffset() >= 0) {
                sink += p.deth.qkey() + p.deth.srcQpn();
            }
            if (op.immDtOffset() >= 0) {
                sink += p.immDt.immediate();
            }
            if (op.iethOffset() >= 0) {
                sink += p.ieth.rkey();
            }
            assertThat(sink).isNotNull();
        }
        if (data.length < Icrc.MIN_PAYLOAD) {
            return;
        }
        long got = icrc.solveIpv4Id(s, 0, data.length, SRC, DST, 4791, 4791);
        assertThat(got == Icrc.NO_MATCH || Icrc.matchedId(got) >= 0).isTrue();
        byte[] sealed = Arrays.copyOf(data, data.length);
        MemorySegment t = MemorySegment.ofArray(sealed);
        icrc.sealIpv4ForSend(t, 0, sealed.length, SRC, DST, 4791, 4791);
        long match = icrc.solveIpv4Id(t, 0, sealed.length, SRC, DST, 4791, 4791);
        assertThat(match).as("a sealed payload is found again").isNotEqualTo(Icrc.NO_MATCH);
        assertThat(Icrc.matchedId(match)).isZero();
        assertThat(Bth.LENGTH).isPositive();
    }
}
