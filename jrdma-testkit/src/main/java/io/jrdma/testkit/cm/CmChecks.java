package io.jrdma.testkit.cm;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.CmStrings;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.Ece;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.TransportType;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.junit.jupiter.api.Assumptions;

/**
 * The base of the CM suite's test groups: the running test's fixture, bounded waits, and the
 * building blocks most tests share — a listening server and a client, each with its own connection
 * manager and event channel (two "processes" in one JVM), and a connected pair of endpoints.
 */
abstract class CmChecks {
    /** The bound on any wait for something that must happen. */
    static final Duration WAIT = Duration.ofSeconds(10);
    /** How long the suite watches for something that must not happen. */
    static final Duration QUIET = Duration.ofMillis(300);
    /** A short caller timeout for connects to a silent peer. */
    static final Duration SHORT = Duration.ofMillis(400);

    private final CmSuiteSupport support;

    CmChecks(CmSuiteSupport support) {
        this.support = support;
    }

    /** The fixture of the running test. */
    CmFixture fixture() {
        return support.fixture();
    }

    /** Whether the transport has {@code c}. */
    boolean has(CmCapability c) {
        return fixture().capabilities().contains(c);
    }

    /** Skips the test unless the transport has {@code c}. */
    void assume(CmCapability c) {
        Assumptions.assumeTrue(has(c), () -> fixture().deviceNames() + " does not offer " + c);
    }

    /** Whether the fixture's CM has {@code q} (a fact outside jrdma that contradicts one of the suite's checks). */
    boolean quirk(CmQuirk q) {
        return fixture().quirk(q) != null;
    }

    /**
     * {@code depth} as the device holds a QP's RDMA READ depth: itself, or rounded up to a power of two where the
     * device does so ({@link CmQuirk#RD_ATOMIC_ROUNDED_UP}).
     */
    int heldDepth(int depth) {
        if (depth <= 1 || !quirk(CmQuirk.RD_ATOMIC_ROUNDED_UP)) {
            return depth;
        }
        return Integer.highestOneBit(depth - 1) << 1;
    }

    /** Skips the rest of the test when the fixture's CM has {@code q}, with the fixture's reason. */
    void skipIf(CmQuirk q) {
        String why = fixture().quirk(q);
        Assumptions.assumeTrue(why == null, () -> fixture().deviceNames() + ": " + why);
    }

    /**
     * Whether {@code status} of a REJECTED event on {@code id} is a consumer's reject: {@link CmStrings#isConsumerReject},
     * or on iWARP -ECONNRESET where the fixture's CM reports an MPA reject so ({@link CmQuirk#IWARP_REJECT_IS_A_RESET}).
     */
    boolean consumerReject(CmId id, int status) {
        if (iwarp() && quirk(CmQuirk.IWARP_REJECT_IS_A_RESET)) {
            return status == io.jrdma.verbs.Errno.ECONNRESET.status();
        }
        return CmStrings.isConsumerReject(id, status);
    }

    /** The status of a consumer's reject on the main device's transport as the fixture's CM reports it. */
    int consumerRejectStatus() {
        if (iwarp()) {
            return (quirk(CmQuirk.IWARP_REJECT_IS_A_RESET) ? io.jrdma.verbs.Errno.ECONNRESET
                    : io.jrdma.verbs.Errno.ECONNREFUSED).status();
        }
        return io.jrdma.cm.RejectReason.CONSUMER_DEFINED.value();
    }

    /** The main device. */
    Device device() {
        return Rdma.device(fixture().deviceNames().get(0));
    }

    /** Whether the main device is iWARP. */
    boolean iwarp() {
        return device().transport() == TransportType.IWARP;
    }

    /** Closes {@code resource} when the test ends. */
    <T extends AutoCloseable> T track(T resource) {
        return support.track(resource);
    }

    /** A connection manager on the fixture's devices, closed when the test ends. */
    RdmaCm openCm() {
        return track(RdmaCm.open(fixture().deviceNames().toArray(String[]::new)));
    }

    /** An event channel on {@code cm} with bounded waits. */
    static ChannelEvents channel(RdmaCm cm) {
        return new ChannelEvents(cm.createEventChannel(), WAIT);
    }

    /** A kernel-style handler that records. */
    static EventRecorder recorder() {
        return new EventRecorder(WAIT);
    }

    /** The fixture's address with {@code port}. */
    InetSocketAddress at(int port) {
        return new InetSocketAddress(fixture().address(), port);
    }

    /** Whether the fixture's address is IPv6. */
    boolean ipv6() {
        return fixture().address() instanceof java.net.Inet6Address;
    }

    /** The wildcard address of the fixture's family ({@code 0.0.0.0} or {@code ::}) with {@code port}. */
    InetSocketAddress any(int port) {
        return new InetSocketAddress(io.jrdma.internal.net.Ip.wildcard(ipv6()), port);
    }

    /** The main device's IPv4 address (the fixture's, or its other family's when that is IPv4), or null. */
    java.net.InetAddress ipv4Address() {
        return ipv6() ? fixture().otherFamilyAddress() : fixture().address();
    }

    /** The main device's IPv6 address (the fixture's, or its other family's when that is IPv6), or null. */
    java.net.InetAddress ipv6Address() {
        return ipv6() ? fixture().address() : fixture().otherFamilyAddress();
    }

