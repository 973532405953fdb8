package io.jrdma.rxe.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.jrdma.rxe.cm.CmDecodeResult;
import io.jrdma.rxe.cm.CmMadCodec;
import java.lang.foreign.MemorySegment;

/**
 * CM MADs (IBTA Vol 1 §12.6, {@code ibta_vol1_c12.h}) and QP1 datagrams carrying them from arbitrary
 * bytes: decoding never throws; it returns a MAD or the reason it is none; a decoded MAD encodes to
 * bytes that decode to the same MAD.
 */
class CmMadFuzzTest {
    @FuzzTest(maxDuration = "5s")
    void cmMadsDecodeOrAreRefusedWithoutThrowing(byte[] data) {
        MemorySegment s = MemorySegment.ofArray(data);
        check(CmMadCodec.decode(s, 0, data.length));
        check(CmMadCodec.decodeDatagram(s, 0, data.length));
    }

    private static void check(CmDecodeResult r) {
        switch (r) {
            case CmDecodeResult.Malformed m -> {
                assertThat(m.error()).isNotNull();
                assertThat(m.detail()).isNotNull();
            }
            case CmDecodeResult.Decoded d -> {
                byte[] again = CmMadCodec.encode(d.mad());
                CmDecodeResult r2 = CmMadCodec.decode(MemorySegment.ofArray(again), 0, again.length);
                assertThat(r2).as("re-decoding " + d.mad()).isInstanceOf(CmDecodeResult.Decoded.class);
                assertThat(((CmDecodeResult.Decoded) r2).mad()).isEqualTo(d.mad());
            }
        }
    }
}
