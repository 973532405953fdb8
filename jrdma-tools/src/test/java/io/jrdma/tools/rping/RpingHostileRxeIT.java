package io.jrdma.tools.rping;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.spi.ibcm.Rej;
import io.jrdma.spi.ibcm.Rep;
import io.jrdma.spi.ibcm.SidrRep;
import io.jrdma.spi.ibcm.SidrReq;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;

import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RejectReason;
import io.jrdma.internal.cm.ib.CmaHeader;
import io.jrdma.internal.cm.ib.IbCm;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.rxe.cm.RxeIbCmPeer;
import io.jrdma.testkit.Await;
import io.jrdma.testkit.ChildJvm;
import io.jrdma.testkit.Hygiene;
import io.jrdma.testkit.cm.IbCmPeer;
import io.jrdma.testkit.cm.RawReq;
import io.jrdma.tools.Jrdma;
import io.jrdma.tools.ToolHarness;
import io.jrdma.tools.ToolHarness.Outcome;
import io.jrdma.tools.ToolHarness.Server;
import io.jrdma.verbs.Rdma;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code jrdma rping -s -P} on rxe1 (127.0.0.2) against raw IB CM bytes from 127.0.0.30, as an independent
 * hostile-peer run sends them: SIDR_REQs for its RC listener beyond its backlog, a REQ whose path MTU the
 * port cannot carry, a REQ with 8-bit depths above the device's limits followed by silence. Each gets the
 * IB CM's answer; no exception reaches the server's threads; then an rping client in this JVM and two client
 * processes started one after the other from one address (one node GUID, and before, one first QPN) are all
 * served.
 */
@Timeout(240)
class RpingHostileRxeIT {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String SERVER = "127.0.0.2";
    /** The client processes' device address: one address, so one node GUID, for both. */
    private static final String CLIENT = "127.0.0.9";

    @RegisterExtension
    final Hygiene hygiene = new Hygiene();

    private static <T> T expect(IbCmPeer peer, Class<T> type) {
        IbCmPeer.Received r = peer.receive(WAIT);
        assertThat(r).as("a %s within %s", type.getSimpleName(), WAIT).isNotNull();
        assertThat(r.message()).isInstanceOf(type);
        return type.cast(r.message());
    }

    @Test
    void aPersistentServerAnswersRawCmBytesAndServesEveryClientAfterThem() throws Exception {
        int port = ToolHarness.freePort();
        DeviceImpl rxe1 = (DeviceImpl) Rdma.device("rxe1");
        int states = IbCm.of(rxe1).stateCount();
        Server server = ToolHarness.startServerAwaiting("rdma_listen", "rping", "-s", "-P", "-d", "-a", SERVER, "-p",
                Integer.toString(port), "--device", "rxe1", "--accept-timeout", "10", "--timeout", "5");
        InetAddress at = InetAddress.getByName(SERVER);
        try (IbCmPeer raw = new RxeIbCmPeer(InetAddress.getByName("127.0.0.30"), at)) {
            // SIDR_REQs naming the RC listener, more than rping's backlog: each refused, none counted.
            var pd = CmaHeader.of(raw.address(), 0xC005, at).prependTo(new byte[0], SidrReq.PRIVATE_DATA_LIMIT);
            for (int i = 0; i < 2 * Rping.BACKLOG; i++) {
                raw.send(0x5000 + i, new SidrReq(0x9000 + i, 0xFFFF, PortSpace.TCP.serviceId(port), pd));
                assertThat(expect(raw, SidrRep.class).status()).isEqualTo(SidrRep.STATUS_REJECT);
            }
            // A path MTU above rxe1's (the port's maximum is its configured MTU).
            int tooBig = rxe1.portAttributes().maxMtu().value() + 1;
            if (tooBig <= 5) {
                new RawReq(raw, at, port, tooBig).send();
                assertThat(expect(raw, Rej.class).reason()).isEqualTo(RejectReason.INVALID_MTU.value());
            }
            // Depths of 255 (rping answers with the depths asked for): the accept works, and the REQ's sender
            // then stays silent, so the REP runs out of retries (a few ms each here) and ends in REJ(timeout).
            RawReq deep = new RawReq(raw, at, port, rxe1.portAttributes().activeMtu().value()).depths(255, 255)
                    .timeouts(8, 1, 2);
            deep.send();
            Rep rep = expect(raw, Rep.class);
            assertThat(rep.remoteCommId()).isEqualTo(deep.commId());
            assertThat(rep.responderResources()).isBetween(1, rxe1.attributes().maxQpRdAtom());
            assertThat(rep.initiatorDepth()).isBetween(1, rxe1.attributes().maxQpInitRdAtom());
            IbCmPeer.Received next;
            do {
                next = raw.receive(WAIT);
                assertThat(next).as("the REP's retries, then a REJ").isNotNull();
            } while (next.message() instanceof Rep);
            assertThat(next.message()).isInstanceOf(Rej.class);
            assertThat(((Rej) next.message()).reason()).isEqualTo(RejectReason.TIMEOUT.value());
        }

        Outcome c = ToolHarness.run("rping", "-c", "-a", SERVER, "-p", Integer.toString(port), "-C", "3", "--device",
                "rxe0");
        assertThat(c.exitCode()).as(c.stderr()).isZero();
        for (int i = 0; i < 2; i++) {
            try (ChildJvm client = ChildJvm.start(null, List.of("-Djrdma.rxe.devices=rxe0:" + CLIENT,
                    "--enable-native-access=ALL-UNNAMED"), Jrdma.class, "rping", "-c", "-v", "-a", SERVER, "-I",
                    CLIENT, "-p", Integer.toString(port), "-C", "2", "--device", "rxe0")) {
                client.expect("ping data: rdma-ping-1: ", Duration.ofSeconds(60));
                assertThat(client.awaitExit(Duration.ofSeconds(30))).as("client process %d", i).isZero();
            }
        }

        Outcome s = server.await(Duration.ofSeconds(90));
        assertThat(s.exitCode()).as(s.stderr()).isZero();
        assertThat(s.stderr()).doesNotContain("Exception", "\tat ");
        assertThat(s.stderr().lines().filter(l -> l.equals("server DISCONNECT EVENT..."))).hasSize(3);
        Await.until("rxe1's IB CM state back to " + states, WAIT, () -> IbCm.of(rxe1).stateCount() <= states);
    }
}
