package io.jrdma.siw.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class MpaFrameTest {

    private static MpaResult decode(byte[] b) {
        return MpaFrame.decode(MemorySegment.ofArray(b), 0, b.length);
    }

    private static MpaFrame frame(String fixture) {
        MpaResult r = decode(Golden.get(fixture).bytes());
        assertThat(r).as(fixture).isInstanceOf(MpaResult.Decoded.class);
        return ((MpaResult.Decoded) r).frame();
    }

    private static MpaProblem problem(byte[] b) {
        MpaResult r = decode(b);
        assertThat(r).isInstanceOf(MpaResult.Invalid.class);
        return ((MpaResult.Invalid) r).problem();
    }

    @Test
    void everyCapturedWellFormedFrameDecodesAndReencodesToTheSameBytes() {
        long n = Golden.all().stream().filter(Golden.Fixture::isMpa).filter(f -> !f.kind().equals("mpa-badkey"))
                .filter(f -> !f.scenario().startsWith("mpa-markers") || f.fromSiw())
                .filter(f -> !f.scenario().equals("mpa-rev3") && !f.scenario().equals("mpa-pd257"))
                // H without room for the v2 block: refused, or (siw's reject of it) not re-encoded with H; see
                // siwsRejectOfAShortEnhancedRequestEchoesItsHeaderAndDecodesAsARejectWithoutBlock.
                .filter(f -> !f.scenario().endsWith("-short") && !f.scenario().startsWith("mpa-h-short")).peek(f -> {
                    MpaResult r = decode(f.bytes());
                    assertThat(r).as(f.name()).isInstanceOf(MpaResult.Decoded.class);
                    MpaResult.Decoded d = (MpaResult.Decoded) r;
                    assertThat(d.length()).isEqualTo(f.bytes().length);
                    assertThat(d.frame().isReply()).as(f.name()).isEqualTo(f.kind().startsWith("mpa-rep"));
                    assertThat(d.frame().toBytes()).as(f.name()).isEqualTo(f.bytes());
                }).count();
        assertThat(n).isGreaterThanOrEqualTo(49);
    }

    @Test
    void siwsRequestAndReplyCarryRevision2TheHBitAndIrdOrd() {
        MpaFrame req = frame("guest-client-rping.00.siw.mpa-req.hex");
        assertThat(req).isEqualTo(MpaRequest.v2(false, 1, 1, new byte[0]));
        MpaFrame rep = frame("rping-small.01.siw.mpa-rep.hex");
        assertThat(rep).isEqualTo(new MpaReply(2, false, false, false, Optional.of(MpaV2Ctrl.of(1, 1)), new byte[0]));
        assertThat(frame("rping-crc.01.siw.mpa-rep.hex").crc()).as("siw echoes C").isTrue();
        MpaFrame v1 = frame("mpa-v1.01.siw.mpa-rep.hex");
        assertThat(v1.revision()).isEqualTo(1);
        assertThat(v1.v2()).isEmpty();
    }

    @Test
    void siwAnswersPeerToPeerWithTheWriteRtrAndDropsTheRequestsPrivateData() {
        MpaFrame req = frame("mpa-v2-pdata.00.peer.mpa-req.hex");
        assertThat(req.v2()).contains(new MpaV2Ctrl(4, 4, true, false, true, false));
        assertThat(req.privateData()).isEqualTo("jrdma-pd".getBytes(StandardCharsets.US_ASCII));
        MpaFrame rep = frame("mpa-v2-pdata.01.siw.mpa-rep.hex");
        assertThat(rep.v2()).contains(new MpaV2Ctrl(4, 4, true, false, true, false));
        assertThat(rep.pdLength()).isEqualTo(4);
    }

    @Test
    void markersAreRefusedWithTheDecodedFrameAndSiwsRejectReplyIsReproduced() {
        for (String scenario : new String[] {"mpa-markers", "mpa-markers-v1"}) {
            MpaResult r = decode(Golden.get(scenario + ".00.peer.mpa-req.hex").bytes());
            assertThat(r).isInstanceOf(MpaResult.Invalid.class);
            MpaResult.Invalid inv = (MpaResult.Invalid) r;
            assertThat(inv.problem()).isEqualTo(MpaProblem.MARKERS_NOT_SUPPORTED);
            assertThat(inv.frame()).isPresent();
            MpaReply reject = MpaReply.refusing((MpaRequest) inv.frame().get());
            assertThat(reject.toBytes()).as(scenario).isEqualTo(Golden.get(scenario + ".01.siw.mpa-rep-reject.hex")
                    .bytes());
        }
    }

    @Test
    void revision3IsBadRevision() {
        assertThat(problem(Golden.get("mpa-rev3.00.peer.mpa-req.hex").bytes())).isEqualTo(MpaProblem.BAD_REVISION);
    }

    @Test
    void aWrongKeyIsBadKeyAndRequestAndReplyKeysAreNotInterchangeable() {
        assertThat(problem(Golden.get("mpa-badkey.00.peer.mpa-badkey.hex").bytes())).isEqualTo(MpaProblem.BAD_KEY);
        byte[] req = Golden.get("rping-small.00.peer.mpa-req.hex").bytes();
        byte[] rep = Golden.get("rping-small.01.siw.mpa-rep.hex").bytes();
        MpaResult r = MpaFrame.decodeReply(MemorySegment.ofArray(req), 0, req.length);
        assertThat(r).isInstanceOfSatisfying(MpaResult.Invalid.class, i -> {
            assertThat(i.problem()).isEqualTo(MpaProblem.BAD_KEY);
            assertThat(i.detail()).contains("MPA ID Req Frame").contains("MPA ID Rep Frame");
        });
        assertThat(MpaFrame.decodeRequest(MemorySegment.ofArray(rep), 0, rep.length))
                .isInstanceOfSatisfying(MpaResult.Invalid.class, i -> assertThat(i.problem())
                        .isEqualTo(MpaProblem.BAD_KEY));
        assertThat(MpaFrame.decodeRequest(MemorySegment.ofArray(req), 0, req.length))
                .isInstanceOf(MpaResult.Decoded.class);
    }

    @Test
    void pdLength257IsRefusedFromTheHeaderAloneAnd256IsAccepted() {
        byte[] pd257 = Golden.get("mpa-pd257.00.peer.mpa-req.hex").bytes();
        assertThat(pd257.length).isEqualTo(20 + 257);
        MpaResult r = MpaFrame.decode(MemorySegment.ofArray(pd257), 0, MpaFrame.HEADER_LENGTH);
        assertThat(r).isInstanceOfSatisfying(MpaResult.Invalid.class, i -> {
            assertThat(i.problem()).isEqualTo(MpaProblem.PD_LENGTH_OVER_LIMIT);
            assertThat(i.detail()).contains("257");
        });
        MpaFrame f = frame("mpa-pd256.00.peer.mpa-req.hex");
        assertThat(f.pdLength()).isEqualTo(256);
        assertThat(f.privateData()).hasSize(252);
    }

    @Test
    void enhancedWithoutRoomForTheV2BlockIsMissingV2Block() {
        byte[] b = HexFormat.of().parseHex("4d504120494420526571204672616d65" + "1002" + "0002" + "0001");
        assertThat(problem(b)).isEqualTo(MpaProblem.MISSING_V2_BLOCK);
        // the same header at revision 1 is a plain frame with 2 bytes of private data
        b[17] = 1;
        assertThat(decode(b)).isInstanceOfSatisfying(MpaResult.Decoded.class,
                d -> assertThat(d.frame().privateData()).containsExactly(0, 1));
    }

    @Test
    void siwsRejectOfAShortEnhancedRequestEchoesItsHeaderAndDecodesAsARejectWithoutBlock() {
        // A request with H, C and a reserved bit, revision 2, PD_Length 3: no room for the v2 block.
        byte[] req = HexFormat.of().parseHex("4d504120494420526571204672616d65" + "5102" + "0003");
        assertThat(problem(java.util.Arrays.copyOf(req, 23))).isEqualTo(MpaProblem.MISSING_V2_BLOCK);
        byte[] rej = MpaReply.refusingHeader(req);
        assertThat(HexFormat.of().formatHex(rej)).as("reply key, R set, H C and the reserved bit echoed, PD 0")
                .isEqualTo("4d504120494420526570204672616d65" + "7102" + "0000");
        assertThat(MpaFrame.decodeReply(MemorySegment.ofArray(rej), 0, rej.length)).isInstanceOfSatisfying(
                MpaResult.Decoded.class, d -> {
                    MpaReply r = (MpaReply) d.frame();
                    assertThat(r.reject()).isTrue();
                    assertThat(r.v2()).isEmpty();
                    assertThat(r.crc()).isTrue();
                    assertThat(d.length()).isEqualTo(MpaFrame.HEADER_LENGTH);
                });
        // Without R the same reply still lacks its block.
        byte[] accept = rej.clone();
        accept[MpaFrame.FLAGS_OFFSET] &= (byte) ~MpaFrame.FLAG_REJECT;
        assertThat(problem(accept)).isEqualTo(MpaProblem.MISSING_V2_BLOCK);
        // Markers are cleared in the reject.
        byte[] markers = req.clone();
        markers[MpaFrame.FLAGS_OFFSET] |= (byte) MpaFrame.FLAG_MARKERS;
        assertThat(MpaReply.refusingHeader(markers)[MpaFrame.FLAGS_OFFSET] & MpaFrame.FLAG_MARKERS).isZero();
    }

    @Test
    void truncatedInputAsksForExactlyTheMissingBytesAndChecksTheHeaderFirst() {
        byte[] b = Golden.get("mpa-v2-pdata.00.peer.mpa-req.hex").bytes();
        for (int avail = 0; avail < b.length; avail++) {
            MpaResult r = MpaFrame.decode(MemorySegment.ofArray(b), 0, avail);
            assertThat(r).as("available " + avail).isEqualTo(new MpaResult.NeedMore(
                    avail < MpaFrame.HEADER_LENGTH ? MpaFrame.HEADER_LENGTH - avail : b.length - avail));
        }
    }

    @Test
    void blockingTransportReadsTheHeaderThenExactlyPdLengthBytes() {
        byte[] wire = Golden.get("mpa-pd256.00.peer.mpa-req.hex").bytes();
        byte[] buf = new byte[wire.length];
        System.arraycopy(wire, 0, buf, 0, MpaFrame.HEADER_LENGTH);
        MemorySegment s = MemorySegment.ofArray(buf);
        MpaResult first = MpaFrame.decodeRequest(s, 0, MpaFrame.HEADER_LENGTH);
        assertThat(first).isEqualTo(new MpaResult.NeedMore(MpaFrame.pdLength(s, 0)));
        int pd = ((MpaResult.NeedMore) first).needed();
        System.arraycopy(wire, MpaFrame.HEADER_LENGTH, buf, MpaFrame.HEADER_LENGTH, pd);
        assertThat(MpaFrame.decodeRequest(s, 0, MpaFrame.HEADER_LENGTH + pd))
                .isInstanceOfSatisfying(MpaResult.Decoded.class, d -> assertThat(d.length()).isEqualTo(276));
    }

    @Test
    void decodesAtAnOffsetInsideALargerBufferWithoutReadingPastTheFrame() {
        byte[] f = Golden.get("rping-small.00.peer.mpa-req.hex").bytes();
        byte[] buf = new byte[f.length + 10];
        System.arraycopy(f, 0, buf, 7, f.length);
        buf[7 + f.length] = (byte) 0xEE;
        assertThat(MpaFrame.decode(MemorySegment.ofArray(buf), 7, buf.length - 7))
                .isInstanceOfSatisfying(MpaResult.Decoded.class, d -> assertThat(d.length()).isEqualTo(f.length));
    }

    @Test
    void constructorsEnforceTheLinuxLimits() {
        assertThatThrownBy(() -> new MpaRequest(3, false, false, Optional.empty(), new byte[0]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("revision");
        assertThatThrownBy(() -> new MpaRequest(1, false, false, Optional.of(MpaV2Ctrl.of(1, 1)), new byte[0]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("revision 2");
        assertThatThrownBy(() -> MpaRequest.v2(false, 1, 1, new byte[253]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("257");
        assertThat(MpaRequest.v2(false, 1, 1, new byte[252]).pdLength()).isEqualTo(256);
        assertThat(new MpaReply(1, false, false, false, Optional.empty(), new byte[256]).encodedLength())
                .isEqualTo(276);
        assertThatThrownBy(() -> new MpaReply(1, false, false, false, Optional.empty(), new byte[257]))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MpaV2Ctrl.of(0x4000, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MpaV2Ctrl.of(1, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(MpaV2Ctrl.of(0x3FFF, 0x3FFF).irdWord()).isEqualTo(0x3FFF);
        assertThatThrownBy(() -> new MpaRequest(2, false, false, null, new byte[0]))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void privateDataIsCopiedInAndOut() {
        byte[] pd = {1, 2, 3};
        MpaRequest r = MpaRequest.v2(false, 1, 1, pd);
        pd[0] = 9;
        assertThat(r.privateData()).containsExactly(1, 2, 3);
        r.privateData()[1] = 9;
        assertThat(r.privateData()).containsExactly(1, 2, 3);
    }

    @Test
    void v2IrdOrdAre14BitsAndTheRtrFlagsSitInTheTopBits() {
        MpaV2Ctrl c = MpaV2Ctrl.fromWords(0xFFFF, 0xFFFF);
        assertThat(c).isEqualTo(new MpaV2Ctrl(0x3FFF, 0x3FFF, true, true, true, true));
        assertThat(c.irdWord()).isEqualTo(0xFFFF);
        assertThat(c.ordWord()).isEqualTo(0xFFFF);
        assertThat(MpaV2Ctrl.fromWords(0x8004, 0x4004)).isEqualTo(new MpaV2Ctrl(4, 4, true, false, false, true));
    }
}
