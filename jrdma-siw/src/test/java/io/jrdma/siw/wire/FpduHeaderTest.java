package io.jrdma.siw.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class FpduHeaderTest {
    private final FpduHeader header = new FpduHeader();

    private static MemorySegment seg(String fixture) {
        return MemorySegment.ofArray(Golden.get(fixture).bytes());
    }

    @Test
    void readsSiwsRdmaReadRequestFields() {
        // siw's READ for rping's read-adv {addr 0x7f0000010000, rkey 0xa01, size 64}
        MemorySegment s = seg("rping-small.03.siw.read-req.hex");
        header.wrap(s, 0);
        assertThat(header.mpaLength()).isEqualTo(46);
        assertThat(header.opcode()).isEqualTo(RdmapOpcode.RDMA_READ_REQUEST.value());
        assertThat(header.tagged()).isFalse();
        assertThat(header.last()).isTrue();
        assertThat(header.ddpVersion()).isEqualTo(1);
        assertThat(header.rdmapVersion()).isEqualTo(1);
        assertThat(header.queueNumber()).isEqualTo(1);
        assertThat(header.messageSequenceNumber()).isEqualTo(1);
        assertThat(header.messageOffset()).isZero();
        assertThat(header.payloadLength()).isZero();
        assertThat(header.fpduLength()).isEqualTo(52);
        ReadRequestHeader rr = new ReadRequestHeader().wrap(s, 0);
        assertThat(rr.readSize()).isEqualTo(64);
        assertThat(rr.sourceStag()).isEqualTo(0xA01);
        assertThat(rr.sourceTo()).isEqualTo(0x7F0000010000L);
        assertThat(rr.sinkStag() & 0xFF).as("siw STag key byte of a fresh MR").isZero();
    }

    @Test
    void readsSiwsTaggedWriteFields() {
        MemorySegment s = seg("rping-large.10.siw.write.hex");
        header.wrap(s, 0);
        assertThat(header.tagged()).isTrue();
        assertThat(header.last()).isFalse();
        assertThat(header.stag()).isEqualTo(0xB02);
        assertThat(header.taggedOffset()).isEqualTo(0x7F0000020000L);
        assertThat(header.payloadLength()).isEqualTo(1436);
        assertThat(header.payloadOffset()).isEqualTo(16);
        assertThat(header.crcOffset()).isEqualTo(1452);
    }

    @Test
    void buildsTheProbesSendByteForByteWithTheFlyweight() {
        byte[] golden = Golden.get("rping-small.02.peer.send.hex").bytes();
        MemorySegment s = MemorySegment.ofArray(new byte[golden.length]);
        header.wrap(s, 0).start(RdmapOpcode.SEND, true, 16).invalidateStag(0).queueNumber(0)
                .messageSequenceNumber(1).messageOffset(0);
        s.asSlice(20, 16).copyFrom(MemorySegment.ofArray(HexFormat.of().parseHex("00007f00000100000000"
                + "0a0100000040")));
        assertThat(s.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).isEqualTo(golden);
    }

    @Test
    void buildsSiwsReadRequestAndNonLastWriteSegmentWithTheFlyweight() {
        byte[] rr = Golden.get("rping-small.03.siw.read-req.hex").bytes();
        MemorySegment s = MemorySegment.ofArray(new byte[rr.length]);
        MemorySegment g = MemorySegment.ofArray(rr);
        ReadRequestHeader in = new ReadRequestHeader().wrap(g, 0);
        header.wrap(s, 0).start(RdmapOpcode.RDMA_READ_REQUEST, true, 0).queueNumber(1).messageSequenceNumber(1);
        new ReadRequestHeader().wrap(s, 0).sinkStag(in.sinkStag()).sinkTo(in.sinkTo()).readSize(in.readSize())
                .sourceStag(in.sourceStag()).sourceTo(in.sourceTo());
        assertThat(s.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).isEqualTo(rr);

        byte[] w = Golden.get("rping-large.11.siw.write.hex").bytes();
        MemorySegment ws = MemorySegment.ofArray(new byte[w.length]);
        FpduHeader src = new FpduHeader().wrap(MemorySegment.ofArray(w), 0);
        header.wrap(ws, 0).start(RdmapOpcode.RDMA_WRITE, false, 1436).stag(src.stag()).taggedOffset(src.taggedOffset());
        ws.asSlice(16, 1436).copyFrom(MemorySegment.ofArray(w).asSlice(16, 1436));
        assertThat(ws.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).isEqualTo(w);
    }

    @Test
    void padAndLengthArithmeticMatchesSiw() {
        assertThat(FpduHeader.padLength(14)).isZero();
        assertThat(FpduHeader.padLength(15)).isEqualTo(3);
        assertThat(FpduHeader.padLength(16)).isEqualTo(2);
        assertThat(FpduHeader.padLength(17)).isEqualTo(1);
        for (int payload = 0; payload < 64; payload++) {
            // siw_prepare_fpdu: pad = -data_len & 3, because header lengths are multiples of 4
            for (RdmapOpcode op : RdmapOpcode.values()) {
                assertThat(FpduHeader.padLength(FpduHeader.mpaLength(op, payload))).isEqualTo(-payload & 3);
                assertThat(FpduHeader.fpduLength(op, payload) % 4).isZero();
            }
        }
        assertThat(FpduHeader.fpduLength(RdmapOpcode.SEND, 16)).isEqualTo(40);
        assertThat(FpduHeader.fpduLength(RdmapOpcode.TERMINATE, 0)).isEqualTo(28);
        assertThat(FpduHeader.fpduLength(RdmapOpcode.RDMA_READ_REQUEST, 0)).isEqualTo(52);
    }

    @Test
    void maxPayloadForTheRigsMssMatchesTheSegmentsSiwEmitted() {
        // The guest's MSS through slirp is 1460: siw rounds to 1456 and fills it with one FPDU.
        assertThat(FpduHeader.tcpSegmentLength(1460)).isEqualTo(1456);
        assertThat(FpduHeader.maxPayload(RdmapOpcode.RDMA_WRITE, 1460)).isEqualTo(1436);
        assertThat(FpduHeader.maxPayload(RdmapOpcode.SEND, 1460)).isEqualTo(1432);
        assertThat(FpduHeader.tcpSegmentLength(1448)).isEqualTo(1448);
        assertThat(FpduHeader.tcpSegmentLength(65483)).isEqualTo(65480);
        assertThat(FpduHeader.maxPayload(RdmapOpcode.RDMA_WRITE, 10)).isZero();
        for (String scenario : new String[] {"rping-large", "guest-client-rping", "rping-crc-large"}) {
            int[] lengths = Golden.scenario(scenario).stream().filter(Golden.Fixture::fromSiw)
                    .filter(f -> f.kind().equals("write") || f.kind().equals("read-resp"))
                    .mapToInt(f -> f.bytes().length).toArray();
            assertThat(lengths).as(scenario).isNotEmpty();
            for (int i = 0; i < lengths.length - 1; i++) {
                assertThat(lengths[i]).as(scenario + " segment " + i)
                        .isEqualTo(FpduHeader.fpduLength(RdmapOpcode.RDMA_WRITE,
                                FpduHeader.maxPayload(RdmapOpcode.RDMA_WRITE, 1460)));
            }
            assertThat(lengths[lengths.length - 1]).isLessThanOrEqualTo(1456);
        }
    }

    @Test
    void theCrcTrailerIsPresentAndZeroWhenCrcIsOff() {
        Golden.fpdus().filter(f -> !f.crc()).forEach(f -> {
            header.wrap(MemorySegment.ofArray(f.bytes()), 0);
            assertThat(header.fpduLength()).as(f.name()).isEqualTo(f.bytes().length);
            assertThat(Arrays.copyOfRange(f.bytes(), f.bytes().length - 4, f.bytes().length)).as(f.name())
                    .containsOnly(0);
        });
    }

    @Test
    void peekFpduLengthNeedsTwoBytes() {
        MemorySegment s = seg("rping-small.05.siw.send.hex");
        assertThat(FpduHeader.peekFpduLength(s, 0, 0)).isEqualTo(FpduHeader.NEED_MORE);
        assertThat(FpduHeader.peekFpduLength(s, 0, 1)).isEqualTo(FpduHeader.NEED_MORE);
        assertThat(FpduHeader.peekFpduLength(s, 0, 2)).isEqualTo(40);
    }

    @Test
    void checkAcceptsEveryWellFormedCapturedHeaderAndNeedsTheWholeHeader() {
        Golden.fpdus().filter(f -> !f.kind().equals("opcode8")).filter(f -> !f.scenario().contains("version"))
                .forEach(f -> {
                    MemorySegment s = MemorySegment.ofArray(f.bytes());
                    int hdr = RdmapOpcode.headerLength(FpduHeader.opcode(s, 0));
                    for (int avail = 0; avail < hdr; avail++) {
                        assertThat(FpduHeader.check(s, 0, avail)).as(f.name() + " with " + avail)
                                .isEqualTo(FpduCheck.NEED_MORE);
                    }
                    assertThat(FpduHeader.check(s, 0, hdr)).as(f.name()).isEqualTo(FpduCheck.OK);
                });
    }

    @Test
    void checkNamesTheTerminateSiwAnsweredForBadVersionsAndOpcodes() {
        assertThat(FpduHeader.check(seg("term-ddp-version.02.peer.write.hex"), 0, 28))
                .isEqualTo(FpduCheck.DDP_VERSION_TAGGED);
        assertThat(FpduHeader.check(seg("term-rdmap-version.02.peer.send.hex"), 0, 32))
                .isEqualTo(FpduCheck.RDMAP_VERSION);
        assertThat(FpduHeader.check(seg("term-opcode.02.peer.opcode8.hex"), 0, 24))
                .isEqualTo(FpduCheck.UNKNOWN_OPCODE);
        // siw's answers, in the same captures
        assertTermError("term-ddp-version.03.siw.terminate.hex", FpduCheck.DDP_VERSION_TAGGED.termError());
        assertTermError("term-rdmap-version.03.siw.terminate.hex", FpduCheck.RDMAP_VERSION.termError());
        assertTermError("term-opcode.03.siw.terminate.hex", FpduCheck.UNKNOWN_OPCODE.termError());
    }

    private static void assertTermError(String fixture, TermError expected) {
        TerminateResult r = Terminate.decode(seg(fixture), 0, Golden.get(fixture).bytes().length,
                TermLayout.SIW_LITTLE_ENDIAN);
        assertThat(r).isInstanceOfSatisfying(TerminateResult.Decoded.class,
                d -> assertThat(d.terminate().error()).contains(expected));
    }

    @Test
    void checkReportsAnMpaLengthShorterThanTheHeaderAndAnUntaggedDdpVersion() {
        byte[] b = Golden.get("rping-small.05.siw.send.hex").bytes().clone();
        b[1] = 10; // ULPDU_Length 10 < 18
        assertThat(FpduHeader.check(MemorySegment.ofArray(b), 0, b.length)).isEqualTo(FpduCheck.SHORT_MPA_LENGTH);
        assertThat(FpduCheck.SHORT_MPA_LENGTH.termError()).isEqualTo(TermError.MPA_MARKER_MISMATCH);
        b = Golden.get("rping-small.05.siw.send.hex").bytes().clone();
        b[2] = 0x42; // DDP version 2, untagged
        assertThat(FpduHeader.check(MemorySegment.ofArray(b), 0, b.length)).isEqualTo(FpduCheck.DDP_VERSION_UNTAGGED);
        assertThat(FpduCheck.DDP_VERSION_UNTAGGED.termError()).isEqualTo(TermError.DDP_UNTAGGED_INVALID_VERSION);
        assertThat(FpduCheck.OK.termError()).isNull();
    }

    @Test
    void worksOnNativeSegmentsAtAnyOffset() {
        byte[] w = Golden.get("rping-small.07.siw.write.hex").bytes();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(w.length + 3);
            MemorySegment.copy(MemorySegment.ofArray(w), 0, s, 3, w.length);
            header.wrap(s, 3);
            assertThat(header.stag()).isEqualTo(0xB02);
            assertThat(header.payloadLength()).isEqualTo(64);
            assertThat(FpduHeader.check(s, 3, w.length)).isEqualTo(FpduCheck.OK);
        }
    }
}
