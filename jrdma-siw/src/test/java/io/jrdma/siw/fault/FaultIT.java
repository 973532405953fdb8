package io.jrdma.siw.fault;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.siw.LinkTimeouts;
import io.jrdma.testkit.ChildJvm;
import io.jrdma.testkit.Fleet;
import io.jrdma.testkit.Hygiene;
import io.jrdma.testkit.Netns;
import io.jrdma.testkit.PeerMain;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.WcStatus;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Faults under traffic (issue 6, item 3): the peer — a {@link PeerMain} in a child JVM — is killed, resets
 * its connection, stops (SIGSTOP: it reads nothing more), or its host's link goes down (a second network
 * namespace joined by a veth pair). On the surviving side ({@link Fleet}: RDMA WRITE, READ and SEND kept
 * in flight) every posted WR completes exactly once (SUCCESS or WR_FLUSH_ERR), no READ returns wrong
 * bytes, rdma_cm delivers DISCONNECTED, the QP is in ERROR, everything is freed ({@link Hygiene}), and
 * nothing waits past the configured {@link LinkTimeouts}: this class runs in failsafe's {@code faults}
 * execution with a 1.5 s stall timeout and keepalive after 1 s idle, 2 probes 1 s apart.
 */
class FaultIT {
    private static final LinkTimeouts TIMEOUTS = LinkTimeouts.fromSystemProperties();
    /** Slack for scheduling on a loaded 2-core machine, on top of what the protocol needs. */
    private static final Duration SLACK = Duration.ofSeconds(4);
    private static final int OP_BYTES = 16384;

    @RegisterExtension
    final Hygiene hygiene = new Hygiene();

    private static ChildJvm peer(String netns, String address) {
        return ChildJvm.start(netns, List.of("-Djrdma.siw.addresses=" + address,
                "-Djrdma.siw.stallTimeoutMs=" + TIMEOUTS.stall().toMillis(),
                "-Djrdma.siw.keepIdleS=" + TIMEOUTS.keepIdle().toSeconds(),
                "-Djrdma.siw.keepIntervalS=" + TIMEOUTS.keepInterval().toSeconds(),
                "-Djrdma.siw.keepCount=" + TIMEOUTS.keepCount()), PeerMain.class,
                address, Integer.toString(4 * OP_BYTES), "64", Integer.toString(Fleet.SEND_BYTES));
    }

    private static InetSocketAddress at(ChildJvm c, String address) {
        return new InetSocketAddress(address, Integer.parseInt(c.expect("PORT", Duration.ofSeconds(30)).substring(5)));
    }

    /** Runs traffic until it flows (completions of each kind arrived), then {@code fault}, then checks. */
    private static void underTraffic(String name, Fleet f, Runnable fault, Duration bound) throws Exception {
        f.warmUp(Duration.ofMillis(400), Duration.ofSeconds(10));
        assertThat(f.statuses).as("traffic before the fault").containsOnlyKeys(WcStatus.SUCCESS);
        assertThat(f.bytesVerified).as("READs verified before the fault").isPositive();
        Fleet.Conn c = f.conns().getFirst();
        long t0 = System.nanoTime();
        fault.run();
        // Keep posting until the QP leaves RTS: WRs posted after that are flushed at once.
        f.run(bound.plus(SLACK), () -> c.qp.state() != QpState.RTS);
        Duration toError = Duration.ofNanos(System.nanoTime() - t0);
        f.run(Duration.ofMillis(20), () -> false); // a few WRs posted into ERROR: flushed too
        f.drain(bound.plus(SLACK));
        CmEvent ev = f.event(CmEventType.DISCONNECTED, bound.plus(SLACK));
        Duration toDisconnected = Duration.ofNanos(System.nanoTime() - t0);
        report(name, f, toError, toDisconnected, ev.status());
        assertThat(c.qp.state()).isEqualTo(QpState.ERR);
        assertThat(f.outstanding()).as("WRs without a completion").isZero();
        assertThat(f.duplicates).as("WRs completed twice").isZero();
        assertThat(f.corrupt).as("READs that returned other bytes").isZero();
        assertThat(f.statuses.keySet()).as("completion statuses").isSubsetOf(WcStatus.SUCCESS, WcStatus.WR_FLUSH_ERR);
        assertThat(toError).as("time to ERROR").isLessThan(bound.plus(SLACK));
    }

