package io.jrdma.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.cm.CmId;
import io.jrdma.cm.RdmaCm;
import io.jrdma.cm.UdParam;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Runs the examples in the build: server and client of each in one JVM, over the in-process
 * provider and, where the transport allows it, over iWARP on 127.0.0.1; each result is checked.
 */
@Timeout(60)
class ExamplesTest {
    /** Ports of these tests (the obs-docs range). */
    private static final int FIRST_PORT = 17720;
    private static final int LAST_PORT = 17799;

    private static InetSocketAddress freeAddress() {
        for (int p = FIRST_PORT; p <= LAST_PORT; p++) {
            InetSocketAddress a = new InetSocketAddress(InetAddress.getLoopbackAddress(), p);
            try (ServerSocket s = new ServerSocket()) {
                s.bind(a);
                return a;
            } catch (IOException e) {
                // taken
            }
        }
        throw new IllegalStateException("no free port in " + FIRST_PORT + ".." + LAST_PORT);
    }

    @ParameterizedTest
    @ValueSource(strings = {"loop0", "siw0"})
    void theReadWriteExampleReadsTheServersDataAndItsWriteLands(String device) throws Exception {
        InetSocketAddress at = freeAddress();
        try (RdmaCm serverCm = RdmaCm.open(device); RdmaCm clientCm = RdmaCm.open(device)) {
            CountDownLatch listening = new CountDownLatch(1);
            CompletableFuture<Boolean> server = CompletableFuture.supplyAsync(() -> {
                try {
                    return ReadWriteExample.serve(serverCm, at, listening::countDown);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(listening.await(10, TimeUnit.SECONDS)).as("the server listens").isTrue();
            ReadWriteExample.Result r = ReadWriteExample.run(clientCm, at);
            assertThat(r.readMatches()).as("the READ brought the server's pattern").isTrue();
            assertThat(r.advert().length()).isEqualTo(ReadWriteExample.SIZE);
            assertThat(r.bytesRead()).isEqualTo(ReadWriteExample.SIZE / 2);
            assertThat(server.get(10, TimeUnit.SECONDS)).as("the client's WRITE landed at the server").isTrue();
            assertThat(serverCm.idCount()).isZero();
            assertThat(clientCm.idCount()).isZero();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"loop0", "siw0"})
    void theHandlerExampleEchoesEveryMessage(String device) throws Exception {
        InetSocketAddress at = freeAddress();
        try (RdmaCm serverCm = RdmaCm.open(device); RdmaCm clientCm = RdmaCm.open(device)) {
            CmId listen = HandlerExample.serve(serverCm, at);
            try {
                assertThat(HandlerExample.run(clientCm, at, 500)).isEqualTo(500);
                long deadline = System.nanoTime() + 10_000_000_000L;
                // Both ids are destroyed after their DISCONNECTED handlers return, which may be after run().
                while ((serverCm.idCount() > 1 || clientCm.idCount() > 0) && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                assertThat(serverCm.idCount()).as("the DISCONNECTED handler's 'true' destroyed the connection's id")
                        .isEqualTo(1);
                assertThat(clientCm.idCount()).isZero();
            } finally {
                listen.destroy();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"loop0"})
    void theUdExampleDeliversDatagramsToTheQpSidrResolved(String device) throws Exception {
        InetSocketAddress at = freeAddress();
        try (RdmaCm serverCm = RdmaCm.open(device); RdmaCm clientCm = RdmaCm.open(device)) {
            CountDownLatch listening = new CountDownLatch(1);
            CompletableFuture<List<String>> server = CompletableFuture.supplyAsync(() -> {
                try {
                    return UdExample.serve(serverCm, at, 3, listening::countDown);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(listening.await(10, TimeUnit.SECONDS)).isTrue();
            UdParam remote = UdExample.run(clientCm, at, List.of("one", "two", "three"));
            assertThat(remote.qkey()).as("RDMA_UDP_QKEY").isEqualTo(0x01234567);
            assertThat(server.get(10, TimeUnit.SECONDS)).containsExactly("one", "two", "three");
            assertThat(serverCm.idCount()).isZero();
            assertThat(clientCm.idCount()).isZero();
        }
    }
}
