package io.jrdma.loop;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.internal.engine.AgentInvoker;
import io.jrdma.internal.engine.ManualClock;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.AsyncEvent;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.RnrTimer;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The loop provider's RNR and transport retry timers, driven deterministically: both QPs run on an
 * engine of their own, invoked from the test thread (INVOKER mode) with a manual clock, so each retry
 * can be observed at its exact time (IBTA 9.7.5.2.8 and 9.7.6.1.3; rxe_comp.c's rnr_nak_timer and
 * retransmit timer).
 */
class LoopTimersTest {
    /** The responder's minimum RNR timer: code 14 = 1.28 ms. */
    private static final int RNR_CODE = 14;
    private static final long RNR_NANOS = RnrTimer.nanos(RNR_CODE);
    private static final int CYCLES = 100;

    private final ManualClock clock = new ManualClock(1_000_000);
    private final LoopEngine engine = new LoopEngine(clock);
    private final AgentInvoker invoker = new AgentInvoker(engine);
    private Context ctx;
    private Arena arena;
    private CompletionQueue cqA;
    private CompletionQueue cqB;
    private QueuePair a;
    private QueuePair b;
    private MemoryRegion mr;

    @BeforeEach
    void open() {
        arena = Arena.ofShared();
        ctx = Rdma.device("loop0").open();
    }

    @AfterEach
    void close() {
        ctx.close();
        arena.close();
        invoker.close();
    }

