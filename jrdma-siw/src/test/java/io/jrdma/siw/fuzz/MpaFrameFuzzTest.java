package io.jrdma.siw.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.jrdma.siw.wire.MpaFrame;
import io.jrdma.siw.wire.MpaResult;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * MPA request and reply decoding (RFC 5044 §7.1, RFC 6581) of arbitrary bytes: the decoder never
 * throws; it asks for more, decodes, or names the problem; a decoded frame spans 20 + PD_Length bytes,
 * every shorter prefix of it asks for more, and its encoding decodes to the same frame.
 */
class MpaFrameFuzzTest {
    @FuzzTest(maxDuration = "5s")
    void mpaFramesDecodeOrAreRefusedWithoutThrowing(byte[] data) {
        MemorySegment s = MemorySegment.ofArray(data);
        check(data, MpaFrame.decode(s, 0, data.length));
        check(data, MpaFrame.decodeRequest(s, 0, data.length));
        check(data, MpaFrame.decodeReply(s, 0, data.length));
    }

    private static void check(byte[] data, MpaResult r) {
        switch (r) {
            case MpaResult.NeedMore n -> assertThat(n.needed()).isPositive();
            case MpaResult.Invalid i -> {
                assertThat(i.problem()).isNotNull();
                assertThat(i.detail()).isNotNull();
            }
            case MpaResult.Decoded d -> {
                int pd = MpaFrame.pdLength(MemorySegment.ofArray(data), 0);
                assertThat(d.length()).isEqualTo(MpaFrame.HEADER_LENGTH + pd).isLessThanOrEqualTo(data.length);
                byte[] again = d.frame().toBytes();
                MpaResult r2 = MpaFrame.decode(MemorySegment.ofArray(again), 0, again.length);
                assertThat(r2).isInstanceOf(MpaResult.Decoded.class);
                assertThat(((MpaResult.Decoded) r2).frame()).isEqualTo(d.frame());
                byte[] prefix = Arrays.copyOf(data, d.length() - 1);
                assertThat(MpaFrame.decode(MemorySegment.ofArray(prefix), 0, prefix.length))
                        .as("a prefix of a frame").isInstanceOf(MpaResult.NeedMore.class);
            }
        }
    }
}
