package io.jrdma.internal.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventHandler;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.CmState;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.UdParam;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.spi.ProviderCm;
import io.jrdma.spi.ProviderCmEvent;
import io.jrdma.spi.ProviderCmId;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.TransportType;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The seam between core's connection manager and a whole-device provider's own ({@link ProviderCm}): which
 * ids go to the provider, that its calls reach the provider's id and that the provider's events come back as
 * the id's own, through event channels, with a connection request's new id, migration and destroy.
 */
class ProviderCmDispatchTest {
    private static final Duration WAIT = Duration.ofSeconds(5);
    private static final InetAddress KERNEL_IP = ip("192.0.2.1");
    private static final InetAddress LOOPBACK = ip("127.0.0.1");

    private final Device loop0 = Rdma.device("loop0");
    private final FakeDevice fk0 = new FakeDevice("fk0", TransportType.IWARP);
    private final FakeCm fakeCm = new FakeCm(fk0, Set.of(KERNEL_IP, LOOPBACK));
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

    private CmCore core(List<Device> devices, String preferred) {
        CmCore c = new CmCore(null, devices, p -> p.equals("fake") ? fakeCm : null, preferred);
        cores.add(c);
        return c;
    }

    @Test
    void anAddressOnlyTheProviderServesIsResolvedByItsCmAndItsEventsReachTheChannel() throws Exception {
        CmCore core = core(List.of(loop0, fk0), null);
        ChannelImpl ch = core.createChannel();
        CmId id = ch.createId(null, PortSpace.TCP);
        InetSocketAddress dst = new InetSocketAddress("192.0.2.9", 7471);

        id.resolveAddr(new InetSocketAddress(KERNEL_IP, 0), dst, Duration.ofSeconds(2));

        FakeId fid = fakeCm.only();
        assertThat(fid.calls).containsExactly("resolveAddr /192.0.2.1:0 -> /192.0.2.9:7471 2000ms");
        assertThat(id.state()).isEqualTo(CmState.ADDR_QUERY);
        fid.local = new InetSocketAddress(KERNEL_IP, 40000);
        fid.fire(new ProviderCmEvent(CmEventType.ADDR_RESOLVED, 0, null, null));
        CmEvent e = ch.getEvent(WAIT);
        assertThat(e.type()).isEqualTo(CmEventType.ADDR_RESOLVED);
        assertThat(e.id()).isSameAs(id);
        assertThat(ch.unacknowledged(id)).isEqualTo(1);
        ch.ackEvent(e);
        assertThat(id.state()).isEqualTo(CmState.ADDR_RESOLVED);
        assertThat(id.device()).isSameAs(fk0);
        assertThat(id.localAddress()).isEqualTo(fid.local);

        id.resolveRoute(Duration.ofSeconds(1));
        assertThat(id.state()).isEqualTo(CmState.ROUTE_QUERY);
        fid.fire(new ProviderCmEvent(CmEventType.ROUTE_ERROR, -110, null, null));
        CmEvent routeError = ch.getEvent(WAIT);
        assertThat(routeError.type()).isEqualTo(CmEventType.ROUTE_ERROR);
        assertThat(routeError.status()).isEqualTo(-110);
        ch.ackEvent(routeError);
        assertThat(id.state()).isEqualTo(CmState.ADDR_RESOLVED);
        assertThat(fid.calls).last().isEqualTo("resolveRoute 1000ms");

        id.destroy();
        assertThat(fid.closed).isTrue();
        assertThat(core.idCount()).isZero();
    }

    @Test
    void aSoftwareDeviceWinsAnAddressBothServeUnlessThePropertyPrefersTheProvider() {
        CmCore plain = core(List.of(loop0, fk0), null);
        CmId soft = plain.createChannel().createId(null, PortSpace.TCP);
        soft.bind(new InetSocketAddress(LOOPBACK, 0));
        assertThat(soft.device()).isSameAs(loop0);
        assertThat(fakeCm.ids).isEmpty();
        soft.destroy();

        CmCore preferring = core(List.of(loop0, fk0), "fake");
        CmId kernel = preferring.createChannel().createId(null, PortSpace.TCP);
        kernel.bind(new InetSocketAddress(LOOPBACK, 7000));
        assertThat(fakeCm.only().calls).containsExactly("bind /127.0.0.1:7000");
        assertThat(kernel.device()).isSameAs(fk0);
        assertThat(kernel.state()).isEqualTo(CmState.ADDR_BOUND);
        kernel.destroy();
    }

    @Test
    void aManagerOfSoftwareDevicesOnlyNeverAsksTheProvider() {
        CmCore soft = core(List.of(loop0), "fake");
        CmId id = soft.createChannel().createId(null, PortSpace.TCP);
        id.bind(new InetSocketAddress(LOOPBACK, 0));
        assertThat(id.device()).isSameAs(loop0);
        assertThat(fakeCm.deviceForCalls).isZero();
        assertThat(fakeCm.ids).isEmpty();
        id.destroy();
    }

