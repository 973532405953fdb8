package io.jrdma.internal.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.verbs.AsyncEvent;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.PortState;
import io.jrdma.verbs.Rdma;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Port events (issue 2: port active/down delivered to the async handler). The host link under a
 * device's port going down is {@code IBV_EVENT_PORT_ERR} to every open context and the port's state
 * DOWN; coming back is {@code IBV_EVENT_PORT_ACTIVE}; a repeated state is no event. The link probe
 * reads the host's interfaces.
 */
class PortEventsTest {
    private static final long WAIT_MS = 5_000;
    private static final long QUIET_MS = 200;

    @Test
    void aLinkGoingDownAndUpIsPortErrThenPortActiveToEveryContext() throws Exception {
        DeviceImpl dev = (DeviceImpl) Rdma.device("loop0");
        try (Context a = dev.open(); Context b = dev.open()) {
            LinkedBlockingQueue<AsyncEvent> ea = new LinkedBlockingQueue<>();
            LinkedBlockingQueue<AsyncEvent> eb = new LinkedBlockingQueue<>();
            a.setAsyncEventHandler(ea::add);
            b.setAsyncEventHandler(eb::add);
            assertThat(a.queryPort(1).state()).isEqualTo(PortState.ACTIVE);
            try {
                dev.linkState(false);
                for (LinkedBlockingQueue<AsyncEvent> q : List.of(ea, eb)) {
                    AsyncEvent e = q.poll(WAIT_MS, TimeUnit.MILLISECONDS);
                    assertThat(e).isNotNull();
                    assertThat(e.type()).isEqualTo(AsyncEventType.PORT_ERR);
                    assertThat(e.port()).isEqualTo(1);
                }
                assertThat(a.queryPort(1).state()).isEqualTo(PortState.DOWN);
                assertThat(dev.linkUp()).isFalse();
                dev.linkState(false);
                assertThat(ea.poll(QUIET_MS, TimeUnit.MILLISECONDS)).as("no event for an unchanged state").isNull();
                dev.linkState(true);
                AsyncEvent up = ea.poll(WAIT_MS, TimeUnit.MILLISECONDS);
                assertThat(up).isNotNull();
                assertThat(up.type()).isEqualTo(AsyncEventType.PORT_ACTIVE);
                assertThat(eb.poll(WAIT_MS, TimeUnit.MILLISECONDS)).extracting(AsyncEvent::type)
                        .isEqualTo(AsyncEventType.PORT_ACTIVE);
                assertThat(b.queryPort(1).state()).isEqualTo(PortState.ACTIVE);
            } finally {
                dev.linkState(true);
            }
        }
    }

    @Test
    void theProbeFindsLoopbackUpAndAnAddressNoInterfaceCarriesDown() throws Exception {
        assertThat(LinkWatcher.isUp(List.of(InetAddress.getByName("127.0.0.1")))).isTrue();
        assertThat(LinkWatcher.isUp(List.of(InetAddress.getByName("127.0.0.9")))).as("inside 127.0.0.0/8").isTrue();
        assertThat(LinkWatcher.isUp(List.of(InetAddress.getByName("192.0.2.77")))).as("TEST-NET-1").isFalse();
        assertThat(LinkWatcher.isUp(List.of(InetAddress.getByName("192.0.2.77"), InetAddress.getByName("127.0.0.1"))))
                .as("any interface up").isTrue();
        assertThat(LinkWatcher.isUp(List.of())).isTrue();
    }

    @Test
    void theInProcessDeviceHasNoHostLinkToFollow() {
        DeviceImpl dev = (DeviceImpl) Rdma.device("loop0");
        assertThat(dev.providerDevice().followsNetworkLink()).isFalse();
    }
}
