package io.jrdma.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The intrusive MPSC doorbell queue: once per pending ring, never lost, never twice while pending. */
class DoorbellQueueTest {
    private static final class Owner {
        final Doorbell<Owner> bell = new Doorbell<>(this);
        final AtomicInteger pending = new AtomicInteger();
        final int id;

        Owner(int id) {
            this.id = id;
        }
    }

    @Test
    void aDoorbellRungWhilePendingIsDeliveredOnceAndCanBeRungAgainAfterwards() {
        AtomicInteger wakeups = new AtomicInteger();
        DoorbellQueue<Owner> q = new DoorbellQueue<>(wakeups::incrementAndGet);
        Owner o = new Owner(1);
        assertThat(q.isEmpty()).isTrue();
        q.ring(o.bell);
        q.ring(o.bell);
        q.ring(o.bell);
        assertThat(wakeups.get()).as("only a new ring wakes the agent").isEqualTo(1);
        assertThat(q.isEmpty()).isFalse();
        assertThat(q.poll()).isSameAs(o);
        assertThat(q.poll()).isNull();
        assertThat(q.isEmpty()).isTrue();
        q.ring(o.bell);
        assertThat(wakeups.get()).isEqualTo(2);
        assertThat(q.poll()).isSameAs(o);
        assertThat(q.poll()).isNull();
    }

    @Test
    void doorbellsOfSeveralOwnersComeOutInRingOrder() {
        DoorbellQueue<Owner> q = new DoorbellQueue<>(() -> { });
        Owner[] owners = {new Owner(0), new Owner(1), new Owner(2), new Owner(3)};
        for (int round = 0; round < 3; round++) {
            for (int i : new int[] {2, 0, 3, 1, 0}) {
                q.ring(owners[i].bell);
            }
            assertThat(q.poll()).isSameAs(owners[2]);
            assertThat(q.poll()).isSameAs(owners[0]);
            assertThat(q.poll()).isSameAs(owners[3]);
            assertThat(q.poll()).isSameAs(owners[1]);
            assertThat(q.poll()).isNull();
        }
    }

    @Test
    void concurrentRingsAreNeitherLostNorDeliveredTwiceWhilePending() throws Exception {
        AtomicInteger pushes = new AtomicInteger();
        DoorbellQueue<Owner> q = new DoorbellQueue<>(pushes::incrementAndGet);
        int ownersCount = 16;
        Owner[] owners = new Owner[ownersCount];
        for (int i = 0; i < ownersCount; i++) {
            owners[i] = new Owner(i);
        }
        int producers = 3;
        int ringsEach = 200_000;
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Exception> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int seed = p;
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                    SplittableRandom rnd = new SplittableRandom(seed);
                    for (int i = 0; i < ringsEach; i++) {
                        Owner o = owners[rnd.nextInt(ownersCount)];
                        o.pending.incrementAndGet();
                        q.ring(o.bell);
                    }
                } catch (InterruptedException e) {
                    failure.set(e);
                }
            }));
        }
        int deliveries = 0;
        long handled = 0;
        start.countDown();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        boolean producing = true;
        while (producing || !q.isEmpty()) {
            assertThat(System.nanoTime() - deadline).as("the queue drains in time").isNegative();
            Owner o = q.poll();
            if (o == null) {
                producing = threads.stream().anyMatch(Thread::isAlive);
                Thread.onSpinWait();
                continue;
            }
            deliveries++;
            handled += o.pending.getAndSet(0);
        }
        for (Thread t : threads) {
            t.join(Duration.ofSeconds(5));
        }
        // A final drain after the producers stopped.
        for (Owner o = q.poll(); o != null; o = q.poll()) {
            deliveries++;
            handled += o.pending.getAndSet(0);
        }
        assertThat(failure.get()).isNull();
        assertThat(deliveries).as("every push delivered exactly once").isEqualTo(pushes.get());
        for (Owner o : owners) {
            assertThat(o.pending.get()).as("owner %d has no ring left unhandled", o.id).isZero();
        }
        assertThat(handled).isEqualTo((long) producers * ringsEach);
        assertThat(deliveries).isLessThanOrEqualTo(producers * ringsEach);
    }
}
