package io.jrdma.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.verbs.AsyncEvent;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.Context;
import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Asynchronous events: queued for {@code getAsyncEvent}, or delivered to a handler once one is set. */
abstract class AsyncEventChecks extends SuiteChecks {
    AsyncEventChecks(SuiteSupport support) {
        super(support);
    }

    @Test
    void aQuietContextTimesOutWithNull() throws Exception {
        Context ctx = openContext();
        long t0 = System.nanoTime();
        assertThat(ctx.getAsyncEvent(Duration.ofMillis(20))).isNull();
        assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(Duration.ofMillis(10).toNanos());
    }

    @Test
    void aHandlerReceivesTheEventsInsteadOfTheQueue() throws Exception {
        EndpointPair p = connect(QpOptions.rc().withCqDepth(4));
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, ALL, 2);
        LinkedBlockingQueue<AsyncEvent> got = new LinkedBlockingQueue<>();
        Context ctx = p.a().context();
        ctx.setAsyncEventHandler(got::add);
        assertThatThrownBy(() -> ctx.getAsyncEvent(Duration.ofMillis(1))).isInstanceOf(IllegalStateException.class);
        CompletionQueueChecks.writes(p, a, b, 1, p.a().cq().capacity() + 1);
        AsyncEvent e = null;
        long deadline = System.nanoTime() + Await.DEFAULT.toNanos();
        while (e == null || e.type() != AsyncEventType.CQ_ERR) {
            long left = deadline - System.nanoTime();
            assertThat(left).as("CQ_ERR reached the handler in time").isPositive();
            e = got.poll(left, TimeUnit.NANOSECONDS);
        }
        assertThat(e.cq()).isSameAs(p.a().cq());
        assertThat(e.toString()).contains("CQ_ERR");
        ctx.setAsyncEventHandler(null);
        assertThat(ctx.getAsyncEvent(Duration.ofMillis(1))).isNull();
    }
}
