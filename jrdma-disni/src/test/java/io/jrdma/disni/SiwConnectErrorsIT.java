package io.jrdma.disni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.ArrayBlockingQueue;

import com.ibm.disni.RdmaActiveEndpoint;
import com.ibm.disni.RdmaActiveEndpointGroup;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code RdmaEndpoint.connect} over siw0 (serving 127.0.0.1 only) ends on every failure: an address no device
 * serves, a TCP peer that accepts but never answers the MPA request (after the connect timeout), a reject with
 * private data, and a port nobody listens on.
 */
@Timeout(120)
class SiwConnectErrorsIT {

    static final class Ep extends RdmaActiveEndpoint {
        final ArrayBlockingQueue<IbvWC> events = new ArrayBlockingQueue<>(16);

        Ep(RdmaActiveEndpointGroup<Ep> group, RdmaCmId id, boolean serverSide) throws IOException {
            super(group, id, serverSide);
        }

        @Override
        public void dispatchCqEvent(IbvWC wc) {
            events.add(wc.clone());
        }
    }

    private static RdmaActiveEndpointGroup<Ep> group() throws IOException {
        RdmaActiveEndpointGroup<Ep> g = new RdmaActiveEndpointGroup<>(200, false, 16, 1, 32);
        g.init((id, serverSide) -> new Ep(g, id, serverSide));
        return g;
    }

    @Test
    void anAddressNoDeviceServesFailsConnectPromptly() throws Exception {
        RdmaActiveEndpointGroup<Ep> g = group();
        Ep ep = g.createEndpoint();
        long t0 = System.nanoTime();
        RdmaConnectException e = catchThrowableOfType(RdmaConnectException.class,
                () -> ep.connect(new InetSocketAddress(InetAddress.getByName("::1"), 7471), 30_000));
        assertThat(e).isNotNull();
        // siw's own check (no IPv6 address served) fails the connect at once, or address resolution does
        assertThat(e.eventType()).isIn(RdmaCmEvent.EventType.RDMA_CM_EVENT_ADDR_ERROR.ordinal(),
                RdmaConnectException.NO_EVENT);
        assertThat(e.status()).as("a negative errno").isNegative();
        assertThat((System.nanoTime() - t0) / 1_000_000).as("ms, far below the 30 s timeout").isLessThan(10_000);
        ep.close();
        g.close();
    }

    @Test
    void aTcpPeerThatNeverAnswersEndsConnectAfterItsTimeout() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 4, InetAddress.getByName("127.0.0.1"))) {
            Thread acceptor = Thread.ofVirtual().start(() -> {
                try (Socket s = silent.accept()) {
                    s.getInputStream().readAllBytes();
                } catch (IOException closed) {
                    // the client gave up
                }
            });
            RdmaActiveEndpointGroup<Ep> g = group();
            Ep ep = g.createEndpoint();
            long t0 = System.nanoTime();
            RdmaConnectException e = catchThrowableOfType(RdmaConnectException.class,
                    () -> ep.connect(new InetSocketAddress("127.0.0.1", silent.getLocalPort()), 2000));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertThat(e).isNotNull();
            assertThat(ms).as("ended after the 2000 ms timeout, not much later").isBetween(1900L, 9000L);
            ep.close();
            g.close();
            silent.close();
            acceptor.join(10_000);
        }
    }

    @Test
    void aRejectOverIwarpReachesConnectWithItsPrivateData() throws Exception {
        RdmaEventChannel ch = RdmaEventChannel.createEventChannel();
        RdmaCmId listen = ch.createId(RdmaCm.RDMA_PS_TCP);
        listen.bindAddr(new InetSocketAddress("127.0.0.1", 0));
        listen.listen(2);
        int port = ((InetSocketAddress) listen.getSource()).getPort();
        byte[] why = "no room".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        Thread server = Thread.ofVirtual().start(() -> {
            try {
                RdmaCmEvent req = ch.getCmEvent(10_000);
                req.getConnIdPriv().reject(why);
                req.ackEvent();
                req.getConnIdPriv().destroyId();
            } catch (IOException x) {
                throw new IllegalStateException(x);
            }
        });
        RdmaActiveEndpointGroup<Ep> g = group();
        Ep ep = g.createEndpoint();
        RdmaConnectException e = catchThrowableOfType(RdmaConnectException.class,
                () -> ep.connect(new InetSocketAddress("127.0.0.1", port), 5000));
        assertThat(e).isNotNull();
        assertThat(e.eventType()).isEqualTo(RdmaCmEvent.EventType.RDMA_CM_EVENT_REJECTED.ordinal());
        assertThat(e.privateData()).isEqualTo(why);
        server.join(10_000);
        ep.close();
        g.close();
        listen.destroyId();
        ch.destroyEventChannel();
    }

    @Test
    void aPortNobodyListensOnFailsConnect() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        RdmaActiveEndpointGroup<Ep> g = group();
        Ep ep = g.createEndpoint();
        RdmaConnectException e = catchThrowableOfType(RdmaConnectException.class,
                () -> ep.connect(new InetSocketAddress("127.0.0.1", port), 5000));
        assertThat(e).isNotNull();
        assertThat(e.status()).as("ECONNREFUSED, as iWARP reports a refused TCP connect").isEqualTo(-111);
        ep.close();
        g.close();
    }
}
