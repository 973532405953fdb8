package io.jrdma.testkit.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.CmState;
import io.jrdma.cm.CmStrings;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.cm.RejectReason;
import io.jrdma.internal.net.Ip;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every call of SPEC.md's list ({@code cma.c}'s exported functions and librdmacm's calls): create
 * and destroy, bind (ephemeral ports, REUSEADDR, AFONLY), resolve address and route, listen,
 * connect, accept, reject, disconnect, QPs through the id, init-QP-attributes, notify, the options,
 * addresses and ports, and the strings. Rules that say more about a call have their own tests in
 * {@link RuleChecks}.
 */
abstract class CallChecks extends CmChecks {
    /** Linux's default {@code ip_local_port_range}. */
    static final int EPHEMERAL_LOW = 32768;
    /** Linux's default {@code ip_local_port_range}. */
    static final int EPHEMERAL_HIGH = 60999;

    CallChecks(CmSuiteSupport support) {
        super(support);
    }

    private static Errno errno(Throwable t) {
        return ((RdmaException) t).errno();
    }

    // ------------------------------------------------------------------------------------------ create/destroy

    @Test
    void createIdGivesAnIdleIdThatDestroyRemoves() {
        RdmaCm cm = openCm();
        CmId id = cm.createId(recorder(), "ctx", PortSpace.TCP);
        assertThat(id.state()).isEqualTo(CmState.IDLE);
        assertThat(id.context()).isEqualTo("ctx");
        assertThat(id.portSpace()).isEqualTo(PortSpace.TCP);
        assertThat(id.qpType()).isEqualTo(QpType.RC);
        assertThat(id.device()).isNull();
        assertThat(id.cm()).isSameAs(cm);
        assertThat(cm.idCount()).isEqualTo(1);
        assertThat(channel(cm).channel().createId(null, PortSpace.UDP).qpType()).isEqualTo(QpType.UD);
        assertThat(cm.idCount()).isEqualTo(2);
        id.destroy();
        assertThat(id.state()).isEqualTo(CmState.DESTROYING);
        assertThat(cm.idCount()).isEqualTo(1);
        id.destroy(); // idempotent
        assertThatThrownBy(() -> cm.createId(recorder(), null, PortSpace.UDP, QpType.RC))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> cm.createId(null, null, PortSpace.TCP)).isInstanceOf(IllegalArgumentException.class);
    }

    // ------------------------------------------------------------------------------------------ bind

    @Test
    void bindWithPortZeroPicksAnEphemeralPortAndASpecificAddressTiesTheDevice() {
        RdmaCm cm = openCm();
        CmId id = cm.createId(recorder(), null, PortSpace.TCP);
        id.bind(at(0));
        assertThat(id.state()).isEqualTo(CmState.ADDR_BOUND);
        assertThat(id.localPort()).isBetween(EPHEMERAL_LOW, EPHEMERAL_HIGH);
        assertThat(id.localAddress()).isEqualTo(at(id.localPort()));
        assertThat(id.device()).isNotNull();
        // a device named as RdmaCm.open takes it: NAME, or PROVIDER:NAME for a provider's devices
        assertThat(fixture().deviceNames()).containsAnyOf(id.device().name(),
                id.device().provider() + ":" + id.device().name());
        assertThatThrownBy(() -> id.bind(at(0))).as("bind twice").isInstanceOf(IllegalStateException.class);

        CmId wild = cm.createId(recorder(), null, PortSpace.TCP);
        wild.bind(any(0));
        assertThat(wild.localPort()).isBetween(EPHEMERAL_LOW, EPHEMERAL_HIGH).isNotEqualTo(id.localPort());
        assertThat(wild.device()).as("a wildcard address ties no device").isNull();

        CmId nowhere = cm.createId(recorder(), null, PortSpace.TCP);
        assertThatThrownBy(() -> nowhere.bind(new InetSocketAddress(fixture().unservedAddress(), 0)))
                .isInstanceOf(RdmaException.class)
                .satisfies(t -> assertThat(errno(t)).isIn(Errno.EADDRNOTAVAIL, Errno.ENODEV));
        assertThat(nowhere.state()).isEqualTo(CmState.IDLE);
    }

    @Test
    void bindingATakenPortWithoutReuseAddrFailsWithEaddrinuse() {
        RdmaCm cm = openCm();
        CmId a = cm.createId(recorder(), null, PortSpace.TCP);
        a.bind(at(0));
        CmId b = cm.createId(recorder(), null, PortSpace.TCP);
        assertThatThrownBy(() -> b.bind(at(a.localPort()))).isInstanceOf(RdmaException.class)
                .satisfies(t -> assertThat(errno(t)).isEqualTo(Errno.EADDRINUSE));
        if (has(CmCapability.UD_SIDR)) { // iWARP offers the TCP port space only
            CmId udp = cm.createId(recorder(), null, PortSpace.UDP);
            udp.bind(at(a.localPort()));
            assertThat(udp.localPort()).as("port spaces are separate").isEqualTo(a.localPort());
        }
        int port = a.localPort();
        a.destroy();
        b.bind(at(port));
        assertThat(b.state()).as("the port is free once its owner is destroyed").isEqualTo(CmState.ADDR_BOUND);
    }

    @Test
    void idsWithReuseAddrShareAPortUntilOneListens() {
        RdmaCm cm = openCm();
        CmId a = cm.createId(recorder(), null, PortSpace.TCP);
        a.setReuseAddr(true);
        a.bind(at(0));
        CmId b = cm.createId(recorder(), null, PortSpace.TCP);
        b.setReuseAddr(true);
        b.bind(at(a.localPort()));
        assertThat(b.localPort()).isEqualTo(a.localPort());
        CmId c = cm.createId(recorder(), null, PortSpace.TCP);
        assertThatThrownBy(() -> c.bind(at(a.localPort()))).as("only ids that all set REUSEADDR share")
                .isInstanceOf(RdmaException.class).satisfies(t -> assertThat(errno(t)).isEqualTo(Errno.EADDRINUSE));
        assertThatThrownBy(() -> a.listen(1)).as("a listener must be alone on its port")
                .isInstanceOf(RdmaException.class).satisfies(t -> assertThat(errno(t)).isEqualTo(Errno.EADDRINUSE));
        b.destroy();
        a.listen(1);
        assertThat(a.state()).isEqualTo(CmState.LISTEN);
    }

    @Test
    void aWildcardBindConflictsWithASpecificOneWithEaddrnotavail() {
        RdmaCm cm = openCm();
        CmId specific = cm.createId(recorder(), null, PortSpace.TCP);
        specific.bind(at(0));
        CmId wild = cm.createId(recorder(), null, PortSpace.TCP);
        // cma_check_port: an overlap through a wildcard address is EADDRNOTAVAIL, an equal address EADDRINUSE.
        assertThatThrownBy(() -> wild.bind(any(specific.localPort())))
                .isInstanceOf(RdmaException.class)
                .satisfies(t -> assertThat(errno(t)).isEqualTo(Errno.EADDRNOTAVAIL));
    }

    @Test
    void afOnlyIdsOfTwoFamiliesShareAWildcardPortAndOthersDoNot() throws Exception {
        assume(CmCapability.DUAL_STACK);
        RdmaCm cm = openCm();
        CmId v4 = cm.createId(recorder(), null, PortSpace.TCP);
        v4.bind(new InetSocketAddress(Ip.wildcard(false), 0)); // IPv4 ids are AFONLY
        int port = v4.localPort();
        CmId v6 = cm.createId(recorder(), null, PortSpace.TCP);
        v6.setAfOnly(false);
        assertThatThrownBy(() -> v6.bind(new InetSocketAddress(Ip.wildcard(true), port)))
                .as("an IPv6 wildcard without AFONLY covers IPv4 too").isInstanceOf(RdmaException.class);
        CmId v6only = cm.createId(recorder(), null, PortSpace.TCP);
        v6only.setAfOnly(true);
        v6only.bind(new InetSocketAddress(Ip.wildcard(true), port));
        assertThat(v6only.localPort()).isEqualTo(port);
        v4.listen(1);
        v6only.listen(1);
        assertThat(v6only.state()).isEqualTo(CmState.LISTEN);
    }

    @Test
    void anAfOnlyIpv6WildcardListenerTakesNoIpv4Requests() throws Exception {
        assume(CmCapability.DUAL_STACK);
        refusesTheOtherFamily(true, Boolean.TRUE, ipv4Address());
    }

    @Test
    void anIpv4WildcardListenerTakesNoIpv6Requests() throws Exception {
        assume(CmCapability.DUAL_STACK);
        refusesTheOtherFamily(false, null, ipv6Address()); // IPv4 ids are AFONLY
    }

    /**
     * A wildcard listener of one family ({@code ipv6}), AFONLY as {@code afOnly} says (null: the default),
     * takes no request to {@code other}, an address of the other family on its port.
     */
    private void refusesTheOtherFamily(boolean ipv6, Boolean afOnly, java.net.InetAddress other) {
        RdmaCm scm = openCm();
        ChannelEvents server = channel(scm);
        CmId listener = server.channel().createId(null, PortSpace.TCP);
        if (afOnly != null) {
            listener.setAfOnly(afOnly);
        }
        listener.bind(new InetSocketAddress(Ip.wildcard(ipv6), 0));
        assertThat(Ip.isIpv6(listener.localAddress().getAddress())).isEqualTo(ipv6);
        listener.listen(2);
        expectRefused(new InetSocketAddress(other, listener.localPort()));
        server.expectNone(QUIET);
    }

    /**
     * A connect to {@code dst}, where the listener on the port takes no address of its family: on the IB CM
     * a consumer-defined REJ (28: rdma_cm's handler refuses the REQ and cm.c rejects it; measured on Linux
     * 6.1, ucmatose against an IPv4 listener over IPv6), not the IB CM's "invalid service ID" of a port
     * nobody listens on; on iWARP the TCP connect is refused (a V6ONLY socket refuses IPv4 as Linux's
     * {@code ip6_sock_set_v6only}), which fails rdma_connect itself or ends in REJECTED.
     */
    private void expectRefused(InetSocketAddress dst) {
        Peer client = peer();
        CmId id = client.events().channel().createId("client", PortSpace.TCP);
        id.resolveAddr(null, dst, WAIT);
        client.events().expect(CmEventType.ADDR_RESOLVED, id);
        id.resolveRoute(WAIT);
        client.events().expect(CmEventType.ROUTE_RESOLVED, id);
        Side.of(id).createQp();
        if (iwarp()) {
            try {
                id.connect(ConnParam.defaults());
            } catch (RdmaException refused) {
                assertThat(errno(refused)).isEqualTo(Errno.ECONNREFUSED);
                return;
            }
            CmEvent rej = client.events().expect(CmEventType.REJECTED, id);
            assertThat(rej.status()).isEqualTo(Errno.ECONNREFUSED.status());
            return;
        }
        id.connect(ConnParam.defaults());
        CmEvent rej = client.events().expect(CmEventType.REJECTED, id);
        assertThat(rej.status()).isEqualTo(RejectReason.CONSUMER_DEFINED.value());
    }

    @Test
    void anIpv6WildcardListenerWithoutAfOnlyTakesIpv4RequestsAndReportsTheirIpv4Addresses() throws Exception {
        assume(CmCapability.DUAL_STACK);
        RdmaCm scm = openCm();
        ChannelEvents server = channel(scm);
        CmId listener = server.channel().createId(null, PortSpace.TCP);
        listener.setAfOnly(false);
        listener.bind(new InetSocketAddress(Ip.wildcard(true), 0));
        listener.listen(2);
        Peer client = peer();
        CmId id = client.events().channel().createId("client", PortSpace.TCP);
        id.resolveAddr(null, new InetSocketAddress(ipv4Address(), listener.localPort()), WAIT);
        client.events().expect(CmEventType.ADDR_RESOLVED, id);
        id.resolveRoute(WAIT);
        client.events().expect(CmEventType.ROUTE_RESOLVED, id);
        Side.of(id).createQp();
        id.connect(ConnParam.defaults());
        CmEvent req = server.expect(CmEventType.CONNECT_REQUEST);
        assertThat(req.listenId()).isSameAs(listener);
        // cma_save_ip4_info / an IPv4 connection on a dual-stack socket: the request's id is IPv4.
        assertThat(req.id().localAddress())
                .isEqualTo(new InetSocketAddress(ipv4Address(), listener.localPort()));
        assertThat(req.id().peerAddress()).isEqualTo(id.localAddress());
        assertThat(req.id().peerAddress().getAddress()).isInstanceOf(java.net.Inet4Address.class);
    }

    // ------------------------------------------------------------------------------------------ resolve

    @Test
    void resolveAddrPicksTheDeviceThatServesTheSourceAddress() {
        Peer p = peer();
        CmId id = p.events().channel().createId(null, PortSpace.TCP);
        id.resolveAddr(null, at(7471), WAIT);
        assertThat(id.state()).isIn(CmState.ADDR_QUERY, CmState.ADDR_RESOLVED);
        CmEvent e = p.events().expect(CmEventType.ADDR_RESOLVED, id);
        assertThat(e.status()).isZero();
        assertThat(id.state()).isEqualTo(CmState.ADDR_RESOLVED);
        assertThat(id.device()).isNotNull();
        if (id.device() instanceof DeviceImpl d) { // a kernel device: the kernel chose it for the address
            assertThat(d.servesAddress(fixture().address())).isTrue();
        }
        assertThat(id.localAddress().getAddress()).isEqualTo(fixture().address());
        assertThat(id.localPort()).isBetween(EPHEMERAL_LOW, EPHEMERAL_HIGH);
        assertThat(id.peerAddress()).isEqualTo(at(7471));

        CmId explicit = p.events().channel().createId(null, PortSpace.TCP);
        explicit.resolveAddr(at(0), at(7471), WAIT);
        p.events().expect(CmEventType.ADDR_RESOLVED, explicit);
        assertThat(explicit.device()).isSameAs(id.device());
    }

    @Test
    void resolveAddrToAnAddressNoDeviceServesReportsAddrError() {
        Peer p = peer();
        CmId id = p.events().channel().createId(null, PortSpace.TCP);
        id.resolveAddr(null, new InetSocketAddress(fixture().unservedAddress(), 7471), WAIT);
        CmEvent e = p.events().expect(CmEventType.ADDR_ERROR, id);
        assertThat(e.status()).as("a negative errno").isNegative();
        assertThat(id.state()).isEqualTo(CmState.ADDR_BOUND);
        assertThat(id.device()).isNull();
        assertThatThrownBy(() -> id.resolveRoute(WAIT)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void resolveRouteFollowsAResolvedAddressOnly() {
        Peer p = peer();
        CmId id = p.events().channel().createId(null, PortSpace.TCP);
        assertThatThrownBy(() -> id.resolveRoute(WAIT)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("EINVAL");
        id.resolveAddr(null, at(7471), WAIT);
        p.events().expect(CmEventType.ADDR_RESOLVED, id);
        id.resolveRoute(WAIT);
        CmEvent e = p.events().expect(CmEventType.ROUTE_RESOLVED, id);
        assertThat(e.status()).isZero();
        assertThat(id.state()).isEqualTo(CmState.ROUTE_RESOLVED);
        assertThatThrownBy(() -> id.resolveRoute(WAIT)).as("twice").isInstanceOf(IllegalStateException.class);
    }

    // ------------------------------------------------------------------------------------------ listen

    @Test
    void listenMovesABoundOrIdleIdToListen() {
        RdmaCm cm = openCm();
        CmId bound = cm.createId(recorder(), null, PortSpace.TCP);
        bound.bind(at(0));
        bound.listen(3);
        assertThat(bound.state()).isEqualTo(CmState.LISTEN);
        assertThatThrownBy(() -> bound.listen(3)).isInstanceOf(IllegalStateException.class);
        CmId idle = cm.createId(recorder(), null, PortSpace.TCP);
        idle.listen(0); // rdma_listen on an idle id binds it to the wildcard address first
        assertThat(idle.state()).isEqualTo(CmState.LISTEN);
        assertThat(idle.localPort()).isBetween(EPHEMERAL_LOW, EPHEMERAL_HIGH);
        CmId other = cm.createId(recorder(), null, PortSpace.TCP);
        assertThatThrownBy(() -> other.listen(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    // ------------------------------------------------------------------------------------------ connect/accept/reject

    @Test
    void connectCarriesPrivateDataAndParametersToTheListenerAsANewId() {
        Server server = listen(PortSpace.TCP, 4);
        Peer client = peer();
        CmId id = routed(client, PortSpace.TCP, server.port());
        byte[] pd = {10, 20, 30, 40};
        if (iwarp()) {
            Side.of(id).createQp(); // an iWARP connection is the QP's TCP stream: it needs the QP
        }
        id.connect(new ConnParam(pd, 3, 2, true, 6, 5, true, iwarp() ? 0 : 0x4242));
        assertThat(id.state()).isEqualTo(CmState.CONNECT);
        CmEvent req = server.events().expect(CmEventType.CONNECT_REQUEST);
        assertThat(req.status()).isZero();
        assertThat(req.listenId()).isSameAs(server.listener());
        assertThat(req.id()).isNotSameAs(server.listener());
        assertThat(req.id().state()).isEqualTo(CmState.CONNECT);
        assertThat(req.id().device()).isSameAs(id.device());
        assertThat(req.privateData()).as("IB CM MADs carry the whole private-data field: a prefix").startsWith(pd);
        ConnParam p = req.param();
        // The local view: what the remote may issue is what this side must take, and the reverse.
        assertThat(p.responderResources()).as("responder resources = the remote's initiator depth").isEqualTo(2);
        assertThat(p.initiatorDepth()).as("initiator depth = the remote's responder resources").isEqualTo(3);
        if (!iwarp()) {
            assertThat(p.flowControl()).isTrue();
            assertThat(p.srq()).isTrue();
            assertThat(p.qpNum()).as("the QP number of an id without a QP").isEqualTo(0x4242);
            assertThat(p.retryCount()).isEqualTo(6);
            assertThat(p.rnrRetryCount()).isEqualTo(5);
        }
        assertThat(req.id().peerAddress()).isEqualTo(id.localAddress());
        assertThat(req.id().localAddress()).isEqualTo(at(server.port()));
    }

    @Test
    void acceptOnThePassiveSideEstablishesBothSidesAndConnectsTheQps() {
        Connection c = connect(spec().accept(ConnParam.defaults().withPrivateData(new byte[] {7, 7})));
        assertThat(c.activeEstablished().status()).isZero();
        assertThat(c.activeEstablished().privateData()).startsWith(7, 7);
        assertThat(c.passiveEstablished().status()).isZero();
        assertThat(c.active().qp.state()).isEqualTo(QpState.RTS);
        assertThat(c.passive().qp.state()).isEqualTo(QpState.RTS);
        if (!iwarp()) { // an iWARP QP is tied to its TCP stream; it has no destination QP number
            assertThat(c.active().qp.query().destQpNum()).isEqualTo(c.passive().qp.qpNum());
            assertThat(c.passive().qp.query().destQpNum()).isEqualTo(c.active().qp.qpNum());
        }
        assertThat(c.request().id().state()).isEqualTo(CmState.CONNECT);
        assertThat(c.active().id.state()).isEqualTo(CmState.CONNECT);
        assertThatThrownBy(() -> c.request().id().accept(ConnParam.defaults())).as("accept twice")
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void acceptOnAListenerAnIdleIdOrADestroyedIdIsRefusedWithAMessageThatSaysSo() {
        Server server = listen(PortSpace.TCP, 4);
        assertThatThrownBy(() -> server.listener().accept(ConnParam.defaults())).as("a listener")
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("listening id");
        assertThatThrownBy(() -> server.listener().reject(null)).as("reject on a listener")
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("listening id");
        Peer client = peer();
        CmId idle = client.events().channel().createId("idle", PortSpace.TCP);
        assertThatThrownBy(() -> idle.accept(ConnParam.defaults())).as("an idle id")
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("neither connecting nor answering")
                .hasMessageContaining("IDLE");
        CmId id = routed(client, PortSpace.TCP, server.port());
        Side.of(id).createQp();
        id.connect(ConnParam.defaults());
        CmEvent req = server.events().expect(CmEventType.CONNECT_REQUEST);
        req.id().destroy();
        assertThatThrownBy(() -> req.id().accept(ConnParam.defaults())).as("a destroyed request id")
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("destroyed id");
        idle.destroy();
        assertThatThrownBy(() -> idle.accept(ConnParam.defaults())).as("a destroyed idle id")
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("destroyed id");
        client.events().expect(CmEventType.REJECTED, id); // destroying the request rejected it
    }

    @Test
    void rejectWithPrivateDataReachesTheActiveSideAsAConsumerReject() {
        Server server = listen(PortSpace.TCP, 4);
        Peer client = peer();
        CmId id = routed(client, PortSpace.TCP, server.port());
        Side.of(id).createQp();
        id.connect(ConnParam.defaults());
        CmEvent req = server.events().expect(CmEventType.CONNECT_REQUEST);
        byte[] why = {'b', 'u', 's', 'y'};
        req.id().reject(why);
        CmEvent rej = client.events().expect(CmEventType.REJECTED, id);
        assertThat(rej.privateData()).startsWith(why);
        assertThat(consumerReject(id, rej.status())).isTrue();
        assertThatThrownBy(() -> req.id().accept(ConnParam.defaults())).as("accept after reject")
                .isInstanceOf(IllegalStateException.class);
        server.events().expectNone(QUIET);
    }

    @Test
    void rejectWithAnIbReasonReportsThatReason() {
        assume(CmCapability.CONNECT_RESPONSE); // an IB CM transport
        skipIf(CmQuirk.REJECT_IS_ALWAYS_CONSUMER_DEFINED);
        Server server = listen(PortSpace.TCP, 4);
        Peer client = peer();
        CmId id = routed(client, PortSpace.TCP, server.port());
        Side.of(id).createQp();
        id.connect(ConnParam.defaults());
        CmEvent req = server.events().expect(CmEventType.CONNECT_REQUEST);
        req.id().reject(null, RejectReason.NO_RESOURCES.value());
        CmEvent rej = client.events().expect(CmEventType.REJECTED, id);
        assertThat(rej.status()).isEqualTo(RejectReason.NO_RESOURCES.value());
        assertThat(CmStrings.isConsumerReject(id, rej.status())).isFalse();
    }

    @Test
    void disconnectFromTheActiveSideEndsTheConnectionOnBothSides() {
        Connection c = connect();
        c.active().id.disconnect();
        assertThat(c.active().qp.state()).as("rdma_disconnect moves the QP to ERROR first").isEqualTo(QpState.ERR);
        CmEvent d = c.server().events().expectSkippingTimewait(CmEventType.DISCONNECTED);
        assertThat(d.id()).isSameAs(c.request().id());
        assertThat(d.status()).isZero();
        c.request().id().disconnect();
        CmEvent a = c.client().events().expectSkippingTimewait(CmEventType.DISCONNECTED);
        assertThat(a.id()).isSameAs(c.active().id);
        assertThat(c.passive().qp.state()).isEqualTo(QpState.ERR);
        CmId idle = c.client().events().channel().createId(null, PortSpace.TCP);
        assertThatThrownBy(idle::disconnect).as("nothing to disconnect").isInstanceOf(IllegalStateException.class);
    }

    // ------------------------------------------------------------------------------------------ QPs

    @Test
    void createQpMovesTheQpToInitAndDestroyQpReleasesIt() {
        Peer p = peer();
        CmId unbound = p.events().channel().createId(null, PortSpace.TCP);
        CmId id = routed(p, PortSpace.TCP, 7471);
        Side s = Side.of(id);
        assertThatThrownBy(() -> unbound.createQp(s.pd, s.qpAttr())).isInstanceOf(IllegalStateException.class);
        DeviceImpl dev = id.device() instanceof DeviceImpl d ? d : null; // null: the kernel counts its QPs
        int before = dev == null ? 0 : dev.count(DeviceImpl.Resource.QP);
        QueuePair qp = s.createQp();
        assertThat(id.qp()).isSameAs(qp);
        assertThat(qp.state()).isEqualTo(QpState.INIT);
        assertThat(qp.query().qpAccessFlags() & (Access.REMOTE_READ | Access.REMOTE_WRITE))
                .isEqualTo(Access.REMOTE_READ | Access.REMOTE_WRITE);
        if (dev != null) {
            assertThat(dev.count(DeviceImpl.Resource.QP)).isEqualTo(before + 1);
        }
        assertThatThrownBy(s::createQp).as("one QP per id").isInstanceOf(IllegalStateException.class);
        id.destroyQp();
        assertThat(id.qp()).isNull();
        if (dev != null) {
            assertThat(dev.count(DeviceImpl.Resource.QP)).isEqualTo(before);
        }
        id.destroyQp(); // nothing left: no-op
        assertThatThrownBy(() -> id.createQp(s.pd, QpInitAttr.of(QpType.UD, s.cq, QpCap.of(4, 4))))
                .as("the id's QP type").isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void initQpAttrOfAUdIdGivesRdmaCmsQkey() {
        assume(CmCapability.UD_SIDR);
        Peer p = peer();
        CmId id = routed(p, PortSpace.UDP, 7174);
        assertThat(id.initQpAttr(QpState.INIT).qkey()).as("RDMA_UDP_QKEY").isEqualTo(0x01234567);
        QueuePair qp = Side.of(id).createQp();
        assertThat(qp.state()).as("rdma_create_qp readies a UD QP").isEqualTo(QpState.RTS);
        assertThat(qp.query().qkey()).isEqualTo(0x01234567);
    }

    @Test
    void notifyEstablishesThePassiveSideWhenTheRtuIsLost() {
        assume(CmCapability.CONNECT_RESPONSE);
        assume(CmCapability.DROP_MESSAGES);
        MessageDrop drop = track(fixture().drop(EnumSet.of(CmMessageKind.RTU), Integer.MAX_VALUE));
        Server server = listen(PortSpace.TCP, 4);
        Peer client = peer();
        CmId id = routed(client, PortSpace.TCP, server.port());
        Side active = Side.of(id);
        active.createQp();
        id.connect(ConnParam.defaults());
        CmEvent req = server.events().expect(CmEventType.CONNECT_REQUEST);
        Side passive = Side.of(req.id());
        passive.createQp();
        passive.postRecv(1, 0);
        req.id().accept(ConnParam.defaults());
        client.events().expect(CmEventType.ESTABLISHED, id);
        server.events().expectNone(QUIET); // the RTU was lost
        assertThat(drop.dropped()).isGreaterThanOrEqualTo(1);
        assertThatThrownBy(() -> server.listener().notify(AsyncEventType.COMM_EST))
                .as("a listener has nothing to establish").isInstanceOf(IllegalStateException.class);

        active.send(5, 0, new byte[] {1, 2, 3});
        Completion recv = passive.awaitCompletion(WAIT);
        assertThat(recv.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(recv.opcode()).isEqualTo(WcOpcode.RECV);
        req.id().notify(AsyncEventType.COMM_EST); // the QP's COMM_EST stands in for the RTU
        CmEvent est = server.events().expect(CmEventType.ESTABLISHED, req.id());
        assertThat(est.status()).isZero();
        req.id().notify(AsyncEventType.COMM_EST); // once established, nothing more happens
        server.events().expectNone(QUIET);
    }

    // ------------------------------------------------------------------------------------------ options

    @Test
    void setTosReachesTheAddressVectorsOfBothSides() {
        assume(CmCapability.CONNECT_RESPONSE); // RoCE/IB address vectors
        Connection c = connect(spec().beforeResolve(id -> id.setTos(0x48)));
        assertThat(c.active().qp.query().ahAttr().trafficClass()).isEqualTo(0x48);
        assertThat(c.passive().qp.query().ahAttr().trafficClass()).isEqualTo(0x48);
        CmId other = c.client().events().channel().createId(null, PortSpace.TCP);
        assertThatThrownBy(() -> other.setTos(256)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void reuseAddrAndAfOnlyCannotBeSetOnAListener() {
        Server server = listen(PortSpace.TCP, 1);
        assertThatThrownBy(() -> server.listener().setReuseAddr(true)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> server.listener().setAfOnly(true)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void ackTimeoutAndMinRnrTimerTakeFiveBitValuesOnRcIdsOnly() {
        Peer p = peer();
        CmId rc = p.events().channel().createId(null, PortSpace.TCP);
        rc.setAckTimeout(0);
        rc.setAckTimeout(31);
        rc.setMinRnrTimer(0);
        rc.setMinRnrTimer(31);
        assertThatThrownBy(() -> rc.setAckTimeout(32)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> rc.setMinRnrTimer(32)).isInstanceOf(IllegalArgumentException.class);
        if (has(CmCapability.UD_SIDR)) {
            CmId ud = p.events().channel().createId(null, PortSpace.UDP);
            assertThatThrownBy(() -> ud.setAckTimeout(14)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> ud.setMinRnrTimer(14)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    // ------------------------------------------------------------------------------------------ addresses

    @Test
    void localAndPeerAddressesAndPortsMatchOnBothSides() {
        Connection c = connect();
        CmId a = c.active().id;
        CmId p = c.request().id();
        CmId l = c.server().listener();
        assertThat(a.localAddress().getAddress()).isEqualTo(fixture().address());
        assertThat(a.peerAddress()).isEqualTo(at(l.localPort()));
        assertThat(a.peerPort()).isEqualTo(l.localPort());
        assertThat(p.localAddress()).isEqualTo(at(l.localPort()));
        assertThat(p.localPort()).isEqualTo(l.localPort());
        assertThat(p.peerAddress()).isEqualTo(a.localAddress());
        assertThat(p.peerPort()).isEqualTo(a.localPort());
        assertThat(l.localAddress()).isEqualTo(at(l.localPort()));
        assertThat(l.peerPort()).isZero();
    }

    // ------------------------------------------------------------------------------------------ strings

    @Test
    void eventStringsAreRdmaEventStrs() {
        for (CmEventType t : CmEventType.values()) {
            assertThat(CmStrings.eventStr(t)).isEqualTo("RDMA_CM_EVENT_" + t.name()).isEqualTo(t.str());
        }
        assertThat(CmStrings.eventStr(CmEventType.CONNECT_REQUEST)).isEqualTo("RDMA_CM_EVENT_CONNECT_REQUEST");
        assertThat(CmEventType.values()).hasSize(16);
    }

    @Test
    void rejectStringsAreIbcmAndIwcmRejectMsgs() {
        assertThat(CmStrings.ibRejectMsg(28)).isEqualTo("consumer defined");
        assertThat(CmStrings.ibRejectMsg(8)).isEqualTo("invalid service ID");
        assertThat(CmStrings.ibRejectMsg(10)).isEqualTo("stale conn");
        assertThat(CmStrings.ibRejectMsg(4)).isEqualTo("timeout");
        assertThat(CmStrings.ibRejectMsg(35)).isEqualTo("vendor option is not supported");
        assertThat(CmStrings.ibRejectMsg(999)).isEqualTo("unrecognized reason");
        assertThat(CmStrings.iwRejectMsg(Errno.ECONNRESET.status())).isEqualTo("reset by remote host");
        assertThat(CmStrings.iwRejectMsg(Errno.ECONNREFUSED.status())).isEqualTo("refused by remote application");
        assertThat(CmStrings.iwRejectMsg(Errno.ETIMEDOUT.status())).isEqualTo("setup timeout");
        assertThat(CmStrings.iwRejectMsg(0)).isEqualTo("unrecognized reason");
        Peer p = peer();
        CmId id = routed(p, PortSpace.TCP, 7471);
        int consumer = iwarp() ? Errno.ECONNREFUSED.status() : RejectReason.CONSUMER_DEFINED.value();
        assertThat(CmStrings.rejectMsg(id, consumer)).isEqualTo(iwarp() ? "refused by remote application"
                : "consumer defined");
    }

    @Test
    void anActiveIdPassesThroughCmasStatesFromIdleToDisconnect() {
        Server server = listen(PortSpace.TCP, 4);
        Peer client = peer();
        CmId id = client.events().channel().createId("states", PortSpace.TCP);
        List<CmState> seen = java.util.Collections.synchronizedList(new ArrayList<>());
        io.jrdma.internal.cm.CmHost core = ((io.jrdma.internal.cm.CmIdImpl) id).core();
        io.jrdma.internal.cm.CmEvents before = core.events();
        core.events(new io.jrdma.internal.cm.CmEvents() {
            @Override
            public void idStateChanged(io.jrdma.internal.cm.CmIdImpl changed, CmState from, CmState to) {
                if (changed == id) {
                    seen.add(to);
                }
                super.idStateChanged(changed, from, to);
            }
        });
        track(() -> core.events(before));
        id.resolveAddr(null, at(server.port()), WAIT);
        client.events().expect(CmEventType.ADDR_RESOLVED, id);
        id.resolveRoute(WAIT);
        client.events().expect(CmEventType.ROUTE_RESOLVED, id);
        Side active = Side.of(id);
        active.createQp();
        id.connect(ConnParam.defaults());
        CmEvent req = server.events().expect(CmEventType.CONNECT_REQUEST);
        Side.of(req.id()).createQp();
        req.id().accept(ConnParam.defaults());
        client.events().expect(CmEventType.ESTABLISHED, id);
        server.events().expect(CmEventType.ESTABLISHED, req.id());
        req.id().disconnect();
        client.events().expectSkippingTimewait(CmEventType.DISCONNECTED);
        assertThat(id.state()).as("after DISCONNECTED").isEqualTo(CmState.DISCONNECT);
        // cma.c: rdma_resolve_addr binds first (cma_bind_addr), each query state precedes its result.
        assertThat(seen).containsExactly(CmState.ADDR_BOUND, CmState.ADDR_QUERY, CmState.ADDR_RESOLVED,
                CmState.ROUTE_QUERY, CmState.ROUTE_RESOLVED, CmState.CONNECT, CmState.DISCONNECT);
    }

    @Test
    void initQpAttrGivesWhatTheConnectionNegotiatedOnBothSidesAndTheQpsHoldIt() {
        Connection c = connect(spec().connect(ConnParam.defaults().withResources(2, 3))
                .accept(ConnParam.defaults().withResources(3, 2)));
        for (Side s : List.of(c.active(), c.passive())) {
            Side other = s == c.active() ? c.passive() : c.active();
            QpAttr init = s.id.initQpAttr(QpState.INIT);
            assertThat(init.qpState()).isEqualTo(QpState.INIT);
            assertThat(init.qpAccessFlags() & (Access.REMOTE_READ | Access.REMOTE_WRITE))
                    .as("rdma_cm grants remote READ and WRITE").isEqualTo(Access.REMOTE_READ | Access.REMOTE_WRITE);
            assertThat(init.portNum()).isEqualTo(1);
            QpAttr q = s.qp.query();
            if (!quirk(CmQuirk.QUERY_QP_NOT_NEGOTIATED)) {
                assertThat(q.qpAccessFlags()).as("the QP holds INIT's access flags").isEqualTo(init.qpAccessFlags());
            }
            QpAttr rts = s.id.initQpAttr(QpState.RTS);
            if (iwarp()) {
                // iw_cm_init_qp_attr: RTS carries no attribute of the connection, the QP runs on TCP's timers;
                // Linux's mask names only the port rdma_cm adds (the caller's qp_state is not in it), jrdma's
                // the state.
                assertThat(rts.mask() & ~(io.jrdma.verbs.QpAttrMask.STATE | io.jrdma.verbs.QpAttrMask.PORT))
                        .as("nothing but the state and the port").isZero();
                if ((rts.mask() & io.jrdma.verbs.QpAttrMask.STATE) != 0) {
                    assertThat(rts.qpState()).isEqualTo(QpState.RTS);
                }
                continue;
            }
            assertThat(rts.qpState()).isEqualTo(QpState.RTS);
            QpAttr rtr = s.id.initQpAttr(QpState.RTR);
            assertThat(rtr.destQpNum()).as("the remote QP").isEqualTo(other.qp.qpNum());
            assertThat(rtr.ahAttr().dgid()).as("the remote's GID").isEqualTo(io.jrdma.verbs.Gid.of(
                    other.id.localAddress().getAddress()));
            assertThat(rtr.destQpNum()).isEqualTo(q.destQpNum());
            assertThat(rtr.rqPsn()).isEqualTo(q.rqPsn());
            assertThat(rtr.pathMtu()).isEqualTo(q.pathMtu());
            assertThat(heldDepth(rtr.maxDestRdAtomic())).as("IRD").isEqualTo(q.maxDestRdAtomic());
            assertThat(rts.sqPsn()).as("the peer's starting PSN").isEqualTo(q.sqPsn()).isEqualTo(
                    other.qp.query().rqPsn());
            assertThat(heldDepth(rts.maxRdAtomic())).as("ORD").isEqualTo(q.maxRdAtomic());
            assertThat(rts.retryCnt()).isEqualTo(q.retryCnt());
            assertThat(rts.rnrRetry()).isEqualTo(q.rnrRetry());
            assertThat(rts.timeout()).isEqualTo(q.timeout());
        }
        // IRD/ORD as negotiated: each side's ORD at most the other's IRD.
        if (!quirk(CmQuirk.QUERY_QP_NOT_NEGOTIATED)) {
            assertThat(c.active().qp.query().maxRdAtomic())
                    .isLessThanOrEqualTo(c.passive().qp.query().maxDestRdAtomic());
            assertThat(c.passive().qp.query().maxRdAtomic())
                    .isLessThanOrEqualTo(c.active().qp.query().maxDestRdAtomic());
        }
        assertThatThrownBy(() -> c.active().id.initQpAttr(QpState.SQD)).isInstanceOf(IllegalArgumentException.class);
        CmId unbound = c.client().events().channel().createId(null, PortSpace.TCP);
        assertThatThrownBy(() -> unbound.initQpAttr(QpState.INIT)).isInstanceOf(IllegalStateException.class);
    }
}
