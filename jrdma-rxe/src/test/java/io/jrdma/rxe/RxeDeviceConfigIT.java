package io.jrdma.rxe;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.cm.RdmaCm;
import io.jrdma.endpoint.EndpointListener;
import io.jrdma.endpoint.EndpointOptions;
import io.jrdma.endpoint.Message;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Counter;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.OwnedDevice;
import io.jrdma.verbs.Rdma;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two rxe devices opened with different configurations in one JVM, beside those of the system
 * properties: each has its own MTU (seen in its port and in the packets a message takes), the smaller
 * connects to the larger, and closing them frees their sockets and engine threads.
 */
@Timeout(120)
class RxeDeviceConfigIT {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final int MESSAGE = 8192;
    private static final EndpointOptions BIG = EndpointOptions.defaults().withMessageSize(MESSAGE);

    /**
     * Packets the device's QPs sent: its sent packets less its CM MADs, whose count a retransmitted REQ or DREQ
     * on a loaded host changes.
     */
    private static long sentPackets(String device) {
        try (Context c = Rdma.device(device).open()) {
            var counters = c.queryCounters();
            return counters.get(Counter.SENT_PKTS) - counters.get(Counter.CM_TX_MADS);
        }
    }

    private static void oneMessage(String from, InetAddress fromAddress, String to, InetAddress toAddress) {
        byte[] data = new byte[MESSAGE];
        Arrays.fill(data, (byte) 0x3c);
        try (RdmaCm serverCm = RdmaCm.open(to);
                RdmaCm clientCm = RdmaCm.open(from);
                EndpointListener l = EndpointListener.listen(serverCm, new InetSocketAddress(toAddress, 0), BIG);
                io.jrdma.endpoint.Endpoint client = io.jrdma.endpoint.Endpoint.connect(clientCm,
                        new InetSocketAddress(fromAddress, 0), l.localAddress(), BIG);
                io.jrdma.endpoint.Endpoint server = l.accept(WAIT)) {
            assertThat(client.device().name()).isEqualTo(from);
            assertThat(server.device().name()).isEqualTo(to);
            client.send(MemorySegment.ofArray(data));
            try (Message m = server.receive(WAIT)) {
                assertThat(m).as(from + " -> " + to).isNotNull();
                assertThat(m.toArray()).isEqualTo(data);
            }
        }
    }

    @Test
    void twoDifferentlyConfiguredDevicesMoveDataEachAtItsOwnMtuAndToEachOther() throws Exception {
        InetAddress a = InetAddress.getByName("127.0.0.21");
        InetAddress b = InetAddress.getByName("127.0.0.22");
        RxeDeviceConfig small = RxeDeviceConfig.named("rxe21", a).withMtu(Mtu.MTU_1024);
        RxeDeviceConfig large = RxeDeviceConfig.named("rxe22", b).withMtu(Mtu.MTU_4096).withIcrcCheck(false);
        try (OwnedDevice rxe21 = Rdma.open(small); OwnedDevice rxe22 = Rdma.open(large)) {
            try (Context c21 = rxe21.open(); Context c22 = rxe22.open()) {
                assertThat(c21.queryPort(1).activeMtu()).isEqualTo(Mtu.MTU_1024);
                assertThat(c22.queryPort(1).activeMtu()).isEqualTo(Mtu.MTU_4096);
            }
            // The same exchange on each (one 8 KiB SEND and its acknowledgement, besides the CM's datagrams):
            // 8 data packets at a 1024-byte MTU, 2 at 4096.
            long before = sentPackets("rxe21");
            oneMessage("rxe21", a, "rxe21", a);
            long small1024 = sentPackets("rxe21") - before;
            before = sentPackets("rxe22");
            oneMessage("rxe22", b, "rxe22", b);
            long large4096 = sentPackets("rxe22") - before;
            assertThat(small1024 - large4096).as("packets at 1024 (%d) beyond those at 4096 (%d)", small1024,
                    large4096).isGreaterThanOrEqualTo(6);
            // From the smaller MTU to the larger: the REQ's path MTU (1024) suits both ports. (The other
            // way the passive port refuses a path MTU above its own, as its max_mtu is its active MTU.)
            oneMessage("rxe21", a, "rxe22", b);
        }
        assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
                .as("the closed devices' engine threads ended").noneMatch(n -> n.contains("rxe-engine-rxe2"));
        // their UDP ports are free again: the same devices open once more
        Rdma.open(RxeDeviceConfig.named("rxe21", InetAddress.getByName("127.0.0.21"))).close();
    }
}
