package io.jrdma.rxe;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.spi.DeviceCounters;
import io.jrdma.verbs.Counter;
import io.jrdma.verbs.AsyncEvent;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcFlags;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import io.jrdma.testkit.Await;
import io.jrdma.internal.verbs.DeviceImpl;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** RC error paths between rxe0 and rxe1: RNR, retry exhaustion, NAKs, flush, invalidation. */
class RcErrorsIT {
    private Endpoint a;
    private Endpoint b;

    private void connect(Endpoint.Options o) {
        a = Endpoint.rc("rxe0", 1 << 16);
        b = Endpoint.rc("rxe1", 1 << 16);
        Endpoint.connect(a, b, o);
    }

    @AfterEach
    void close() {
        if (a != null) {
            a.close();
        }
        if (b != null) {
            b.close();
        }
    }

    private static DeviceCounters counters(String device) {
        return ((RxeDevice) ((DeviceImpl) Rdma.device(device)).providerDevice()).counters();
    }

    @Test
    void aSendWithoutAReceiveIsRnrNakedAndSucceedsOnceOneIsPosted() throws Exception {
        connect(new Endpoint.Options().minRnrTimer(12)); // 0.64 ms
        long rnrBefore = counters("rxe1").get(Counter.SEND_RNR_ERR);
        a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(a.mr, 0, 100));
        Await.until("rxe1 sends an RNR NAK", Duration.ofSeconds(5),
                () -> counters("rxe1").get(Counter.SEND_RNR_ERR) > rnrBefore);
        b.qp.postRecv(new RecvWr().wrId(9).sg(b.mr, 0, 100));
        assertThat(a.poll().status()).isEqualTo(WcStatus.SUCCESS);
        WorkCompletion r = b.poll();
        assertThat(r.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(r.byteLen()).isEqualTo(100);
    }

