package io.jrdma.siw.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.RdmaException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * iWARP's CM port is a real TCP port: siw binds the id's source port on the host. A port the CM picked
 * (the id was bound to port 0) that the host still holds — a socket of an earlier connection, another
 * program — must not fail the connect: the CM picks another. A port the user bound fails with
 * EADDRINUSE, as on Linux; the same holds for a listener. The ephemeral range is narrowed
 * (jrdma.cm.ephemeralPorts) to eight ports,
 * seven of them held by host sockets, so the CM's random first pick is a held one 7 times in 8.
 */
class EphemeralPortIT {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String RANGE = "jrdma.cm.ephemeralPorts";
    private static final int HELD = 7;

    private final InetAddress lo = InetAddress.getLoopbackAddress();
    private final List<ServerSocket> held = new ArrayList<>();
    private RdmaCm cm;
    private EventChannel channel;
    private int low;

    @BeforeEach
    void holdSevenOfEightPorts() throws IOException {
        for (int tries = 0; tries < 50 && held.isEmpty(); tries++) {
            int base;
            try (ServerSocket probe = new ServerSocket(0, 1, lo)) {
                base = probe.getLocalPort();
            }
            if (base + HELD >= 65535) {
                continue;
            }
            List<ServerSocket> got = new ArrayList<>();
            try {
                for (int i = 0; i <= HELD; i++) {
                    got.add(new ServerSocket(base + i, 1, lo)); // the eighth only proves it is free
                }
                got.removeLast().close();
                held.addAll(got);
                low = base;
            } catch (IOException taken) {
                for (ServerSocket s : got) {
                    s.close();
                }
            }
        }
        assertThat(held).as("eight free consecutive ports on 127.0.0.1").hasSize(HELD);
        cm = RdmaCm.open("siw0");
        channel = cm.createEventChannel();
    }

    @AfterEach
    void release() throws IOException {
        System.clearProperty(RANGE);
        if (cm != null) {
            cm.close();
        }
        for (ServerSocket s : held) {
            s.close();
        }
    }

    private CmEvent next(CmEventType type) throws InterruptedException {
        CmEvent e = channel.getEvent(WAIT);
        assertThat(e).as("a %s event within %s", type.str(), WAIT).isNotNull();
        channel.ackEvent(e);
        assertThat(e.type()).as("event %s", e).isEqualTo(type);
        return e;
    }

    /** A listener on a port outside the narrowed range, and a client id with a route and a QP. */
    private CmId clientWithRoute(CmId listener, InetSocketAddress source) throws InterruptedException {
        CmId client = channel.createId(null, PortSpace.TCP);
        client.resolveAddr(source, new InetSocketAddress(lo, listener.localPort()), WAIT);
        next(CmEventType.ADDR_RESOLVED);
        client.resolveRoute(WAIT);
        next(CmEventType.ROUTE_RESOLVED);
        withQp(client);
        return client;
    }

    private static void withQp(CmId id) {
        ProtectionDomain pd = id.verbs().allocPd();
        CompletionQueue cq = id.verbs().createCq(8, null, 0);
        id.createQp(pd, QpInitAttr.rc(cq, new QpCap(4, 4, 1, 1, 0)));
    }

    private CmId listener() {
        CmId listener = channel.createId(null, PortSpace.TCP);
        listener.bind(new InetSocketAddress(lo, 0)); // before the range is narrowed
        listener.listen(4);
        return listener;
    }

    @Test
    void aConnectWhosePickedPortTheHostHoldsMovesToAFreeOne() throws InterruptedException {
        CmId listener = listener();
        System.setProperty(RANGE, low + "-" + (low + HELD));
        CmId client = clientWithRoute(listener, null);
        client.connect(ConnParam.defaults());
        CmId server = next(CmEventType.CONNECT_REQUEST).id();
        withQp(server);
        server.accept(ConnParam.defaults());
        next(CmEventType.ESTABLISHED);
        next(CmEventType.ESTABLISHED);
        // The only port of the range the host does not hold.
        assertThat(client.localPort()).isEqualTo(low + HELD);
        assertThat(server.peerPort()).isEqualTo(low + HELD);
        client.disconnect();
    }

    @Test
    void aConnectFromAPortTheUserBoundThatTheHostHoldsFailsWithEaddrinuse() throws InterruptedException {
        CmId listener = listener();
        CmId client = clientWithRoute(listener, new InetSocketAddress(lo, low));
        assertThatThrownBy(() -> client.connect(ConnParam.defaults()))
                .isInstanceOfSatisfying(RdmaException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EADDRINUSE));
        assertThat(client.localPort()).isEqualTo(low);
    }

    @Test
    void aListenerWhosePickedPortTheHostHoldsMovesToAFreeOne() throws InterruptedException {
        System.setProperty(RANGE, low + "-" + (low + HELD));
        CmId listener = channel.createId(null, PortSpace.TCP);
        listener.bind(new InetSocketAddress(lo, 0));
        listener.listen(4);
        // The only port of the range the host does not hold, and a client reaches it there.
        assertThat(listener.localPort()).isEqualTo(low + HELD);
        System.clearProperty(RANGE);
        CmId client = clientWithRoute(listener, null);
        client.connect(ConnParam.defaults());
        CmId server = next(CmEventType.CONNECT_REQUEST).id();
        withQp(server);
        server.accept(ConnParam.defaults());
        next(CmEventType.ESTABLISHED);
        next(CmEventType.ESTABLISHED);
        client.disconnect();
    }

    @Test
    void aListenerOnAPortTheUserBoundThatTheHostHoldsFailsWithEaddrinuse() {
        CmId listener = channel.createId(null, PortSpace.TCP);
        listener.bind(new InetSocketAddress(lo, low));
        int sockets = io.jrdma.testkit.Hygiene.sockets();
        assertThatThrownBy(() -> listener.listen(4))
                .isInstanceOfSatisfying(RdmaException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EADDRINUSE));
        assertThat(listener.localPort()).isEqualTo(low);
        assertThat(io.jrdma.testkit.Hygiene.sockets()).as("the socket of the failed bind is closed").isEqualTo(sockets);
    }
}