    /** Two RC QPs on the test's engine; {@code a} requests with the given retry settings. */
    private void connect(int rnrRetry, int retryCnt, int timeout) throws Exception {
        try (AutoCloseable bound = LoopFabric.instance().bindEngine(engine)) {
            ProtectionDomain pd = ctx.allocPd();
            cqA = ctx.createCq(16);
            cqB = ctx.createCq(16);
            a = pd.createQp(QpInitAttr.rc(cqA, QpCap.of(8, 8)));
            b = pd.createQp(QpInitAttr.rc(cqB, QpCap.of(8, 8)));
            mr = pd.registerMemory(arena.allocate(4096), Access.LOCAL_WRITE);
        }
        assertThat(((LoopQp) ((QpImpl) a).provider()).engine).as("a runs on the test's engine").isSameAs(engine);
        assertThat(((LoopQp) ((QpImpl) b).provider()).engine).isSameAs(engine);
        Gid gid = ctx.queryGid(1, 0);
        for (QueuePair[] p : new QueuePair[][] {{a, b}, {b, a}}) {
            p[0].modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(0));
            // a's own minimum RNR timer is the shortest: a waits for b's, the responder's, as IBTA says.
            p[0].modify(new QpAttr().qpState(QpState.RTR).ahAttr(AhAttr.to(gid)).pathMtu(Mtu.MTU_1024)
                    .destQpNum(p[1].qpNum()).rqPsn(0).maxDestRdAtomic(1).minRnrTimer(p[0] == a ? 1 : RNR_CODE));
            p[0].modify(new QpAttr().qpState(QpState.RTS).timeout(timeout).retryCnt(retryCnt).rnrRetry(rnrRetry)
                    .sqPsn(0).maxRdAtomic(1));
        }
        run();
    }

    private void run() {
        invoker.invokeUntilIdle(CYCLES);
    }

    private void advance(long nanos) {
        clock.advance(nanos);
        run();
    }

    private static WorkCompletion pollNow(CompletionQueue cq) {
        WorkCompletion[] wc = {new WorkCompletion()};
        return cq.poll(wc) == 1 ? wc[0] : null;
    }

    private void send() {
        assertThat(a.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(mr, 0, 8)))
                .isOne();
        run();
    }

    @ParameterizedTest(name = "rnr_retry {0}")
    @ValueSource(ints = {0, 1, 2, 3, 4, 5, 6})
    void rnrRetriesRunOutAfterExactlyRnrRetryWaitsOfTheRespondersTimer(int rnrRetry) throws Exception {
        connect(rnrRetry, 7, 14);
        send();
        for (int retry = 1; retry <= rnrRetry; retry++) {
            assertThat(pollNow(cqA)).as("before retry %d", retry).isNull();
            advance(RNR_NANOS - 1);
            assertThat(pollNow(cqA)).as("1 ns before retry %d", retry).isNull();
            advance(1);
        }
        WorkCompletion wc = pollNow(cqA);
        assertThat(wc).as("an error right after the last retry").isNotNull();
        assertThat(wc.status()).isEqualTo(WcStatus.RNR_RETRY_EXC_ERR);
        assertThat(a.state()).isEqualTo(QpState.ERR);
        assertThat(b.state()).isEqualTo(QpState.RTS);
        assertThat(pollNow(cqB)).isNull();
    }

    @Test
    void rnrRetrySevenWaitsAsLongAsItTakesAndTheNextRetryUsesANewReceive() throws Exception {
        connect(7, 7, 14);
        send();
        for (int i = 0; i < 1000; i++) {
            advance(RNR_NANOS);
        }
        assertThat(pollNow(cqA)).isNull();
        assertThat(b.postRecv(new RecvWr().wrId(9).sg(mr, 1024, 64))).isOne();
        run();
        assertThat(pollNow(cqA)).as("the requester waits for its RNR timer, not for the receive").isNull();
        advance(RNR_NANOS);
        assertThat(pollNow(cqA).status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(pollNow(cqB).wrId()).isEqualTo(9);
    }

    @Test
    void aReceivePostedWithinTheBudgetIsTakenAtTheNextRetry() throws Exception {
        connect(3, 7, 14);
        send();
        advance(RNR_NANOS);
        assertThat(b.postRecv(new RecvWr().wrId(9).sg(mr, 1024, 64))).isOne();
        advance(RNR_NANOS - 1);
        assertThat(pollNow(cqA)).isNull();
        advance(1);
        assertThat(pollNow(cqA).status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(pollNow(cqB).status()).isEqualTo(WcStatus.SUCCESS);
    }

    @Test
    void aSendWaitingForRnrRetriesIsFinishedWhileDrainingBeforeSqDrainedIsReported() throws Exception {
        connect(7, 7, 14);
        send();
        a.modify(new QpAttr().qpState(QpState.SQD).sqdAsyncNotify(true));
        run();
        assertThat(ctx.getAsyncEvent(Duration.ZERO)).as("SEND 1 is still outstanding").isNull();
        assertThat(b.postRecv(new RecvWr().wrId(9).sg(mr, 1024, 64))).isOne();
        advance(RNR_NANOS);
        assertThat(pollNow(cqA).status()).isEqualTo(WcStatus.SUCCESS);
        AsyncEvent e = ctx.getAsyncEvent(Duration.ZERO);
        assertThat(e).isNotNull();
        assertThat(e.type()).isEqualTo(AsyncEventType.SQ_DRAINED);
        assertThat(a.state()).isEqualTo(QpState.SQD);
    }

    @ParameterizedTest(name = "retry_cnt {0}")
    @ValueSource(ints = {0, 1, 3, 7})
    void transportRetriesRunOutAfterExactlyRetryCntAckTimeouts(int retryCnt) throws Exception {
        int timeout = 10;
        long ack = RnrTimer.ackTimeoutNanos(timeout);
        connect(7, retryCnt, timeout);
        b.close();
        send();
        for (int retry = 1; retry <= retryCnt; retry++) {
            assertThat(pollNow(cqA)).as("before retry %d", retry).isNull();
            advance(ack - 1);
            assertThat(pollNow(cqA)).isNull();
            advance(1);
        }
        WorkCompletion wc = pollNow(cqA);
        assertThat(wc).isNotNull();
        assertThat(wc.status()).isEqualTo(WcStatus.RETRY_EXC_ERR);
    }

    @Test
    void anAckTimeoutOfZeroWaitsForeverUntilTheQpIsMovedToError() throws Exception {
        connect(7, 7, 0);
        b.close();
        send();
        advance(3_600_000_000_000L);
        assertThat(pollNow(cqA)).isNull();
        a.modify(new QpAttr().qpState(QpState.ERR));
        run();
        assertThat(pollNow(cqA).status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
    }
}
