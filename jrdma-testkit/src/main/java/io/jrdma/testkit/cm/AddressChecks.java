package io.jrdma.testkit.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.CmState;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.internal.net.Ip;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.WcOpcode;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Addresses as rdma_cm takes and reports them, in the fixture's family (IPv4 or IPv6): what the ids and
 * their events say on both sides, the IPv4-mapped addresses Linux neither binds nor routes (measured on
 * Linux 6.1: {@code rdma_bind_addr} fails with EADDRNOTAVAIL, {@code rdma_resolve_addr} with
 * ENETUNREACH), a source of the other family than the destination ({@code rdma_resolve_addr}'s EINVAL)
 * and a link-local address without a scope ({@code cma_check_linklocal}'s EINVAL).
 */
abstract class AddressChecks extends CmChecks {
    AddressChecks(CmSuiteSupport support) {
        super(support);
    }

    private static Errno errno(Throwable t) {
        return ((RdmaException) t).errno();
    }

    /** {@code ::ffff:} + the IPv4 loopback address, as an {@link Inet6Address} (the JDK's parser unmaps it). */
    private static InetAddress mappedLoopback() throws Exception {
        byte[] b = new byte[16];
        b[10] = (byte) 0xff;
        b[11] = (byte) 0xff;
        b[12] = 127;
        b[15] = 1;
        return Inet6Address.getByAddress(null, b, null);
    }

    @Test
    void bothSidesAndTheirEventsReportTheAddressesOfTheFixturesFamily() {
        Connection c = connect(spec().receives(1));
        CmId active = c.active().id;
        CmId passive = c.request().id();
        InetSocketAddress server = at(c.server().port());
        assertThat(active.localAddress().getAddress()).isEqualTo(fixture().address());
        assertThat(active.peerAddress()).isEqualTo(server);
        assertThat(passive.localAddress()).isEqualTo(server);
        assertThat(passive.peerAddress()).isEqualTo(active.localAddress());
        assertThat(c.request().listenId().localAddress()).isEqualTo(server);
        for (InetSocketAddress a : new InetSocketAddress[] {active.localAddress(), active.peerAddress(),
                passive.localAddress(), passive.peerAddress()}) {
            assertThat(Ip.isIpv6(a.getAddress())).as(a + " is of the fixture's family").isEqualTo(ipv6());
        }
        byte[] hello = "over the fixture's family".getBytes(StandardCharsets.US_ASCII);
        c.active().send(1, 0, hello);
        assertThat(c.active().awaitCompletion(WAIT).opcode()).isEqualTo(WcOpcode.SEND);
        assertThat(c.passive().awaitCompletion(WAIT).byteLen()).isEqualTo(hello.length);
        assertThat(c.passive().read(0, 0, hello.length)).isEqualTo(hello);
    }

    @Test
    void aUdExchangeResolvesTheRemoteQpAtTheGidOfTheFixturesAddress() {
        assume(CmCapability.UD_SIDR);
        Connection c = connect(spec().ps(PortSpace.UDP));
        CmEvent est = c.activeEstablished();
        assertThat(est.ud().qpNum()).isEqualTo(c.passive().qp.qpNum());
        // rdma_ip2gid: an IPv4 address is IPv4-mapped, an IPv6 address is its own GID.
        assertThat(est.ud().ahAttr().dgid()).isEqualTo(Gid.of(fixture().address()));
        assertThat(est.ud().ahAttr().dgid().isIpv4Mapped()).isEqualTo(!ipv6());
        assertThat(c.request().id().peerAddress().getAddress()).isEqualTo(fixture().address());
    }

    @Test
    void anIpv4MappedAddressCanBeNeitherBoundNorResolved() throws Exception {
        RdmaCm cm = openCm();
        ChannelEvents ev = channel(cm);
        CmId bound = ev.channel().createId(null, PortSpace.TCP);
        assertThatThrownBy(() -> bound.bind(new InetSocketAddress(mappedLoopback(), 0)))
                .isInstanceOf(RdmaException.class).satisfies(t -> assertThat(errno(t)).isEqualTo(Errno.EADDRNOTAVAIL))
                .hasMessageContaining("::ffff:127.0.0.1");
        assertThat(bound.state()).isEqualTo(CmState.IDLE);
        CmId resolved = ev.channel().createId(null, PortSpace.TCP);
        assertThatThrownBy(() -> resolved.resolveAddr(null, new InetSocketAddress(mappedLoopback(), 7471), WAIT))
                .isInstanceOf(RdmaException.class).satisfies(t -> assertThat(errno(t)).isEqualTo(Errno.ENETUNREACH));
        assertThat(resolved.state()).isEqualTo(CmState.IDLE);
        ev.expectNone(QUIET);
    }

    @Test
    void resolvingTowardsTheOtherFamilyIsEinvalAtTheCall() {
        RdmaCm cm = openCm();
        ChannelEvents ev = channel(cm);
        InetSocketAddress other = new InetSocketAddress(Ip.loopback(!ipv6()), 7471);
        CmId bound = ev.channel().createId(null, PortSpace.TCP);
        bound.bind(any(0));
        assertThatThrownBy(() -> bound.resolveAddr(null, other, WAIT)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("EINVAL");
        assertThat(bound.state()).isEqualTo(CmState.ADDR_BOUND);
        CmId mixed = ev.channel().createId(null, PortSpace.TCP);
        assertThatThrownBy(() -> mixed.resolveAddr(new InetSocketAddress(Ip.loopback(!ipv6()), 0), at(7471), WAIT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("EINVAL");
        assertThat(mixed.state()).isEqualTo(CmState.IDLE);
        ev.expectNone(QUIET);
    }

    @Test
    void aLinkLocalAddressWithoutAScopeCannotBeBound() throws Exception {
        RdmaCm cm = openCm();
        CmId id = cm.createId(recorder(), null, PortSpace.TCP);
        assertThatThrownBy(() -> id.bind(new InetSocketAddress(InetAddress.getByName("fe80::1"), 0)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("scope");
        assertThat(id.state()).isEqualTo(CmState.IDLE);
    }

    @Test
    void anAddressNoDeviceServesEndsInAddrErrorAndALaterResolveMaySucceed() {
        Peer p = peer();
        CmId id = p.events().channel().createId(null, PortSpace.TCP);
        id.resolveAddr(null, new InetSocketAddress(fixture().unservedAddress(), 7471), WAIT);
        CmEvent e = p.events().expect(CmEventType.ADDR_ERROR, id);
        assertThat(e.status()).isNegative();
        assertThat(id.state()).isEqualTo(CmState.ADDR_BOUND);
        assertThat(Ip.isIpv6(id.localAddress().getAddress())).isEqualTo(ipv6());
    }

    @Test
    void resolveAddrWithoutASourceToAnotherLoopbackAddressPicksThatAddressAsTheSource() throws Exception {
        Assumptions.assumeFalse(ipv6(), "IPv6 has one loopback address");
        InetAddress second = InetAddress.getByName("127.0.0.2");
        Assumptions.assumeTrue(device().servesAddress(second),
                () -> device().name() + " does not serve " + second.getHostAddress());
        RdmaCm cm = openCm();
        ChannelEvents ev = channel(cm);
        CmId l = ev.channel().createId("listener", PortSpace.TCP);
        l.bind(new InetSocketAddress(second, 0));
        l.listen(4);
        Peer client = peer();
        CmId id = client.events().channel().createId("client", PortSpace.TCP);
        id.resolveAddr(null, new InetSocketAddress(second, l.localPort()), WAIT);
        client.events().expect(CmEventType.ADDR_RESOLVED, id);
        assertThat(id.localAddress().getAddress()).as("the source matches the loopback destination")
                .isEqualTo(second);
        assertThat(id.device().name()).isEqualTo(device().name());
        id.resolveRoute(WAIT);
        client.events().expect(CmEventType.ROUTE_RESOLVED, id);
        Side.of(id).createQp();
        id.connect(io.jrdma.cm.ConnParam.defaults());
        CmEvent req = ev.expect(CmEventType.CONNECT_REQUEST);
        assertThat(req.id().peerAddress()).isEqualTo(id.localAddress());
        assertThat(req.id().localAddress().getAddress()).isEqualTo(second);
    }
}