    @Test
    void aRequestOfTheProviderBecomesANewIdOfTheListenersChannelThatAcceptsMigratesAndDestroys() throws Exception {
        CmCore core = core(List.of(fk0), null);
        ChannelImpl ch = core.createChannel();
        CmId listener = ch.createId("ctx", PortSpace.TCP);
        listener.listen(5);
        FakeId fl = fakeCm.only();
        assertThat(fl.calls).containsExactly("bind /0.0.0.0:0", "listen 5");
        assertThat(listener.state()).isEqualTo(CmState.LISTEN);

        FakeId fc = new FakeId();
        fc.device = fk0;
        fc.peer = new InetSocketAddress("192.0.2.9", 50000);
        byte[] hello = {1, 2, 3};
        fl.fire(new ProviderCmEvent(CmEventType.CONNECT_REQUEST, 0, fc,
                new ConnParam(hello, 4, 2, false, 7, 7, false, 0)));
        CmEvent req = ch.getEvent(WAIT);
        assertThat(req.type()).isEqualTo(CmEventType.CONNECT_REQUEST);
        assertThat(req.listenId()).isSameAs(listener);
        CmId child = req.id();
        assertThat(child).isNotSameAs(listener);
        assertThat(child.state()).isEqualTo(CmState.CONNECT);
        assertThat(child.device()).isSameAs(fk0);
        assertThat(child.peerAddress()).isEqualTo(fc.peer);
        assertThat(child.context()).isEqualTo("ctx");
        assertThat(req.privateData()).containsExactly(hello);
        assertThat(req.param().responderResources()).isEqualTo(4);
        assertThat(fc.listener).as("the request's id listens once its request is posted").isNotNull();
        ch.ackEvent(req);

        assertThatThrownBy(() -> listener.accept(ConnParam.defaults())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("listening id");
        child.accept(ConnParam.defaults().withPrivateData(new byte[] {9}).withQpNum(0x42));
        assertThat(fc.calls).containsExactly("accept qp=null qpn=0x42 pdata=1");
        assertThatThrownBy(() -> child.accept(ConnParam.defaults())).as("a request is answered once")
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("answered already");
        assertThatThrownBy(() -> child.reject(null)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("answered already");
        assertThat(fc.calls).hasSize(1);

        ChannelImpl own = core.createChannel();
        own.migrateId(child);
        fc.fire(new ProviderCmEvent(CmEventType.ESTABLISHED, 0, null, null));
        CmEvent up = own.getEvent(WAIT);
        assertThat(up.type()).isEqualTo(CmEventType.ESTABLISHED);
        assertThat(up.id()).isSameAs(child);
        own.ackEvent(up);
        assertThat(ch.pollEvent()).as("a migrated id's events go to its new channel").isNull();

        child.disconnect();
        fc.fire(new ProviderCmEvent(CmEventType.DISCONNECTED, 0, null, null));
        CmEvent down = own.getEvent(WAIT);
        assertThat(down.type()).isEqualTo(CmEventType.DISCONNECTED);
        assertThat(child.state()).isEqualTo(CmState.DISCONNECT);
        own.ackEvent(down);
        assertThat(fc.calls).last().isEqualTo("disconnect");

        child.destroy();
        assertThat(fc.closed).isTrue();
        assertThat(core.idCount()).isEqualTo(1);
        own.close();
        listener.destroy();
        assertThat(fl.closed).isTrue();
        assertThat(core.idCount()).isZero();
    }

    @Test
    void aRejectCarriesItsPrivateDataAndARejectedConnectReportsTheProvidersStatus() throws Exception {
        CmCore core = core(List.of(fk0), null);
        ChannelImpl ch = core.createChannel();
        CmId listener = ch.createId(null, PortSpace.TCP);
        listener.bind(new InetSocketAddress(KERNEL_IP, 7471));
        listener.listen(0);
        FakeId fl = fakeCm.only();
        assertThat(fl.calls).containsExactly("bind /192.0.2.1:7471", "listen 1024");
        FakeId fc = new FakeId();
        fl.fire(new ProviderCmEvent(CmEventType.CONNECT_REQUEST, 0, fc, null));
        CmEvent req = ch.getEvent(WAIT);
        ch.ackEvent(req);
        req.id().reject(new byte[] {7, 7});
        assertThat(fc.calls).containsExactly("reject 2");
        req.id().destroy();

        CmId client = ch.createId(null, PortSpace.TCP);
        client.resolveAddr(new InetSocketAddress(KERNEL_IP, 0), new InetSocketAddress("192.0.2.9", 1), WAIT);
        FakeId fa = fakeCm.ids.get(1);
        fa.fire(new ProviderCmEvent(CmEventType.ADDR_RESOLVED, 0, null, null));
        ch.ackEvent(ch.getEvent(WAIT));
        client.resolveRoute(WAIT);
        fa.fire(new ProviderCmEvent(CmEventType.ROUTE_RESOLVED, 0, null, null));
        ch.ackEvent(ch.getEvent(WAIT));
        assertThatThrownBy(() -> client.connect(null)).isInstanceOf(IllegalArgumentException.class);
        client.connect(ConnParam.defaults().withQpNum(0x99));
        assertThat(client.state()).isEqualTo(CmState.CONNECT);
        fa.fire(new ProviderCmEvent(CmEventType.REJECTED, 28, null, ConnParam.defaults().withPrivateData(
                new byte[] {5})));
        CmEvent rej = ch.getEvent(WAIT);
        assertThat(rej.type()).isEqualTo(CmEventType.REJECTED);
        assertThat(rej.status()).isEqualTo(28);
        assertThat(rej.privateData()).containsExactly(5);
        assertThat(client.state()).isEqualTo(CmState.DISCONNECT);
        ch.ackEvent(rej);
        assertThat(fa.calls).contains("connect qp=null qpn=0x99 pdata=0");
        client.destroy();
        listener.destroy();
    }

    @Test
    void whatTheProvidersCmDoesNotOfferIsRefusedAtTheCall() {
        CmCore core = core(List.of(loop0, fk0), null);
        CmId id = core.createChannel().createId(null, PortSpace.TCP);
        id.bind(new InetSocketAddress(KERNEL_IP, 0));
        assertThatThrownBy(() -> id.setAckTimeout(14)).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("rdma_set_option");
        assertThatThrownBy(() -> id.initQpAttr(QpState.INIT))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> id.joinMulticast(ip("239.1.1.1"), null)).as("an RC id")
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("UD");
        CmId ud = core.createChannel().createId(null, PortSpace.UDP, QpType.UD);
        ud.bind(new InetSocketAddress(KERNEL_IP, 0));
        assertThatThrownBy(() -> ud.joinMulticast(ip("239.1.1.1"), null)).as("a provider CM without multicast")
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("rdma_join_multicast");
        assertThatThrownBy(() -> ud.leaveMulticast(ip("239.1.1.1"))).isInstanceOf(RdmaException.class);
        ud.destroy();
        assertThatThrownBy(() -> id.bind(new InetSocketAddress(KERNEL_IP, 0)))
                .isInstanceOf(IllegalStateException.class);
        Context loopCtx = core.context(loop0);
        ProtectionDomain pd = loopCtx.allocPd();
        assertThatThrownBy(() -> id.createQp(pd, QpInitAttr.rc(loopCtx.createCq(4), new QpCap(4, 4, 1, 1, 0))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("the id on fk0");

        CmId early = core.createChannel().createId(null, PortSpace.TCP);
        early.setReuseAddr(true);
        assertThatThrownBy(() -> early.bind(new InetSocketAddress(KERNEL_IP, 0)))
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("REUSEADDR");
        assertThat(early.state()).isEqualTo(CmState.IDLE);
    }

    @Test
    void createQpHandsTheNewQpToTheProviderAndDestroysItWhenTheProviderRefusesIt() {
        CmCore core = core(List.of(loop0, fk0), null);
        fakeCm.idsOn = loop0; // the fake's ids report loop0, whose contexts make real QPs
        CmId id = core.createChannel().createId(null, PortSpace.TCP);
        id.bind(new InetSocketAddress(KERNEL_IP, 0));
        FakeId fid = fakeCm.only();
        Context ctx = core.context(loop0);
        ProtectionDomain pd = ctx.allocPd();
        QpInitAttr attr = QpInitAttr.rc(ctx.createCq(4), new QpCap(4, 4, 1, 1, 0));

        fid.refuseQp = new IllegalStateException("refused by the provider");
        assertThatThrownBy(() -> id.createQp(pd, attr)).isSameAs(fid.refuseQp);
        QueuePair refused = fid.created.getLast();
        assertThat(id.qp()).isNull();
        assertThatThrownBy(() -> refused.modify(new QpAttr().qpState(QpState.ERR)))
                .as("the refused QP is destroyed").isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("destroyed");

        fid.refuseQp = null;
        QueuePair qp = id.createQp(pd, attr);
        assertThat(fid.created).hasSize(2).last().isSameAs(qp);
        assertThat(fid.calls).last().isEqualTo("qpCreated state=RESET");
        assertThat(id.qp()).isSameAs(qp);
        assertThat(qp.state()).as("the provider moved it").isEqualTo(QpState.INIT);
        id.destroy();
    }

    @Test
    void udIdsOfTheProviderGetItsSidrParametersAndItsJoinsWithTheirContextsAndTheQpAttached() throws Exception {
        CmCore core = core(List.of(loop0, fk0), null);
        fakeCm.idsOn = loop0; // real UD QPs, which keep the groups they are attached to
        ChannelImpl ch = core.createChannel();
        CmId id = ch.createId(null, PortSpace.UDP, QpType.UD);
        id.bind(new InetSocketAddress(KERNEL_IP, 0));
        FakeId fid = fakeCm.only();
        fid.multicast = true;
        Context ctx = core.context(loop0);
        QueuePair qp = id.createQp(ctx.allocPd(), new QpInitAttr(QpType.UD, ctx.createCq(4), ctx.createCq(4), null,
                new QpCap(4, 4, 1, 1, 0), false));
        InetAddress group = ip("239.1.2.3");
        InetAddress other = ip("239.1.2.4");

        id.joinMulticast(group, "ctx of the join");
        assertThat(fid.calls).last().isEqualTo("join /239.1.2.3");
        assertThatThrownBy(() -> id.joinMulticast(group, null)).isInstanceOf(RdmaException.class)
                .hasMessageContaining("already joined");
        UdParam joined = new UdParam(null, AhAttr.to(Gid.of(group)), 0xFFFFFF, 0x01234567);
        fid.fire(new ProviderCmEvent(CmEventType.MULTICAST_JOIN, 0, null, null, joined, group));
        CmEvent e = ch.getEvent(WAIT);
        ch.ackEvent(e);
        assertThat(e.type()).isEqualTo(CmEventType.MULTICAST_JOIN);
        assertThat(e.multicastContext()).isEqualTo("ctx of the join");
        assertThat(e.ud()).isSameAs(joined);
        assertThat(((QpImpl) qp).mcastGroups()).as("attached before the event").containsExactly(Gid.of(group));

        id.joinMulticast(other, "other");
        fid.fire(new ProviderCmEvent(CmEventType.MULTICAST_ERROR, -110, null, null, null, other));
        CmEvent err = ch.getEvent(WAIT);
        ch.ackEvent(err);
        assertThat(err.type()).isEqualTo(CmEventType.MULTICAST_ERROR);
        assertThat(err.status()).isEqualTo(-110);
        assertThat(err.multicastContext()).isEqualTo("other");
        assertThatThrownBy(() -> id.leaveMulticast(other)).as("a failed join leaves nothing to leave")
                .isInstanceOf(RdmaException.class).hasMessageContaining("has not joined");

        id.leaveMulticast(group);
        assertThat(fid.calls).last().isEqualTo("leave /239.1.2.3");
        assertThat(((QpImpl) qp).mcastGroups()).as("detached").isEmpty();
        assertThatThrownBy(() -> id.joinMulticast(ip("10.0.0.1"), null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a multicast address");

        // SIDR: the request's and the reply's UD parameters reach the events.
        CmId tcp = ch.createId(null, PortSpace.TCP);
        tcp.bind(new InetSocketAddress(KERNEL_IP, 0));
        assertThatThrownBy(() -> tcp.joinMulticast(group, null)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("UD");
        UdParam reply = new UdParam(new byte[] {4, 5}, AhAttr.to(KERNEL_IP), 0x15, 0x01234567);
        id.resolveAddr(null, new InetSocketAddress(KERNEL_IP, 9), WAIT);
        fid.fire(new ProviderCmEvent(CmEventType.ADDR_RESOLVED, 0, null, null));
        ch.ackEvent(ch.getEvent(WAIT));
        id.resolveRoute(WAIT);
        fid.fire(new ProviderCmEvent(CmEventType.ROUTE_RESOLVED, 0, null, null));
        ch.ackEvent(ch.getEvent(WAIT));
        id.connect(ConnParam.defaults().withPrivateData(new byte[] {1, 2, 3}));
        assertThat(fid.calls).last().asString().startsWith("connect qp=").endsWith("pdata=3");
        fid.fire(new ProviderCmEvent(CmEventType.ESTABLISHED, 0, null, null, reply, null));
        CmEvent up = ch.getEvent(WAIT);
        ch.ackEvent(up);
        assertThat(up.ud()).isSameAs(reply);
        assertThat(up.privateData()).containsExactly(4, 5);
        tcp.destroy();
        id.destroy();
    }

    /** A listener of the fake's CM on {@code ch} and a request {@code fc} carrying {@code param}, retrieved. */
    private CmId request(ChannelImpl ch, FakeId fc, ConnParam param) throws InterruptedException {
        CmId listener = ch.createId(null, PortSpace.TCP);
        listener.listen(4);
        fc.device = fakeCm.idsOn != null ? fakeCm.idsOn : fk0;
        fakeCm.ids.getLast().fire(new ProviderCmEvent(CmEventType.CONNECT_REQUEST, 0, fc, param));
        CmEvent req = ch.getEvent(WAIT);
        assertThat(req.type()).isEqualTo(CmEventType.CONNECT_REQUEST);
        ch.ackEvent(req);
        return req.id();
    }

    /** A routed active id of the fake's CM on {@code ch}. */
    private CmId routed(ChannelImpl ch, PortSpace ps, QpType type) throws InterruptedException {
        CmId id = ch.createId(null, ps, type);
        id.resolveAddr(new InetSocketAddress(KERNEL_IP, 0), new InetSocketAddress("192.0.2.9", 1), WAIT);
        FakeId f = fakeCm.ids.getLast();
        f.fire(new ProviderCmEvent(CmEventType.ADDR_RESOLVED, 0, null, null));
        ch.ackEvent(ch.getEvent(WAIT));
        id.resolveRoute(WAIT);
        f.fire(new ProviderCmEvent(CmEventType.ROUTE_RESOLVED, 0, null, null));
        ch.ackEvent(ch.getEvent(WAIT));
        return id;
    }

    @Test
    void anIwarpProviderThatCarriesLessPrivateDataThanMpaHasItsLimitAppliedAtTheCall() throws Exception {
        CmCore core = core(List.of(fk0), null);
        ChannelImpl ch = core.createChannel();
        CmId id = routed(ch, PortSpace.TCP, QpType.RC);
        FakeId fid = fakeCm.ids.getLast();
        fid.mpaLimit = 251;
        assertThatThrownBy(() -> id.connect(ConnParam.defaults().withPrivateData(new byte[252])))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("251");
        assertThat(fid.calls).noneMatch(c -> c.startsWith("connect"));
        assertThat(id.state()).isEqualTo(CmState.ROUTE_RESOLVED);
        id.connect(ConnParam.defaults().withPrivateData(new byte[251]));
        assertThat(fid.calls).last().asString().endsWith("pdata=251");

        CmId other = routed(ch, PortSpace.TCP, QpType.RC);
        other.connect(ConnParam.defaults().withPrivateData(new byte[252])); // MPA's limit where the provider has none
        assertThat(fakeCm.ids.getLast().calls).last().asString().endsWith("pdata=252");
        id.destroy();
        other.destroy();
    }

    @Test
    void aConnectWithTheCallersBoundOnTheProvidersCmIsUnreachableWhenNoAnswerComesInTime() throws Exception {
        CmCore core = core(List.of(fk0), null);
        ChannelImpl ch = core.createChannel();
        CmId id = routed(ch, PortSpace.TCP, QpType.RC);
        FakeId fid = fakeCm.ids.getLast();
        long t0 = System.nanoTime();
        id.connect(ConnParam.defaults().withQpNum(0x99), Duration.ofMillis(300));
        CmEvent e = ch.getEvent(WAIT);
        long elapsed = System.nanoTime() - t0;
        assertThat(e).isNotNull();
        assertThat(e.type()).isEqualTo(CmEventType.UNREACHABLE);
        assertThat(e.status()).isEqualTo(io.jrdma.verbs.Errno.ETIMEDOUT.status());
        assertThat(elapsed).as("not before the bound").isGreaterThanOrEqualTo(Duration.ofMillis(270).toNanos());
        ch.ackEvent(e);
        assertThat(fid.closed).as("the provider's id is destroyed, which ends the exchange on the wire").isTrue();
        // A late answer of the provider's CM reaches nobody.
        fid.fire(new ProviderCmEvent(CmEventType.REJECTED, 1, null, null));
        assertThat(ch.getEvent(Duration.ofMillis(200))).isNull();
        id.destroy();
        assertThat(core.idCount()).isZero();

        CmId answered = routed(ch, PortSpace.TCP, QpType.RC);
        FakeId fa = fakeCm.ids.getLast();
        answered.connect(ConnParam.defaults().withQpNum(0x98), Duration.ofMillis(300));
        fa.fire(new ProviderCmEvent(CmEventType.ESTABLISHED, 0, null, ConnParam.defaults()));
        CmEvent up = ch.getEvent(WAIT);
        assertThat(up.type()).isEqualTo(CmEventType.ESTABLISHED);
        ch.ackEvent(up);
        assertThat(ch.getEvent(Duration.ofMillis(600))).as("no UNREACHABLE after an answer").isNull();
        assertThat(fa.closed).isFalse();
        answered.destroy();
        assertThat(fa.closed).isTrue();
    }

    @Test
    void rule4APassiveAcceptWithoutConnParamFailsAndTheProviderRejectsTheRequest() throws Exception {
        CmCore core = core(List.of(fk0), null);
        ChannelImpl ch = core.createChannel();
        FakeId fc = new FakeId();
        CmId child = request(ch, fc, ConnParam.defaults());
        assertThatThrownBy(() -> child.accept(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("connection parameters");
        assertThat(fc.calls).as("a failed accept rejects (rule 6), nothing is accepted").containsExactly("reject 0");
        assertThatThrownBy(() -> child.accept(ConnParam.defaults())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("answered already");
        fc.fire(new ProviderCmEvent(CmEventType.ESTABLISHED, 0, null, null));
        assertThat(ch.getEvent(Duration.ofMillis(200))).as("the id of a failed accept hears nothing more").isNull();
    }

    @Test
    void rule6AFailedAcceptRejectsThePeerAndMovesTheQpToErrorAndAQpInErrorIsEinval() throws Exception {
        CmCore core = core(List.of(loop0, fk0), "fake"); // the wildcard listener is the fake's too
        fakeCm.idsOn = loop0; // real QPs
        ChannelImpl ch = core.createChannel();
        Context ctx = core.context(loop0);
        ProtectionDomain pd = ctx.allocPd();
        QpInitAttr attr = QpInitAttr.rc(ctx.createCq(8), new QpCap(4, 4, 1, 1, 0));

        FakeId big = new FakeId();
        CmId first = request(ch, big, ConnParam.defaults());
        QueuePair q1 = first.createQp(pd, attr);
        assertThatThrownBy(() -> first.accept(ConnParam.defaults().withPrivateData(new byte[253])))
                .as("beyond the REP's private data, at the call").isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("196-byte limit");
        assertThat(q1.state()).as("the QP of a failed accept goes to ERROR").isEqualTo(QpState.ERR);
        assertThat(big.calls).as("the request is rejected, not accepted").containsExactly("qpCreated state=RESET",
                "reject 0");

        FakeId err = new FakeId();
        CmId second = request(ch, err, ConnParam.defaults());
        QueuePair q2 = second.createQp(pd, attr);
        q2.modify(new QpAttr().qpState(QpState.ERR));
        assertThatThrownBy(() -> second.accept(ConnParam.defaults()))
                .isInstanceOfSatisfying(RdmaException.class, e -> assertThat(e.errno())
                        .isEqualTo(io.jrdma.verbs.Errno.EINVAL)).hasMessageContaining("ERR");
        assertThat(err.calls).containsExactly("qpCreated state=RESET", "reject 0");
    }

    @Test
    void rule3TheAcceptsInitiatorDepthIsCutToWhatTheRequestSaysTheRemoteAccepts() throws Exception {
        CmCore core = core(List.of(fk0), null);
        ChannelImpl ch = core.createChannel();
        FakeId fc = new FakeId();
        // The request in the local view: the remote issues 5 (our responder resources), accepts 3 (its IRD).
        CmId child = request(ch, fc, ConnParam.defaults().withResources(5, 3));
        child.accept(ConnParam.defaults().withResources(2, 8));
        assertThat(fc.accepted.initiatorDepth()).as("ORD <= the remote's IRD").isEqualTo(3);
        assertThat(fc.accepted.responderResources()).isEqualTo(2);
    }

    @Test
    void rule7KernelStyleCallsOfAProvidersIdsKeepToTheHandler() throws Exception {
        CmCore core = core(List.of(fk0), null);
        java.util.concurrent.BlockingQueue<CmEvent> seen = new java.util.concurrent.LinkedBlockingQueue<>();
        java.util.concurrent.atomic.AtomicReference<Throwable> inHandler = new java.util.concurrent.atomic
                .AtomicReference<>();
        CmEventHandler handler = (i, e) -> {
            if (e.type() == CmEventType.ROUTE_RESOLVED) {
                try {
                    i.connect(ConnParam.defaults().withQpNum(0x12));
                } catch (RuntimeException ex) {
                    inHandler.set(ex);
                }
            }
            seen.add(e);
            return false;
        };
        CmId listener = core.createId(handler, null, PortSpace.TCP, QpType.RC);
        listener.listen(4);
        FakeId fc = new FakeId();
        fc.device = fk0;
        fakeCm.only().fire(new ProviderCmEvent(CmEventType.CONNECT_REQUEST, 0, fc, ConnParam.defaults()));
        CmEvent req = seen.poll(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
        assertThat(req.type()).isEqualTo(CmEventType.CONNECT_REQUEST);
        assertThatThrownBy(() -> req.id().accept(ConnParam.defaults())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("handler");
        assertThatThrownBy(() -> req.id().reject(null)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("handler");
        assertThat(fc.calls).as("nothing reached the provider").isEmpty();
        req.id().lockHandler();
        try {
            req.id().accept(ConnParam.defaults());
        } finally {
            req.id().unlockHandler();
        }
        assertThat(fc.calls).hasSize(1).first().asString().startsWith("accept");

        CmId active = core.createId(handler, null, PortSpace.TCP, QpType.RC);
        active.resolveAddr(new InetSocketAddress(KERNEL_IP, 0), new InetSocketAddress("192.0.2.9", 1), WAIT);
        FakeId fa = fakeCm.ids.getLast();
        fa.fire(new ProviderCmEvent(CmEventType.ADDR_RESOLVED, 0, null, null));
        active.resolveRoute(WAIT);
        fa.fire(new ProviderCmEvent(CmEventType.ROUTE_RESOLVED, 0, null, null));
        CmEvent routed = null;
        for (int i = 0; i < 2 && (routed == null || routed.type() != CmEventType.ROUTE_RESOLVED); i++) {
            routed = seen.poll(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
        }
        assertThat(routed.type()).isEqualTo(CmEventType.ROUTE_RESOLVED);
        assertThat(inHandler.get()).as("connect inside the handler").isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("connectLocked");
        assertThatThrownBy(() -> active.connectLocked(ConnParam.defaults().withQpNum(0x12)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("handler");
        assertThat(active.state()).isEqualTo(CmState.ROUTE_RESOLVED);
        assertThat(fa.calls).noneMatch(c -> c.startsWith("connect"));
    }

    @Test
    void aKernelStyleRequestWhoseHandlerReturnsTrueIsRejectedThroughTheProvider() throws Exception {
        CmCore core = core(List.of(fk0), null);
        java.util.concurrent.CountDownLatch handled = new java.util.concurrent.CountDownLatch(1);
        CmId listener = core.createId((i, e) -> {
            handled.countDown();
            return e.type() == CmEventType.CONNECT_REQUEST;
        }, null, PortSpace.TCP, QpType.RC);
        listener.listen(4);
        FakeId fc = new FakeId();
        fc.device = fk0;
        fakeCm.only().fire(new ProviderCmEvent(CmEventType.CONNECT_REQUEST, 0, fc, ConnParam.defaults()));
        assertThat(handled.await(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!fc.closed && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(fc.closed).as("the request's id is destroyed").isTrue();
        assertThat(fc.calls).as("rejected before it is destroyed").containsExactly("reject 0");
    }

    @Test
    void rule2AConnectedIdHoldsTheProvidersConnectionAndAUdIdNoneSoItsDisconnectIsRefused() throws Exception {
        CmCore core = core(List.of(fk0), null);
        ChannelImpl ch = core.createChannel();
        CmIdImpl rc = (CmIdImpl) routed(ch, PortSpace.TCP, QpType.RC);
        assertThat(rc.transport()).as("no connection before connect").isNull();
        assertThatThrownBy(() -> rc.connect(ConnParam.defaults(), new io.jrdma.cm.Ece(0x15b3, 1)))
                .as("ECE on iWARP").isInstanceOf(IllegalArgumentException.class).hasMessageContaining("iWARP");
        rc.connect(ConnParam.defaults().withQpNum(0x99));
        assertThat(rc.transport()).as("connection state is kept").isSameAs(fakeCm.ids.getLast());

        CmIdImpl ud = (CmIdImpl) routed(ch, PortSpace.UDP, QpType.UD);
        FakeId fu = fakeCm.ids.getLast();
        ud.connect(ConnParam.defaults().withQpNum(0x98));
        assertThat(ud.transport()).as("SIDR keeps no connection").isNull();
        assertThatThrownBy(ud::disconnect).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no connection");
        assertThat(fu.calls).noneMatch(c -> c.equals("disconnect"));
    }

    @Test
    void initQpAttrAndEstablishOfAnIdWithoutAQpGoToTheProvider() throws Exception {
        CmCore core = core(List.of(fk0), null);
        ChannelImpl ch = core.createChannel();
        CmId id = routed(ch, PortSpace.TCP, QpType.RC);
        FakeId f = fakeCm.ids.getLast();
        f.initAttr = new QpAttr().qpState(QpState.RTR).destQpNum(0x77);
        assertThat(id.initQpAttr(QpState.RTR).destQpNum()).isEqualTo(0x77);
        assertThat(f.calls).last().isEqualTo("initQpAttr RTR");
        assertThatThrownBy(() -> id.initQpAttr(QpState.SQD)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(id::establish).as("before CONNECT_RESPONSE").isInstanceOf(IllegalStateException.class);
        id.connect(ConnParam.defaults().withQpNum(0x99));
        f.fire(new ProviderCmEvent(CmEventType.CONNECT_RESPONSE, 0, null, ConnParam.defaults()));
        CmEvent resp = ch.getEvent(WAIT);
        assertThat(resp.type()).isEqualTo(CmEventType.CONNECT_RESPONSE);
        ch.ackEvent(resp);
        assertThatThrownBy(() -> id.accept(ConnParam.defaults())).as("a conn_param after CONNECT_RESPONSE")
                .isInstanceOf(IllegalArgumentException.class);
        id.establish();
        assertThat(f.calls).last().isEqualTo("establish");
        CmEvent up = ch.getEvent(WAIT);
        assertThat(up.type()).as("the RTU completes the connection").isEqualTo(CmEventType.ESTABLISHED);
        ch.ackEvent(up);
    }

    @Test
    void requestsOfTheProviderBeyondTheListenersBacklogAreRejectedAndCountedUntilOneIsAnswered() throws Exception {
        CmCore core = core(List.of(fk0), null);
        ChannelImpl ch = core.createChannel();
        CmIdImpl listener = (CmIdImpl) ch.createId(null, PortSpace.TCP);
        listener.listen(1);
        FakeId fl = fakeCm.only();
        FakeId first = new FakeId();
        first.device = fk0;
        fl.fire(new ProviderCmEvent(CmEventType.CONNECT_REQUEST, 0, first, ConnParam.defaults()));
        CmEvent req = ch.getEvent(WAIT);
        ch.ackEvent(req);
        FakeId second = new FakeId();
        fl.fire(new ProviderCmEvent(CmEventType.CONNECT_REQUEST, 0, second, ConnParam.defaults()));
        assertThat(second.calls).as("beyond the backlog").containsExactly("reject 0");
        assertThat(second.closed).isTrue();
        assertThat(listener.backlogRejects()).isEqualTo(1);
        assertThat(ch.getEvent(Duration.ofMillis(200))).as("no request event for it").isNull();

        req.id().reject(null); // answering the first frees its place
        FakeId third = new FakeId();
        third.device = fk0;
        fl.fire(new ProviderCmEvent(CmEventType.CONNECT_REQUEST, 0, third, ConnParam.defaults()));
        CmEvent again = ch.getEvent(WAIT);
        assertThat(again.type()).isEqualTo(CmEventType.CONNECT_REQUEST);
        ch.ackEvent(again);
        assertThat(third.calls).isEmpty();
        assertThat(listener.backlogRejects()).isEqualTo(1);
    }

    /** A provider's connection manager that records the ids it makes. */
    private static final class FakeCm implements ProviderCm {
        final Device device;
        final Set<InetAddress> served;
        final List<FakeId> ids = new CopyOnWriteArrayList<>();
        volatile int deviceForCalls;
        volatile Device idsOn;

        FakeCm(Device device, Set<InetAddress> served) {
            this.device = device;
            this.served = served;
        }

        FakeId only() {
            assertThat(ids).hasSize(1);
            return ids.get(0);
        }

        @Override
        public Device deviceFor(InetAddress address) {
            deviceForCalls++;
            return served.contains(address) ? device : null;
        }

        @Override
        public ProviderCmId createId(PortSpace portSpace, QpType qpType, ProviderCmId.Listener listener) {
            FakeId id = new FakeId();
            id.device = idsOn != null ? idsOn : device;
            id.listener = listener;
            ids.add(id);
            return id;
        }
    }

    /** A provider's id: records each call, fires the events the test gives it. */
    private static final class FakeId implements ProviderCmId {
        final List<String> calls = new CopyOnWriteArrayList<>();
        volatile Listener listener;
        volatile Device device;
        volatile InetSocketAddress local;
        volatile InetSocketAddress peer;
        volatile boolean closed;
        final List<QueuePair> created = new CopyOnWriteArrayList<>();
        volatile RuntimeException refuseQp;
        /** Whether the fake's CM offers multicast (the SPI's default refuses it). */
        volatile boolean multicast;
        /** The conn_param of the last accept. */
        volatile ConnParam accepted;
        /** What initQpAttr gives, or null for the SPI's refusal. */
        volatile QpAttr initAttr;
        /** The provider's MPA private-data limit, or -1 for MPA's. */
        volatile int mpaLimit = -1;

        @Override
        public int mpaPrivateDataLimit() {
            return mpaLimit;
        }

        @Override
        public QpAttr initQpAttr(QpState state) {
            if (initAttr == null) {
                return ProviderCmId.super.initQpAttr(state);
            }
            calls.add("initQpAttr " + state);
            return initAttr;
        }

        @Override
        public void establish() {
            calls.add("establish");
        }

        void fire(ProviderCmEvent e) {
            assertThat(listener).as("the id has its listener").isNotNull();
            listener.onEvent(e);
        }

        @Override
        public void listener(Listener l) {
            this.listener = l;
        }

        @Override
        public void bind(InetSocketAddress address) {
            if (!calls.isEmpty()) {
                throw new IllegalStateException("bound already");
            }
            calls.add("bind " + address);
            local = address;
        }

        @Override
        public void listen(int backlog) {
            calls.add("listen " + backlog);
        }

        @Override
        public void resolveAddr(InetSocketAddress src, InetSocketAddress dst, Duration timeout) {
            calls.add("resolveAddr " + src + " -> " + dst + " " + timeout.toMillis() + "ms");
        }

        @Override
        public void resolveRoute(Duration timeout) {
            calls.add("resolveRoute " + timeout.toMillis() + "ms");
        }

        @Override
        public void qpCreated(QueuePair qp) {
            created.add(qp);
            calls.add("qpCreated state=" + qp.state());
            if (refuseQp != null) {
                throw refuseQp;
            }
            QpAttr init = new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1);
            qp.modify(qp.type() == QpType.UD ? init.qkey(0x01234567) : init.qpAccessFlags(Access.LOCAL_WRITE));
        }

        @Override
        public void connect(QueuePair qp, ConnParam param) {
            calls.add("connect qp=" + qp + " qpn=0x" + Integer.toHexString(param.qpNum()) + " pdata="
                    + param.privateDataLength());
        }

        @Override
        public void accept(QueuePair qp, ConnParam param) {
            accepted = param;
            calls.add("accept qp=" + qp + " qpn=0x" + Integer.toHexString(param.qpNum()) + " pdata="
                    + param.privateDataLength());
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
        public void joinMulticast(InetAddress group) {
            if (!multicast) {
                ProviderCmId.super.joinMulticast(group); // the SPI's refusal
            }
            calls.add("join " + group);
        }

        @Override
        public void leaveMulticast(InetAddress group) {
            calls.add("leave " + group);
        }

        @Override
        public Device device() {
            return device;
        }

        @Override
        public InetSocketAddress localAddress() {
            return local;
        }

        @Override
        public InetSocketAddress peerAddress() {
            return peer;
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}
