package io.jrdma.siw.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.siw.SiwConfig;
import io.jrdma.siw.cm.SiwCm;
import io.jrdma.spi.IwCmProvider;
import io.jrdma.testkit.Await;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * RDMA READs kept at the negotiated ORD while the responder's socket is full: megabytes of READ
 * responses are outstanding, so the responder's writes come back short, and the requester frees an
 * ORD credit (and sends the next request) as soon as a response arrived. The responder must have
 * freed that IRQ entry by then, although the rest of its socket write still waits; freeing IRQ
 * entries only when a whole write was done answered such a request with TERMINATE "READ requests
 * beyond IRD" (RFC 5040 §4.4, 6.3).
 */
class ReadPipelineIT {
    private static final int ORD = 16;
    private static final int SIZE = 256 * 1024;
    private static final int READS = 400;

    private final Testbed tb = new Testbed();
    private final WorkCompletion[] wc = Await.newArray(ORD);

    @AfterEach
    void close() {
        tb.close();
    }

    @Test
    void readsAtTheOrdCompleteWhileTheRespondersSocketIsFull() {
        SiwCm cm = tb.cm(SiwConfig.defaults());
        Upcalls server = new Upcalls();
        IwCmProvider.Listener l = tb.listen(cm, server);
        QpImpl a = tb.qp();
        Upcalls client = new Upcalls();
        cm.connect(a, new InetSocketAddress("127.0.0.1", 0), l.localAddress(), Testbed.param(ORD, ORD), client);
        Upcalls.Up req = server.next("connectRequest");
        QpImpl b = tb.qp();
        req.conn().setUpcalls(server);
        req.conn().accept(b, Testbed.param(ORD, ORD));
        server.next("established");
        assertThat(client.next("connectReply").status()).isZero();
        assertThat(a.attr().maxRdAtomic()).as("negotiated ORD").isEqualTo(ORD);

        Testbed.Buffer src = tb.buffer(SIZE, Testbed.ALL);
        Testbed.Buffer dst = tb.buffer(SIZE, Testbed.ALL);
        for (int i = 0; i < SIZE; i += 4096) {
            src.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (i / 4096));
        }
        int posted = 0;
        int done = 0;
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (done < READS) {
            while (posted < READS && posted - done < ORD) {
                Testbed.post(a, Testbed.read(posted, dst, 0, SIZE, src.mr().rkey(), src.addr(0)));
                posted++;
            }
            int n = tb.cq.poll(wc, 0, wc.length);
            for (int i = 0; i < n; i++) {
                assertThat(wc[i].status()).as("READ %d (QP %s)", wc[i].wrId(), a.state()).isEqualTo(WcStatus.SUCCESS);
            }
            done += n;
            assertThat(System.nanoTime()).as("%d of %d READs done", done, READS).isLessThan(deadline);
        }
        assertThat(a.state()).isEqualTo(QpState.RTS);
        assertThat(b.state()).isEqualTo(QpState.RTS);
        for (int i = 0; i < SIZE; i += 4096) {
            assertThat(dst.segment().get(ValueLayout.JAVA_BYTE, i)).isEqualTo((byte) (i / 4096));
        }
    }
}
