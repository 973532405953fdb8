package io.jrdma.internal.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The QP number layout every provider shares: the reserved numbers are never a QP's, the window of indexes
 * maps one to one onto QPNs, and where it starts differs from one process to the next (a client that starts
 * over on the same address must not announce the QPN its previous process had, or the IB CM takes it for a
 * stale copy of that connection).
 */
class QpNumbersTest {
    /** A child JVM's entry point: prints the first QPN this process hands out. */
    public static final class FirstQpn {
        private FirstQpn() {
        }

        public static void main(String[] args) {
            System.out.println(QpNumbers.qpn(0));
        }
    }

    @Test
    void everyIndexOfTheWindowIsAQpnOutsideTheReservedOnesAndMapsBack() {
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < QpNumbers.WINDOW; i++) {
            int qpn = QpNumbers.qpn(i);
            assertThat(qpn).isBetween(QpNumbers.FIRST, QpNumbers.LAST);
            assertThat(QpNumbers.index(qpn)).isEqualTo(i);
            assertThat(seen.add(qpn)).isTrue();
        }
        assertThat(seen).doesNotContain(0, 1, 0x10, 0xFFFFFF);
    }

    @Test
    void numbersNoQpOfThisProcessCanHaveHaveNoIndex() {
        for (int qpn : new int[] {0, 1, 0x10, 0xFFFFFF, 0x1000000, -1, Integer.MIN_VALUE}) {
            assertThat(QpNumbers.index(qpn)).as("QPN 0x%x", qpn).isEqualTo(-1);
        }
        // the QPNs just outside the window
        assertThat(QpNumbers.index(QpNumbers.qpn(QpNumbers.WINDOW - 1) == QpNumbers.LAST ? QpNumbers.FIRST
                : QpNumbers.qpn(QpNumbers.WINDOW - 1) + 1)).isEqualTo(-1);
        int before = QpNumbers.qpn(0) == QpNumbers.FIRST ? QpNumbers.LAST : QpNumbers.qpn(0) - 1;
        assertThat(QpNumbers.index(before)).isEqualTo(-1);
    }

    @Test
    void theFirstQpnDiffersFromOneProcessToTheNext() throws Exception {
        // Two more JVMs and this one: 24 random bits each, so three equal first QPNs would be a 1 in 2^48 event.
        Set<Integer> firsts = new HashSet<>();
        firsts.add(QpNumbers.qpn(0));
        firsts.add(firstQpnOfAnotherProcess());
        firsts.add(firstQpnOfAnotherProcess());
        assertThat(firsts).as("first QPNs of three processes").hasSize(3);
    }

    private static int firstQpnOfAnotherProcess() throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"),
                FirstQpn.class.getName())).redirectErrorStream(true).start();
        try {
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the child JVM ends").isTrue();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            assertThat(p.exitValue()).as(out).isZero();
            return Integer.parseInt(out);
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void aDeviceFindsEachQpByItsNumberAndNothingByAReservedOne() {
        try (LoopPair p = new LoopPair()) {
            int a = p.a.qpNum();
            int b = p.b.qpNum();
            assertThat(QpNumbers.index(a)).isNotNegative();
            assertThat(QpNumbers.index(b)).isNotNegative().isNotEqualTo(QpNumbers.index(a));
            DeviceImpl dev = ((QpImpl) p.a).deviceImpl();
            assertThat(dev.qp(a)).isSameAs(p.a);
            assertThat(dev.qp(b)).isSameAs(p.b);
            assertThat(dev.qp(0)).isNull();
            assertThat(dev.qp(0xFFFFFF)).isNull();
        }
    }
}
