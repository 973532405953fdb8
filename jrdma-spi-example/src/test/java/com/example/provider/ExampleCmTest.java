package com.example.provider;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.cm.RejectReason;
import io.jrdma.spi.ibcm.Octets;
import io.jrdma.spi.ibcm.Rej;
import io.jrdma.spi.ibcm.Req;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Counter;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QueuePair;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * rdma_cm over the example device: core's IB CM sends its REQ through the provider's datagram path as an
 * {@code io.jrdma.spi.ibcm} record, and takes the peer's REJ back from it.
 */
class ExampleCmTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    /** The peer: TEST-NET-1's next address, which no device serves. */
    private static final InetAddress PEER = peer();
    private static final int PORT = 7471;

    private static InetAddress peer() {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) 192, 0, 2, 2});
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    private static CmEvent expect(EventChannel ch, CmEventType type) throws InterruptedException {
        CmEvent e = ch.getEvent(WAIT);
        assertThat(e).as("an event within " + WAIT).isNotNull();
        assertThat(e.type()).isEqualTo(type);
        ch.ackEvent(e);
        return e;
    }

    @Test
    void theIbCmSendsItsReqThroughTheProviderAndTakesTheRejBack() throws Exception {
        ExampleCm path = ExampleProvider.device().cm();
        try (RdmaCm cm = RdmaCm.open(); EventChannel ch = cm.createEventChannel()) {
            CmId id = ch.createId(null, PortSpace.TCP);
            id.resolveAddr(new InetSocketAddress(ExampleDevice.ADDRESS, 0), new InetSocketAddress(PEER, PORT),
                    Duration.ofSeconds(2));
            expect(ch, CmEventType.ADDR_RESOLVED);
            assertThat(id.device().name()).isEqualTo(ExampleProvider.DEVICE);
            id.resolveRoute(Duration.ofSeconds(2));
            expect(ch, CmEventType.ROUTE_RESOLVED);
            ProtectionDomain pd = id.verbs().allocPd();
            CompletionQueue cq = id.verbs().createCq(8);
            QueuePair qp = id.createQp(pd, QpInitAttr.rc(cq, QpCap.of(4, 4)));
            id.connect(ConnParam.defaults());

            ExampleCm.Sent sent = path.nextSent(WAIT);
            assertThat(sent).as("a message within " + WAIT).isNotNull();
            assertThat(sent.destination()).isEqualTo(Gid.of(PEER));
            assertThat(sent.message()).isInstanceOf(Req.class);
            Req req = (Req) sent.message();
            assertThat(req.serviceId()).isEqualTo(PortSpace.TCP.serviceId(PORT));
            assertThat(req.localQpn()).isEqualTo(qp.qpNum());
            assertThat(req.localCaGuid()).isEqualTo(ExampleDevice.NODE_GUID);
            assertThat(req.primaryPath().localGid()).isEqualTo(Gid.of(ExampleDevice.ADDRESS));

            path.deliver(Gid.of(PEER), sent.tid(), new Rej(0x5150, req.localCommId(), Rej.REJECTED_REQ,
                    RejectReason.CONSUMER_DEFINED.value(), Octets.empty(), Octets.of(new byte[] {7, 7})));
            CmEvent rejected = expect(ch, CmEventType.REJECTED);
            assertThat(rejected.status()).isEqualTo(RejectReason.CONSUMER_DEFINED.value());
            assertThat(rejected.privateData()).startsWith(7, 7);

            // The provider's own counters (its shared set) are part of the device's.
            assertThat(id.verbs().queryCounters().get(Counter.CM_TX_MADS)).isPositive();
            assertThat(id.verbs().queryCounters().get(Counter.CM_RX_MADS)).isEqualTo(1);
            id.destroyQp();
            id.destroy();
        }
    }
}
