package io.jrdma.rxe.load;

import io.jrdma.testkit.ChildJvm;
import io.jrdma.testkit.Fleet;
import io.jrdma.testkit.Hygiene;
import io.jrdma.testkit.LoadRun;
import io.jrdma.testkit.Netns;
import io.jrdma.testkit.PeerMain;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Rdma;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Load on RoCE across two network namespaces (issue 6, item 4; {@code RoceLoadIT} runs the same traffic on
 * loopback in one JVM): {@code jrdma.load.connections} (default {@value #DEFAULT_CONNECTIONS}) RC
 * connections through rdma_cm (IB CM MADs on QP1) from device {@code rxe2} on this side of a veth pair to a
 * {@link PeerMain} on its own rxe device in a child JVM in the other namespace, each moving verified data
 * for {@code jrdma.load.seconds} (see {@link LoadRun} for what is asserted and printed).
 *
 * <p>Runs in failsafe's {@code load} execution, alone in its JVM: the namespace and device {@code rxe2}
 * are made before rxe opens its devices. Needs root and iproute2 (skipped otherwise).
 */
class RoceNetnsLoadIT {
    static final int DEFAULT_CONNECTIONS = 1000;
    static final int DEFAULT_SECONDS = 5;
    private static final int CONNECTIONS = Integer.getInteger("jrdma.load.connections", DEFAULT_CONNECTIONS);
    private static final Duration RUN = Duration.ofSeconds(Long.getLong("jrdma.load.seconds", DEFAULT_SECONDS));
    private static final int BYTES = Integer.getInteger("jrdma.load.bytes", 4096);
    private static final int WINDOW = 2;
    private static final String NS = "rl-load";
    private static final String SUBNET = "10.78.10";
    private static Netns link;

    @RegisterExtension
    final Hygiene hygiene = new Hygiene();

    /** Creates the namespace while rxe has not opened its devices: this side's veth address becomes rxe2. */
    @BeforeAll
    static void namespace() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return;
        }
        try {
            link = Netns.create(NS, SUBNET);
        } catch (RuntimeException | AssertionError e) {
            System.err.println("no namespace for the load test: " + e);
            return;
        }
        String devices = System.getProperty("jrdma.rxe.devices", "");
        System.setProperty("jrdma.rxe.devices", (devices.isEmpty() ? "" : devices + ",") + "rxe2:" + link.host());
    }

    @AfterAll
    static void removeNamespace() {
        if (link != null) {
            link.close();
        }
    }

    @Test
    void aThousandConnectionsAcrossTwoNetworkNamespacesMoveVerifiedDataWithoutLossOrCorruption() throws Exception {
        Assumptions.assumeTrue(link != null && Rdma.devices().stream().anyMatch(d -> d.name().equals("rxe2")),
                "namespace " + NS + " and device rxe2 (root and iproute2)");
        try (ChildJvm child = ChildJvm.start(link.name(), List.of("-Djrdma.rxe.devices=rxe0:" + link.peer(),
                "-Xmx2g"), PeerMain.class, link.peer(), Integer.toString(WINDOW * BYTES), "128",
                Integer.toString(Fleet.SEND_BYTES), "rxe0");
                Fleet f = new Fleet("rxe2", BYTES, WINDOW)) {
            LoadRun.run("roce-netns", child, f, link.peer(), CONNECTIONS, RUN, () -> {
                try (Context ctx = Rdma.device("rxe2").open()) {
                    return "rxe2 " + ctx.queryCounters().nonZero();
                }
            });
        }
    }
}
