package io.jrdma.siw.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.siw.SiwConfig;
import io.jrdma.siw.cm.SiwCm;
import io.jrdma.spi.IwCmProvider;
import io.jrdma.verbs.WcStatus;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * siw's {@code jrdma.Terminate} event: an RDMA WRITE to an STag the responder does not know makes the
 * responder send a TERMINATE (DDP, tagged buffer error 1, invalid STag 0; RFC 5041 §7.2) and the
 * requester receive it; both ends record it with the layer, type and code.
 */
class JfrIT {
    @TempDir
    Path dir;
    private final Testbed tb = new Testbed();

    @AfterEach
    void close() {
        tb.close();
    }

    @Test
    void aWriteToAnUnknownStagRecordsTheTerminateSentAndReceived() throws Exception {
        SiwCm cm = tb.cm(SiwConfig.defaults());
        Upcalls server = new Upcalls();
        IwCmProvider.Listener l = tb.listen(cm, server);
        QpImpl a = tb.qp();
        Upcalls client = new Upcalls();
        cm.connect(a, new InetSocketAddress("127.0.0.1", 0), l.localAddress(), Testbed.param(4, 4), client);
        Upcalls.Up req = server.next("connectRequest");
        QpImpl b = tb.qp();
        req.conn().setUpcalls(server);
        req.conn().accept(b, Testbed.param(4, 4));
        server.next("established");
        assertThat(client.next("connectReply").status()).isZero();
        Testbed.Buffer src = tb.buffer(4096, Testbed.ALL);
        Path file = dir.resolve("siw.jfr");
        try (Recording r = new Recording()) {
            r.enable("jrdma.Terminate");
            r.start();
            Testbed.post(a, Testbed.write(1, src, 0, 64, 0x7fff_ff00, 0));
            assertThat(tb.completion().status()).as("the WRITE left: RDMAP has no ACK").isEqualTo(WcStatus.SUCCESS);
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (a.queryCounters().terminateReceived() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            r.stop();
            r.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("jrdma.Terminate"))
                .sorted(Comparator.comparing(RecordedEvent::getStartTime)).toList();
        assertThat(events).extracting(e -> e.getString("direction")).containsExactly("sent", "received");
        RecordedEvent sent = events.get(0);
        assertThat(sent.getInt("qpNum")).isEqualTo(b.qpNum());
        assertThat(sent.getString("device")).isEqualTo("siw0");
        assertThat(sent.getString("layer")).isEqualTo("DDP");
        assertThat(sent.getInt("errorType")).isEqualTo(1);
        assertThat(sent.getInt("errorCode")).isZero();
        assertThat(sent.getString("description")).isEqualTo("DDP_TAGGED_INVALID_STAG");
        RecordedEvent received = events.get(1);
        assertThat(received.getInt("qpNum")).isEqualTo(a.qpNum());
        assertThat(received.getString("layer")).isEqualTo("DDP");
        assertThat(received.getString("description")).isEqualTo("DDP_TAGGED_INVALID_STAG");
    }
}