    /** Starts a thread that the end of the test interrupts and joins. */
    Thread background(String name, Runnable body) {
        Thread t = Thread.ofPlatform().daemon().name("cm-suite-" + name).start(body);
        track(() -> {
            t.interrupt();
            t.join(WAIT.toMillis());
        });
        return t;
    }

    /** Waits up to {@link #WAIT} until {@code condition} holds; fails if it does not. */
    static void eventually(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + WAIT + ": " + what);
            }
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    /** Waits up to {@link #WAIT} for {@code t} to end; fails if it does not. */
    static void join(Thread t) throws InterruptedException {
        t.join(WAIT.toMillis());
        assertThat(t.isAlive()).as("%s still running after %s", t.getName(), WAIT).isFalse();
    }

    // ------------------------------------------------------------------------------------------ peers

    /** A process with a connection manager and one event channel. */
    record Peer(RdmaCm cm, ChannelEvents events) {
    }

    /** A server: a peer and its listening id. */
    record Server(RdmaCm cm, ChannelEvents events, CmId listener) {
        int port() {
            return listener.localPort();
        }
    }

    /** A new peer. */
    Peer peer() {
        RdmaCm cm = openCm();
        return new Peer(cm, channel(cm));
    }

    /** A server listening on the fixture's address, an ephemeral port, with {@code backlog}. */
    Server listen(PortSpace ps, int backlog) {
        RdmaCm cm = openCm();
        ChannelEvents ev = channel(cm);
        CmId l = ev.channel().createId("listener", ps);
        l.bind(at(0));
        l.listen(backlog);
        return new Server(cm, ev, l);
    }

    /** A new client id of {@code peer} with its route to {@code port} resolved. */
    CmId routed(Peer peer, PortSpace ps, int port) {
        return routed(peer, ps, port, id -> {
        });
    }

    /** As {@link #routed(Peer, PortSpace, int)}, running {@code beforeResolve} on the idle id first. */
    CmId routed(Peer peer, PortSpace ps, int port, Consumer<CmId> beforeResolve) {
        CmId id = peer.events().channel().createId("client", ps);
        beforeResolve.accept(id);
        id.resolveAddr(null, at(port), WAIT);
        peer.events().expect(CmEventType.ADDR_RESOLVED, id);
        id.resolveRoute(WAIT);
        peer.events().expect(CmEventType.ROUTE_RESOLVED, id);
        return id;
    }

    // ------------------------------------------------------------------------------------------ pairs

    /** How {@link #connect(Spec)} builds a connection. */
    static final class Spec {
        PortSpace ps = PortSpace.TCP;
        ConnParam connect = ConnParam.defaults();
        ConnParam accept = ConnParam.defaults();
        Ece connectEce = Ece.NONE;
        Ece acceptEce = Ece.NONE;
        int receives;
        Consumer<CmId> beforeResolve = id -> {
        };
        Consumer<CmId> beforeConnect = id -> {
        };
        Consumer<CmId> beforeAccept = id -> {
        };

        Spec ps(PortSpace p) {
            ps = p;
            return this;
        }

        Spec connect(ConnParam p) {
            connect = p;
            return this;
        }

        Spec accept(ConnParam p) {
            accept = p;
            return this;
        }

        Spec ece(Ece offered, Ece answered) {
            connectEce = offered;
            acceptEce = answered;
            return this;
        }

        Spec receives(int n) {
            receives = n;
            return this;
        }

        Spec beforeResolve(Consumer<CmId> c) {
            beforeResolve = c;
            return this;
        }

        Spec beforeConnect(Consumer<CmId> c) {
            beforeConnect = c;
            return this;
        }

        Spec beforeAccept(Consumer<CmId> c) {
            beforeAccept = c;
            return this;
        }
    }

    /** A connected pair: both sides with their QPs, and the events that made it. */
    record Connection(Server server, Peer client, Side active, Side passive, CmEvent request,
            CmEvent activeEstablished, CmEvent passiveEstablished) {
    }

    /** A new spec with librdmacm's defaults. */
    static Spec spec() {
        return new Spec();
    }

    /**
     * Connects a client to a new server through the channel API: resolve, QPs created through the
     * ids, {@code receives} receives posted on each side before connect/accept, connect, accept, and
     * ESTABLISHED on both sides (the active side only for UD).
     */
    Connection connect(Spec s) {
        return connect(s, listen(s.ps, 8), peer());
    }

    /** As {@link #connect(Spec)}, through an existing server and client. */
    Connection connect(Spec s, Server server, Peer client) {
        CmId id = routed(client, s.ps, server.port(), s.beforeResolve);
        Side active = Side.of(id);
        active.createQp();
        for (int i = 0; i < s.receives; i++) {
            active.postRecv(1000 + i, i);
        }
        s.beforeConnect.accept(id);
        id.connect(s.connect, s.connectEce);
        CmEvent request = server.events().expect(CmEventType.CONNECT_REQUEST);
        Side passive = Side.of(request.id());
        passive.createQp();
        for (int i = 0; i < s.receives; i++) {
            passive.postRecv(2000 + i, i);
        }
        s.beforeAccept.accept(request.id());
        request.id().accept(s.accept, s.acceptEce);
        CmEvent est = client.events().expect(CmEventType.ESTABLISHED, id);
        CmEvent pest = s.ps == PortSpace.UDP ? null
                : server.events().expect(CmEventType.ESTABLISHED, request.id());
        return new Connection(server, client, active, passive, request, est, pest);
    }

    /** A connected RC pair with librdmacm's defaults. */
    Connection connect() {
        return connect(spec());
    }
}
