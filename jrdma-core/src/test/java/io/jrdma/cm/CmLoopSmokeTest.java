package io.jrdma.cm;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QueuePair;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class CmLoopSmokeTest {
    private static CmEvent expect(EventChannel ch, CmEventType type) throws InterruptedException {
        CmEvent e = ch.getEvent(Duration.ofSeconds(5));
        assertThat(e).as("waiting for " + type).isNotNull();
        assertThat(e.type()).as(e.toString()).isEqualTo(type);
        ch.ackEvent(e);
        return e;
    }

    @Test
    void channelClientAndServerConnectExchangePrivateDataAndDisconnect() throws Exception {
        try (RdmaCm cm = RdmaCm.open("loop0"); EventChannel ch = cm.createEventChannel()) {
            CmId listener = ch.createId("server", PortSpace.TCP);
            listener.bind(new InetSocketAddress("127.0.0.1", 0));
            listener.listen(4);
            int port = listener.localPort();

            CmId client = ch.createId("client", PortSpace.TCP);
            client.resolveAddr(null, new InetSocketAddress("127.0.0.1", port), Duration.ofSeconds(2));
            expect(ch, CmEventType.ADDR_RESOLVED);
            client.resolveRoute(Duration.ofSeconds(2));
            expect(ch, CmEventType.ROUTE_RESOLVED);
            ProtectionDomain pd = client.verbs().allocPd();
            CompletionQueue cq = client.verbs().createCq(16);
            QueuePair cqp = client.createQp(pd, QpInitAttr.rc(cq, QpCap.of(4, 4)));
            client.connect(ConnParam.defaults().withPrivateData(new byte[] {1, 2, 3}));

            CmEvent req = ch.getEvent(Duration.ofSeconds(5));
            assertThat(req.type()).isEqualTo(CmEventType.CONNECT_REQUEST);
            assertThat(req.listenId()).isSameAs(listener);
            assertThat(req.privateData()).containsExactly(1, 2, 3);
            CmId conn = req.id();
            QueuePair sqp = conn.createQp(pd, QpInitAttr.rc(cq, QpCap.of(4, 4)));
            conn.accept(ConnParam.defaults().withPrivateData(new byte[] {9}));
            ch.ackEvent(req);

            CmEvent a = ch.getEvent(Duration.ofSeconds(5));
            CmEvent b = ch.getEvent(Duration.ofSeconds(5));
            assertThat(a.type()).isEqualTo(CmEventType.ESTABLISHED);
            assertThat(b.type()).isEqualTo(CmEventType.ESTABLISHED);
            CmEvent clientEst = a.id() == client ? a : b;
            assertThat(clientEst.privateData()).containsExactly(9);
            ch.ackEvent(a);
            ch.ackEvent(b);
            assertThat(cqp.state()).isEqualTo(QpState.RTS);
            assertThat(sqp.state()).isEqualTo(QpState.RTS);
            assertThat(cqp.query().destQpNum()).isEqualTo(sqp.qpNum());

            client.disconnect();
            CmEvent d1 = expect(ch, CmEventType.DISCONNECTED);
            assertThat(d1.id()).isSameAs(conn);
            conn.disconnect(); // as librdmacm applications do on DISCONNECTED: this sends the DREP
            CmEvent d2 = expect(ch, CmEventType.DISCONNECTED);
            assertThat(d2.id()).isSameAs(client);
            assertThat(cqp.state()).isEqualTo(QpState.ERR);
            conn.destroyQp();
            client.destroyQp();
            conn.destroy();
            client.destroy();
            listener.destroy();
            assertThat(cm.idCount()).isZero();
        }
    }
}
