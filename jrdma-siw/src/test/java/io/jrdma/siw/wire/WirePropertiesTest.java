package io.jrdma.siw.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Round trips over generated values: decode(encode(x)) == x. */
class WirePropertiesTest {

    @Provide
    Arbitrary<MpaV2Ctrl> v2Ctrls() {
        Arbitrary<Integer> n = Arbitraries.integers().between(0, MpaV2Ctrl.MASK_IRD_ORD);
        Arbitrary<Boolean> b = Arbitraries.of(true, false);
        return Combinators.combine(n, n, b, b, b, b).as(MpaV2Ctrl::new);
    }

    @Provide
    Arbitrary<MpaFrame> frames() {
        Arbitrary<Optional<MpaV2Ctrl>> v2 = v2Ctrls().optional(0.7);
        Arbitrary<Boolean> b = Arbitraries.of(true, false);
        return Combinators.combine(Arbitraries.integers().between(0, 2), b, b, b, v2,
                Arbitraries.bytes().array(byte[].class).ofMaxSize(MpaFrame.MAX_PRIVATE_DATA))
                .as((rev, crc, reject, reply, c, pd) -> {
                    Optional<MpaV2Ctrl> ctrl = rev == 2 ? c : Optional.empty();
                    int room = MpaFrame.MAX_PRIVATE_DATA - (ctrl.isPresent() ? MpaV2Ctrl.LENGTH : 0);
                    byte[] data = pd.length > room ? java.util.Arrays.copyOf(pd, room) : pd;
                    return reply ? new MpaReply(rev, false, crc, reject, ctrl, data)
                            : new MpaRequest(rev, false, crc, ctrl, data);
                });
    }

    @Property(tries = 500)
    void mpaFramesRoundTrip(@ForAll("frames") MpaFrame frame) {
        byte[] b = frame.toBytes();
        assertThat(b).hasSize(frame.encodedLength());
        MpaResult r = MpaFrame.decode(MemorySegment.ofArray(b), 0, b.length);
        assertThat(r).isEqualTo(new MpaResult.Decoded(frame, b.length));
        MpaResult typed = frame.isReply() ? MpaFrame.decodeReply(MemorySegment.ofArray(b), 0, b.length)
                : MpaFrame.decodeRequest(MemorySegment.ofArray(b), 0, b.length);
        assertThat(typed).isEqualTo(r);
    }

    @Property(tries = 100)
    void markersAreRefusedButTheFrameStillRoundTrips(@ForAll("frames") MpaFrame frame) {
        MpaFrame withMarkers = frame instanceof MpaReply p
                ? new MpaReply(p.revision(), true, p.crc(), p.reject(), p.v2(), p.privateData())
                : new MpaRequest(frame.revision(), true, frame.crc(), frame.v2(), frame.privateData());
        byte[] b = withMarkers.toBytes();
        MpaResult r = MpaFrame.decode(MemorySegment.ofArray(b), 0, b.length);
        assertThat(r).isInstanceOfSatisfying(MpaResult.Invalid.class, i -> {
            assertThat(i.problem()).isEqualTo(MpaProblem.MARKERS_NOT_SUPPORTED);
            assertThat(i.frame()).contains(withMarkers);
        });
    }

    @Provide
    Arbitrary<Terminate> terminates() {
        Arbitrary<Boolean> b = Arbitraries.of(true, false);
        Arbitrary<byte[]> tail = Arbitraries.bytes().array(byte[].class).ofSize(17);
        return Combinators.combine(Arbitraries.of(TermError.class), b, Arbitraries.integers().between(0, 3), b,
                Arbitraries.integers().between(0, 0xFFFF), tail).as((e, m, copy, tagged, len, bytes) -> {
                    // copy: 0 none, 1 DDP header, 2 DDP + RDMA header (Read Request), 3 D+R without RDMA header
                    if (copy == 0) {
                        return new Terminate(e.layer(), e.etype(), e.ecode(), m, false, false, 0, new byte[0],
                                new byte[0]);
                    }
                    byte[] ddp = new byte[tagged && copy == 1 ? 14 : 18];
                    System.arraycopy(bytes, 0, ddp, 1, ddp.length - 1);
                    ddp[0] = (byte) (tagged && copy == 1 ? 0xC1 : 0x41);
                    byte[] rdma = copy == 2 ? java.util.Arrays.copyOf(bytes, 28) : new byte[0];
                    return new Terminate(e.layer(), e.etype(), e.ecode(), m, true, copy >= 2, len, ddp, rdma);
                });
    }

    @Property(tries = 500)
    void terminatesRoundTripInBothLayouts(@ForAll("terminates") Terminate t, @ForAll TermLayout layout) {
        byte[] b = t.toBytes(layout);
        assertThat(b).hasSize(t.encodedLength());
        TerminateResult r = Terminate.decode(MemorySegment.ofArray(b), 0, b.length, layout);
        assertThat(r).isEqualTo(new TerminateResult.Decoded(t, layout, TerminateHeader.TERMINATE_MSN, b.length));
    }

    @Property(tries = 300)
    void fpduArithmeticIsConsistent(@ForAll("opcodes") RdmapOpcode op,
            @ForAll("payloads") int payload) {
        int mpa = FpduHeader.mpaLength(op, payload);
        int total = FpduHeader.fpduLength(mpa);
        assertThat(total % 4).isZero();
        assertThat(total - FpduHeader.CRC_LENGTH - FpduHeader.padLength(mpa)).isEqualTo(op.headerLength() + payload);
        assertThat(FpduHeader.padLength(mpa)).isBetween(0, 3);
    }

    @Property(tries = 300)
    void maxPayloadFillsTheRoundedSegment(@ForAll("opcodes") RdmapOpcode op, @ForAll("mss") int mss) {
        int p = FpduHeader.maxPayload(op, mss);
        assertThat(FpduHeader.fpduLength(op, p)).isEqualTo(FpduHeader.tcpSegmentLength(mss));
        assertThat(FpduHeader.padLength(FpduHeader.mpaLength(op, p))).isZero();
    }

    @Provide
    Arbitrary<RdmapOpcode> opcodes() {
        return Arbitraries.of(RdmapOpcode.class);
    }

    @Provide
    Arbitrary<Integer> payloads() {
        return Arbitraries.integers().between(0, FpduHeader.MAX_MPA_LENGTH - 46);
    }

    @Provide
    Arbitrary<Integer> mss() {
        return Arbitraries.integers().between(536, 65495);
    }
}
