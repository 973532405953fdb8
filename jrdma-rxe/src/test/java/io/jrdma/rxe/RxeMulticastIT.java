package io.jrdma.rxe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Counter;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcFlags;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * RoCEv2 multicast between two rxe devices of one host, rxe0 (127.0.0.1) and rxe1 (127.0.0.2): the sender's
 * datagram leaves rxe0's socket for the IP group 239.255.78.1:4791 on {@code lo} (IP_MULTICAST_LOOP, the
 * kernel's default, brings it back to the host), and each device that has members receives it on the socket
 * it joined to the group. This runs on the loopback interface of a plain network namespace: Linux routes a
 * multicast datagram from a socket bound to 127.0.0.1 out of {@code lo} without a multicast route.
 */
class RxeMulticastIT {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private static CmEvent expect(EventChannel ch, CmEventType type) throws InterruptedException {
        CmEvent e = ch.getEvent(WAIT);
        assertThat(e).as("waiting for " + type).isNotNull();
        assertThat(e.type()).as(e.toString()).isEqualTo(type);
        ch.ackEvent(e);
        return e;
    }

    private static WorkCompletion poll(CompletionQueue cq, Duration wait) {
        WorkCompletion[] wc = {new WorkCompletion()};
        long deadline = System.nanoTime() + wait.toNanos();
        while (System.nanoTime() < deadline) {
            if (cq.poll(wc) == 1) {
                return wc[0];
            }
            Thread.onSpinWait();
        }
        return null;
    }

    @Test
    void aDatagramToTheGroupCrossesFromRxe0ToAMemberOnRxe1AndToAnotherQpOnRxe0() throws Exception {
        InetAddress group = InetAddress.getByName("239.255.78.1");
        long rx1Before = ((RxeDevice) ((DeviceImpl) Rdma.device("rxe1")).providerDevice()).counters()
                .get(Counter.RCVD_PKTS);
        try (RdmaCm cm = RdmaCm.open("rxe0", "rxe1"); EventChannel ch = cm.createEventChannel();
                Arena arena = Arena.ofShared()) {
            CmId[] ids = new CmId[3];
            QueuePair[] qps = new QueuePair[3];
            CompletionQueue[] cqs = new CompletionQueue[3];
            MemoryRegion[] mrs = new MemoryRegion[3];
            MemorySegment[] bufs = new MemorySegment[3];
            String[] at = {"127.0.0.1", "127.0.0.2", "127.0.0.1"}; // sender, member on rxe1, member on rxe0
            CmEvent joined = null;
            for (int i = 0; i < 3; i++) {
                ids[i] = ch.createId("m" + i, PortSpace.UDP, QpType.UD);
                ids[i].bind(new InetSocketAddress(at[i], 0));
                ProtectionDomain pd = ids[i].verbs().allocPd();
                cqs[i] = ids[i].verbs().createCq(8);
                bufs[i] = arena.allocate(4096, 64);
                mrs[i] = pd.registerMemory(bufs[i], Access.LOCAL_WRITE);
                qps[i] = ids[i].createQp(pd, QpInitAttr.of(QpType.UD, cqs[i], QpCap.of(4, 4)));
                qps[i].postRecv(new RecvWr().wrId(i).sg(mrs[i], 0, 2048));
                ids[i].joinMulticast(group, "m" + i);
                CmEvent e = expect(ch, CmEventType.MULTICAST_JOIN);
                assertThat(e.id()).isSameAs(ids[i]);
                assertThat(e.ud().ahAttr().dgid()).isEqualTo(Gid.of(group));
                if (i == 0) {
                    joined = e;
                }
            }
            byte[] msg = "to every member".getBytes();
            MemorySegment.copy(msg, 0, bufs[0], ValueLayout.JAVA_BYTE, 2048, msg.length);
            AddressHandle ah = qps[0].pd().createAh(joined.ud().ahAttr());
            qps[0].postSend(new SendWr().wrId(9).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
                    .sg(mrs[0], 2048, msg.length).ud(ah, joined.ud().qpNum(), joined.ud().qkey()));
            WorkCompletion s = poll(cqs[0], WAIT);
            assertThat(s).isNotNull();
            assertThat(s.wrId()).isEqualTo(9);
            assertThat(s.status()).isEqualTo(WcStatus.SUCCESS);
            for (int i = 1; i < 3; i++) {
                WorkCompletion r = poll(cqs[i], WAIT);
                assertThat(r).as("member %d got the datagram", i).isNotNull();
                assertThat(r.status()).isEqualTo(WcStatus.SUCCESS);
                assertThat(r.byteLen()).isEqualTo(40 + msg.length);
                assertThat(r.wcFlags() & WcFlags.GRH).isNotZero();
                assertThat(r.srcQp()).isEqualTo(qps[0].qpNum());
                byte[] got = new byte[msg.length];
                MemorySegment.copy(bufs[i], ValueLayout.JAVA_BYTE, 40, got, 0, msg.length);
                assertThat(got).isEqualTo(msg);
                assertThat(poll(cqs[i], Duration.ofMillis(300))).as("one copy for member %d", i).isNull();
            }
            assertThat(poll(cqs[0], Duration.ofMillis(300))).as("no copy for the sending QP").isNull();
            long rx1 = ((RxeDevice) ((DeviceImpl) Rdma.device("rxe1")).providerDevice()).counters()
                    .get(Counter.RCVD_PKTS);
            assertThat(rx1 - rx1Before).as("rxe1 received it from the wire").isGreaterThanOrEqualTo(1);
            for (CmId id : ids) {
                id.leaveMulticast(group);
                id.destroy();
            }
        }
    }

    @Test
    void anIpv6GroupOnRoceV2IsRefusedAtTheCallAsLinuxDoes() throws Exception {
        try (RdmaCm cm = RdmaCm.open("rxe0"); EventChannel ch = cm.createEventChannel()) {
            CmId id = ch.createId("v6", PortSpace.UDP, QpType.UD);
            id.bind(new InetSocketAddress("127.0.0.1", 0));
            assertThatThrownBy(() -> id.joinMulticast(InetAddress.getByName("ff0e::1234"), null))
                    .isInstanceOfSatisfying(RdmaException.class, e -> assertThat(e.errno())
                            .isEqualTo(Errno.EOPNOTSUPP));
            assertThat(ch.getEvent(Duration.ofMillis(200))).as("no event").isNull();
            id.destroy();
        }
    }
}
