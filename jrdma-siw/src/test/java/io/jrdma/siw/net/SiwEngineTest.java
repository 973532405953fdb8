package io.jrdma.siw.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.internal.engine.Doorbell;
import io.jrdma.siw.SiwConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The engine's doorbell rules: in application-driven mode the thread that posts runs the duty
 * cycle itself; a doorbell rung while another thread holds the engine is run by that thread before
 * it lets go; with engine threads a post only wakes the engine.
 */
class SiwEngineTest {
    private static SiwConfig config(boolean applicationDriven) {
        SiwConfig d = SiwConfig.defaults();
        return new SiwConfig(d.mpaRevision(), d.crcRequired(), d.peerToPeer(), d.rtr(), d.initiatorTimeout(),
                d.responderTimeout(), 1, false, applicationDriven, 0, null);
    }

    /** Records which threads ran its doorbell. */
    private static class Recorder implements SiwEngine.Schedulable {
        final List<Thread> ranOn = new ArrayList<>();
        final CountDownLatch ran = new CountDownLatch(1);
        Runnable during = () -> { };

        @Override
        public int onDoorbell() {
            synchronized (this) {
                ranOn.add(Thread.currentThread());
            }
            during.run();
            ran.countDown();
            return 1;
        }

        @Override
        public int onReadable() {
            return 0;
        }

        @Override
        public int onWritable() {
            return 0;
        }
    }

    @Test
    void inApplicationDrivenModeThePostingThreadRunsTheDoorbellBeforePostReturns() {
        SiwEngine engine = new SiwEngine("t0", config(true));
        Recorder r = new Recorder();
        engine.post(new Doorbell<>(r));
        assertThat(r.ranOn).containsExactly(Thread.currentThread());
    }

    @Test
    void aDoorbellRungWhileTheEngineIsHeldIsRunBeforeTheHolderLetsGo() {
        SiwEngine engine = new SiwEngine("t1", config(true));
        Recorder second = new Recorder();
        Doorbell<SiwEngine.Schedulable> secondBell = new Doorbell<>(second);
        Recorder first = new Recorder();
        // While the first doorbell runs, the engine is held: the nested post cannot run the cycle
        // itself and must find its doorbell run by the holder before doWork returns.
        first.during = () -> engine.post(secondBell);
        engine.post(new Doorbell<>(first));
        assertThat(first.ranOn).containsExactly(Thread.currentThread());
        assertThat(second.ranOn).containsExactly(Thread.currentThread());
    }

    @Test
    void withEngineThreadsAPostWakesTheEngineThreadInsteadOfRunningInline() throws InterruptedException {
        SiwEngine engine = new SiwEngine("t2", config(false));
        Recorder r = new Recorder();
        engine.post(new Doorbell<>(r));
        assertThat(r.ran.await(5, TimeUnit.SECONDS)).as("the engine thread ran the doorbell").isTrue();
        assertThat(r.ranOn).hasSize(1);
        assertThat(r.ranOn.get(0)).isNotEqualTo(Thread.currentThread());
        assertThat(r.ranOn.get(0).getName()).isEqualTo("jrdma-siw-t2");
    }

