package io.jrdma.siw.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.siw.SiwConfig;
import io.jrdma.verbs.WcStatus;
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
        Testbed.Connected link = tb.connected(tb.cm(SiwConfig.defaults()), 4);
        QpImpl a = link.active();
        QpImpl b = link.passive();
        Testbed.Buffer src = tb.buffer(4096, Testbed.ALL);
        Path file = dir.resolve("siw.jfr");
        List<RecordedEvent> events = List.of();
        try (Recording r = new Recording()) {
            r.enable("jrdma.Terminate");
            r.start();
            Testbed.post(a, Testbed.write(1, src, 0, 64, 0x7fff_ff00, 0));
            assertThat(tb.completion().status()).as("the WRITE left: RDMAP has no ACK").isEqualTo(WcStatus.SUCCESS);
            // Each side counts the TERMINATE and then commits its event, on its own engine thread: read
            // the recording until both events are in it (bounded), whichever side committed first.
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (events.size() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(5);
                r.dump(file);
                events = RecordingFile.readAllEvents(file).stream()
                        .filter(e -> e.getEventType().getName().equals("jrdma.Terminate"))
                        .sorted(Comparator.comparing((RecordedEvent e) -> e.getString("direction"),
                                Comparator.reverseOrder()))
                        .toList();
            }
            r.stop();
        }
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
