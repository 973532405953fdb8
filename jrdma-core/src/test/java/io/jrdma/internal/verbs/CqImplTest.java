package io.jrdma.internal.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.verbs.AsyncEvent;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The completion queue ring: concurrent producers, resizing under load, arming, overflow. */
class CqImplTest {
    private static final long DEADLINE_NANOS = 20_000_000_000L;
    private Context ctx;

    @BeforeEach
    void open() {
        ctx = Rdma.device("loop0").open();
    }

    @AfterEach
    void close() {
        ctx.close();
    }

    private CqImpl cq(int cqe) {
        return (CqImpl) ctx.createCq(cqe);
    }

    private static boolean push(CqImpl cq, long wrId, WcStatus status, boolean solicited) {
        return cq.push(wrId, status, WcOpcode.RECV, 8, 0, 0x11, 0, 0, solicited);
    }

    /** Runs {@code producers} threads each pushing {@code perProducer} ids (producer << 32 | seq). */
    private static List<Thread> produce(CqImpl cq, int producers, int perProducer, CountDownLatch start,
            AtomicReference<Throwable> failure) {
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < producers; t++) {
            long tag = (long) t << 32;
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                    for (int i = 0; i < perProducer; i++) {
                        if (!push(cq, tag | i, WcStatus.SUCCESS, false)) {
                            throw new AssertionError("CQ overflowed at " + i);
                        }
                    }
                } catch (Exception | AssertionError e) {
                    failure.compareAndSet(null, e);
                }
            }));
        }
        return threads;
    }

    /**
     * Polls {@code total} completions, calling {@code between} after each batch, and checks that each
     * producer's ids arrive once each and in its push order.
     */
    private static void consume(CqImpl cq, int producers, int total, Runnable between,
            AtomicReference<Throwable> failure) {
        long[] next = new long[producers];
        WorkCompletion[] wc = new WorkCompletion[64];
        for (int i = 0; i < wc.length; i++) {
            wc[i] = new WorkCompletion();
        }
        int got = 0;
        long deadline = System.nanoTime() + DEADLINE_NANOS;
        while (got < total) {
            assertThat(failure.get()).isNull();
            assertThat(System.nanoTime() - deadline).as("%d of %d polled in time", got, total).isNegative();
            int n = cq.poll(wc);
            for (int i = 0; i < n; i++) {
                int producer = (int) (wc[i].wrId() >>> 32);
                long seq = wc[i].wrId() & 0xFFFF_FFFFL;
                assertThat(seq).as("producer %d's next id", producer).isEqualTo(next[producer]);
                next[producer]++;
            }
            got += n;
            if (n > 0) {
                between.run();
            } else {
                Thread.onSpinWait();
            }
        }
        assertThat(cq.poll(wc)).as("nothing beyond what was pushed").isZero();
    }

    @Test
    void concurrentProducersLoseAndDuplicateNothingAndKeepTheirOrder() throws Exception {
        CqImpl cq = cq(32767);
        int producers = 3;
        int per = 10_000;
        for (int round = 0; round < 3; round++) {
            CountDownLatch start = new CountDownLatch(1);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> threads = produce(cq, producers, per, start, failure);
            start.countDown();
            consume(cq, producers, producers * per, () -> { }, failure);
            for (Thread t : threads) {
                t.join(Duration.ofSeconds(10));
            }
            assertThat(failure.get()).isNull();
        }
        assertThat(cq.isInError()).isFalse();
    }

    @Test
    void resizingUnderLoadKeepsEveryCompletionInOrder() throws Exception {
        CqImpl cq = cq(16384);
        int producers = 3;
        int per = 5_000;
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = produce(cq, producers, per, start, failure);
        int[] polls = new int[1];
        start.countDown();
        consume(cq, producers, producers * per, () -> {
            if (++polls[0] % 16 == 0) {
                cq.resize(polls[0] % 32 == 0 ? 16384 : 32767);
            }
        }, failure);
        for (Thread t : threads) {
            t.join(Duration.ofSeconds(10));
        }
        assertThat(failure.get()).isNull();
        assertThat(polls[0]).isGreaterThan(16);
    }

    @Test
    void resizingBelowTheWaitingCompletionsIsEinvalAndKeepsThem() {
        CqImpl cq = cq(16);
        for (int i = 0; i < 10; i++) {
            assertThat(push(cq, i, WcStatus.SUCCESS, false)).isTrue();
        }
        assertThatThrownBy(() -> cq.resize(9)).isInstanceOfSatisfying(RdmaException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL)).hasMessageContaining("10");
        assertThat(cq.capacity()).isEqualTo(16);
        cq.resize(10);
        assertThat(cq.capacity()).isGreaterThanOrEqualTo(10);
        WorkCompletion[] wc = new WorkCompletion[16];
        for (int i = 0; i < wc.length; i++) {
            wc[i] = new WorkCompletion();
        }
        assertThat(cq.poll(wc)).isEqualTo(10);
        for (int i = 0; i < 10; i++) {
            assertThat(wc[i].wrId()).isEqualTo(i);
        }
    }

    @Test
    void armingIsOneShotAndSolicitedArmingWakesOnlyForSolicitedOrFailedCompletions() throws Exception {
        CompletionChannel ch = ctx.createCompletionChannel();
        CqImpl cq = (CqImpl) ctx.createCq(16, ch, 0);
        Duration quiet = Duration.ofMillis(20);
        push(cq, 1, WcStatus.SUCCESS, false);
        assertThat(ch.getEvent(quiet)).as("not armed").isNull();
        cq.requestNotify(false);
        push(cq, 2, WcStatus.SUCCESS, false);
        push(cq, 3, WcStatus.SUCCESS, false);
        assertThat(ch.getEvent(quiet)).isSameAs(cq);
        assertThat(ch.getEvent(quiet)).as("one event per arming").isNull();
        ch.ackEvents(cq, 1);
        cq.requestNotify(true);
        push(cq, 4, WcStatus.SUCCESS, false);
        assertThat(ch.getEvent(quiet)).as("unsolicited success").isNull();
        push(cq, 5, WcStatus.SUCCESS, true);
        assertThat(ch.getEvent(quiet)).as("solicited").isSameAs(cq);
        cq.requestNotify(true);
        push(cq, 6, WcStatus.WR_FLUSH_ERR, false);
        assertThat(ch.getEvent(quiet)).as("an error").isSameAs(cq);
        ch.ackEvents(cq, 2);
        assertThatThrownBy(() -> ch.ackEvents(cq, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void overflowPutsTheCqInErrorAndRaisesCqErrOnce() throws Exception {
        CqImpl cq = cq(4);
        int cap = cq.capacity();
        for (int i = 0; i < cap; i++) {
            assertThat(push(cq, i, WcStatus.SUCCESS, false)).isTrue();
        }
        assertThat(push(cq, 99, WcStatus.SUCCESS, false)).isFalse();
        assertThat(push(cq, 100, WcStatus.SUCCESS, false)).isFalse();
        assertThat(cq.isInError()).isTrue();
        AsyncEvent e = ctx.getAsyncEvent(Duration.ofSeconds(5));
        assertThat(e.type()).isEqualTo(AsyncEventType.CQ_ERR);
        assertThat(e.cq()).isSameAs(cq);
        assertThat(ctx.getAsyncEvent(Duration.ofMillis(20))).as("only once").isNull();
    }

    /**
     * Progress hooks: an empty poll runs them; a thread that arms the CQ, or polls it while armed, is about
     * to wait for the event and hands the engine back; a poll of an unarmed CQ does not.
     */
    @Test
    void armingOrPollingAnArmedCqHandsTheEngineBackAndAPlainPollDoesNot() throws Exception {
        CompletionChannel ch = ctx.createCompletionChannel();
        CqImpl cq = (CqImpl) ctx.createCq(4, ch, 0);
        int[] calls = new int[2];
        cq.addProgressHook(new CqImpl.ProgressHook() {
            @Override
            public int progress() {
                calls[0]++;
                return 0;
            }

            @Override
            public void handBack() {
                calls[1]++;
            }
        });
        WorkCompletion[] wc = {new WorkCompletion()};
        assertThat(cq.poll(wc)).isZero();
        assertThat(calls).as("a plain empty poll: progress, no hand-back").containsExactly(1, 0);
        cq.requestNotify(false);
        assertThat(calls).as("arming: progress, then hand back").containsExactly(2, 1);
        assertThat(cq.poll(wc)).isZero();
        assertThat(calls).as("polling the armed CQ").containsExactly(3, 2);
        push(cq, 1, WcStatus.SUCCESS, false);
        assertThat(ch.getEvent(Duration.ofSeconds(5))).isSameAs(cq);
        ch.ackEvents(cq, 1);
        assertThat(cq.poll(wc)).isEqualTo(1);
        assertThat(cq.poll(wc)).isZero();
        assertThat(calls).as("disarmed by the event: a plain poll again").containsExactly(4, 2);
    }
}
