package io.jrdma.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.cm.RdmaCm;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.RdmaException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Runs the rdma_server/rdma_client twins against each other in one JVM over loop0. */
class RdmaClientServerTest {
    private static final long WAIT_MS = 10_000;

    private static byte[] msg(String s) {
        return Arrays.copyOf(s.getBytes(StandardCharsets.US_ASCII), RdmaServer.MSG);
    }

    @Test
    void theClientsMessageReachesTheServerAndTheAnswerComesBack() throws Exception {
        try (RdmaCm serverCm = RdmaCm.open("loop0"); RdmaCm clientCm = RdmaCm.open("loop0")) {
            AtomicReference<byte[]> received = new AtomicReference<>();
            AtomicReference<Exception> failure = new AtomicReference<>();
            Thread server = Thread.ofPlatform().name("rdma_server").start(() -> {
                try {
                    received.set(RdmaServer.run(serverCm, RdmaServer.PORT, msg("pong from server")));
                } catch (InterruptedException | RuntimeException e) {
                    failure.set(e);
                }
            });
            byte[] answer = null;
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
            while (answer == null) {
                try {
                    answer = RdmaClient.run(clientCm, "127.0.0.1", RdmaServer.PORT, msg("ping from client"));
                } catch (RdmaException e) {
                    // The server thread may not listen yet: the REQ is refused; try again.
                    if (e.errno() != Errno.ECONNREFUSED || System.nanoTime() > deadline) {
                        throw e;
                    }
                    Thread.sleep(20);
                }
            }
            server.join(WAIT_MS);
            assertThat(server.isAlive()).isFalse();
            assertThat(failure.get()).isNull();
            assertThat(received.get()).as("what the server received").isEqualTo(msg("ping from client"));
            assertThat(answer).as("what the client received").isEqualTo(msg("pong from server"));
            assertThat(serverCm.idCount()).isZero();
            assertThat(clientCm.idCount()).isZero();
        }
    }
}
