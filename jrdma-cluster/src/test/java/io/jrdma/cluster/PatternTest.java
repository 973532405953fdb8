package io.jrdma.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

class PatternTest {

    @Test
    void aFilledMessageVerifiesAndOneChangedByteDoesNot() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(4096);
            long seed = Pattern.seed(0x1234, 7, 0);
            Pattern.fill(s, 0, 4096, seed);
            assertThat(Pattern.mismatches(s, 0, 4096, seed, 0)).isZero();
            s.set(ValueLayout.JAVA_BYTE, 1000, (byte) (s.get(ValueLayout.JAVA_BYTE, 1000) ^ 1));
            assertThat(Pattern.mismatches(s, 0, 4096, seed, 0)).isEqualTo(8);
        }
    }

    @Test
    void anotherSequenceNumberOrConnectionOrStreamDoesNotVerify() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(256);
            Pattern.fill(s, 0, 256, Pattern.seed(0x1234, 7, 0));
            assertThat(Pattern.mismatches(s, 0, 256, Pattern.seed(0x1234, 8, 0), 0)).isEqualTo(256);
            assertThat(Pattern.mismatches(s, 0, 256, Pattern.seed(0x1235, 7, 0), 0)).isEqualTo(256);
            assertThat(Pattern.mismatches(s, 0, 256, Pattern.seed(0x1234, 7, 1), 0)).isEqualTo(256);
        }
    }

    @Test
    void aReadAtAnOffsetVerifiesAgainstTheRegionsWordsThere() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment region = a.allocate(1024);
            Pattern.fill(region, 0, 1024, 99);
            MemorySegment copy = a.allocate(128);
            MemorySegment.copy(region, 512, copy, 0, 128);
            assertThat(Pattern.mismatches(copy, 0, 128, 99, 512)).isZero();
            assertThat(Pattern.mismatches(copy, 0, 128, 99, 504)).isEqualTo(128);
        }
    }

    @Test
    void aConnectionTagNamesItsClientHostAndAReportLineReadsBack() {
        long tag = ConnStats.tag(4095, 3, 1, 17, 2, 65535);
        assertThat(ConnStats.clientHost(tag)).isEqualTo(4095);
        ConnStats s = new ConnStats(ConnStats.CLIENT, tag, "10.99.0.18", "rxe");
        s.posted = 30;
        s.ok = 27;
        s.errors = 3;
        s.sends = 9;
        s.confirmed = 8;
        s.endedWithError = true;
        ConnStats back = ConnStats.parse(s.line());
        assertThat(back.tag).isEqualTo(tag);
        assertThat(back.line()).isEqualTo(s.line());
        assertThat(back.unaccounted()).isZero();
    }
}
