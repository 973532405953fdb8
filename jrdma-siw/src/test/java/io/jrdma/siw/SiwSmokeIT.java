package io.jrdma.siw;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SiwSmokeIT {
    private static CmEvent expect(EventChannel ch, CmEventType type) throws InterruptedException {
        CmEvent e = ch.getEvent(Duration.ofSeconds(10));
        assertThat(e).as("waiting for " + type).isNotNull();
        assertThat(e.type()).as(e.toString()).isEqualTo(type);
        ch.ackEvent(e);
        return e;
    }

    private static WorkCompletion pollOne(CompletionQueue cq) {
        WorkCompletion[] wc = {new WorkCompletion()};
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (cq.poll(wc) == 1) {
                return wc[0];
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no completion within 10 s");
    }

    @Test
    void sendWriteReadOverTcpBetweenTwoSiwQps() throws Exception {
        try (RdmaCm cm = RdmaCm.open("siw0"); EventChannel ch = cm.createEventChannel();
                Arena arena = Arena.ofShared()) {
            CmId listener = ch.createId("server", PortSpace.TCP);
            listener.bind(new InetSocketAddress("127.0.0.1", 0));
            listener.listen(4);
            CmId client = ch.createId("client", PortSpace.TCP);
            client.resolveAddr(null, new InetSocketAddress("127.0.0.1", listener.localPort()),
                    Duration.ofSeconds(2));
            expect(ch, CmEventType.ADDR_RESOLVED);
            client.resolveRoute(Duration.ofSeconds(2));
            expect(ch, CmEventType.ROUTE_RESOLVED);
            ProtectionDomain pd = client.verbs().allocPd();
            CompletionQueue ccq = client.verbs().createCq(64);
            CompletionQueue scq = client.verbs().createCq(64);
            QueuePair cqp = client.createQp(pd, QpInitAttr.rc(ccq, QpCap.of(16, 16)));
            int size = 300_000;
            MemorySegment cbuf = arena.allocate(size);
            MemorySegment sbuf = arena.allocate(size);
            for (int i = 0; i < size; i++) {
                cbuf.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
            }
            int acc = Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE;
            MemoryRegion cmr = pd.registerMemory(cbuf, acc);
            MemoryRegion smr = pd.registerMemory(sbuf, acc);
            client.connect(ConnParam.defaults().withPrivateData(new byte[] {5, 6}));
            CmEvent req = ch.getEvent(Duration.ofSeconds(10));
            assertThat(req.type()).isEqualTo(CmEventType.CONNECT_REQUEST);
            assertThat(req.privateData()).containsExactly(5, 6);
            CmId conn = req.id();
            QueuePair sqp = conn.createQp(pd, QpInitAttr.rc(scq, QpCap.of(16, 16)));
            sqp.postRecv(new RecvWr().wrId(1).sg(smr, 0, size));
            conn.accept(ConnParam.defaults().withPrivateData(new byte[] {7}));
            ch.ackEvent(req);
            CmEvent a = ch.getEvent(Duration.ofSeconds(10));
            CmEvent b = ch.getEvent(Duration.ofSeconds(10));
            assertThat(a.type()).isEqualTo(CmEventType.ESTABLISHED);
            assertThat(b.type()).isEqualTo(CmEventType.ESTABLISHED);
            ch.ackEvent(a);
            ch.ackEvent(b);

            cqp.postSend(new SendWr().wrId(10).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(cmr, 0, size));
            assertThat(pollOne(ccq).status()).isEqualTo(WcStatus.SUCCESS);
            WorkCompletion r = pollOne(scq);
            assertThat(r.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(r.byteLen()).isEqualTo(size);
            assertThat(sbuf.mismatch(cbuf)).isEqualTo(-1L);

            sbuf.fill((byte) 0);
            cqp.postSend(new SendWr().wrId(11).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sg(cmr, 0, size)
                    .rdma(smr.address(), smr.rkey()));
            assertThat(pollOne(ccq).status()).isEqualTo(WcStatus.SUCCESS);
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (sbuf.get(ValueLayout.JAVA_BYTE, size - 1) != cbuf.get(ValueLayout.JAVA_BYTE, size - 1)
                    && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(sbuf.mismatch(cbuf)).isEqualTo(-1L);

            cbuf.fill((byte) 0);
            cqp.postSend(new SendWr().wrId(12).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED).sg(cmr, 0, size)
                    .rdma(smr.address(), smr.rkey()));
            WorkCompletion rd = pollOne(ccq);
            assertThat(rd.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(rd.opcode()).isEqualTo(WcOpcode.RDMA_READ);
            assertThat(cbuf.mismatch(sbuf)).isEqualTo(-1L);

            client.disconnect();
            expect(ch, CmEventType.DISCONNECTED);
            conn.disconnect();
            expect(ch, CmEventType.DISCONNECTED);
            conn.destroyQp();
            client.destroyQp();
            conn.destroy();
            client.destroy();
            listener.destroy();
        }
    }
}
