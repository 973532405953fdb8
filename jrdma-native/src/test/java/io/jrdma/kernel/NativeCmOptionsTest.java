package io.jrdma.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.Ece;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.TransportType;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * rdma_set_option and ECE through {@code io.jrdma.cm} on the kernel device librdmacm binds the address
 * {@code -Dnative.cm.address} (10.0.2.15 by default) to: native:siw0 in the interop rig, native:rxe0 when it is
 * the only device on the address. The initiator sets TOS, the ACK timeout and the minimum RNR timer before its
 * address is resolved (they reach the kernel's id when it is made), the request's id sets its own ACK timeout
 * and RNR timer before accept; on IB and RoCE the QPs then hold those values (ibv_query_qp), and the
 * initiator's path its TOS as the traffic class. The connect offers ECE, the accept answers it: on IB and
 * RoCE each side sees the other's; iWARP has none, so there connect and accept with ECE are refused at the call
 * (as on jrdma's own iWARP ids) and the events carry none. A request rejected with {@code rejectEce} reaches the
 * initiator as REJECTED.
 */
class NativeCmOptionsTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final int TOS = 0x68;
    private static final int ACK_TIMEOUT = 18;
    private static final int ACCEPT_ACK_TIMEOUT = 16;
    private static final int MIN_RNR = 20;
    private static final int ACCEPT_MIN_RNR = 12;
    private static final Ece OFFER = new Ece(0x123456, 0x5);
    private static final Ece ANSWER = new Ece(0x123456, 0x1);
    private Device device;
    private InetAddress address;

    /** Skips without librdmacm or a kernel device on the address. */
    @BeforeEach
    void device() throws Exception {
        address = KernelCm.address();
        device = KernelCm.assumeDeviceOn(address);
    }

    private static RdmaCm open() {
        return KernelCm.open();
    }

    private static CmEvent expect(EventChannel ch, CmEventType type) throws InterruptedException {
        return KernelCm.expect(ch, type, WAIT);
    }

    private static QueuePair qp(CmId id) {
        Context ctx = id.verbs();
        return id.createQp(ctx.allocPd(), QpInitAttr.rc(ctx.createCq(16), new QpCap(8, 8, 1, 1, 0)));
    }

    private CmId resolved(EventChannel ch, int port) throws InterruptedException {
        CmId client = ch.createId(null, PortSpace.TCP);
        client.setTos(TOS);
        client.setAckTimeout(ACK_TIMEOUT);
        client.setMinRnrTimer(MIN_RNR);
        client.resolveAddr(null, new InetSocketAddress(address, port), Duration.ofSeconds(2));
        expect(ch, CmEventType.ADDR_RESOLVED);
        client.resolveRoute(Duration.ofSeconds(2));
        expect(ch, CmEventType.ROUTE_RESOLVED);
        assertThat(client.device()).as("the kernel's device").isEqualTo(device);
        return client;
    }

    @Test
    void optionsAndEceReachTheKernelAndTheQpsAndThePeer() throws Exception {
        int port = 21000 + (int) (ProcessHandle.current().pid() % 20000);
        boolean ib = device.transport() != TransportType.IWARP;
        try (RdmaCm cm = open()) {
            EventChannel sch = cm.createEventChannel();
            EventChannel cch = cm.createEventChannel();
            CmId listener = sch.createId(null, PortSpace.TCP);
            listener.setReuseAddr(true);
            listener.bind(new InetSocketAddress(address, port));
            listener.listen(4);
            CmId client = resolved(cch, port);
            QueuePair cqp = qp(client);
            if (ib) {
                client.connect(ConnParam.defaults(), OFFER);
            } else {
                assertThatThrownBy(() -> client.connect(ConnParam.defaults(), OFFER))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("iWARP has no ECE");
                client.connect(ConnParam.defaults());
            }

            CmEvent req = expect(sch, CmEventType.CONNECT_REQUEST);
            CmId child = req.id();
            System.out.println("OBSERVED " + device.name() + " request ECE " + req.ece() + ", remoteEce "
                    + child.remoteEce());
            child.setAckTimeout(ACCEPT_ACK_TIMEOUT);
            child.setMinRnrTimer(ACCEPT_MIN_RNR);
            QueuePair sqp = qp(child);
            child.accept(ConnParam.defaults(), ib ? ANSWER : Ece.NONE);
            CmEvent up = expect(cch, CmEventType.ESTABLISHED);
            expect(sch, CmEventType.ESTABLISHED);
            System.out.println("OBSERVED " + device.name() + " reply ECE " + up.ece() + ", remoteEce "
                    + client.remoteEce());
            QpAttr c = cqp.query();
            QpAttr s = sqp.query();
            System.out.println("OBSERVED " + device.name() + " initiator QP timeout " + c.timeout() + " min_rnr_timer "
                    + c.minRnrTimer() + " traffic_class " + (c.ahAttr() == null ? "-" : c.ahAttr().trafficClass())
                    + "; responder QP timeout " + s.timeout() + " min_rnr_timer " + s.minRnrTimer()
                    + " traffic_class " + (s.ahAttr() == null ? "-" : s.ahAttr().trafficClass()));
            if (ib) {
                assertThat(req.ece()).as("the offer, in the REQ").isEqualTo(OFFER);
                assertThat(child.remoteEce()).isEqualTo(OFFER);
                assertThat(up.ece()).as("the answer, in the REP").isEqualTo(ANSWER);
                assertThat(client.remoteEce()).isEqualTo(ANSWER);
                assertThat(c.timeout()).as("initiator's ACK timeout").isEqualTo(ACK_TIMEOUT);
                assertThat(c.minRnrTimer()).as("initiator's RNR timer").isEqualTo(MIN_RNR);
                assertThat(c.ahAttr().trafficClass()).as("initiator's TOS as traffic class").isEqualTo(TOS);
                assertThat(s.timeout()).as("responder's ACK timeout").isEqualTo(ACCEPT_ACK_TIMEOUT);
                assertThat(s.minRnrTimer()).as("responder's RNR timer").isEqualTo(ACCEPT_MIN_RNR);
            } else {
                assertThat(req.ece()).as("iWARP carries no ECE").isEqualTo(Ece.NONE);
                assertThat(up.ece()).isEqualTo(Ece.NONE);
            }
            client.disconnect();
            expect(sch, CmEventType.DISCONNECTED);
            if (ib) {
                child.disconnect(); // the IB CM's DREP: without it the initiator waits out the DREQ's retries
            }
            expect(cch, CmEventType.DISCONNECTED);
            client.destroy();
            child.destroy();
            listener.destroy();
        }
    }

    @Test
    void aRequestRejectedForItsEceReachesTheInitiatorAsRejected() throws Exception {
        int port = 22000 + (int) (ProcessHandle.current().pid() % 20000);
        try (RdmaCm cm = open()) {
            EventChannel sch = cm.createEventChannel();
            EventChannel cch = cm.createEventChannel();
            CmId listener = sch.createId(null, PortSpace.TCP);
            listener.bind(new InetSocketAddress(address, port));
            listener.listen(4);
            CmId client = resolved(cch, port);
            qp(client);
            client.connect(ConnParam.defaults(), device.transport() != TransportType.IWARP ? OFFER : Ece.NONE);
            CmEvent req = expect(sch, CmEventType.CONNECT_REQUEST);
            req.id().rejectEce(new byte[] {4, 2});
            CmEvent rej = expect(cch, CmEventType.REJECTED);
            System.out.println("OBSERVED " + device.name() + " rejectEce: REJECTED status " + rej.status()
                    + " private data " + rej.privateData().length + " B");
            if (device.transport() != TransportType.IWARP) {
                assertThat(rej.status()).as("IB CM reject reason 35, vendor option not supported").isEqualTo(35);
            }
            req.id().destroy();
            client.destroy();
            listener.destroy();
        }
    }
}
