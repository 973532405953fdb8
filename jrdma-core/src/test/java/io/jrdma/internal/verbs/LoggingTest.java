package io.jrdma.internal.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The logging rule: jrdma logs on the control plane, with the id prefix ({@code [qp 0x11]}), and
 * never on the data path. With every jrdma logger at FINEST (System.Logger's DEBUG and TRACE), QP
 * setup logs prefixed lines, and a thousand messages through loop0 log nothing at all.
 */
class LoggingTest {
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Logger jrdma = Logger.getLogger("io.jrdma");
    private Level saved;
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

    @BeforeEach
    void listen() {
        saved = jrdma.getLevel();
        jrdma.setLevel(Level.ALL);
        handler.setLevel(Level.ALL);
        jrdma.addHandler(handler);
    }

    @AfterEach
    void stop() {
        jrdma.removeHandler(handler);
        jrdma.setLevel(saved);
    }

    @Test
    void setupLogsWithTheQpPrefixAndTrafficLogsNothing() {
        try (LoopPair p = new LoopPair()) {
            String qp = "[qp 0x" + Integer.toHexString(p.a.qpNum()) + "]";
            assertThat(records).extracting(LogRecord::getMessage).anyMatch(m -> m.startsWith(qp + " created RC"))
                    .anyMatch(m -> m.equals(qp + " RTR -> RTS"));
            int before = records.size();
            for (int i = 0; i < 1000; i++) {
                p.b.postRecv(new RecvWr().wrId(i).sg(p.mrB, 0, 256));
                p.a.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(p.mrA, 0, 64));
                assertThat(LoopPair.poll(p.cqA).status()).isEqualTo(WcStatus.SUCCESS);
                assertThat(LoopPair.poll(p.cqB).status()).isEqualTo(WcStatus.SUCCESS);
            }
            assertThat(records.subList(before, records.size())).as("log records during 1000 messages").isEmpty();
        }
    }
}
