package io.jrdma.internal.cm;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.cm.IwCmEventType;
import io.jrdma.cm.IwConnParam;
import io.jrdma.spi.IwCmProvider;
import io.jrdma.verbs.QueuePair;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * iw_cm upcalls are delivered on the provider's thread: one at a time per id, an event the handler
 * itself raises after the handler returns, and an event another thread raises meanwhile after both.
 */
class IwCmDispatchTest {
    private static final InetSocketAddress A = new InetSocketAddress("127.0.0.1", 1);
    private static final InetSocketAddress B = new InetSocketAddress("127.0.0.1", 2);

    /** A provider connection that only has addresses. */
    private static final IwCmProvider.Connection CONN = new IwCmProvider.Connection() {
        @Override
        public InetSocketAddress localAddress() {
            return A;
        }

        @Override
        public InetSocketAddress remoteAddress() {
            return B;
        }

        @Override
        public void setUpcalls(IwCmProvider.Upcalls upcalls) {
        }

        @Override
        public void accept(QueuePair qp, IwConnParam param) {
        }

        @Override
        public void reject(byte[] privateData) {
        }

        @Override
        public void disconnect(boolean abrupt) {
        }

        @Override
        public void close() {
        }
    };

    @Test
    void eventsRaisedInsideAHandlerFollowItAndAnotherThreadsEventFollowsThem() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        CountDownLatch inHandler = new CountDownLatch(1);
        CountDownLatch otherPosted = new CountDownLatch(1);
        IwCmIdImpl[] self = new IwCmIdImpl[1];
        Thread[] other = new Thread[1];
        boolean[] blockedSeen = new boolean[1];
        IwCmIdImpl id = new IwCmIdImpl(null, (i, e) -> {
            seen.add("begin " + e.type() + " on " + Thread.currentThread().getName());
            if (e.type() == IwCmEventType.ESTABLISHED) {
                // As accept raising ESTABLISHED inside a CONNECT_REQUEST handler: the provider reports the
                // peer's orderly close while this handler still runs, on this thread.
                self[0].disconnect(CONN);
                inHandler.countDown();
                try {
                    assertThat(otherPosted.await(5, TimeUnit.SECONDS)).isTrue();
                    // Until the other provider thread waits on this id's handler lock (the only place it
                    // can park), so its CLOSE is raised while this handler still runs.
                    long end = System.nanoTime() + 5_000_000_000L;
                    while (other[0].getState() != Thread.State.WAITING && System.nanoTime() < end) {
                        Thread.onSpinWait();
                    }
                    blockedSeen[0] = other[0].getState() == Thread.State.WAITING;
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }
            seen.add("end " + e.type());
            return false;
        }, null);
        self[0] = id;
        Thread provider = Thread.ofPlatform().name("provider-1").start(() -> id.established(CONN));
        assertThat(inHandler.await(5, TimeUnit.SECONDS)).isTrue();
        other[0] = Thread.ofPlatform().name("provider-2").unstarted(() -> {
            otherPosted.countDown();
            id.close(CONN, 0);
        });
        other[0].start();
        provider.join(5_000);
        other[0].join(5_000);
        assertThat(blockedSeen[0]).as("the second provider thread waited on the handler lock").isTrue();
        assertThat(seen).containsExactly(
                "begin ESTABLISHED on provider-1", "end ESTABLISHED",
                "begin DISCONNECT on provider-1", "end DISCONNECT",
                "begin CLOSE on provider-2", "end CLOSE");
    }

    @Test
    void aHandlerThatAsksForDestroyGetsNoFurtherEvent() {
        List<IwCmEventType> seen = new CopyOnWriteArrayList<>();
        IwCmIdImpl[] self = new IwCmIdImpl[1];
        IwCmIdImpl id = new IwCmIdImpl(null, (i, e) -> {
            seen.add(e.type());
            if (e.type() == IwCmEventType.ESTABLISHED) {
                self[0].disconnect(CONN); // raised inside, queued behind this handler
                return true; // destroy the id
            }
            return false;
        }, null);
        self[0] = id;
        id.established(CONN);
        id.close(CONN, 0);
        assertThat(seen).containsExactly(IwCmEventType.ESTABLISHED);
        assertThat(id.isDestroyed()).isTrue();
    }
}