    private static void report(String name, Fleet f, Duration toError, Duration toDisconnected, int status) {
        System.out.println("FAULT " + name + " posted=" + f.posted() + " statuses=" + Map.copyOf(f.statuses)
                + " verified="
                + f.bytesVerified + " toErrorMs=" + toError.toMillis() + " toDisconnectedMs="
                + toDisconnected.toMillis() + " status=" + status);
    }

    @Test
    void aPeerKilledMidTransferLeavesEveryWrCompletedOnceAndTheQpDisconnected() throws Exception {
        try (ChildJvm child = peer(null, "127.0.0.1"); Fleet f = new Fleet("siw0", OP_BYTES, 2)) {
            f.connect(at(child, "127.0.0.1"), 1, Duration.ofSeconds(20));
            underTraffic("peer-killed", f, child::kill, Duration.ofSeconds(1));
        }
    }

    @Test
    void aTcpResetMidTransferLeavesEveryWrCompletedOnceAndTheQpDisconnected() throws Exception {
        try (ChildJvm child = peer(null, "127.0.0.1"); Fleet f = new Fleet("siw0", OP_BYTES, 2)) {
            f.connect(at(child, "127.0.0.1"), 1, Duration.ofSeconds(20));
            underTraffic("tcp-reset", f, () -> {
                child.command("reset");
                child.expect("RESET", Duration.ofSeconds(10));
            }, Duration.ofSeconds(1));
        }
    }

    @Test
    void aStalledPeerIsGivenUpAfterTheStallTimeout() throws Exception {
        try (ChildJvm child = peer(null, "127.0.0.1"); Fleet f = new Fleet("siw0", OP_BYTES, 2)) {
            f.connect(at(child, "127.0.0.1"), 1, Duration.ofSeconds(20));
            underTraffic("peer-stalled", f, () -> child.signal("STOP"),
                    TIMEOUTS.stall().multipliedBy(5).dividedBy(4));
        }
    }

    @Test
    void aLinkTakenDownMidTransferIsGivenUpAfterTheStallTimeout() throws Exception {
        Netns.assume();
        try (Netns ns = Netns.create("f1"); ChildJvm child = peer(ns.name(), Netns.PEER);
                Fleet f = new Fleet("siw0", OP_BYTES, 2)) {
            f.connect(at(child, Netns.PEER), 1, Duration.ofSeconds(30));
            underTraffic("link-down-busy", f, ns::linkDown, TIMEOUTS.stall().multipliedBy(5).dividedBy(4));
        }
    }

    @Test
    void anIdleConnectionWhoseLinkWentDownEndsByKeepalive() throws Exception {
        Netns.assume();
        try (Netns ns = Netns.create("f2"); ChildJvm child = peer(ns.name(), Netns.PEER);
                Fleet f = new Fleet("siw0", OP_BYTES, 2)) {
            f.connect(at(child, Netns.PEER), 1, Duration.ofSeconds(30));
            Fleet.Conn c = f.conns().getFirst();
            f.postReceives(c, 4);
            long t0 = System.nanoTime();
            ns.linkDown();
            Duration bound = TIMEOUTS.keepaliveDetection().plus(SLACK);
            CmEvent ev = f.event(CmEventType.DISCONNECTED, bound);
            Duration took = Duration.ofNanos(System.nanoTime() - t0);
            f.drain(SLACK);
            report("link-down-idle", f, took, took, ev.status());
            assertThat(took).as("detected by keepalive").isLessThan(bound);
            assertThat(c.qp.state()).isEqualTo(QpState.ERR);
            assertThat(f.receivesDone.cardinality()).as("receives flushed").isEqualTo(4);
            assertThat(f.duplicates).isZero();
            assertThat(f.statuses).containsOnlyKeys(WcStatus.WR_FLUSH_ERR);
        }
    }
}
