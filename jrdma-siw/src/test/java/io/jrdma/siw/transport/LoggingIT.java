package io.jrdma.siw.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.siw.SiwConfig;
import io.jrdma.verbs.WcStatus;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * No logging on siw's data path: with every jrdma logger at FINEST, a thousand SENDs, WRITEs and READs
 * over TCP log nothing; the fatal path that follows (a WRITE to an unknown STag) logs with the QP
 * prefix.
 */
class LoggingIT {
    private final Testbed tb = new Testbed();
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Logger jrdma = Logger.getLogger("io.jrdma");
    private final Level saved = jrdma.getLevel();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord r) {
            records.add(r);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @AfterEach
    void close() {
        jrdma.removeHandler(handler);
        jrdma.setLevel(saved);
        tb.close();
    }

    @Test
    void trafficLogsNothingAndAFatalErrorLogsWithTheQpPrefix() {
        jrdma.setLevel(Level.ALL);
        handler.setLevel(Level.ALL);
        jrdma.addHandler(handler);
        Testbed.Connected link = tb.connected(tb.cm(SiwConfig.defaults()), 4);
        QpImpl a = link.active();
        QpImpl b = link.passive();
        Testbed.Buffer src = tb.buffer(8192, Testbed.ALL);
        Testbed.Buffer dst = tb.buffer(8192, Testbed.ALL);
        int before = records.size();
        for (int i = 0; i < 1000; i++) {
            Testbed.recv(b, i, dst, 0, 4096);
            Testbed.post(a, Testbed.send(i, src, 0, 2000));
            Testbed.post(a, Testbed.write(i, src, 0, 3000, dst.mr().rkey(), dst.addr(4096)));
            Testbed.post(a, Testbed.read(i, src, 4096, 3000, dst.mr().rkey(), dst.addr(4096)));
            for (int k = 0; k < 4; k++) {
                assertThat(tb.completion().status()).isEqualTo(WcStatus.SUCCESS);
            }
        }
        assertThat(records.subList(before, records.size())).as("log records during 3000 messages").isEmpty();
        Testbed.post(a, Testbed.write(9999, src, 0, 64, 0x7fff_ff00, 0));
        assertThat(tb.completion().status()).isEqualTo(WcStatus.SUCCESS);
        long deadline = System.nanoTime() + 5_000_000_000L;
        String prefix = "[qp 0x" + Integer.toHexString(b.qpNum()) + "]";
        while (records.stream().noneMatch(r -> r.getMessage().startsWith(prefix + " ")
                && r.getMessage().contains("TERMINATE")) && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(records).extracting(LogRecord::getMessage)
                .anyMatch(m -> m.startsWith(prefix + " ") && m.contains("DDP_TAGGED_INVALID_STAG"));
    }
}