    @Test
    void rnrRetriesRunOutAsRnrRetryExcErrAndTheRestIsFlushed() {
        connect(new Endpoint.Options().rnrRetry(2).minRnrTimer(1));
        a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sg(a.mr, 0, 100));
        a.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sg(a.mr, 0, 100));
        List<WorkCompletion> wc = a.poll(2, 5000);
        assertThat(wc.get(0).wrId()).isEqualTo(1);
        assertThat(wc.get(0).status()).isEqualTo(WcStatus.RNR_RETRY_EXC_ERR);
        assertThat(wc.get(1).wrId()).isEqualTo(2);
        assertThat(wc.get(1).status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(a.qp.state()).isEqualTo(QpState.ERR);
    }

    @Test
    void aSilentPeerRunsOutTheTransportRetriesAsRetryExcErr() {
        connect(new Endpoint.Options().timeout(8).retryCnt(3)); // 1 ms ACK timeout
        b.qp.modify(new QpAttr().qpState(QpState.ERR)); // drops everything that arrives
        long retries = counters("rxe0").get(Counter.COMPLETER_RETRY_ERR);
        a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sg(a.mr, 0, 100)
                .rdma(b.mr.address(), b.mr.rkey()));
        WorkCompletion wc = a.poll(5000);
        assertThat(wc.status()).isEqualTo(WcStatus.RETRY_EXC_ERR);
        assertThat(counters("rxe0").get(Counter.COMPLETER_RETRY_ERR) - retries).isEqualTo(3);
        assertThat(a.qp.state()).isEqualTo(QpState.ERR);
    }

    @Test
    void aWriteWithAWrongRkeyIsRemoteAccessErrAndTheResponderGoesToErr() throws Exception {
        connect(new Endpoint.Options());
        a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sg(a.mr, 0, 100)
                .rdma(b.mr.address(), b.mr.rkey() ^ 0x100));
        WorkCompletion wc = a.poll();
        assertThat(wc.status()).isEqualTo(WcStatus.REM_ACCESS_ERR);
        AsyncEvent ev = b.ctx.getAsyncEvent(Duration.ofSeconds(5));
        assertThat(ev).isNotNull();
        assertThat(ev.type()).isEqualTo(AsyncEventType.QP_ACCESS_ERR);
        assertThat(b.qp.state()).isEqualTo(QpState.ERR);
    }

    @Test
    void aReadBeyondTheRegionIsRemoteAccessErr() {
        connect(new Endpoint.Options());
        a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_READ).sg(a.mr, 0, 4096)
                .rdma(b.mr.address() + b.mr.length() - 100, b.mr.rkey()));
        assertThat(a.poll().status()).isEqualTo(WcStatus.REM_ACCESS_ERR);
    }

    @Test
    void aSendLongerThanTheReceiveIsLocLenErrThereAndRemInvReqErrHere() {
        connect(new Endpoint.Options());
        b.qp.postRecv(new RecvWr().wrId(5).sg(b.mr, 0, 1000));
        a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sg(a.mr, 0, 3000));
        assertThat(a.poll().status()).isEqualTo(WcStatus.REM_INV_REQ_ERR);
        WorkCompletion r = b.poll();
        assertThat(r.wrId()).isEqualTo(5);
        assertThat(r.status()).isEqualTo(WcStatus.LOC_LEN_ERR);
    }

    @Test
    void anOperationTheQpsAccessFlagsForbidIsRemInvReqErr() {
        connect(new Endpoint.Options().access(0));
        a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_READ).sg(a.mr, 0, 64)
                .rdma(b.mr.address(), b.mr.rkey()));
        assertThat(a.poll().status()).isEqualTo(WcStatus.REM_INV_REQ_ERR);
    }

    @Test
    void movingToErrFlushesEveryPostedWorkRequestOnce() {
        connect(new Endpoint.Options());
        for (int i = 0; i < 5; i++) {
            b.qp.postRecv(new RecvWr().wrId(100 + i).sg(b.mr, 0, 64));
        }
        b.qp.modify(new QpAttr().qpState(QpState.ERR));
        List<WorkCompletion> wc = b.poll(5, 5000);
        for (int i = 0; i < 5; i++) {
            assertThat(wc.get(i).wrId()).isEqualTo(100 + i);
            assertThat(wc.get(i).status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
        }
        b.qp.postRecv(new RecvWr().wrId(200).sg(b.mr, 0, 64));
        assertThat(b.poll().status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
    }

    @Test
    void sendWithInvalidateInvalidatesTheRkeyAtTheResponder() {
        connect(new Endpoint.Options());
        MemoryRegion extra = b.pd.registerMemory(b.arena.allocate(4096), Endpoint.ALL_ACCESS);
        b.qp.postRecv(new RecvWr().wrId(1).sg(b.mr, 0, 64));
        a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(extra.rkey())
                .sg(a.mr, 0, 64).flags(SendFlags.SIGNALED));
        assertThat(a.poll().status()).isEqualTo(WcStatus.SUCCESS);
        WorkCompletion r = b.poll();
        assertThat(r.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(r.wcFlags() & WcFlags.WITH_INV).isNotZero();
        assertThat(r.invalidatedRkey()).isEqualTo(extra.rkey());
        assertThat(extra.isValid()).isFalse();
        a.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).sg(a.mr, 0, 64)
                .rdma(extra.address(), extra.rkey()));
        assertThat(a.poll().status()).isEqualTo(WcStatus.REM_ACCESS_ERR);
        extra.close();
    }

    @Test
    void manySmallMessagesBeyondTheUnackedWindowAllComplete() {
        connect(new Endpoint.Options());
        int n = 1000;
        for (int i = 0; i < n; i += 200) {
            for (int k = 0; k < 200; k++) {
                b.qp.postRecv(new RecvWr().wrId(i + k).sg(b.mr, (k % 16) * 64, 64));
            }
            for (int k = 0; k < 200; k++) {
                a.qp.postSend(new SendWr().wrId(i + k).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
                        .sg(a.mr, 0, 64));
            }
            List<WorkCompletion> s = a.poll(200, 10_000);
            List<WorkCompletion> r = b.poll(200, 10_000);
            for (int k = 0; k < 200; k++) {
                assertThat(s.get(k).wrId()).isEqualTo(i + k);
                assertThat(s.get(k).status()).isEqualTo(WcStatus.SUCCESS);
                assertThat(r.get(k).wrId()).isEqualTo(i + k);
            }
        }
    }

    @Test
    void readsBeyondTheInitiatorDepthWaitForCreditsAndAllComplete() {
        connect(new Endpoint.Options().rdAtomic(2));
        b.buf.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 0);
        for (int i = 0; i < 40; i++) {
            SendWr w = i % 2 == 0
                    ? new SendWr().opcode(WrOpcode.RDMA_READ).sg(a.mr, 8 * i, 8).rdma(b.mr.address() + 16, b.mr.rkey())
                    : new SendWr().opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).sg(a.mr, 8 * i, 8)
                            .atomic(b.mr.address(), b.mr.rkey(), 1, 0);
            a.qp.postSend(w.wrId(i).flags(SendFlags.SIGNALED));
        }
        List<WorkCompletion> wc = a.poll(40, 10_000);
        for (int i = 0; i < 40; i++) {
            assertThat(wc.get(i).status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.get(i).wrId()).isEqualTo(i);
        }
        assertThat(b.buf.get(ValueLayout.JAVA_LONG_UNALIGNED, 0)).isEqualTo(20);
    }
}
