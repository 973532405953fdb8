package io.jrdma.internal.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.CmState;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.Ece;
import io.jrdma.cm.PortSpace;
import io.jrdma.spi.ProviderCm;
import io.jrdma.spi.ProviderCmEvent;
import io.jrdma.spi.ProviderCmId;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.TransportType;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The rdma_set_option values and ECE of an id a whole-device provider's connection manager serves: the SPI's
 * defaults refuse naming the call and the provider; options set on an idle id reach the provider's id before
 * the call that hands it over, later ones as they are set, after core's own checks; a refused option leaves
 * the id core's and idle; ECE goes to the provider before connect, accept and reject, and comes back in the
 * connection's events and {@code remoteEce}.
 */
class ProviderCmOptionsTest {
    private static final Duration WAIT = Duration.ofSeconds(5);
    private static final InetSocketAddress KERNEL = new InetSocketAddress(ip("192.0.2.1"), 7471);
    private static final InetSocketAddress PEER = new InetSocketAddress(ip("192.0.2.9"), 7471);

    private final Device fk0 = new FakeDevice("fk0", TransportType.IB);
    private final List<FakeId> ids = new CopyOnWriteArrayList<>();
    private volatile boolean optionsOffered = true;
    private final ProviderCm fakeCm = new ProviderCm() {
        @Override
        public Device deviceFor(InetAddress address) {
            return fk0;
        }

        @Override
        public ProviderCmId createId(PortSpace portSpace, QpType qpType, ProviderCmId.Listener listener) {
            FakeId id = optionsOffered ? new OptionId() : new FakeId();
            id.listener = listener;
            ids.add(id);
            return id;
        }
    };
    private final List<CmCore> cores = new ArrayList<>();

