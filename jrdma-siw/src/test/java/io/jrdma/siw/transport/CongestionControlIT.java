package io.jrdma.siw.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.siw.SiwConfig;
import io.jrdma.siw.TcpCongestion;
import io.jrdma.siw.cm.SiwCm;
import io.jrdma.spi.IwCmProvider;
import io.jrdma.testkit.Await;
import io.jrdma.testkit.Completion;
import io.jrdma.testkit.Hygiene;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.WcStatus;
import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code jrdma.siw.tcpCongestion}: both ends of a siw connection run the configured TCP congestion
 * control (the listener's choice reaches the accepted socket, the initiator chooses before it
 * connects), data flows over it, and an algorithm the kernel lacks fails listen and connect by name
 * without leaving a socket open.
 */
class CongestionControlIT {
    private static final int SIZE = 256 * 1024;

    @RegisterExtension
    final Hygiene hygiene = new Hygiene();
    private final Testbed tb = new Testbed();

    @BeforeAll
    static void linux() {
        assumeTrue(TcpCongestion.supported(), "Linux only");
    }

    @AfterEach
    void close() {
        tb.close();
    }

    /** An allowed algorithm other than the kernel's default, so that the test sees a change. */
    private static String notTheDefault() throws IOException {
        String dflt = Files.readString(Path.of("/proc/sys/net/ipv4/tcp_congestion_control")).strip();
        if (!dflt.equals("reno")) {
            return "reno"; // allowed to every process
        }
        List<String> allowed = List.of(Files.readString(Path.of("/proc/sys/net/ipv4/tcp_allowed_congestion_control"))
                .strip().split("\\s+"));
        assumeTrue(allowed.contains("cubic"), "the default is reno and cubic is not allowed here");
        return "cubic";
    }

    @Test
    void bothEndsRunTheConfiguredAlgorithmAndAWriteArrivesWhole() throws IOException {
        String want = notTheDefault();
        Testbed.Connected link = tb.connected(tb.cm(SiwConfig.defaults().withTcpCongestion(want)), 1);
        assertThat(TcpCongestion.get(link.listener().localAddress(), null)).as("listener").isEqualTo(want);
        assertThat(TcpCongestion.get(link.activeConn().localAddress(), link.activeConn().remoteAddress()))
                .as("initiator").isEqualTo(want);
        assertThat(TcpCongestion.get(link.passiveConn().localAddress(), link.passiveConn().remoteAddress()))
                .as("responder").isEqualTo(want);
        QpImpl a = link.active();
        QpImpl b = link.passive();

        Testbed.Buffer src = tb.buffer(SIZE, Testbed.ALL);
        Testbed.Buffer dst = tb.buffer(SIZE, Testbed.ALL);
        for (int i = 0; i < SIZE; i++) {
            src.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + 7));
        }
        Testbed.post(a, Testbed.write(1, src, 0, SIZE, dst.mr().rkey(), dst.addr(0)));
        Completion c = tb.completion();
        assertThat(c.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(c.wrId()).isEqualTo(1);
        // An iWARP WRITE completes at the requester once TCP has it (siw); placement at the peer follows.
        Await.until("the WRITE placed whole", Await.DEFAULT, () -> dst.segment().mismatch(src.segment()) == -1);
    }

    @Test
    void anAlgorithmTheKernelLacksFailsListenAndConnectByNameAndLeavesNoSocket() throws IOException {
        SiwCm cm = tb.cm(SiwConfig.defaults().withTcpCongestion("nosuchcc"));
        // Network sockets only (Hygiene): the JDK's own unix-domain ones come and go with its first use.
        // Others may close meanwhile, so the count may drop but must not grow; Hygiene's check after the
        // test catches what stays open for good.
        int before = Hygiene.sockets();
        assertThatThrownBy(() -> cm.listen(new InetSocketAddress("127.0.0.1", 0), 8, new Upcalls()))
                .isInstanceOfSatisfying(RdmaException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL))
                .hasMessageContaining("jrdma.siw.tcpCongestion=nosuchcc")
                .hasMessageContaining("not available on this host");
        assertThat(Hygiene.sockets()).as("network sockets after the failed listen").isLessThanOrEqualTo(before);

        SiwCm plain = tb.cm(SiwConfig.defaults());
        IwCmProvider.Listener l = tb.listen(plain, new Upcalls());
        QpImpl a = tb.qp();
        int withListener = Hygiene.sockets();
        assertThatThrownBy(() -> cm.connect(a, new InetSocketAddress("127.0.0.1", 0), l.localAddress(),
                Testbed.param(1, 1), new Upcalls()))
                .isInstanceOfSatisfying(RdmaException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL))
                .hasMessageContaining("nosuchcc");
        assertThat(Hygiene.sockets()).as("network sockets after the failed connect")
                .isLessThanOrEqualTo(withListener);
    }

    @Test
    void aMalformedNameIsRefusedByTheConfiguration() {
        assertThatThrownBy(() -> SiwConfig.defaults().withTcpCongestion("BBR v3"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("BBR v3");
    }
}
