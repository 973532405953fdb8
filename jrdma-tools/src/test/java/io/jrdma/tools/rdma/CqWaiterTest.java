package io.jrdma.tools.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.EventChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.WorkCompletion;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

class CqWaiterTest {
    /** A CQ whose polls return the scripted counts in turn (0 when the script is done). */
    private static CompletionQueue cq(Deque<Integer> polls) {
        return (CompletionQueue) Proxy.newProxyInstance(CqWaiterTest.class.getClassLoader(),
                new Class<?>[] {CompletionQueue.class}, (proxy, m, args) -> {
                    if (m.getName().equals("poll")) {
                        Integer n = polls.poll();
                        return n == null ? 0 : n;
                    }
                    throw new UnsupportedOperationException(m.getName());
                });
    }

    /** A channel whose pollEvent returns {@code e} once, then null. */
    private static EventChannel channel(CmEvent e) {
        CmEvent[] next = {e};
        return (EventChannel) Proxy.newProxyInstance(CqWaiterTest.class.getClassLoader(),
                new Class<?>[] {EventChannel.class}, (proxy, m, args) -> {
                    if (m.getName().equals("pollEvent")) {
                        CmEvent out = next[0];
                        next[0] = null;
                        return out;
                    }
                    throw new UnsupportedOperationException(m.getName());
                });
    }

    private static CmEvent disconnected() {
        return new CmEvent(CmEventType.DISCONNECTED, null, null, 0, null, null, null, null);
    }

    @Test
    void aCompletionThatArrivedBeforeTheEventIsReturnedFirst() {
        // The CQ is empty when first polled; the completion lands, then the DISCONNECTED event.
        CqWaiter w = new CqWaiter(cq(new ArrayDeque<>(List.of(0, 1))), channel(disconnected()));
        WorkCompletion wc = w.next(Duration.ofSeconds(1), "the last message");
        assertThat(wc).as("the completion, not the event").isNotNull();
        assertThat(w.next(Duration.ofSeconds(1), "more")).as("then the event").isNull();
        assertThat(w.takeEvent().type()).isEqualTo(CmEventType.DISCONNECTED);
    }

    @Test
    void anEventWithNoCompletionEndsTheWait() {
        CqWaiter w = new CqWaiter(cq(new ArrayDeque<>()), channel(disconnected()));
        assertThat(w.next(Duration.ofSeconds(1), "a message")).isNull();
        assertThat(w.takeEvent().type()).isEqualTo(CmEventType.DISCONNECTED);
    }
}
