package io.jrdma.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The runner keeps its agent's thread alive whatever a duty cycle or a park throws. */
class AgentRunnerTest {

    /** An agent whose every fifth park and every seventh duty cycle throws. */
    private static final class Faulty implements Agent {
        final AtomicInteger cycles = new AtomicInteger();
        final AtomicInteger parks = new AtomicInteger();

        @Override
        public int doWork() {
            if (cycles.incrementAndGet() % 7 == 0) {
                throw new IllegalStateException("duty cycle fault");
            }
            return 0;
        }

        @Override
        public boolean hasPendingWork() {
            if (parks.incrementAndGet() % 5 == 0) {
                throw new NullPointerException("timer heap read mid-update");
            }
            return false;
        }

        @Override
        public void park(long nanos) {
            java.util.concurrent.locks.LockSupport.parkNanos(this, Math.min(nanos, 100_000));
        }

        @Override
        public String roleName() {
            return "faulty";
        }
    }

    @Test
    void aParkOrDutyCycleThatThrowsDoesNotEndTheAgentsThread() throws InterruptedException {
        Faulty agent = new Faulty();
        try (AgentRunner r = new AgentRunner(agent, IdleStrategy.backoff(0, 0, 1_000, 100_000))) {
            long end = System.nanoTime() + 5_000_000_000L;
            while ((agent.parks.get() < 50 || agent.cycles.get() < 50) && System.nanoTime() < end) {
                Thread.sleep(1);
            }
            assertThat(agent.parks.get()).as("parks (every fifth threw)").isGreaterThanOrEqualTo(50);
            assertThat(agent.cycles.get()).as("duty cycles (every seventh threw)").isGreaterThanOrEqualTo(50);
            assertThat(r.thread().isAlive()).isTrue();
        }
    }
}
