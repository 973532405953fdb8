package io.jrdma.siw.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.siw.SiwConfig;
import io.jrdma.siw.cm.SiwCm;
import io.jrdma.spi.IwCmProvider;
import io.jrdma.testkit.Await;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a connected QP costs while idle (issue 9: at most 16 KiB beyond its queues): {@value #PAIRS}
 * connections over 127.0.0.1 each move an RDMA WRITE of 64 KiB and two SENDs, then sit idle, and the
 * growth of the live heap (the class histogram after a full collection) and of direct memory is
 * divided by the QPs (each with queues of two WRs of one SGE: what is measured is not its queues).
 * The staging buffer, the transmit batches and the region views belong to the
 * engine, so a QP that has sent and received holds no direct memory at all.
 */
class QpMemoryIT {
    private static final int PAIRS = 48;
    /** Issue 9's budget per idle connected QP. */
    private static final long BUDGET = 16 * 1024;

    private final Testbed tb = new Testbed();
    private final WorkCompletion[] wc = Await.newArray(8);
    private final List<QpImpl> created = new ArrayList<>();

    @AfterEach
    void close() {
        for (QpImpl q : created) {
            q.close();
        }
        tb.close();
    }

    /** A QP in INIT with the smallest queues this test needs: what is measured is not its queues. */
    private QpImpl smallQp() {
        QpImpl qp = (QpImpl) tb.pd.createQp(QpInitAttr.rc(tb.cq, new QpCap(2, 2, 1, 1, 0)));
        qp.modify(new QpAttr().qpState(QpState.INIT).qpAccessFlags(Access.REMOTE_READ | Access.REMOTE_WRITE));
        created.add(qp);
        return qp;
    }

    private QpImpl[] pair(SiwCm cm, IwCmProvider.Listener l, Upcalls server) {
        QpImpl a = smallQp();
        Upcalls client = new Upcalls();
        cm.connect(a, new InetSocketAddress("127.0.0.1", 0), l.localAddress(), Testbed.param(16, 16), client);
        Upcalls.Up req = server.next("connectRequest");
        QpImpl b = smallQp();
        req.conn().setUpcalls(server);
        req.conn().accept(b, Testbed.param(16, 16));
        server.next("established");
        assertThat(client.next("connectReply").status()).isZero();
        return new QpImpl[] {a, b};
    }

    private void traffic(QpImpl[] p, Testbed.Buffer src, Testbed.Buffer dst) {
        Testbed.post(p[0], Testbed.write(1, src, 0, 65536, dst.mr().rkey(), dst.addr(0)));
        Testbed.recv(p[1], 2, dst, 0, 4096);
        Testbed.post(p[0], Testbed.send(3, src, 0, 100));
        await(3);
        Testbed.recv(p[0], 4, src, 0, 4096);
        Testbed.post(p[1], Testbed.send(5, dst, 0, 3000));
        await(2);
    }

    private void await(int n) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        int got = 0;
        while (got < n) {
            int k = tb.cq.poll(wc, 0, n - got);
            for (int i = 0; i < k; i++) {
                assertThat(wc[i].status()).as("completion %d", wc[i].wrId()).isEqualTo(WcStatus.SUCCESS);
            }
            got += k;
            if (k == 0 && System.nanoTime() > deadline) {
                throw new AssertionError("timed out with " + got + " of " + n + " completions");
            }
        }
    }

    @Test
    void anIdleConnectedQpThatHasMovedDataCostsFewKibAndNoDirectMemory() throws Exception {
        SiwCm cm = tb.cm(SiwConfig.defaults());
        Upcalls server = new Upcalls();
        IwCmProvider.Listener l = tb.listen(cm, server);
        Testbed.Buffer src = tb.buffer(65536, Testbed.ALL);
        Testbed.Buffer dst = tb.buffer(65536, Testbed.ALL);
        // Warm-up: the engine's staging buffer and a transmit batch exist from here on.
        traffic(pair(cm, l, server), src, dst);
        long[] before = snapshot();
        List<QpImpl[]> pairs = new ArrayList<>();
        for (int i = 0; i < PAIRS; i++) {
            QpImpl[] p = pair(cm, l, server);
            traffic(p, src, dst);
            pairs.add(p);
        }
        long[] after = snapshot();
        int qps = 2 * PAIRS;
        long heap = (after[0] - before[0]) / qps;
        long direct = (after[1] - before[1]) / qps;
        assertThat(direct).as("direct bytes per idle QP").isLessThan(256);
        assertThat(heap + direct).as("heap %d + direct %d bytes per idle QP", heap, direct).isLessThan(BUDGET);
        assertThat(pairs).hasSize(PAIRS); // still reachable: the QPs were alive while measured
    }

    /** Live heap (class histogram after a full collection) and direct buffer bytes. */
    private static long[] snapshot() throws Exception {
        ManagementFactory.getMemoryMXBean().gc();
        Thread.sleep(50); // cleaners of freed direct buffers
        String h = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[] {null}, new String[] {String[].class.getName()});
        long heap = -1;
        long filler = 0;
        for (String line : h.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 3 && f[0].equals("Total")) {
                heap = Long.parseLong(f[2]);
            } else if (f.length >= 4 && f[3].contains("FillerElement")) {
                filler += Long.parseLong(f[2]);
            }
        }
        long direct = 0;
        for (BufferPoolMXBean p : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            direct += p.getMemoryUsed();
        }
        return new long[] {heap - filler, direct};
    }
}