    private static InetAddress ip(String s) {
        try {
            return InetAddress.getByName(s);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    @AfterEach
    void close() {
        cores.forEach(CmCore::close);
    }

    private ChannelImpl channel() {
        CmCore c = new CmCore(null, List.of(fk0), p -> p.equals("fake") ? fakeCm : null, null);
        cores.add(c);
        return c.createChannel();
    }

    @Test
    void theSpiDefaultsRefuseEveryOptionAndEceNamingTheCallAndTheProvider() {
        FakeId plain = new FakeId();
        plain.device = fk0;
        assertThatThrownBy(() -> plain.setTos(32)).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("RDMA_OPTION_ID_TOS").hasMessageContaining("fake's connection manager");
        assertThatThrownBy(() -> plain.setReuseAddr(true)).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("RDMA_OPTION_ID_REUSEADDR");
        assertThatThrownBy(() -> plain.setAfOnly(true)).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("RDMA_OPTION_ID_AFONLY");
        assertThatThrownBy(() -> plain.setAckTimeout(14)).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("RDMA_OPTION_ID_ACK_TIMEOUT");
        assertThatThrownBy(() -> plain.setMinRnrTimer(12)).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("minimum RNR timer");
        assertThatThrownBy(() -> plain.setLocalEce(new Ece(0x15b3, 1)))
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("rdma_set_local_ece");
        assertThatThrownBy(() -> plain.rejectEce(new byte[0])).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("rdma_reject_ece");
        assertThat(plain.remoteEce()).isEqualTo(Ece.NONE);
        plain.device = null;
        assertThatThrownBy(() -> plain.setTos(32)).as("before the id has a device: the id's own name")
                .hasMessageContaining("fake id");
        assertThat(plain.calls).isEmpty();
    }

    @Test
    void optionsSetOnAnIdleIdReachTheProvidersIdBeforeItIsBound() {
        CmId id = channel().createId(null, PortSpace.TCP);
        id.setTos(96);
        id.setReuseAddr(true);
        id.setAfOnly(true);
        id.setAckTimeout(14);
        id.setMinRnrTimer(12);
        assertThat(ids).as("no provider id before the address is known").isEmpty();

        id.bind(KERNEL);

        assertThat(ids).hasSize(1);
        assertThat(ids.get(0).calls).containsExactly("tos 96", "reuseaddr true", "afonly true", "ackTimeout 14",
                "minRnrTimer 12", "bind " + KERNEL);
        assertThat(id.state()).isEqualTo(CmState.ADDR_BOUND);
    }

    @Test
    void optionsSetWhileTheProviderServesTheIdReachItAfterCoresChecks() {
        CmId id = channel().createId(null, PortSpace.TCP);
        id.resolveAddr(null, PEER, WAIT);
        FakeId fid = ids.get(0);
        assertThat(fid.calls).as("no option set: none passed").hasSize(1);

        id.setTos(184);
        id.setAckTimeout(18);
        id.setMinRnrTimer(1);
        assertThat(fid.calls).endsWith("tos 184", "ackTimeout 18", "minRnrTimer 1");

        int before = fid.calls.size();
        assertThatThrownBy(() -> id.setTos(256)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> id.setAckTimeout(32)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> id.setReuseAddr(true)).as("REUSEADDR before bind only")
                .isInstanceOf(IllegalStateException.class);
        assertThat(fid.calls).as("refused by core: the provider is not asked").hasSize(before);
    }

    @Test
    void anOptionTheProviderRefusesFailsTheHandOverAndLeavesTheIdIdle() {
        optionsOffered = false;
        CmId id = channel().createId(null, PortSpace.TCP);
        id.setAckTimeout(14);

        assertThatThrownBy(() -> id.bind(KERNEL)).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("fake's connection manager takes no ACK timeout")
                .hasMessageContaining("RDMA_OPTION_ID_ACK_TIMEOUT");

        assertThat(id.state()).isEqualTo(CmState.IDLE);
        assertThat(ids).hasSize(1);
        assertThat(ids.get(0).closed).as("the provider's id is destroyed").isTrue();
        assertThat(ids.get(0).calls).as("never bound").isEmpty();
    }

    @Test
    void eceGoesToTheProviderBeforeConnectAndComesBackInTheReply() throws Exception {
        ChannelImpl ch = channel();
        CmId id = resolved(ch);
        OptionId fid = (OptionId) ids.get(0);

        id.connect(ConnParam.defaults().withQpNum(0x11), new Ece(0x15b3, 0x5));

        assertThat(fid.calls).endsWith("localEce 15b3/5", "connect");
        fid.remote = new Ece(0x15b3, 0x1);
        fid.listener.onEvent(new ProviderCmEvent(CmEventType.ESTABLISHED, 0, null, ConnParam.defaults()));
        CmEvent up = ch.getEvent(WAIT);
        assertThat(up.type()).isEqualTo(CmEventType.ESTABLISHED);
        assertThat(up.ece()).isEqualTo(new Ece(0x15b3, 0x1));
        assertThat(id.remoteEce()).isEqualTo(new Ece(0x15b3, 0x1));
        ch.ackEvent(up);
    }

    @Test
    void aRequestCarriesTheOfferedEceAndIsAcceptedOrRejectedWithEce() throws Exception {
        ChannelImpl ch = channel();
        CmId listener = ch.createId(null, PortSpace.TCP);
        listener.bind(KERNEL);
        listener.listen(1);
        FakeId fl = ids.get(0);
        for (boolean accept : new boolean[] {true, false}) {
            OptionId req = new OptionId();
            req.device = fk0;
            req.remote = new Ece(0x2c9, 0x3);
            fl.listener.onEvent(new ProviderCmEvent(CmEventType.CONNECT_REQUEST, 0, req, ConnParam.defaults()));
            CmEvent e = ch.getEvent(WAIT);
            assertThat(e.type()).isEqualTo(CmEventType.CONNECT_REQUEST);
            assertThat(e.ece()).isEqualTo(new Ece(0x2c9, 0x3));
            assertThat(e.id().remoteEce()).isEqualTo(new Ece(0x2c9, 0x3));
            ch.ackEvent(e);
            if (accept) {
                e.id().accept(ConnParam.defaults().withQpNum(0x22), new Ece(0x2c9, 0x1));
                assertThat(req.calls).containsExactly("localEce 2c9/1", "accept");
            } else {
                e.id().rejectEce(new byte[] {1, 2});
                assertThat(req.calls).containsExactly("rejectEce 2");
            }
        }
    }

    @Test
    void eceToAProviderWithoutItIsRefusedAtTheCallAndTheIdStaysResolved() throws Exception {
        optionsOffered = false;
        ChannelImpl ch = channel();
        CmId id = resolved(ch);

        assertThatThrownBy(() -> id.connect(ConnParam.defaults().withQpNum(1), new Ece(0x15b3, 1)))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("rdma_set_local_ece").hasMessageContaining("fake");

        assertThat(id.state()).isEqualTo(CmState.ROUTE_RESOLVED);
        assertThat(id.remoteEce()).isEqualTo(Ece.NONE);
        id.connect(ConnParam.defaults().withQpNum(1), Ece.NONE);
        assertThat(ids.get(0).calls).last().isEqualTo("connect");
    }

    /** An id of the fake provider, its address and route resolved. */
    private CmId resolved(ChannelImpl ch) throws InterruptedException {
        CmId id = ch.createId(null, PortSpace.TCP);
        id.resolveAddr(null, PEER, WAIT);
        FakeId fid = ids.get(0);
        fid.listener.onEvent(new ProviderCmEvent(CmEventType.ADDR_RESOLVED, 0, null, null));
        ch.ackEvent(ch.getEvent(WAIT));
        id.resolveRoute(WAIT);
        fid.listener.onEvent(new ProviderCmEvent(CmEventType.ROUTE_RESOLVED, 0, null, null));
        ch.ackEvent(ch.getEvent(WAIT));
        assertThat(id.state()).isEqualTo(CmState.ROUTE_RESOLVED);
        return id;
    }

    /** A provider's id with the SPI's defaults for options and ECE: records the calls it takes. */
    private static class FakeId implements ProviderCmId {
        final List<String> calls = new CopyOnWriteArrayList<>();
        volatile Listener listener;
        volatile Device device;
        volatile boolean closed;

        @Override
        public void listener(Listener l) {
            listener = l;
        }

        @Override
        public void bind(InetSocketAddress address) {
            calls.add("bind " + address);
        }

        @Override
        public void listen(int backlog) {
            calls.add("listen");
        }

        @Override
        public void resolveAddr(InetSocketAddress src, InetSocketAddress dst, Duration timeout) {
            calls.add("resolveAddr");
        }

        @Override
        public void resolveRoute(Duration timeout) {
            calls.add("resolveRoute");
        }

        @Override
        public void connect(QueuePair qp, ConnParam param) {
            calls.add("connect");
        }

        @Override
        public void accept(QueuePair qp, ConnParam param) {
            calls.add("accept");
        }

        @Override
        public void reject(byte[] privateData) {
            calls.add("reject " + privateData.length);
        }

        @Override
        public void disconnect() {
            calls.add("disconnect");
        }

        @Override
        public Device device() {
            return device;
        }

        @Override
        public InetSocketAddress localAddress() {
            return null;
        }

        @Override
        public InetSocketAddress peerAddress() {
            return null;
        }

        @Override
        public void close() {
            closed = true;
        }

        @Override
        public String toString() {
            return "fake id";
        }
    }

    /** A provider's id that takes every option and ECE. */
    private static final class OptionId extends FakeId {
        volatile Ece remote = Ece.NONE;

        @Override
        public void setTos(int tos) {
            calls.add("tos " + tos);
        }

        @Override
        public void setReuseAddr(boolean reuse) {
            calls.add("reuseaddr " + reuse);
        }

        @Override
        public void setAfOnly(boolean afOnly) {
            calls.add("afonly " + afOnly);
        }

        @Override
        public void setAckTimeout(int timeout) {
            calls.add("ackTimeout " + timeout);
        }

        @Override
        public void setMinRnrTimer(int code) {
            calls.add("minRnrTimer " + code);
        }

        @Override
        public void setLocalEce(Ece ece) {
            calls.add("localEce " + Integer.toHexString(ece.vendorId()) + "/" + Integer.toHexString(ece.options()));
        }

        @Override
        public Ece remoteEce() {
            return remote;
        }

        @Override
        public void rejectEce(byte[] privateData) {
            calls.add("rejectEce " + privateData.length);
        }
    }
}
