package io.jrdma.siw.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.jrdma.siw.wire.TermLayout;
import io.jrdma.siw.wire.Terminate;
import io.jrdma.siw.wire.TerminateResult;
import java.lang.foreign.MemorySegment;

/**
 * TERMINATE decoding (RFC 5040 §4.8, in either control word layout, siw's or the RFC's) of arbitrary
 * bytes: never an exception; a decoded TERMINATE fits the bytes given, and encoding it in the layout it
 * was read with decodes to the same message.
 */
class TerminateFuzzTest {
    @FuzzTest(maxDuration = "5s")
    void terminatesDecodeOrAreRefusedWithoutThrowing(byte[] data) {
        for (TermLayout fallback : TermLayout.values()) {
            TerminateResult r = Terminate.decode(MemorySegment.ofArray(data), 0, data.length, fallback);
            switch (r) {
                case TerminateResult.NeedMore n -> assertThat(n.needed()).isPositive();
                case TerminateResult.Malformed m -> assertThat(m.problem()).isNotNull();
                case TerminateResult.Decoded d -> {
                    assertThat(d.length()).isLessThanOrEqualTo(data.length);
                    byte[] again = d.terminate().toBytes(d.layout());
                    TerminateResult r2 = Terminate.decode(MemorySegment.ofArray(again), 0, again.length, d.layout());
                    assertThat(r2).isInstanceOf(TerminateResult.Decoded.class);
                    assertThat(((TerminateResult.Decoded) r2).terminate()).isEqualTo(d.terminate());
                }
            }
        }
    }
}
