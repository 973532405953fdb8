package io.jrdma.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.cm.UdParam;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.TransportType;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The UDP port space and multicast through {@code io.jrdma.cm} on the kernel's IB-transport device that
 * librdmacm binds the address {@code -Dnative.cm.address} (10.0.2.15 by default) to: native:rxe0 in the interop
 * rig once siw0 is deleted (iWARP has neither; the tests skip naming the device). A SIDR exchange gives each
 * side the other's QP number, the port space's Q_Key and, to the initiator, the responder's address vector,
 * with the private data of request and reply; a SEND through an address handle made from it lands in the
 * responder's receive with the initiator's QP number as its source. Two UD ids join one IPv4 group: the
 * join reports the group's GID and Q_Key, both QPs are attached, and a datagram sent to the group reaches the
 * other one; a second join of the group is refused, and so is a leave after leaving.
 */
class NativeCmDatagramTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final int LEN = 256;
    private static final int GRH = 40;
    /** The Q_Key rdma_cm gives QPs of the UDP port space and multicast groups ({@code RDMA_UDP_QKEY}). */
    private static final int UDP_QKEY = 0x01234567;
    private Device device;
    private InetAddress address;

    /** Skips without librdmacm or an IB-transport kernel device on the address. */
    @BeforeEach
    void device() throws Exception {
        address = KernelCm.address();
        device = KernelCm.assumeDeviceOn(address);
        Assumptions.assumeTrue(device.transport() != TransportType.IWARP, () -> "rdma_cm binds " + address
                + " to " + device.name() + ", an iWARP device: no UDP port space, no multicast (delete it to reach an"
                + " IB-transport one)");
    }

    private static RdmaCm open() {
        return KernelCm.open();
    }

    private static CmEvent expect(EventChannel ch, CmEventType type) throws InterruptedException {
        return KernelCm.expect(ch, type, WAIT);
    }

    /** A UD QP of an id with its PD, CQ and a registered buffer (GRH room, then the payload). */
    private static final class Side {
        final CmId id;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final QueuePair qp;
        final MemorySegment buf = Arena.ofAuto().allocate(GRH + LEN, 64);
        final MemoryRegion mr;

        Side(CmId id) {
            this.id = id;
            Context ctx = id.verbs();
            pd = ctx.allocPd();
            cq = ctx.createCq(16);
            qp = id.createQp(pd, new QpInitAttr(QpType.UD, cq, cq, null, new QpCap(8, 8, 1, 1, 0), false));
            mr = pd.registerMemory(buf, Access.LOCAL_WRITE);
        }

        void postRecv() {
            assertThat(qp.postRecv(new RecvWr().wrId(7).sg(mr, 0, GRH + LEN))).isEqualTo(1);
        }

        void send(AddressHandle ah, int qpn, int qkey, String text) {
            byte[] b = text.getBytes(StandardCharsets.US_ASCII);
            MemorySegment.copy(b, 0, buf, ValueLayout.JAVA_BYTE, GRH, b.length);
            assertThat(qp.postSend(new SendWr().wrId(9).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
                    .sg(mr, GRH, b.length).ud(ah, qpn, qkey))).isEqualTo(1);
        }

        WorkCompletion await() {
            WorkCompletion[] one = {new WorkCompletion()};
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (cq.poll(one, 0, 1) == 0) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("no completion within 10 s on " + qp);
                }
                Thread.onSpinWait();
            }
            assertThat(one[0].status()).as("%s", one[0]).isEqualTo(WcStatus.SUCCESS);
            return one[0];
        }

        String received(int len) {
            return new String(buf.asSlice(GRH, len).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.US_ASCII);
        }
    }

    @Test
    void aSidrExchangeGivesEachSideThePeersQpAndQkeyAndADatagramArrives() throws Exception {
        int port = 23000 + (int) (ProcessHandle.current().pid() % 20000);
        try (RdmaCm cm = open()) {
            EventChannel sch = cm.createEventChannel();
            EventChannel cch = cm.createEventChannel();
            CmId listener = sch.createId(null, PortSpace.UDP, QpType.UD);
            listener.bind(new InetSocketAddress(address, port));
            listener.listen(4);
            CmId client = cch.createId(null, PortSpace.UDP, QpType.UD);
            client.resolveAddr(null, new InetSocketAddress(address, port), Duration.ofSeconds(2));
            expect(cch, CmEventType.ADDR_RESOLVED);
            client.resolveRoute(Duration.ofSeconds(2));
            expect(cch, CmEventType.ROUTE_RESOLVED);
            assertThat(client.device()).as("the kernel's device").isEqualTo(device);
            Side c = new Side(client);
            assertThat(c.qp.state()).as("a UD QP of the UDP port space is ready at once").isEqualTo(QpState.RTS);
            assertThat(c.qp.query().qkey()).as("the port space's Q_Key").isEqualTo(UDP_QKEY);
            client.connect(ConnParam.defaults().withPrivateData(new byte[] {1, 2, 3}));

            CmEvent req = expect(sch, CmEventType.CONNECT_REQUEST);
            assertThat(req.ud()).as("a SIDR request carries UD parameters").isNotNull();
            assertThat(req.privateData()).as("the request's private data").startsWith(1, 2, 3);
            Side s = new Side(req.id());
            s.postRecv();
            req.id().accept(ConnParam.defaults().withPrivateData(new byte[] {4, 5}).withQpNum(s.qp.qpNum()));

            CmEvent up = expect(cch, CmEventType.ESTABLISHED);
            UdParam ud = up.ud();
            System.out.println("OBSERVED " + device.name() + " SIDR reply: qp 0x" + Integer.toHexString(ud.qpNum())
                    + " qkey 0x" + Integer.toHexString(ud.qkey()) + " ah " + ud.ahAttr());
            assertThat(ud.qpNum()).as("the responder's QP number").isEqualTo(s.qp.qpNum());
            assertThat(ud.qkey()).as("the port space's Q_Key").isEqualTo(UDP_QKEY);
            assertThat(ud.ahAttr()).as("the responder's address vector").isNotNull();
            assertThat(up.privateData()).as("the reply's private data").startsWith(4, 5);

            c.send(c.pd.createAh(ud.ahAttr()), ud.qpNum(), ud.qkey(), "hello over SIDR");
            assertThat(c.await().opcode()).isEqualTo(WcOpcode.SEND);
            WorkCompletion r = s.await();
            assertThat(r.opcode()).isEqualTo(WcOpcode.RECV);
            assertThat(r.srcQp()).as("the initiator's QP number").isEqualTo(c.qp.qpNum());
            assertThat(r.byteLen()).isEqualTo(GRH + "hello over SIDR".length());
            assertThat(s.received("hello over SIDR".length())).isEqualTo("hello over SIDR");
            client.destroy();
            req.id().destroy();
            listener.destroy();
        }
    }

    @Test
    void twoIdsJoinAGroupAndADatagramSentToItReachesTheOther() throws Exception {
        InetAddress group = InetAddress.getByName("239.1." + (ProcessHandle.current().pid() % 250) + ".7");
        try (RdmaCm cm = open()) {
            EventChannel ch = cm.createEventChannel();
            CmId a = ch.createId(null, PortSpace.UDP, QpType.UD);
            CmId b = ch.createId(null, PortSpace.UDP, QpType.UD);
            a.bind(new InetSocketAddress(address, 0));
            b.bind(new InetSocketAddress(address, 0));
            Side sa = new Side(a);
            Side sb = new Side(b);
            sb.postRecv();
            a.joinMulticast(group, "a's join");
            CmEvent ja = expect(ch, CmEventType.MULTICAST_JOIN);
            assertThat(ja.multicastContext()).as("the join's context").isEqualTo("a's join");
            b.joinMulticast(group, "b's join");
            CmEvent jb = expect(ch, CmEventType.MULTICAST_JOIN);
            assertThat(jb.multicastContext()).isEqualTo("b's join");
            UdParam ud = ja.ud();
            System.out.println("OBSERVED " + device.name() + " join: qp 0x" + Integer.toHexString(ud.qpNum())
                    + " qkey 0x" + Integer.toHexString(ud.qkey()) + " ah " + ud.ahAttr());
            assertThat(ud.ahAttr().dgid().isMulticast()).as("the group's GID").isTrue();
            assertThat(ud.qkey()).as("the group's Q_Key").isEqualTo(UDP_QKEY);
            assertThatThrownBy(() -> a.joinMulticast(group, null)).isInstanceOf(RdmaException.class)
                    .hasMessageContaining("already joined");

            sa.send(sa.pd.createAh(ud.ahAttr()), ud.qpNum(), ud.qkey(), "to the group");
            assertThat(sa.await().opcode()).isEqualTo(WcOpcode.SEND);
            WorkCompletion r = sb.await();
            assertThat(r.srcQp()).as("the sender's QP number").isEqualTo(sa.qp.qpNum());
            assertThat(sb.received("to the group".length())).isEqualTo("to the group");

            a.leaveMulticast(group);
            assertThatThrownBy(() -> a.leaveMulticast(group)).isInstanceOf(RdmaException.class)
                    .hasMessageContaining("has not joined");
            b.leaveMulticast(group);
            a.destroy();
            b.destroy();
        }
    }
}
