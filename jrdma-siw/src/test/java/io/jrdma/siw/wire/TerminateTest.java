package io.jrdma.siw.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class TerminateTest {

    /** What each captured TERMINATE says; siw's were provoked by the probe frame before them. */
    record Expect(String fixture, String word, TermLayout layout, TermError error, boolean m, boolean d, boolean r,
            int segmentLength, int ddpLength, int rdmaLength) {
        @Override
        public String toString() {
            return fixture;
        }
    }

    static List<Expect> captured() {
        TermLayout siw = TermLayout.SIW_LITTLE_ENDIAN;
        return List.of(
                new Expect("term-write-stag.03.siw.terminate.hex", "11000300", siw, TermError.DDP_TAGGED_INVALID_STAG,
                        true, true, false, 24, 14, 0),
                new Expect("term-write-stag-crc.03.siw.terminate.hex", "11000300", siw,
                        TermError.DDP_TAGGED_INVALID_STAG, true, true, false, 24, 14, 0),
                new Expect("term-send-msn.03.siw.terminate.hex", "21030300", siw,
                        TermError.DDP_UNTAGGED_INVALID_MSN_RANGE, true, true, false, 16, 18, 0),
                new Expect("term-send-qn.03.siw.terminate.hex", "21010300", siw, TermError.DDP_UNTAGGED_INVALID_QN,
                        true, true, false, 16, 18, 0),
                new Expect("term-read-msn.03.siw.terminate.hex", "21030300", siw,
                        TermError.DDP_UNTAGGED_INVALID_MSN_RANGE, true, true, false, 0, 18, 0),
                new Expect("term-read-stag.03.siw.terminate.hex", "10000700", siw, TermError.RDMAP_INVALID_STAG,
                        true, true, true, 0, 18, 28),
                new Expect("term-opcode.03.siw.terminate.hex", "20060000", siw, TermError.RDMAP_UNEXPECTED_OPCODE,
                        false, false, false, 0, 0, 0),
                new Expect("term-ddp-version.03.siw.terminate.hex", "11040000", siw,
                        TermError.DDP_TAGGED_INVALID_VERSION, false, false, false, 0, 0, 0),
                new Expect("term-rdmap-version.03.siw.terminate.hex", "20050000", siw, TermError.RDMAP_INVALID_VERSION,
                        false, false, false, 0, 0, 0),
                new Expect("term-bad-crc.03.siw.terminate.hex", "02020000", siw, TermError.MPA_CRC_ERROR,
                        false, false, false, 0, 0, 0),
                new Expect("guest-client-bad-key.02.siw.terminate.hex", "02040000", siw,
                        TermError.MPA_INVALID_REQUEST_REPLY, false, false, false, 0, 0, 0),
                new Expect("guest-client-ord-huge.02.siw.terminate.hex", "02060000", siw,
                        TermError.MPA_INSUFFICIENT_IRD, false, false, false, 0, 0, 0),
                new Expect("term-to-siw-rfc.02.peer.terminate.hex", "1203c000", TermLayout.RFC_5040,
                        TermError.DDP_UNTAGGED_INVALID_MSN_RANGE, true, true, false, 16, 18, 0),
                new Expect("term-to-siw-siw.02.peer.terminate.hex", "21030300", siw,
                        TermError.DDP_UNTAGGED_INVALID_MSN_RANGE, true, true, false, 16, 18, 0));
    }

    private static TerminateResult decode(byte[] b, TermLayout fallback) {
        return Terminate.decode(MemorySegment.ofArray(b), 0, b.length, fallback);
    }

    @Test
    void everyCapturedTerminateIsListedHere() {
        assertThat(Golden.ofKind("terminate").map(Golden.Fixture::name).toList())
                .containsExactlyInAnyOrderElementsOf(captured().stream().map(Expect::fixture).toList());
    }

    @ParameterizedTest
    @MethodSource("captured")
    void capturedTerminateDecodesToTheErrorSiwLoggedAndReencodesToTheSameBytes(Expect e) {
        Golden.Fixture f = Golden.get(e.fixture());
        byte[] b = f.bytes();
        assertThat(HexFormat.of().formatHex(b, 20, 24)).isEqualTo(e.word());
        TerminateResult r = decode(b, TermLayout.SIW_LITTLE_ENDIAN);
        assertThat(r).isInstanceOf(TerminateResult.Decoded.class);
        TerminateResult.Decoded d = (TerminateResult.Decoded) r;
        Terminate t = d.terminate();
        assertThat(d.layout()).isEqualTo(e.layout());
        assertThat(d.msn()).isEqualTo(1);
        assertThat(d.length()).isEqualTo(b.length);
        assertThat(t.error()).contains(e.error());
        assertThat(List.of(t.m(), t.d(), t.r())).isEqualTo(List.of(e.m(), e.d(), e.r()));
        assertThat(t.ddpSegmentLength()).isEqualTo(e.segmentLength());
        assertThat(t.ddpHeader()).hasSize(e.ddpLength());
        assertThat(t.rdmaHeader()).hasSize(e.rdmaLength());

        byte[] again = t.toBytes(d.layout());
        if (f.crc()) {
            new MpaCrc().seal(MemorySegment.ofArray(again), 0);
        }
        assertThat(again).isEqualTo(b);
    }

    @Test
    void copiedHeadersAreTheOffendersWithTheSegmentLengthInPlaceOfItsMpaLength() {
        Terminate t = ((TerminateResult.Decoded) decode(Golden.get("term-write-stag.03.siw.terminate.hex").bytes(),
                TermLayout.SIW_LITTLE_ENDIAN)).terminate();
        byte[] offender = Golden.get("term-write-stag.02.peer.write.hex").bytes();
        assertThat(t.ddpHeader()).isEqualTo(java.util.Arrays.copyOfRange(offender, 2, 16));
        assertThat(t.ddpSegmentLength()).as("payload of the 38-byte ULPDU").isEqualTo(38 - 14);

        Terminate rr = ((TerminateResult.Decoded) decode(Golden.get("term-read-stag.03.siw.terminate.hex").bytes(),
                TermLayout.SIW_LITTLE_ENDIAN)).terminate();
        byte[] req = Golden.get("term-read-stag.02.peer.read-req.hex").bytes();
        assertThat(rr.rdmaHeader()).isEqualTo(java.util.Arrays.copyOfRange(req, 20, 48));
        // siw rebuilds this Read Request from its response queue and reports the read size (32) as the MSN
        assertThat(new FpduHeader().wrap(MemorySegment.ofArray(rr.ddpHeader()), -2).messageSequenceNumber())
                .isEqualTo(32);
    }

    @Test
    void ambiguousWordsFollowTheFallbackAndSiwsTerminatesNeedTheSiwFallback() {
        byte[] opcode = Golden.get("term-opcode.03.siw.terminate.hex").bytes();
        assertThat(((TerminateResult.Decoded) decode(opcode, TermLayout.RFC_5040)).terminate().error())
                .contains(TermError.MPA_INSUFFICIENT_IRD);
        assertThat(((TerminateResult.Decoded) decode(opcode, TermLayout.SIW_LITTLE_ENDIAN)).terminate().error())
                .contains(TermError.RDMAP_UNEXPECTED_OPCODE);
        // 02 02 00 00 reads as an undefined RDMAP code in the RFC layout: detected as siw's whatever the fallback
        byte[] crc = Golden.get("term-bad-crc.03.siw.terminate.hex").bytes();
        assertThat(((TerminateResult.Decoded) decode(crc, TermLayout.RFC_5040)).layout())
                .isEqualTo(TermLayout.SIW_LITTLE_ENDIAN);
        // words with flags tell by themselves
        byte[] rfc = Golden.get("term-to-siw-rfc.02.peer.terminate.hex").bytes();
        assertThat(((TerminateResult.Decoded) decode(rfc, TermLayout.SIW_LITTLE_ENDIAN)).layout())
                .isEqualTo(TermLayout.RFC_5040);
    }

    @Test
    void layoutsPlaceTheFieldsWhereSiwAndTheRfcPutThem() {
        assertThat(TermLayout.SIW_LITTLE_ENDIAN.encode(1, 2, 3, true, true, false)).isEqualTo(0x21030300);
        assertThat(TermLayout.RFC_5040.encode(1, 2, 3, true, true, false)).isEqualTo(0x1203C000);
        assertThat(TermLayout.SIW_LITTLE_ENDIAN.encode(0, 1, 0, true, true, true)).isEqualTo(0x10000700);
        assertThat(TermLayout.RFC_5040.encode(0, 1, 0, true, true, true)).isEqualTo(0x0100E000);
        assertThat(TermLayout.SIW_LITTLE_ENDIAN.encode(2, 0, 6, false, false, false)).isEqualTo(0x02060000);
        for (TermLayout l : TermLayout.values()) {
            int w = l.encode(2, 0, 0x07, true, false, true);
            assertThat(List.of(l.layer(w), l.etype(w), l.ecode(w), l.m(w), l.d(w), l.r(w)))
                    .isEqualTo(List.of(2, 0, 7, true, false, true));
            assertThat(l.reservedClear(w)).isTrue();
        }
    }

    @Test
    void bitsReservedInBothLayoutsDoNotChangeHowAWordIsRead() {
        // Found by TerminateFuzzTest: 02 04 00 02 (a stray bit in byte 3) was read as RDMAP / 2 / 4 with the
        // RFC fallback, 02 04 00 00 as LLP / MPA / invalid request-reply whatever the fallback.
        for (TermLayout fallback : TermLayout.values()) {
            for (int stray : new int[] {0x0001, 0x0002, 0x0080, 0x0800, 0x1000}) {
                assertThat(TermLayout.detect(0x02040000 | stray, fallback)).as("stray 0x%04x", stray)
                        .isEqualTo(TermLayout.detect(0x02040000, fallback)).isEqualTo(TermLayout.SIW_LITTLE_ENDIAN);
            }
        }
        // A bit that is a flag in the other layout still tells: 0x8000 is the RFC's M.
        assertThat(TermLayout.detect(0x12038000, TermLayout.SIW_LITTLE_ENDIAN)).isEqualTo(TermLayout.RFC_5040);
    }

    @Test
    void truncatedInputAsksForTheMissingBytesAtEveryLength() {
        byte[] b = Golden.get("term-read-stag.03.siw.terminate.hex").bytes();
        for (int avail = 0; avail < b.length; avail++) {
            TerminateResult r = Terminate.decode(MemorySegment.ofArray(b), 0, avail, TermLayout.SIW_LITTLE_ENDIAN);
            assertThat(r).as("available " + avail).isEqualTo(new TerminateResult.NeedMore(avail < 4 ? 4 - avail
                    : b.length - avail));
        }
    }

    @Test
    void malformedInputGivesTheSpecificProblem() {
        assertThat(problem(Golden.get("rping-small.05.siw.send.hex").bytes()))
                .isEqualTo(TerminateProblem.NOT_A_TERMINATE);
        assertThat(problem(Golden.get("rping-small.07.siw.write.hex").bytes()))
                .isEqualTo(TerminateProblem.NOT_A_TERMINATE);

        byte[] b = Golden.get("term-send-msn.03.siw.terminate.hex").bytes().clone();
        b[11] = 0; // QN 0
        assertThat(problem(b)).isEqualTo(TerminateProblem.BAD_QUEUE_FIELDS);

        b = Golden.get("term-send-msn.03.siw.terminate.hex").bytes().clone();
        b[19] = 4; // MO 4
        assertThat(problem(b)).isEqualTo(TerminateProblem.BAD_QUEUE_FIELDS);

        b = Golden.get("term-opcode.03.siw.terminate.hex").bytes().clone();
        b[20] = (byte) 0x5F; // layer 5 or 15: neither layout
        assertThat(problem(b)).isEqualTo(TerminateProblem.UNKNOWN_LAYER);

        b = Golden.get("term-opcode.03.siw.terminate.hex").bytes().clone();
        b[1] = 20; // ULPDU_Length 20 < 22
        assertThat(problem(java.util.Arrays.copyOf(b, 28))).isEqualTo(TerminateProblem.SHORT_MPA_LENGTH);

        // D set but only the segment length copied
        b = HexFormat.of().parseHex("001a4147" + "00000000" + "00000002" + "00000001" + "00000000" + "11000300"
                + "00180000" + "00000000");
        assertThat(problem(b)).isEqualTo(TerminateProblem.COPIED_LENGTH_MISMATCH);
        // copied bytes without the D flag
        b = Golden.get("term-write-stag.03.siw.terminate.hex").bytes().clone();
        b[22] = 0;
        assertThat(problem(b)).isEqualTo(TerminateProblem.COPIED_LENGTH_MISMATCH);
    }

    private static TerminateProblem problem(byte[] b) {
        TerminateResult r = decode(b, TermLayout.SIW_LITTLE_ENDIAN);
        assertThat(r).isInstanceOf(TerminateResult.Malformed.class);
        return ((TerminateResult.Malformed) r).problem();
    }

    @Test
    void factoriesBuildWhatSiwSends() {
        byte[] siw = Golden.get("term-bad-crc.03.siw.terminate.hex").bytes();
        byte[] ours = Terminate.of(TermError.MPA_CRC_ERROR).toBytes(TermLayout.SIW_LITTLE_ENDIAN);
        new MpaCrc().seal(MemorySegment.ofArray(ours), 0);
        assertThat(ours).isEqualTo(siw);

        byte[] offender = Golden.get("term-send-qn.02.peer.send.hex").bytes();
        Terminate t = Terminate.withDdpHeader(TermError.DDP_UNTAGGED_INVALID_QN, 16,
                java.util.Arrays.copyOfRange(offender, 2, 20));
        assertThat(t.toBytes(TermLayout.SIW_LITTLE_ENDIAN)).isEqualTo(Golden.get("term-send-qn.03.siw.terminate.hex")
                .bytes());
        MemorySegment out = MemorySegment.ofArray(new byte[t.encodedLength() + 8]);
        assertThat(t.encode(out, 8, TermLayout.SIW_LITTLE_ENDIAN)).isEqualTo(48);
        assertThat(out.asSlice(8).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(t.toBytes(TermLayout.SIW_LITTLE_ENDIAN));
    }

    @Test
    void constructorRejectsHeadersThatDoNotFitTheFlags() {
        assertThatThrownBy(() -> new Terminate(TermLayer.DDP, 1, 0, true, false, false, 5, new byte[0], new byte[0]))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Terminate(TermLayer.DDP, 2, 1, true, true, false, 0, new byte[14], new byte[0]))
                .as("untagged ctrl byte but 14 bytes").isInstanceOf(IllegalArgumentException.class);
        byte[] tagged = new byte[14];
        tagged[0] = (byte) 0xC1;
        assertThat(new Terminate(TermLayer.DDP, 1, 0, true, true, false, 0, tagged, new byte[0]).copiedLength())
                .isEqualTo(16);
        assertThatThrownBy(() -> new Terminate(TermLayer.RDMAP, 1, 0, true, true, false, 0, new byte[18],
                new byte[28])).as("RDMA header without R").isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Terminate(TermLayer.RDMAP, 16, 0, false, false, false, 0, new byte[0],
                new byte[0])).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Terminate(TermLayer.RDMAP, 1, 256, false, false, false, 0, new byte[0],
                new byte[0])).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void termErrorLookupCoversSiwsCodesAndRejectsUnknownCombinations() {
        assertThat(TermError.of(TermLayer.LLP, 0, 7)).isEqualTo(TermError.MPA_NO_MATCHING_RTR);
        assertThat(TermError.of(TermLayer.LLP, 0, 5)).isEqualTo(TermError.MPA_LOCAL_CATASTROPHIC);
        assertThat(TermError.of(TermLayer.DDP, 2, 2)).isEqualTo(TermError.DDP_UNTAGGED_INVALID_MSN_NO_BUFFER);
        assertThat(TermError.of(TermLayer.RDMAP, 0, 0xFF)).isEqualTo(TermError.RDMAP_CATASTROPHIC_UNSPECIFIED);
        assertThat(TermError.of(TermLayer.RDMAP, 2, 2)).isNull();
        assertThat(TermError.of(TermLayer.LLP, 1, 2)).isNull();
        for (TermError e : TermError.values()) {
            assertThat(TermError.of(e.layer(), e.etype(), e.ecode())).isSameAs(e);
            assertThat(e.layer().definesEtype(e.etype())).as(e.name()).isTrue();
        }
    }
}
