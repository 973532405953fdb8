package io.jrdma.testkit.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.PortSpace;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.WcStatus;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Multicast for UD ids ({@code rdma_join_multicast}/{@code rdma_leave_multicast}, {@code cma.c}'s
 * {@code cma_iboe_join_multicast}, librdmacm's {@code ucma_process_join}) and the verbs under it
 * ({@code ibv_attach_mcast}, rxe's {@code rxe_mcast.c} and {@code rxe_rcv_mcast_pkt}). Each test uses a group of
 * its own in 239.255.77.0/24 (administratively scoped), so that no test hears another's datagrams.
 */
abstract class MulticastChecks extends CmChecks {
    /** {@code IB_MULTICAST_QPN}. */
    static final int MULTICAST_QPN = 0xFFFFFF;
    /** {@code RDMA_UDP_QKEY}. */
    static final int RDMA_UDP_QKEY = 0x01234567;
    /** The GRH before every UD payload (IBTA 11.4.1.1). */
    static final int GRH = 40;
    private static final AtomicInteger NEXT_GROUP = new AtomicInteger(1);

    MulticastChecks(CmSuiteSupport support) {
        super(support);
    }

    /** A group no other test of this JVM uses. */
    static InetAddress newGroup() {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) 239, (byte) 255, 77,
                    (byte) (NEXT_GROUP.getAndIncrement() & 0xff)});
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A member: a UD id bound to the fixture's address, with its QP and {@code receives} receives posted. */
    record Member(Peer peer, CmId id, Side side) {
    }

    Member member(int receives) {
        Peer p = peer();
        CmId id = p.events().channel().createId("member", PortSpace.UDP);
        id.bind(at(0));
        Side side = Side.of(id);
        side.createQp();
        for (int i = 0; i < receives; i++) {
            side.postRecv(100 + i, i);
        }
        return new Member(p, id, side);
    }

    /** Joins {@code m} to {@code group} and returns MULTICAST_JOIN. */
    static CmEvent join(Member m, InetAddress group, Object context) {
        m.id().joinMulticast(group, context);
        return m.peer().events().expect(CmEventType.MULTICAST_JOIN, m.id());
    }

    /** Sends {@code text} from {@code m} to the group of {@code joined}. */
    static void sendToGroup(Member m, CmEvent joined, long wrId, String text) {
        AddressHandle ah = m.side().pd.createAh(joined.ud().ahAttr());
        m.side().sendUd(wrId, 20, text.getBytes(StandardCharsets.US_ASCII), ah, joined.ud().qpNum(),
                joined.ud().qkey());
        Completion c = m.side().awaitCompletion(WAIT);
        assertThat(c.wrId()).isEqualTo(wrId);
        assertThat(c.status()).isEqualTo(WcStatus.SUCCESS);
    }

    /** Asserts that {@code m} received {@code text} (after the GRH) in its next completion. */
    static void assertReceived(Member m, String text) {
        Completion r = m.side().awaitCompletion(WAIT);
        byte[] b = text.getBytes(StandardCharsets.US_ASCII);
        assertThat(r.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(r.byteLen()).as("GRH + payload").isEqualTo(GRH + b.length);
        int slot = (int) (r.wrId() - 100);
        assertThat(new String(m.side().read(slot, GRH, b.length), StandardCharsets.US_ASCII)).isEqualTo(text);
    }

    @Test
    void multicastJoinCarriesTheGroupsAddressVectorQpnQkeyAndTheJoinContext() {
        assume(CmCapability.MULTICAST);
        InetAddress group = newGroup();
        Member m = member(1);
        CmEvent e = join(m, group, "my-context");
        assertThat(e.status()).isZero();
        assertThat(e.multicastContext()).isEqualTo("my-context");
        assertThat(e.ud()).isNotNull();
        assertThat(e.ud().qpNum()).as("IB_MULTICAST_QPN").isEqualTo(MULTICAST_QPN);
        assertThat(e.ud().qkey()).as("RDMA_UDP_QKEY").isEqualTo(RDMA_UDP_QKEY);
        assertThat(e.ud().ahAttr().dgid()).as("an IPv4 group as a RoCEv2 GID: ::ffff:a.b.c.d")
                .isEqualTo(Gid.of(group));
        assertThat(e.ud().ahAttr().dgid().isMulticast()).isTrue();
        assertThat(e.ud().ahAttr().hopLimit()).as("IPv4 group on RoCEv2: IPV6_DEFAULT_HOPLIMIT").isEqualTo(64);
        assertThat(m.id().state()).as("a join changes no state").isIn(io.jrdma.cm.CmState.ADDR_BOUND);
        if (m.id().device() instanceof DeviceImpl dev) { // a kernel device's members are the kernel's
            assertThat(dev.mcastMembers(Gid.of(group))).as("the id's QP is attached").containsExactly(
                    (io.jrdma.internal.verbs.QpImpl) m.side().qp);
        }
    }

    @Test
    void aDatagramSentToTheGroupReachesEveryOtherMemberOnceAndNotTheSender() {
        assume(CmCapability.MULTICAST);
        InetAddress group = newGroup();
        Member a = member(2);
        Member b = member(2);
        Member sender = member(2);
        join(a, group, "a");
        join(b, group, "b");
        CmEvent joined = join(sender, group, "sender");
        if (quirk(CmQuirk.MULTICAST_LOOPS_BACK)) {
            // The sending member gets one copy of its own, which may complete before its send.
            AddressHandle ah = sender.side().pd.createAh(joined.ud().ahAttr());
            sender.side().sendUd(7, 20, "hello group".getBytes(StandardCharsets.US_ASCII), ah,
                    joined.ud().qpNum(), joined.ud().qkey());
            List<Completion> own = sender.side().drain(2, QUIET);
            assertThat(own).extracting(Completion::wrId).contains(7L).hasSize(2);
            assertThat(own).extracting(Completion::status).containsOnly(WcStatus.SUCCESS);
        } else {
            sendToGroup(sender, joined, 7, "hello group");
        }
        assertReceived(a, "hello group");
        assertReceived(b, "hello group");
        assertThat(a.side().drain(QUIET)).as("one copy each").isEmpty();
        assertThat(b.side().drain(QUIET)).isEmpty();
        assertThat(sender.side().drain(QUIET)).as("the sending QP gets no copy of its own (jrdma's rxe), or one")
                .isEmpty();
    }

    @Test
    void aQpNotInTheGroupOrWithAnotherQkeyGetsNothing() {
        assume(CmCapability.MULTICAST);
        InetAddress group = newGroup();
        Member in = member(1);
        Member out = member(1);
        CmEvent joined = join(in, group, null);
        Member sender = member(0);
        AddressHandle ah = sender.side().pd.createAh(joined.ud().ahAttr());
        sender.side().sendUd(1, 20, new byte[] {1, 2, 3}, ah, MULTICAST_QPN, RDMA_UDP_QKEY + 1);
        assertThat(sender.side().awaitCompletion(WAIT).status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(in.side().drain(QUIET)).as("a Q_Key violation drops the copy (rxe check_keys)").isEmpty();
        sendToGroup(sender, joined, 2, "right key");
        assertReceived(in, "right key");
        assertThat(out.side().drain(QUIET)).as("a QP that never joined").isEmpty();
    }

    @Test
    void leavingDetachesTheQpSoLaterDatagramsPassItBy() {
        assume(CmCapability.MULTICAST);
        InetAddress group = newGroup();
        Member stays = member(2);
        Member leaves = member(2);
        Member sender = member(0);
        join(stays, group, null);
        join(leaves, group, null);
        CmEvent joined = join(sender, group, null);
        leaves.id().leaveMulticast(group);
        if (leaves.id().device() instanceof DeviceImpl dev) {
            assertThat(dev.mcastMembers(Gid.of(group)))
                    .doesNotContain((io.jrdma.internal.verbs.QpImpl) leaves.side().qp);
        }
        sendToGroup(sender, joined, 3, "after leave");
        assertReceived(stays, "after leave");
        assertThat(leaves.side().drain(QUIET)).isEmpty();
        assertThatThrownBy(() -> leaves.id().leaveMulticast(group)).as("leaving twice (librdmacm: EADDRNOTAVAIL)")
                .isInstanceOfSatisfying(RdmaException.class, e -> assertThat(e.errno())
                        .isEqualTo(Errno.EADDRNOTAVAIL));
    }

    @Test
    void destroyingTheIdLeavesEveryGroupItJoined() {
        assume(CmCapability.MULTICAST);
        InetAddress g1 = newGroup();
        InetAddress g2 = newGroup();
        Member m = member(0);
        join(m, g1, null);
        join(m, g2, null);
        Assumptions.assumeTrue(m.id().device() instanceof DeviceImpl, () -> m.id().device().name()
                + ": the kernel keeps its groups' members; user space cannot list them");
        DeviceImpl dev = (DeviceImpl) m.id().device();
        assertThat(dev.mcastMembers(Gid.of(g1))).hasSize(1);
        assertThat(dev.mcastMembers(Gid.of(g2))).hasSize(1);
        m.id().destroy();
        assertThat(dev.mcastMembers(Gid.of(g1))).isEmpty();
        assertThat(dev.mcastMembers(Gid.of(g2))).isEmpty();
    }

    @Test
    void joinMisuseIsAClearErrorAtTheCall() throws Exception {
        assume(CmCapability.MULTICAST);
        InetAddress group = newGroup();
        Member m = member(0);
        assertThatThrownBy(() -> m.id().joinMulticast(fixture().address(), null)).as("a unicast address")
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a multicast address");
        join(m, group, null);
        assertThatThrownBy(() -> m.id().joinMulticast(group, null)).as("the same group twice")
                .isInstanceOfSatisfying(RdmaException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EADDRINUSE));
        Peer p = peer();
        CmId idle = p.events().channel().createId("idle", PortSpace.UDP);
        assertThatThrownBy(() -> idle.joinMulticast(group, null)).as("an id bound to no device (EINVAL)")
                .isInstanceOf(IllegalStateException.class);
        CmId tcp = p.events().channel().createId("tcp", PortSpace.TCP);
        tcp.bind(at(0));
        assertThatThrownBy(() -> tcp.joinMulticast(group, null)).as("an RC id (EINVAL)")
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("UD");
        p.events().expectNone(QUIET);
    }

    @Test
    void anAttachTheDeviceRefusesBecomesMulticastErrorWithItsStatus() {
        assume(CmCapability.MULTICAST);
        InetAddress group = newGroup();
        Member m = member(0);
        DeviceImpl dev = m.id().device() instanceof DeviceImpl d ? d : null; // null: a kernel device
        int most = m.id().verbs().queryDevice().maxMcastQpAttach();
        // Fill the group with QPs attached through the verbs (ibv_attach_mcast) to the device's limit.
        List<QueuePair> qps = new ArrayList<>();
        for (int i = 0; i < most; i++) {
            QueuePair q = m.side().pd.createQp(QpInitAttr.of(QpType.UD, m.side().cq, QpCap.of(1, 1)));
            qps.add(q);
            q.attachMcast(Gid.of(group), 0);
        }
        if (dev != null) {
            assertThat(dev.mcastMembers(Gid.of(group))).hasSize(most);
        }
        m.id().joinMulticast(group, "full");
        CmEvent e = m.peer().events().expect(CmEventType.MULTICAST_ERROR, m.id());
        assertThat(e.status()).as("librdmacm: the failed ibv_attach_mcast's errno").isEqualTo(Errno.ENOMEM.status());
        assertThat(e.multicastContext()).isEqualTo("full");
        if (dev != null) {
            assertThat(dev.mcastMembers(Gid.of(group))).hasSize(most);
        }
        m.id().leaveMulticast(group); // the membership stays until left, as in librdmacm
        for (QueuePair q : qps) {
            q.close();
        }
        if (dev != null) {
            assertThat(dev.mcastMembers(Gid.of(group))).as("destroying a QP detaches it").isEmpty();
        }
    }

    @Test
    void verbsAttachNeedsAUdQpAndAMulticastGid() {
        assume(CmCapability.MULTICAST);
        Member m = member(0);
        QueuePair rc = m.side().pd.createQp(QpInitAttr.of(QpType.RC, m.side().cq, QpCap.of(1, 1)));
        try {
            assertThatThrownBy(() -> rc.attachMcast(Gid.of(newGroup()), 0))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> m.side().qp.attachMcast(Gid.of(fixture().address()), 0))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> m.side().qp.detachMcast(Gid.of(newGroup()), 0))
                    .isInstanceOfSatisfying(RdmaException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        } finally {
            rc.close();
        }
    }
}
