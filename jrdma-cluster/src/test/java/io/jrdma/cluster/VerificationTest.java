package io.jrdma.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** What the hosts and the coordinator count as verified: the byte patterns and the rules on a connection's records. */
class VerificationTest {

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

    private static ConnStats client(long posted, long ok, long errors, long sendsPosted, long sends, long confirmed) {
        ConnStats c = new ConnStats(ConnStats.CLIENT, 1, "10.99.0.2", "siw");
        c.posted = posted;
        c.ok = ok;
        c.errors = errors;
        c.sendsPosted = sendsPosted;
        c.sends = sends;
        c.confirmed = confirmed;
        c.endedWithError = errors > 0;
        return c;
    }

    private static ConnStats server(long sends, boolean endedWithError) {
        ConnStats s = new ConnStats(ConnStats.SERVER, 1, "10.99.0.1", "siw");
        s.sends = sends;
        s.endedWithError = endedWithError;
        return s;
    }

    @Test
    void aCleanConnectionAgreesOnlyWhenTheServerVerifiedEverySend() {
        ConnStats c = client(30, 30, 0, 10, 10, 10);
        assertThat(ConnStats.agree(c, server(10, false))).isTrue();
        assertThat(ConnStats.agree(c, server(9, false))).as("a SEND lost").isFalse();
        assertThat(ConnStats.agree(c, server(11, false))).as("a SEND duplicated").isFalse();
    }

    @Test
    void aBrokenConnectionAgreesBetweenTheProvenAndThePostedSends() {
        // 10 SENDs posted, 9 completed, 8 proven landed by the READ after them
        ConnStats c = client(29, 26, 3, 10, 9, 8);
        assertThat(ConnStats.agree(c, server(8, false))).isTrue();
        assertThat(ConnStats.agree(c, server(10, false))).isTrue();
        assertThat(ConnStats.agree(c, server(7, false))).as("a proven SEND missing").isFalse();
        assertThat(ConnStats.agree(c, server(11, false))).as("more than was posted").isFalse();
    }

    @Test
    void errorsAreExcusedOnlyOnDisruptedHostsAndNeverALostOrUncountedCompletion() {
        ConnStats broken = client(29, 26, 3, 10, 9, 8);
        assertThat(broken.breaksCompletionRules(true)).isFalse();
        assertThat(broken.breaksCompletionRules(false)).isTrue();
        ConnStats flushed = server(10, false);
        flushed.posted = 14;
        flushed.ok = 10;
        flushed.errors = 4; // the receives still posted flush at a clean disconnect
        assertThat(flushed.breaksCompletionRules(false)).isFalse();
        flushed.lost = 1;
        flushed.errors = 3;
        assertThat(flushed.breaksCompletionRules(true)).as("a lost completion is never excused").isTrue();
        ConnStats twice = client(30, 30, 1, 10, 10, 10);
        assertThat(twice.unaccounted()).isEqualTo(-1);
        assertThat(twice.breaksCompletionRules(true)).as("a completion too many").isTrue();
    }
}
