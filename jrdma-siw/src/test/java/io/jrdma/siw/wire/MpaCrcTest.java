package io.jrdma.siw.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class MpaCrcTest {
    private final MpaCrc crc = new MpaCrc();

    @Test
    void computesTheStandardCrc32cCheckValue() {
        byte[] b = "123456789".getBytes(StandardCharsets.US_ASCII);
        assertThat(crc.compute(MemorySegment.ofArray(b), 0, 9)).isEqualTo(0xE3069283);
    }

    @Test
    void siwWritesTheCrc32cValueLittleEndian() {
        // siw's RDMA READ request with CRC negotiated: trailer bytes d7 8e ae 83
        byte[] rr = Golden.get("rping-crc.03.siw.read-req.hex").bytes();
        CRC32C reference = new CRC32C();
        reference.update(rr, 0, rr.length - 4);
        assertThat(reference.getValue()).isEqualTo(0x83AE8ED7L);
        assertThat(HexFormat.of().formatHex(rr, rr.length - 4, rr.length)).isEqualTo("d78eae83");
        assertThat(MpaCrc.trailer(MemorySegment.ofArray(rr), rr.length - 4)).isEqualTo(0x83AE8ED7);
    }

    @Test
    void everyCapturedFpduWithCrcOnVerifiesAndResealsToTheSameBytes() {
        long checked = Golden.fpdus().filter(Golden.Fixture::crc).filter(f -> !f.scenario().equals("term-bad-crc")
                || f.fromSiw()).peek(f -> {
                    MemorySegment s = MemorySegment.ofArray(f.bytes().clone());
                    assertThat(crc.verify(s, 0)).as(f.name()).isTrue();
                    MpaCrc.trailer(s, f.bytes().length - 4, 0);
                    assertThat(crc.verify(s, 0)).as(f.name() + " with the trailer zeroed").isFalse();
                    assertThat(crc.seal(s, 0)).isEqualTo(f.bytes().length);
                    assertThat(s.toArray(ValueLayout.JAVA_BYTE)).as(f.name()).isEqualTo(f.bytes());
                }).count();
        // both directions: siw checked ours (it processed them) and we check siw's
        assertThat(checked).isGreaterThanOrEqualTo(38);
    }

    @Test
    void theCorruptedFrameSiwRejectedFailsVerification() {
        // the probe inverted the trailer; siw logged "crc error. in: 28028bd7, own d7fd7428" and sent
        // TERMINATE LLP / MPA / CRC error (term-bad-crc.03)
        MemorySegment s = MemorySegment.ofArray(Golden.get("term-bad-crc.02.peer.send.hex").bytes());
        assertThat(crc.verify(s, 0)).isFalse();
        assertThat(crc.computeFpdu(s, 0)).isEqualTo(0xD7FD7428);
        assertThat(MpaCrc.trailer(s, 36)).isEqualTo(0x28028BD7);
    }

    @Test
    void nativeAndHeapSegmentsAndReusedViewsGiveTheSameCrc() {
        byte[] w = Golden.get("guest-client-rping-crc.12.peer.write.hex").bytes();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment big = arena.allocate(w.length * 2L + 8);
            MemorySegment.copy(MemorySegment.ofArray(w), 0, big, 5, w.length);
            MemorySegment.copy(MemorySegment.ofArray(w), 0, big, 5 + w.length, w.length);
            assertThat(crc.verify(big, 5)).isTrue();
            assertThat(crc.verify(big, 5 + w.length)).isTrue();
            assertThat(crc.verify(MemorySegment.ofArray(w), 0)).isTrue();
            assertThat(crc.verify(big, 5)).isTrue();
        }
    }
}
