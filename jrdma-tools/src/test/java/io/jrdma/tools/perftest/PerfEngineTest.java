package io.jrdma.tools.perftest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PerfEngineTest {

    private static StackTraceElement frame(String cls, String method, int line) {
        return new StackTraceElement(cls, method, cls.substring(cls.lastIndexOf('.') + 1) + ".java", line);
    }

    @Test
    void aStuckServersFailureNamesItsInnermostJrdmaFramesAndSkipsTheJdks() {
        StackTraceElement[] stack = {
            frame("jdk.internal.misc.Unsafe", "park", -2),
            frame("java.util.concurrent.locks.LockSupport", "parkNanos", 269),
            frame("io.jrdma.core.internal.cm.EventChannelImpl", "getEvent", 88),
            frame("io.jrdma.tools.perftest.CommLink", "handshake", 140),
            frame("io.jrdma.tools.perftest.PerfSession", "hs", 533),
            frame("io.jrdma.tools.perftest.PerfSession", "sendBw", 703),
            frame("io.jrdma.tools.perftest.PerfSession", "run", 187),
        };
        assertThat(PerfEngine.whereItWaits(stack)).isEqualTo(
                " (waiting in EventChannelImpl.getEvent:88 <- CommLink.handshake:140 <- PerfSession.hs:533"
                        + " <- PerfSession.sendBw:703)");
    }

    @Test
    void aServerThatHasEndedAddsNothing() {
        assertThat(PerfEngine.whereItWaits(new StackTraceElement[0])).isEmpty();
        assertThat(PerfEngine.whereItWaits(new StackTraceElement[] {frame("java.lang.Thread", "run", 1)}))
                .isEmpty();
    }

    @Test
    void theFramesOfALiveThreadAreItsOwn() throws InterruptedException {
        CountDownLatch parked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread t = Thread.ofPlatform().daemon().start(() -> {
            parked.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            assertThat(parked.await(10, TimeUnit.SECONDS)).isTrue();
            String where = "";
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!where.contains("PerfEngineTest.lambda") && System.nanoTime() - deadline < 0) {
                where = PerfEngine.whereItWaits(t.getStackTrace());
                Thread.onSpinWait();
            }
            assertThat(where).startsWith(" (waiting in PerfEngineTest.lambda");
        } finally {
            release.countDown();
            t.join(10_000);
        }
    }
}