    /**
     * jrdma.siw.passiveSpinNanos: an engine nobody drives keeps polling after its thread found work,
     * for the configured time, and then waits in select again; without it, it waits in select at once.
     */
    @Test
    void anUndrivenEngineWithPassiveSpinPollsAfterItsLastWorkThenWaitsInSelect() throws InterruptedException {
        long spin = TimeUnit.SECONDS.toNanos(2);
        SiwEngine spinning = new SiwEngine("t3", config(true), spin);
        SiwEngine waiting = new SiwEngine("t4", config(true), 0);
        Recorder a = new Recorder();
        Recorder b = new Recorder();
        spinning.ring(new Doorbell<>(a));
        waiting.ring(new Doorbell<>(b));
        assertThat(a.ran.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(b.ran.await(5, TimeUnit.SECONDS)).isTrue();
        long ran = System.nanoTime(); // the spin counts from the work, which ended before this
        boolean spinningSelected = false;
        int samples = 0;
        while (System.nanoTime() - ran < spin / 2) {
            spinningSelected |= spinning.selecting();
            samples++;
            Thread.sleep(1);
        }
        assertThat(samples).isPositive();
        assertThat(spinningSelected).as("polls within the spin time").isFalse();
        assertThat(eventuallySelecting(waiting)).as("without spin it waits in select").isTrue();
        assertThat(eventuallySelecting(spinning)).as("waits in select after the spin time").isTrue();
    }

    /**
     * A poller that armed its CQ is about to sleep until the event: handing the engine back, so its
     * thread waits in select for the sockets at once instead of leaving the cycles to polls that will not
     * come until the idle time (here ten minutes) ran out.
     */
    @Test
    void aPollHoldsTheEngineThreadOffSelectUntilThePollerHandsItBack() throws InterruptedException {
        SiwEngine engine = new SiwEngine("t5", config(true), 0, TimeUnit.MINUTES.toNanos(10));
        try {
            Recorder r = new Recorder();
            engine.ring(new Doorbell<>(r)); // starts the engine thread
            assertThat(r.ran.await(5, TimeUnit.SECONDS)).isTrue();
            engine.progress(); // an application's empty poll
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (engine.selecting() && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            boolean selected = false;
            for (int i = 0; i < 100; i++) {
                selected |= engine.selecting();
                Thread.sleep(1);
            }
            assertThat(selected).as("while a poller drives it, the engine thread stays out of select").isFalse();
            engine.handBack();
            assertThat(eventuallySelecting(engine)).as("handed back: waits in select").isTrue();
        } finally {
            engine.stop();
        }
    }

    private static boolean eventuallySelecting(SiwEngine engine) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!engine.selecting() && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        return engine.selecting();
    }

    /** Counts readable and writable calls. */
    private static final class Reader implements SiwEngine.Schedulable {
        int readable;
        int writable;

        @Override
        public int onDoorbell() {
            return 0;
        }

        @Override
        public int onReadable() {
            readable++;
            return 0;
        }

        @Override
        public int onWritable() {
            writable++;
            return 0;
        }
    }

    private static java.nio.channels.SelectionKey register(SiwEngine engine,
            java.nio.channels.ServerSocketChannel server, Reader r, List<java.nio.channels.SocketChannel> open)
            throws java.io.IOException {
        java.nio.channels.SocketChannel c = java.nio.channels.SocketChannel.open(server.getLocalAddress());
        open.add(c);
        open.add(server.accept());
        c.configureBlocking(false);
        java.nio.channels.SelectionKey k = c.register(engine.selector(), java.nio.channels.SelectionKey.OP_READ, r);
        engine.addPollable(k);
        return k;
    }

    @Test
    void aPollingThreadReadsUpToTwoQpsDirectlyAndSelectsEverySixteenthCycleOrWhenOneWaitsToWrite() throws Exception {
        SiwEngine engine = new SiwEngine("t5", config(true));
        List<java.nio.channels.SocketChannel> open = new ArrayList<>();
        try (java.nio.channels.ServerSocketChannel server = java.nio.channels.ServerSocketChannel.open()
                .bind(new java.net.InetSocketAddress("127.0.0.1", 0))) {
            Reader a = new Reader();
            Reader b = new Reader();
            java.nio.channels.SelectionKey ka = register(engine, server, a, open);
            register(engine, server, b, open);
            for (int i = 0; i < 32; i++) {
                engine.progress();
            }
            // Nothing arrived: select would report nothing; direct polling reads both sockets anyway,
            // in 30 of 32 cycles (every 16th selects).
            assertThat(a.readable).isEqualTo(30);
            assertThat(b.readable).isEqualTo(30);
            ka.interestOps(java.nio.channels.SelectionKey.OP_READ | java.nio.channels.SelectionKey.OP_WRITE);
            for (int i = 0; i < 16; i++) {
                engine.progress();
            }
            assertThat(a.readable).as("a QP waits for room to write: every cycle selects").isEqualTo(30);
            assertThat(a.writable).as("and learns its socket is writable").isEqualTo(16);
            ka.interestOps(java.nio.channels.SelectionKey.OP_READ);
            Reader c = new Reader();
            java.nio.channels.SelectionKey kc = register(engine, server, c, open);
            for (int i = 0; i < 16; i++) {
                engine.progress();
            }
            assertThat(a.readable + b.readable + c.readable).as("three QPs: select, nothing is readable")
                    .isEqualTo(60);
            engine.removePollable(kc);
            for (int i = 0; i < 16; i++) {
                engine.progress();
            }
            assertThat(c.readable).isZero();
            assertThat(a.readable).as("two again: direct").isEqualTo(45);
        } finally {
            for (java.nio.channels.SocketChannel ch : open) {
                ch.close();
            }
        }
    }
}
