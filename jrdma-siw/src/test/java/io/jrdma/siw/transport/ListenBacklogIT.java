package io.jrdma.siw.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.internal.cm.CmIdImpl;
import io.jrdma.testkit.Hygiene;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Connections per listener: rdma_listen's backlog bounds the connection requests the
 * application has not answered yet; one beyond it is rejected at once (the iWARP connection is reset, the
 * client sees REJECTED) and counted, while the pending ones stay answerable. With siw's default MPA
 * timeouts (10 s), so the pending requests outlive the test's steps.
 */
class ListenBacklogIT {
    @RegisterExtension
    final Hygiene hygiene = new Hygiene();

    @Test
    void connectionRequestsBeyondTheListenBacklogAreRejectedAndCounted() throws Exception {
        try (RdmaCm cm = RdmaCm.open("siw0")) {
            EventChannel server = cm.createEventChannel();
            EventChannel clients = cm.createEventChannel();
            CmId listener = server.createId(null, PortSpace.TCP);
            listener.bind(new InetSocketAddress("127.0.0.1", 0));
            listener.listen(2);
            InetSocketAddress at = new InetSocketAddress("127.0.0.1", listener.localPort());
            List<CmId> ids = new ArrayList<>();
            List<CmEvent> requests = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                CmId c = clients.createId(null, PortSpace.TCP);
                ids.add(c);
                c.resolveAddr(null, at, Duration.ofSeconds(2));
                assertThat(next(clients).type()).isEqualTo(CmEventType.ADDR_RESOLVED);
                c.resolveRoute(Duration.ofSeconds(2));
                assertThat(next(clients).type()).isEqualTo(CmEventType.ROUTE_RESOLVED);
                ProtectionDomain cpd = c.verbs().allocPd();
                c.createQp(cpd, QpInitAttr.rc(c.verbs().createCq(8), QpCap.of(4, 4)));
                c.connect(ConnParam.defaults());
                if (i < 2) {
                    // Each request reaches the listener before the next connect, so the third is the one beyond
                    // the backlog. Retrieving a CONNECT_REQUEST answers nothing: it keeps its place.
                    CmEvent req = next(server);
                    assertThat(req.type()).isEqualTo(CmEventType.CONNECT_REQUEST);
                    requests.add(req);
                }
            }
            CmEvent third = next(clients);
            assertThat(third.type()).as("the request beyond the backlog of 2: " + third).isEqualTo(
                    CmEventType.REJECTED);
            assertThat(third.id()).isSameAs(ids.get(2));
            assertThat(((CmIdImpl) listener).backlogRejects()).isEqualTo(1);
            for (CmEvent req : requests) {
                req.id().reject(null);
                req.id().destroy();
            }
            for (int i = 0; i < 2; i++) {
                CmEvent e = next(clients);
                assertThat(e.type()).as(e.toString()).isEqualTo(CmEventType.REJECTED);
            }
            for (CmId c : ids) {
                c.destroyQp();
                c.destroy();
            }
            listener.destroy();
            server.close();
            clients.close();
        }
    }

    private static CmEvent next(EventChannel ch) throws InterruptedException {
        CmEvent e = ch.getEvent(Duration.ofSeconds(10));
        assertThat(e).as("a CM event within 10 s").isNotNull();
        ch.ackEvent(e);
        return e;
    }
}
