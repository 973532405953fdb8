package io.jrdma.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.siw.LinkTimeouts;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The hosts' siw must give up a connection whose peer vanished without a word (a partitioned host's TCP
 * times out behind its own egress filter, and its RST is dropped) before a client counts the RDMA READ it
 * waits on as lost: the stall check, which runs every quarter of the stall time, has to fire within
 * {@link ClientLoop#COMPLETION_TIMEOUT_NANOS}.
 */
class HostTimeoutsTest {
    private static final String STALL = "-Djrdma.siw.stallTimeoutMs=";

    @Test
    void aHostsSiwGivesUpAStalledReadBeforeItsClientCountsItLost() {
        List<String> opts = Coordinator.Host.jvmOptions(3);
        String opt = opts.stream().filter(o -> o.startsWith(STALL)).findFirst().orElse(null);
        assertThat(opt).as("the host JVM sets siw's stall timeout: " + opts).isNotNull();
        long ms = Long.parseLong(opt.substring(STALL.length()));
        // The option is the one siw reads.
        String before = System.getProperty("jrdma.siw.stallTimeoutMs");
        System.setProperty("jrdma.siw.stallTimeoutMs", Long.toString(ms));
        try {
            assertThat(LinkTimeouts.fromSystemProperties().stall()).isEqualTo(Duration.ofMillis(ms));
        } finally {
            if (before == null) {
                System.clearProperty("jrdma.siw.stallTimeoutMs");
            } else {
                System.setProperty("jrdma.siw.stallTimeoutMs", before);
            }
        }
        Duration latest = Duration.ofMillis(ms + ms / 4);
        assertThat(ms).as("a stall timeout (0 disables it)").isPositive();
        assertThat(latest).as("a stalled READ flushes before the client's completion timeout")
                .isLessThan(Duration.ofNanos(ClientLoop.COMPLETION_TIMEOUT_NANOS));
        // Not so short that CPU starvation alone ends healthy connections: with 12 hosts on two cores a host
        // may not run for seconds (the 1.5 s holds of the disruptions stretch to 2-11 s there).
        assertThat(Duration.ofMillis(ms)).isGreaterThanOrEqualTo(Duration.ofSeconds(12));
    }
}
