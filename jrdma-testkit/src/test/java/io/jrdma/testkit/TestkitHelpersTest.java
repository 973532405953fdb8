package io.jrdma.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.Rdma;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class TestkitHelpersTest {
    @Test
    void dataPatternsAreDeterministicAndDetectShiftedBytes() {
        MemorySegment s = MemorySegment.ofArray(new byte[256]);
        DataPattern.fill(s, 0, 256, 5);
        assertThat(DataPattern.matches(s, 0, 256, 5)).isTrue();
        assertThat(DataPattern.matches(s, 0, 256, 6)).isFalse();
        assertThat(DataPattern.firstMismatch(s, 1, 200, 5)).isNotEqualTo(-1L);
        assertThat(DataPattern.crc(s, 0, 256)).isEqualTo(DataPattern.crcOf(5, 256));
        s.set(ValueLayout.JAVA_BYTE, 77, (byte) (s.get(ValueLayout.JAVA_BYTE, 77) ^ 1));
        assertThat(DataPattern.firstMismatch(s, 0, 256, 5)).isEqualTo(77);
    }

    @ParameterizedTest
    @EnumSource(MemoryKind.class)
    void aCanaryBufferDetectsChangesOutsideTheTargetRange(MemoryKind kind) {
        try (Context ctx = Rdma.device("loop0").open()) {
            ProtectionDomain pd = ctx.allocPd();
            try (CanaryBuffer b = CanaryBuffer.register(pd, kind, 128, Access.LOCAL_WRITE, 3)) {
                assertThat(b.mr().length()).isEqualTo(128);
                assertThat(DataPattern.matches(b.body(), 0, 128, 3)).isTrue();
                byte[] before = b.snapshot();
                b.body().set(ValueLayout.JAVA_BYTE, 10, (byte) ~before[10]);
                b.assertOnlyChanged(before, 10, 1);
                assertThatThrownBy(() -> b.assertOnlyChanged(before, 11, 5)).isInstanceOf(AssertionError.class)
                        .hasMessageContaining("byte 10");
                assertThatThrownBy(() -> b.assertUnchanged(before)).isInstanceOf(AssertionError.class);
                b.assertGuardsIntact();
            }
        }
    }

    @Test
    void waitsAreBoundedAndSayWhatDidNotHappen() {
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> Await.until("the impossible", Duration.ofMillis(30), () -> false))
                .isInstanceOf(AssertionError.class).hasMessageContaining("the impossible");
        assertThat(System.nanoTime() - t0).isLessThan(Duration.ofSeconds(2).toNanos());
        try (Context ctx = Rdma.device("loop0").open()) {
            assertThatThrownBy(() -> Await.completions(ctx.createCq(4), 1, Duration.ofMillis(20)))
                    .isInstanceOf(AssertionError.class).hasMessageContaining("0 of 1");
        }
    }
}
