package io.jrdma.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The delay line between this JVM's namespace and a namespace made here: its device {@code ta} is moved into
 * that namespace ({@code 10.97.1.1}), {@code tb} stays here ({@code 10.97.1.2}). Nothing listens over there,
 * so a TCP connect is answered by the kernel's RST: it fails after exactly one round trip through the line.
 * Needs root, {@code /dev/net/tun} and iproute2 (skipped otherwise); a few seconds.
 */
class DelayLineIT {
    private static final InetSocketAddress CLOSED = new InetSocketAddress("10.97.1.1", 9);
    private final String ns = Network.prefixOf(ProcessHandle.current().pid()) + "-dl";
    private Process line;
    private PrintStream in;
    private BufferedReader out;

    @BeforeEach
    void start() throws IOException {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "namespaces and TUN need root");
        Assumptions.assumeTrue(Path.of("/dev/net/tun").toFile().exists(), "no /dev/net/tun");
        Assumptions.assumeTrue(Network.run(false, "ip", "netns", "add", ns) == 0, "ip netns is not available");
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        line = new ProcessBuilder(java, "-XX:+UseSerialGC", "--enable-native-access=ALL-UNNAMED", "-cp", cp,
                DelayLine.class.getName(), "--a", "jdlta", "--b", "jdltb", "--mtu", "1500", "--seed", "7")
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        in = new PrintStream(line.getOutputStream(), true, StandardCharsets.UTF_8);
        out = new BufferedReader(new InputStreamReader(line.getInputStream(), StandardCharsets.UTF_8));
        assertThat(out.readLine()).isEqualTo("ready");
        Network.must("ip", "link", "set", "jdlta", "netns", ns);
        Network.must("ip", "-n", ns, "addr", "add", "10.97.1.1", "peer", "10.97.1.2", "dev", "jdlta");
        Network.must("ip", "-n", ns, "link", "set", "jdlta", "up");
        Network.must("ip", "addr", "add", "10.97.1.2", "peer", "10.97.1.1", "dev", "jdltb");
        Network.must("ip", "link", "set", "jdltb", "txqueuelen", "4000", "up");
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (line != null) {
            line.destroyForcibly();
            line.waitFor(10, TimeUnit.SECONDS);
        }
        Network.run(false, "ip", "netns", "del", ns);
    }

    private void set(double delayUs, double lossPct) throws IOException {
        in.println("set " + delayUs + " " + lossPct);
        assertThat(out.readLine()).isEqualTo("ok");
    }

    /** received, dropped, overflow, forwarded of a>b then b>a. */
    private long[] stats() throws IOException {
        in.println("stats");
        long[] v = new long[8];
        for (int k = 0; k < 2; k++) {
            String[] w = out.readLine().split("\\s+");
            for (int i = 0; i < 4; i++) {
                v[4 * k + i] = Long.parseLong(w[2 + 2 * i]);
            }
        }
        return v;
    }

    /** The time a connect to the closed port takes to be refused, in ms. */
    private static double refusedAfterMs() {
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> {
            try (Socket s = new Socket()) {
                s.connect(CLOSED, 5_000);
            }
        }).isInstanceOf(ConnectException.class);
        return (System.nanoTime() - t0) / 1e6;
    }

    @Test
    void packetsCrossBothWaysAfterTheConfiguredDelayEach() throws IOException {
        set(0, 0);
        double direct = refusedAfterMs();
        long[] s = stats();
        assertThat(s[3]).as("the RST, from there (a) to here (b)").isPositive();
        assertThat(s[7]).as("the SYN, from here to there").isPositive();
        set(40_000, 0);
        double delayed = refusedAfterMs();
        assertThat(delayed).as("a round trip is two delays of 40 ms (direct: %.1f ms)", direct)
                .isGreaterThanOrEqualTo(80).isLessThan(direct + 80 + 1_000);
    }

    @Test
    void lossDropsThatShareOfPacketsAndAllOfThemAtHundredPercent() throws IOException {
        set(0, 100);
        assertThatThrownBy(() -> {
            try (Socket s = new Socket()) {
                s.connect(CLOSED, 300);
            }
        }).isInstanceOf(SocketTimeoutException.class);
        set(0, 30);
        long[] before = stats();
        try (DatagramSocket u = new DatagramSocket()) {
            byte[] b = new byte[64];
            DatagramPacket p = new DatagramPacket(b, b.length, InetAddress.getByName("10.97.1.1"), 9);
            for (int i = 0; i < 4000; i++) {
                u.send(p);
            }
        }
        // what the device's queue took reaches the line; a datagram the queue dropped on a busy machine does not
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long[] after = stats();
        long seen = -1;
        long since = System.nanoTime();
        while (System.nanoTime() < deadline && (after[4] - before[4] < 4000
                && System.nanoTime() - since < TimeUnit.SECONDS.toNanos(1)
                || after[7] < after[4] - after[5] - after[6])) {
            if (after[4] != seen) {
                seen = after[4];
                since = System.nanoTime();
            }
            Thread.onSpinWait();
            after = stats();
        }
        // this side's device is b: what is sent from here is the b>a lane
        long received = after[4] - before[4];
        long dropped = after[5] - before[5];
        assertThat(received).isBetween(2000L, 4000L);
        assertThat((double) dropped / received).isBetween(0.27, 0.33);
        assertThat(after[7] - before[7]).isEqualTo(received - dropped - (after[6] - before[6]));
    }
}
