package io.jrdma.tools.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import io.jrdma.tools.ToolHarness;
import io.jrdma.tools.ToolHarness.Outcome;
import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.tools.perf.BwResult;
import io.jrdma.tools.perf.ReportUnit;
import io.jrdma.tools.perftest.PerfEngine;
import io.jrdma.tools.perftest.PerfRun;
import io.jrdma.tools.perftest.PerfSpec;
import io.jrdma.tools.perftest.PerfTest;
import io.jrdma.tools.perftest.Verification;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class DemoTest {

    @Test
    @Timeout(120)
    void theDemoMovesVerifiedDataOverIwarpAndPrintsOneTable() {
        Outcome o = ToolHarness.run("demo");
        assertThat(o.exitCode()).as(o.stderr()).isZero();
        List<String> rows = o.stdout().lines().filter(l -> l.matches("^(RDMA WRITE|RDMA READ|SEND/RECV|WRITE ping).*"))
                .toList();
        assertThat(rows).hasSize(16).allMatch(l -> l.contains("  ok, "));
        assertThat(o.stdout()).contains("over siw0 (iWARP", "All 16 runs verified");
        // Every figure carries its unit: the latency rows' typical and p99 are in us.
        assertThat(rows.stream().filter(l -> l.startsWith("WRITE ping"))).hasSize(4)
                .allMatch(l -> l.matches(".* us typ, p99 \\d+ us .*"));
    }

    @Test
    void aFailedCheckPrintsTheRowAndEndsWithAnError() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Demo demo = new Demo("loop0", false, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(OutputStream.nullOutputStream()), DemoTest::fakeRun);
        assertThatThrownBy(demo::run).isInstanceOf(ToolFailure.class)
                .hasMessage("read-bw 4096 B: verification failed: QP 0 slot 0: byte 7 differs");
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("FAILED: QP 0 slot 0: byte 7 differs")
                .doesNotContain("All 16 runs verified");
    }

    /** A run that lands every test except READ at 4 KiB, whose landing side finds a wrong byte. */
    private static PerfEngine.LocalRun fakeRun(PerfSpec spec) {
        int size = spec.sizes().get(0);
        BwResult row = new BwResult(size, spec.iterations(), 1, 1, 1, ReportUnit.MB_PER_SEC);
        boolean bad = spec.test() == PerfTest.READ_BW && size == 4096 && spec.verify();
        Verification v = bad ? Verification.failed(0, "QP 0 slot 0: byte 7 differs") : Verification.passed(size, 1, 1);
        PerfRun run = new PerfRun(spec.test(), false, "loop0", List.of(row), List.of(), List.of(), v, -1, -1);
        return new PerfEngine.LocalRun(run, run);
    }

    @Test
    void iterationsMoveAboutSixtyFourMebibytesPerBandwidthRun() {
        assertThat(Demo.iterationsFor(64, false)).isEqualTo(Demo.MAX_ITERATIONS);
        assertThat(Demo.iterationsFor(65536, false)).isEqualTo(1024);
        assertThat(Demo.iterationsFor(1 << 20, false)).isEqualTo(Demo.MIN_ITERATIONS);
        assertThat(Demo.bytes(64L << 20)).isEqualTo("64 MiB");
        assertThat(Demo.bytes(320_000)).isEqualTo("312.5 KiB");
    }
}
