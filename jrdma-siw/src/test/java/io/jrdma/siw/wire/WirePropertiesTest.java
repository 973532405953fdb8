package io.jrdma.siw.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.testkit.Property;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Optional;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/**
 * Round trips over generated values, decode(encode(x)) == x, and the FPDU arithmetic, with the in-house
 * {@link Property} runner (seeded; a failure names the seed and the smallest failing size).
 */
class WirePropertiesTest {
    private static final RdmapOpcode[] OPCODES = RdmapOpcode.values();
    private static final TermError[] ERRORS = TermError.values();
    private static final TermLayout[] LAYOUTS = TermLayout.values();

    static MpaV2Ctrl v2Ctrl(RandomGenerator r) {
        return new MpaV2Ctrl(r.nextInt(MpaV2Ctrl.MASK_IRD_ORD + 1), r.nextInt(MpaV2Ctrl.MASK_IRD_ORD + 1),
                r.nextBoolean(), r.nextBoolean(), r.nextBoolean(), r.nextBoolean());
    }

    /** A request or reply of revision 0 to 2 with up to {@code maxPd} bytes of private data (as room allows). */
    static MpaFrame frame(RandomGenerator r, int maxPd) {
        int rev = r.nextInt(3);
        Optional<MpaV2Ctrl> ctrl = rev == 2 && r.nextInt(10) < 7 ? Optional.of(v2Ctrl(r)) : Optional.empty();
        int room = MpaFrame.MAX_PRIVATE_DATA - (ctrl.isPresent() ? MpaV2Ctrl.LENGTH : 0);
        byte[] pd = new byte[r.nextInt(Math.min(room, maxPd) + 1)];
        r.nextBytes(pd);
        boolean crc = r.nextBoolean();
        return r.nextBoolean() ? new MpaReply(rev, false, crc, r.nextBoolean(), ctrl, pd)
                : new MpaRequest(rev, false, crc, ctrl, pd);
    }

    @Test
    void mpaFramesRoundTrip() {
        Property.of("MPA frames round trip").tries(500).sizes(0, MpaFrame.MAX_PRIVATE_DATA).check((r, size) -> {
            MpaFrame frame = frame(r, size);
            byte[] b = frame.toBytes();
            assertThat(b).hasSize(frame.encodedLength());
            MpaResult res = MpaFrame.decode(MemorySegment.ofArray(b), 0, b.length);
            assertThat(res).isEqualTo(new MpaResult.Decoded(frame, b.length));
            MpaResult typed = frame.isReply() ? MpaFrame.decodeReply(MemorySegment.ofArray(b), 0, b.length)
                    : MpaFrame.decodeRequest(MemorySegment.ofArray(b), 0, b.length);
            assertThat(typed).isEqualTo(res);
        });
    }

    @Test
    void markersAreRefusedButTheFrameStillRoundTrips() {
        Property.of("markers are refused").tries(100).sizes(0, MpaFrame.MAX_PRIVATE_DATA).check((r, size) -> {
            MpaFrame frame = frame(r, size);
            MpaFrame withMarkers = frame instanceof MpaReply p
                    ? new MpaReply(p.revision(), true, p.crc(), p.reject(), p.v2(), p.privateData())
                    : new MpaRequest(frame.revision(), true, frame.crc(), frame.v2(), frame.privateData());
            byte[] b = withMarkers.toBytes();
            MpaResult res = MpaFrame.decode(MemorySegment.ofArray(b), 0, b.length);
            assertThat(res).isInstanceOfSatisfying(MpaResult.Invalid.class, i -> {
                assertThat(i.problem()).isEqualTo(MpaProblem.MARKERS_NOT_SUPPORTED);
                assertThat(i.frame()).contains(withMarkers);
            });
        });
    }

    /** A TERMINATE of any defined error, copying nothing, a DDP header, or a DDP and a Read Request header. */
    static Terminate terminate(RandomGenerator r) {
        TermError e = ERRORS[r.nextInt(ERRORS.length)];
        boolean m = r.nextBoolean();
        int copy = r.nextInt(4); // 0 none, 1 DDP header, 2 DDP + RDMA header (Read Request), 3 D+R without it
        boolean tagged = r.nextBoolean();
        if (copy == 0) {
            return new Terminate(e.layer(), e.etype(), e.ecode(), m, false, false, 0, new byte[0], new byte[0]);
        }
        byte[] tail = new byte[28];
        r.nextBytes(tail);
        byte[] ddp = new byte[tagged && copy == 1 ? 14 : 18];
        System.arraycopy(tail, 0, ddp, 1, ddp.length - 1);
        ddp[0] = (byte) (tagged && copy == 1 ? 0xC1 : 0x41);
        byte[] rdma = copy == 2 ? Arrays.copyOf(tail, 28) : new byte[0];
        return new Terminate(e.layer(), e.etype(), e.ecode(), m, true, copy >= 2, r.nextInt(0x10000), ddp, rdma);
    }

    @Test
    void terminatesRoundTripInBothLayouts() {
        Property.of("TERMINATE round trip").tries(500).check((r, size) -> {
            Terminate t = terminate(r);
            TermLayout layout = LAYOUTS[r.nextInt(LAYOUTS.length)];
            byte[] b = t.toBytes(layout);
            assertThat(b).hasSize(t.encodedLength());
            TerminateResult res = Terminate.decode(MemorySegment.ofArray(b), 0, b.length, layout);
            assertThat(res).isEqualTo(new TerminateResult.Decoded(t, layout, TerminateHeader.TERMINATE_MSN,
                    b.length));
        });
    }

    @Test
    void fpduArithmeticIsConsistent() {
        Property.of("FPDU arithmetic").tries(300).sizes(0, FpduHeader.MAX_MPA_LENGTH - 46).check((r, size) -> {
            RdmapOpcode op = OPCODES[r.nextInt(OPCODES.length)];
            int payload = r.nextInt(size + 1);
            int mpa = FpduHeader.mpaLength(op, payload);
            int total = FpduHeader.fpduLength(mpa);
            assertThat(total % 4).isZero();
            assertThat(total - FpduHeader.CRC_LENGTH - FpduHeader.padLength(mpa))
                    .isEqualTo(op.headerLength() + payload);
            assertThat(FpduHeader.padLength(mpa)).isBetween(0, 3);
        });
    }

    @Test
    void maxPayloadFillsTheRoundedSegment() {
        Property.of("max payload fills the segment").tries(300).check((r, size) -> {
            RdmapOpcode op = OPCODES[r.nextInt(OPCODES.length)];
            int mss = 536 + r.nextInt(65495 - 536 + 1);
            int p = FpduHeader.maxPayload(op, mss);
            assertThat(FpduHeader.fpduLength(op, p)).isEqualTo(FpduHeader.tcpSegmentLength(mss));
            assertThat(FpduHeader.padLength(FpduHeader.mpaLength(op, p))).isZero();
        });
    }
}
