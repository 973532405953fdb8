package io.jrdma.siw;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.cm.RdmaCm;
import io.jrdma.endpoint.Endpoint;
import io.jrdma.endpoint.EndpointListener;
import io.jrdma.endpoint.EndpointOptions;
import io.jrdma.endpoint.Message;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Counter;
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
 * Two siw devices opened with different configurations in one JVM, beside siw0 from the system
 * properties: each carries connections with its own settings (here the FPDU size, seen in its
 * counters), they talk to each other, and closing them stops their engine threads.
 */
@Timeout(120)
class SiwDeviceConfigIT {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final int MESSAGE = 4096;
    /** siw1's largest FPDU: a 4 KiB message takes at least 16 of them. */
    private static final int SMALL_SEGMENT = 256;

    private static long fpdusSent(String device) {
        try (Context c = Rdma.device(device).open()) {
            return c.queryCounters().get(Counter.FPDUS_SENT);
        }
    }

    /** Sends one 4 KiB message from a client on {@code from} to a listener on {@code to}; checks it arrived. */
    private static void oneMessage(String from, String to) {
        byte[] data = new byte[MESSAGE];
        Arrays.fill(data, (byte) 0x5a);
        try (RdmaCm serverCm = RdmaCm.open(to);
                RdmaCm clientCm = RdmaCm.open(from);
                EndpointListener l = EndpointListener.listen(serverCm, new InetSocketAddress("127.0.0.1", 0));
                Endpoint client = Endpoint.connect(clientCm, l.localAddress(), EndpointOptions.defaults());
                Endpoint server = l.accept(WAIT)) {
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
    void twoDifferentlyConfiguredDevicesMoveDataEachWithItsOwnSettingsAndToEachOther() throws Exception {
        InetAddress lo = InetAddress.getByName("127.0.0.1");
        SiwDeviceConfig small = SiwDeviceConfig.named("siw1").withAddresses(lo)
                .withTransport(SiwConfig.defaults().withMaxSegment(SMALL_SEGMENT).withCrcRequired(true));
        SiwDeviceConfig plain = SiwDeviceConfig.named("siw2").withAddresses(lo)
                .withTransport(SiwConfig.defaults().withMpaRevision(1));
        try (OwnedDevice siw1 = Rdma.open(small); OwnedDevice siw2 = Rdma.open(plain)) {
            assertThat(Rdma.devices()).extracting(io.jrdma.verbs.Device::name).contains("siw0", "siw1", "siw2");
            assertThat(((SiwDeviceConfig) siw1.config()).transport().maxSegment()).isEqualTo(SMALL_SEGMENT);

            long before1 = fpdusSent("siw1");
            oneMessage("siw1", "siw1");
            assertThat(fpdusSent("siw1") - before1).as("siw1 cuts 4 KiB into FPDUs of at most 256 bytes")
                    .isGreaterThanOrEqualTo(MESSAGE / SMALL_SEGMENT);

            long before2 = fpdusSent("siw2");
            oneMessage("siw2", "siw2");
            assertThat(fpdusSent("siw2") - before2).as("siw2 sends 4 KiB in one FPDU (the path MSS)")
                    .isLessThan(MESSAGE / SMALL_SEGMENT);

            oneMessage("siw2", "siw1"); // MPA v1 with CRC asked for by the responder
            oneMessage("siw1", "siw2");
        }
        assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
                .as("the closed devices' engine threads ended").noneMatch(n -> n.startsWith("jrdma-siw-siw1")
                        || n.startsWith("jrdma-siw-siw2"));
        assertThat(Rdma.devices()).extracting(io.jrdma.verbs.Device::name).doesNotContain("siw1", "siw2");
    }
}
