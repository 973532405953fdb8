package io.jrdma.siw.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.siw.SiwConfig;
import io.jrdma.siw.cm.SiwCm;
import io.jrdma.spi.IwCmProvider;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Closing a listener (rdma_destroy_id on a listening id; Linux iw_destroy_listen releases the socket
 * before it returns) must leave nothing listening: a connect that follows gets ECONNREFUSED, not a
 * connection that is queued and then reset. The listener's accepting thread is virtual, and a virtual
 * thread blocked in accept releases the socket only when it next runs; the test holds every carrier
 * thread of the virtual-thread scheduler busy while it closes, which is what a loaded machine does.
 */
class ListenerCloseIT {
    private static final long HOLD_NANOS = TimeUnit.MILLISECONDS.toNanos(300);

    @Test
    void aClosedListenerRefusesTheNextConnectEvenWhenVirtualThreadsAreBusy() throws Exception {
        try (Testbed tb = new Testbed()) {
            SiwCm cm = tb.cm(SiwConfig.defaults());
            InetAddress lo = InetAddress.getLoopbackAddress();
            IwCmProvider.Listener l = cm.listen(new InetSocketAddress(lo, 0), 8, new Upcalls());
            InetSocketAddress at = l.localAddress();
            try (SocketChannel probe = SocketChannel.open(at)) {
                assertThat(probe.isConnected()).as("listening before the close").isTrue();
            }
            int carriers = Integer.getInteger("jdk.virtualThreadScheduler.parallelism",
                    Runtime.getRuntime().availableProcessors());
            CountDownLatch spinning = new CountDownLatch(carriers);
            List<Thread> spinners = new ArrayList<>();
            for (int i = 0; i < carriers; i++) {
                spinners.add(Thread.ofVirtual().start(() -> {
                    spinning.countDown();
                    long end = System.nanoTime() + HOLD_NANOS;
                    while (System.nanoTime() - end < 0) {
                        Thread.onSpinWait();
                    }
                }));
            }
            assertThat(spinning.await(5, TimeUnit.SECONDS)).as("carriers busy").isTrue();
            l.close();
            assertThatThrownBy(() -> SocketChannel.open(at).close()).as("connect after close")
                    .isInstanceOf(ConnectException.class);
            for (Thread t : spinners) {
                assertThat(t.join(Duration.ofSeconds(5))).isTrue();
            }
        }
    }
}
