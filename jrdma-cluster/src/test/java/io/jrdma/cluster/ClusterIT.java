package io.jrdma.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * A short cluster run in the build: three hosts in network namespaces for a few seconds on lossy,
 * rate-limited links, host 1 killed with SIGKILL (and restarted), stopped and continued, cut off and
 * partitioned. Every check of {@link Coordinator} must pass and every namespace must be gone afterwards.
 * Needs root and iproute2 (skipped otherwise); about 30 s on two cores.
 */
class ClusterIT {

    @Test
    void threeHostsLoseNothingWhileOneIsKilledStoppedCutOffAndPartitioned() throws Exception {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "network namespaces need root");
        Assumptions.assumeTrue(Network.run(false, "ip", "netns", "list") == 0, "iproute2 (ip netns) is not available");
        Assumptions.assumeTrue(Network.run(false, "tc", "qdisc", "show") == 0, "iproute2 (tc) is not available");
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(new Tee(bytes, System.out), true, StandardCharsets.UTF_8);
        String[] args = {"--hosts", "3", "--seconds", "6", "--kill", "1", "--netem", "loss 0.02% rate 2gbit",
            "--classpath", cp};
        Coordinator.Options o = Coordinator.Options.parse(args);
        long start = System.nanoTime();
        int failed = new Coordinator(o, out).run();
        String text = bytes.toString(StandardCharsets.UTF_8);
        List<String> lines = text.lines().toList();

        assertThat(lines.getLast()).matches("\\d+ passed, 0 failed");
        assertThat(failed).isZero();
        Matcher m = java.util.regex.Pattern.compile("(\\d+) passed").matcher(lines.getLast());
        assertThat(m.find()).isTrue();
        // network, READY, the restart, cleanup, and for each of 3 hosts 5 checks, and 2 end-to-end checks
        assertThat(Integer.parseInt(m.group(1))).isGreaterThanOrEqualTo(4 + 3 * 5 + 2);
        assertThat(text).contains("SIGKILL host 1", "SIGSTOP host 1", "link down host 1", "partition healed");
        for (String t : List.of("siw", "rxe")) {
            String row = lines.stream().filter(l -> l.matches(t + "\\s+\\d+\\s+[\\d.]+ MiB\\s+[\\d.]+ MiB/s"))
                    .findFirst().orElseThrow();
            assertThat(Double.parseDouble(row.trim().split("\\s+")[2])).as("%s verified MiB", t).isPositive();
        }
        assertThat(namespaces()).doesNotContain(Network.prefixOf(ProcessHandle.current().pid()) + "-");
        assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start)).isLessThan(90);
    }

    private static String namespaces() throws IOException, InterruptedException {
        Process p = new ProcessBuilder("ip", "netns", "list").redirectErrorStream(true).start();
        String s = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(10, TimeUnit.SECONDS);
        return s;
    }

    /** Writes to two streams. */
    private static final class Tee extends OutputStream {
        private final OutputStream a;
        private final OutputStream b;

        Tee(OutputStream a, OutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public void write(int c) throws IOException {
            a.write(c);
            b.write(c);
        }

        @Override
        public void write(byte[] buf, int off, int len) throws IOException {
            a.write(buf, off, len);
            b.write(buf, off, len);
        }

        @Override
        public void flush() throws IOException {
            a.flush();
            b.flush();
        }
    }
}
