package io.jrdma.tools.perf;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.jrdma.testkit.Await;

/** The progress line and the stall watchdog. */
@Timeout(20)
class RunMonitorTest {

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    private String printed() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aLongRunOnATerminalShowsProgressAndClearsItAtTheEnd() throws InterruptedException {
        RunMonitor m = new RunMonitor("tcp-bw 64 B", 1000, err, true, 0, null, 0);
        m.progress(250);
        awaitLooks(m, 3);
        m.close();
        assertThat(printed()).startsWith("\r tcp-bw 64 B: 250/1000 (25%) iterations, ").endsWith("\r\033[K");
    }

    @Test
    void withoutATerminalNothingIsPrinted() throws InterruptedException {
        RunMonitor m = new RunMonitor("tcp-bw 64 B", 1000, err, false, 0, null, 0);
        m.progress(250);
        awaitLooks(m, 3);
        m.close();
        assertThat(printed()).isEmpty();
    }

    @Test
    void aShortRunPrintsNothingEvenOnATerminal() {
        RunMonitor m = new RunMonitor("tcp-bw 64 B", 1000, err, true, 0, null);
        m.progress(1000);
        m.close();
        assertThat(printed()).isEmpty();
    }

    @Test
    void aCountThatStandsStillTriggersTheStallActionOnce() throws InterruptedException {
        CountDownLatch stalled = new CountDownLatch(1);
        long stall = TimeUnit.MILLISECONDS.toNanos(300);
        try (RunMonitor m = new RunMonitor("x", 0, err, false, stall, stalled::countDown)) {
            m.progress(1);
            assertThat(stalled.await(5, TimeUnit.SECONDS)).isTrue();
            assertThat(m.stalled()).isTrue();
        }
    }

    @Test
    void aMovingCountNeverStalls() throws InterruptedException {
        long stall = TimeUnit.MILLISECONDS.toNanos(600);
        try (RunMonitor m = new RunMonitor("x", 0, err, false, stall, null)) {
            // A new count before every look, for looks spanning more than twice the stall timeout.
            long looks = 2 * stall / RunMonitor.TICK_NANOS + 2;
            for (long i = 1; i <= looks; i++) {
                m.progress(i);
                awaitLooks(m, i);
            }
            assertThat(m.stalled()).isFalse();
        }
    }

    /** Waits (at most 10 s) until the monitor has finished {@code n} looks. */
    private static void awaitLooks(RunMonitor m, long n) {
        Await.until("the monitor's look " + n, Duration.ofSeconds(10), () -> m.ticks() >= n);
    }
}
