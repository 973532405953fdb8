package io.jrdma.tools.perftest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class JitQuietTest {
    private final AtomicLong compiled = new AtomicLong(1_000);
    private final AtomicLong now = new AtomicLong(5_000_000_000L);
    private final JitQuiet jit = new JitQuiet(compiled::get, now::get);

    private void round(long millis, long compileMillis) {
        now.addAndGet(millis * 1_000_000L);
        compiled.addAndGet(compileMillis);
    }

    @Test
    void roundsGoOnWhileTheCompilersWorkAndStopAfterAQuietWindow() {
        int rounds = 0;
        // 20 ms rounds; the JIT works during the first 10 of them
        do {
            rounds++;
            round(20, rounds <= 10 ? 7 : 0);
        } while (jit.another() && rounds < 1_000);
        // 10 compiling rounds, then the quiet window of 50 ms: rounds 11, 12 and 13 (60 ms) end it
        assertThat(rounds).isEqualTo(13);
    }

    @Test
    void aJitThatIsAlreadyQuietEndsTheWarmUpAfterOneWindow() {
        int rounds = 0;
        do {
            rounds++;
            round(10, 0);
        } while (jit.another() && rounds < 1_000);
        assertThat(rounds).isEqualTo(5);
    }

    @Test
    void aJitThatNeverGoesQuietIsCutAtTheBound() {
        int rounds = 0;
        do {
            rounds++;
            round(100, 1);
        } while (jit.another() && rounds < 1_000);
        assertThat(rounds * 100L * 1_000_000L).isEqualTo(JitQuiet.MAX_NANOS);
    }

    @Test
    void thisJvmReportsCompilationTime() {
        assertThat(JitQuiet.ofThisJvm()).isNotNull();
    }
}
