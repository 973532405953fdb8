package io.jrdma.rxe.fault;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.ConnParam;
import io.jrdma.internal.cm.ib.IbCm;
import io.jrdma.testkit.ChildJvm;
import io.jrdma.testkit.Fleet;
import io.jrdma.testkit.Hygiene;
import io.jrdma.testkit.Netns;
import io.jrdma.testkit.PeerMain;
import io.jrdma.verbs.AsyncEvent;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.WcStatus;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Faults under traffic on RoCE (issue 6, item 3), the counterpart of siw's {@code FaultIT}: the peer is a
 * {@link PeerMain} on its own rxe device in a child JVM, connected through rdma_cm (IB CM MADs on QP1),
 * and it is killed (SIGKILL), stopped (SIGSTOP), or its link goes down (a second network namespace joined
 * by a veth pair, its side taken down); or it dies while the connection is idle. On the surviving side
 * ({@link Fleet}: RDMA WRITE, READ read back and compared, SEND with its CRC32C checked by the peer):
 *
 * <ul>
 *   <li>the RC transport finds the dead peer by itself: the WQE at the head of the send queue completes
 *       with {@code RETRY_EXC_ERR} once the ACK timeout ran out {@code retry_cnt + 1} times, every other
 *       posted WR with {@code WR_FLUSH_ERR}, each exactly once, no READ with other bytes; the QP is in
 *       ERROR; no affiliated async event (IBTA: a transport retry error is reported by the
 *       completion; Linux {@code rxe_comp.c} raises none either);</li>
 *   <li>rdma_cm reports nothing on its own: the IB CM does not watch the QP, so a transport error is no
 *       DISCONNECTED (Linux {@code cma.c} turns only DREQ/DREP and DREQ timeouts into DISCONNECTED). The
 *       application reacts to the completion with {@code rdma_disconnect}; its DREQ goes unanswered and
 *       after {@code max_cm_retries} retransmissions DISCONNECTED arrives with status -ETIMEDOUT
 *       ({@code cm.c} IB_CM_DREQ_ERROR, {@code cma_ib_handler});</li>
 *   <li>on an idle connection nothing at all happens: RC has no keepalive, so a dead peer is found only by
 *       the next WR posted (Linux rxe alike); the receives wait until that WR's retries run out;</li>
 *   <li>resources are freed ({@link Hygiene}) and nothing waits past ACK timeout × (retry count + 1)
 *       (transport) or the CM's DREQ retransmissions (rdma_cm), plus slack.</li>
 * </ul>
 *
 * <p>Runs in failsafe's {@code faults} execution: ACK timeout 15 (134 ms) and retry count 3 set on each
 * connection ({@code rdma_set_ack_timeout}, conn_param's {@code retry_count}: rxe takes 7 to mean "retry
 * for ever", as {@code rxe_comp.c} does), packet life time 12 and {@code jrdma.cm.responseTimeout=14}
 * (a DREQ timeout of 96 ms). The link test needs root and iproute2 and creates namespace
 * {@code rf-link} before rxe opens its devices (it adds device {@code rxe2} on this side of the veth).
 */
class RoceFaultIT {
    /** IB time exponent of the local ACK timeout: 4.096 µs × 2^15 ≈ 134 ms. */
    static final int ACK_TIMEOUT = 15;
    /** Transport retries after the first transmission. */
    static final int RETRY_COUNT = 3;
    /** Slack for scheduling on a loaded 2-core machine, on top of what the protocol needs. */
    private static final Duration SLACK = Duration.ofSeconds(3);
    private static final int OP_BYTES = 16384;
    private static final String PEER_ADDRESS = "127.0.0.3";
    private static final String LINK_NS = "rf-link";
    private static final String LINK_SUBNET = "10.78.9";
    private static Netns link;

    @RegisterExtension
    final Hygiene hygiene = new Hygiene();

    /**
     * Creates the namespace of the link test while rxe has not opened its devices yet (one JVM per failsafe
     * execution, this class alone in it): this side's veth address becomes device {@code rxe2}.
     */
    @BeforeAll
    static void namespace() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return;
        }
        try {
            link = Netns.create(LINK_NS, LINK_SUBNET);
        } catch (RuntimeException | AssertionError e) {
            System.err.println("no namespace for the link test: " + e);
            return;
        }
        System.setProperty("jrdma.rxe.devices", System.getProperty("jrdma.rxe.devices", "") + ",rxe2:"
                + link.host());
    }

    @AfterAll
    static void removeNamespace() {
        if (link != null) {
            link.close();
        }
    }

    /** The local ACK timeout in force. */
    static Duration ackTimeout() {
        return Duration.ofNanos(4096L << ACK_TIMEOUT);
    }

    /** How long the transport takes to give up on a silent peer: the first send and each retry time out. */
    static Duration transportBound() {
        return ackTimeout().multipliedBy(RETRY_COUNT + 1);
    }

    /** How long an unanswered DREQ takes to end in DISCONNECTED: the DREQ and its retransmissions. */
    static Duration dreqBound() {
        int plt = Integer.getInteger("jrdma.rxe.packetLifeTime", 18);
        long each = 2 * IbCm.toMs(plt) + IbCm.toMs(IbCm.CM_RESPONSE_TIMEOUT);
        return Duration.ofMillis(each * (IbCm.MAX_CM_RETRIES + 1));
    }

    private static ChildJvm peer(String netns, String address) {
        return ChildJvm.start(netns, List.of("-Djrdma.rxe.devices=rxe0:" + address,
                "-Djrdma.rxe.packetLifeTime=" + Integer.getInteger("jrdma.rxe.packetLifeTime", 18),
                "-Djrdma.cm.responseTimeout=" + IbCm.CM_RESPONSE_TIMEOUT), PeerMain.class,
                address, Integer.toString(4 * OP_BYTES), "64", Integer.toString(Fleet.SEND_BYTES), "rxe0");
    }

    private static Fleet fleet(String device) {
        return new Fleet(device, OP_BYTES, 2).ackTimeout(ACK_TIMEOUT)
                .connParam(new ConnParam(null, 16, 16, false, RETRY_COUNT, 7, false, 0));
    }

    private static InetSocketAddress at(ChildJvm c, String address) {
        return new InetSocketAddress(address, Integer.parseInt(c.expect("PORT", Duration.ofSeconds(30)).substring(5)));
    }

    /**
     * Asserts that no CM event reaches the channel within {@code quiet} and that no QP, CQ or device event
     * reached the context (the port's PORT_ERR/PORT_ACTIVE are allowed: the port follows the link's carrier,
     * as rxe's does).
     */
    private static void assertQuiet(Fleet f, Duration quiet, String when) throws InterruptedException {
        CmEvent e = f.nextEvent(quiet);
        assertThat(e == null ? null : e.type() + " status " + e.status()).as("CM events " + when).isNull();
        List<String> events = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            AsyncEvent a = f.conns().getFirst().id.verbs().getAsyncEvent(Duration.ofMillis(1));
            if (a == null) {
                break;
            }
            if (a.type() != AsyncEventType.PORT_ERR && a.type() != AsyncEventType.PORT_ACTIVE) {
                events.add(a.toString());
            }
        }
        assertThat(events).as("async events " + when).isEmpty();
    }

    /**
     * Runs traffic until it flows, then {@code fault}, then checks the transport's and rdma_cm's answers;
     * returns the figures for the FAULT line.
     */
    private static void underTraffic(String name, Fleet f, Runnable fault) throws Exception {
        f.warmUp(Duration.ofMillis(400), Duration.ofSeconds(10));
        assertThat(f.statuses).as("traffic before the fault").containsOnlyKeys(WcStatus.SUCCESS);
        assertThat(f.bytesVerified).as("READs verified before the fault").isPositive();
        Fleet.Conn c = f.conns().getFirst();
        long t0 = System.nanoTime();
        fault.run();
        // Keep posting until the QP leaves RTS: WRs posted after that are flushed at once.
        f.run(transportBound().plus(SLACK), () -> c.qp.state() != QpState.RTS);
        Duration toError = Duration.ofNanos(System.nanoTime() - t0);
        f.drain(SLACK);
        checkTransportGaveUp(f, toError);
        // rdma_cm: the transport error alone is no DISCONNECTED; the application disconnects.
        assertQuiet(f, ackTimeout().multipliedBy(2), "after the QP went to ERROR, before rdma_disconnect");
        Duration toDisconnected = disconnect(f, t0);
        report(name, f, toError, toDisconnected, Errno.ETIMEDOUT.status());
    }

    private static void checkTransportGaveUp(Fleet f, Duration toError) {
        assertThat(f.conns().getFirst().qp.state()).isEqualTo(QpState.ERR);
        assertThat(f.outstanding()).as("WRs without a completion").isZero();
        assertThat(f.duplicates).as("WRs completed twice").isZero();
        assertThat(f.corrupt).as("READs that returned other bytes").isZero();
        assertThat(f.statuses.keySet()).as("completion statuses").isSubsetOf(WcStatus.SUCCESS,
                WcStatus.RETRY_EXC_ERR, WcStatus.WR_FLUSH_ERR);
        assertThat(f.statuses.get(WcStatus.RETRY_EXC_ERR)).as("the WQE that ran out of retries").isEqualTo(1L);
        // The retransmit timer was last armed before the fault, by the last ACK: the first timeout comes
        // within one ACK timeout of the fault, then RETRY_COUNT more.
        assertThat(toError).as("time to ERROR").isLessThan(transportBound().plus(SLACK))
                .isGreaterThanOrEqualTo(ackTimeout().multipliedBy(RETRY_COUNT).multipliedBy(9).dividedBy(10));
    }

    /** rdma_disconnect to a peer that does not answer: DISCONNECTED with -ETIMEDOUT after the DREQ retries. */
    private static Duration disconnect(Fleet f, long t0) throws InterruptedException {
        long d0 = System.nanoTime();
        f.conns().getFirst().id.disconnect();
        CmEvent ev = f.event(CmEventType.DISCONNECTED, dreqBound().plus(SLACK));
        Duration took = Duration.ofNanos(System.nanoTime() - d0);
        assertThat(ev.status()).as("DREQ unanswered: cma.c's -ETIMEDOUT").isEqualTo(Errno.ETIMEDOUT.status());
        assertThat(took).as("DREQ retransmissions").isGreaterThanOrEqualTo(dreqBound().multipliedBy(9)
                .dividedBy(10)).isLessThan(dreqBound().plus(SLACK));
        return Duration.ofNanos(System.nanoTime() - t0);
    }

    private static void report(String name, Fleet f, Duration toError, Duration toDisconnected, int status) {
        System.out.println("FAULT " + name + " posted=" + f.posted() + " statuses=" + Map.copyOf(f.statuses)
                + " verified=" + f.bytesVerified + " toErrorMs=" + toError.toMillis() + " toDisconnectedMs="
                + toDisconnected.toMillis() + " status=" + status);
    }

    @Test
    void aPeerKilledMidTransferEndsInRetryExcErrTheRestFlushedAndDisconnectedAfterRdmaDisconnect()
            throws Exception {
        try (ChildJvm child = peer(null, PEER_ADDRESS); Fleet f = fleet("rxe0")) {
            f.connect(at(child, PEER_ADDRESS), 1, Duration.ofSeconds(20));
            underTraffic("roce-peer-killed", f, child::kill);
        }
    }

    @Test
    void aStalledPeerIsGivenUpAfterTheAckTimeoutAndItsRetries() throws Exception {
        try (ChildJvm child = peer(null, PEER_ADDRESS); Fleet f = fleet("rxe0")) {
            f.connect(at(child, PEER_ADDRESS), 1, Duration.ofSeconds(20));
            underTraffic("roce-peer-stalled", f, () -> child.signal("STOP"));
        }
    }

    @Test
    void aPeerLinkTakenDownMidTransferIsGivenUpAfterTheAckTimeoutAndItsRetries() throws Exception {
        Netns.assume();
        Assumptions.assumeTrue(link != null && Rdma.devices().stream().anyMatch(d -> d.name().equals("rxe2")),
                "namespace " + LINK_NS + " and device rxe2 (made before rxe opened its devices)");
        try (ChildJvm child = peer(link.name(), link.peer()); Fleet f = fleet("rxe2")) {
            f.connect(at(child, link.peer()), 1, Duration.ofSeconds(30));
            try {
                underTraffic("roce-link-down-busy", f, link::peerLinkDown);
            } finally {
                link.peerLinkUp();
            }
        }
    }

    @Test
    void anIdleConnectionWhosePeerDiedNoticesNothingUntilTheNextPost() throws Exception {
        try (ChildJvm child = peer(null, PEER_ADDRESS); Fleet f = fleet("rxe0")) {
            f.connect(at(child, PEER_ADDRESS), 1, Duration.ofSeconds(20));
            Fleet.Conn c = f.conns().getFirst();
            f.postReceives(c, 4);
            long t0 = System.nanoTime();
            child.kill();
            // RC has no keepalive: with nothing outstanding, no timer runs and nothing is sent.
            Duration idle = transportBound().multipliedBy(3);
            assertQuiet(f, idle, "on an idle connection whose peer died");
            assertThat(f.poll()).as("completions while idle").isZero();
            assertThat(c.qp.state()).as("still RTS: nothing tells RC the peer is gone").isEqualTo(QpState.RTS);
            // The next WRs (one WRITE, SEND, READ cycle) find out: the WRITE runs out of retries.
            long p0 = System.nanoTime();
            assertThat(f.postCycle(c)).isTrue();
            long deadline = p0 + transportBound().plus(SLACK).toNanos();
            while (c.qp.state() == QpState.RTS && System.nanoTime() < deadline) {
                if (f.poll() == 0) {
                    Thread.onSpinWait();
                }
            }
            Duration toError = Duration.ofNanos(System.nanoTime() - p0);
            f.drain(SLACK);
            assertThat(c.qp.state()).isEqualTo(QpState.ERR);
            assertThat(f.receivesDone.cardinality()).as("receives flushed").isEqualTo(4);
            assertThat(f.duplicates).isZero();
            assertThat(f.statuses).as("the WRITE, then the SEND, READ and 4 receives flushed")
                    .containsEntry(WcStatus.RETRY_EXC_ERR, 1L).containsEntry(WcStatus.WR_FLUSH_ERR, 6L).hasSize(2);
            assertThat(toError).as("the post's retries ran out").isLessThan(transportBound().plus(SLACK))
                    .isGreaterThanOrEqualTo(transportBound().multipliedBy(9).dividedBy(10));
            assertQuiet(f, ackTimeout(), "after the QP went to ERROR, before rdma_disconnect");
            Duration total = disconnect(f, t0);
            report("roce-idle-peer-killed", f, toError, total, Errno.ETIMEDOUT.status());
        }
    }
}
