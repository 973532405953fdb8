package io.jrdma.tools.baseline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import io.jrdma.tools.ToolHarness;
import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.tools.perf.BwResult;
import io.jrdma.tools.perf.LatDurationResult;
import io.jrdma.tools.perf.LatResult;
import io.jrdma.tools.perf.PerfReporter;
import io.jrdma.tools.perf.ReportUnit;

/** The in-process baseline API over real sockets on 127.0.0.1. */
@Timeout(60)
class BaselinesIT {

    private static final Duration STALL = Duration.ofSeconds(5);

    private static BaselineSpec spec(BaselineTool tool, IoMode mode, List<Integer> sizes, long iterations) {
        return BaselineSpec.defaults(tool).withSizes(sizes).withIterations(iterations).withIoMode(mode)
                .withWarmup(100).withStallTimeout(STALL);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(BaselineTool.class)
    void eachBaselineReportsOneRowPerSizeWithTheIterationsAsked(BaselineTool tool) {
        List<BaselineRow> rows = Baselines.run(spec(tool, IoMode.BUSY_POLL, List.of(64, 1024), 200));
        assertThat(rows).hasSize(2);
        assertThat(rows).extracting(r -> r.result().bytes()).containsExactly(64L, 1024L);
        for (BaselineRow row : rows) {
            assertThat(row.clientMessages()).isEqualTo(200);
            assertPlausible(row, tool);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "TCP_LAT, BLOCKING", "TCP_LAT, EVENTS", "UDP_LAT, BLOCKING", "UDP_LAT, EVENTS",
        "TCP_BW, BLOCKING", "TCP_BW, EVENTS", "UDP_BW, BLOCKING", "UDP_BW, EVENTS",
    })
    void everyIoModeCompletesARun(BaselineTool tool, IoMode mode) {
        List<BaselineRow> rows = Baselines.run(spec(tool, mode, List.of(256), 300));
        assertThat(rows).singleElement().satisfies(r -> {
            assertThat(r.clientMessages()).isEqualTo(300);
            assertPlausible(r, tool);
        });
    }

    @Test
    void tcpStreamingCountsEveryByteOfLargeWritesIncludingTheLoopbackMss() {
        List<BaselineRow> rows = Baselines.run(spec(BaselineTool.TCP_BW, IoMode.BUSY_POLL,
                List.of(65_483, 65_536, 1 << 20), 50).withUnit(ReportUnit.GBIT_PER_SEC));
        assertThat(rows).extracting(r -> r.result().bytes()).containsExactly(65_483L, 65_536L, 1L << 20);
        for (BaselineRow r : rows) {
            assertThat(r.serverBytes()).isEqualTo(50 * r.result().bytes());
            assertThat(((BwResult) r.result()).unit()).isEqualTo(ReportUnit.GBIT_PER_SEC);
        }
    }

    @Test
    void timedBandwidthRunCountsTheSampleWindowWithoutPeak() {
        BaselineSpec s = spec(BaselineTool.TCP_BW, IoMode.BUSY_POLL, List.of(4096), 5).withDuration(1, 0);
        BwResult r = (BwResult) Baselines.run(s).getFirst().result();
        assertThat(r.iterations()).isPositive();
        assertThat(r.bwPeak()).isZero();
        assertThat(r.bwAverage()).isPositive();
    }

    @Test
    void timedLatencyRunReportsMeanRateAndHistogramPercentiles() {
        BaselineSpec s = spec(BaselineTool.TCP_LAT, IoMode.BUSY_POLL, List.of(64), 5).withDuration(1, 0);
        LatDurationResult r = (LatDurationResult) Baselines.run(s).getFirst().result();
        assertThat(r.iterations()).isPositive();
        assertThat(r.tAvg()).isPositive();
        assertThat(r.tpsAverage()).isPositive();
        assertThat(r.p50()).isPositive().isLessThanOrEqualTo(r.p99());
    }

    @Test
    void noPeakLeavesThePeakAtZero() {
        BaselineSpec s = new BaselineSpec(BaselineTool.TCP_BW, List.of(1024), 100, 0, 0, IoMode.BUSY_POLL,
                ReportUnit.MB_PER_SEC, true, 10, STALL, null);
        BwResult r = (BwResult) Baselines.run(s).getFirst().result();
        assertThat(r.bwPeak()).isZero();
        assertThat(r.bwAverage()).isPositive();
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"TCP_BW, BUSY_POLL", "UDP_BW, EVENTS", "TCP_LAT, EVENTS", "UDP_LAT, BUSY_POLL"})
    void theMessageLoopsAllocateNothingPerMessage(BaselineTool tool, IoMode mode) {
        // The client runs on this thread. Latency runs keep two long[] of samples (posted times and
        // their differences), allocated before and after the loop: 16 bytes per iteration.
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long[] allocated = new long[2];
        long[] iterations = {2_000, 12_000};
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < 2; i++) {
                BaselineSpec s = new BaselineSpec(tool, List.of(64), iterations[i], 0, 0, mode,
                        ReportUnit.MB_PER_SEC, tool.bandwidth(), 100, STALL, null);
                long before = mx.getCurrentThreadAllocatedBytes();
                Baselines.run(s);
                allocated[i] = mx.getCurrentThreadAllocatedBytes() - before;
            }
        }
        double perIteration = (allocated[1] - allocated[0]) / (double) (iterations[1] - iterations[0]);
        assertThat(perIteration).isLessThan(tool.bandwidth() ? 0.5 : 16.5);
    }

    @Test
    void specRejectsSizesTheTransportCannotCarry() {
        assertThatThrownBy(() -> BaselineSpec.defaults(BaselineTool.UDP_BW).withSizes(List.of(65_508)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1..65507");
        assertThatThrownBy(() -> BaselineSpec.defaults(BaselineTool.TCP_LAT).withIterations(4))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("iterations");
        assertThatThrownBy(() -> BaselineSpec.defaults(BaselineTool.TCP_LAT).withDuration(4, 2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("twice the margin");
    }

    @Test
    void aClientWithoutServerFailsWithARefusedConnection() {
        InetSocketAddress closed = new InetSocketAddress(InetAddress.getLoopbackAddress(), ToolHarness.freePort());
        BaselineClient client = new BaselineClient(BaselineSpec.defaults(BaselineTool.TCP_LAT), closed,
                PerfReporter.none(), System.err, false);
        assertThatThrownBy(client::run).isInstanceOf(ToolFailure.class).hasMessageContaining("connection refused");
    }

    private static void assertPlausible(BaselineRow row, BaselineTool tool) {
        long size = row.result().bytes();
        switch (row.result()) {
            case BwResult bw -> {
                assertThat(bw.bwAverage()).isPositive();
                assertThat(bw.msgRateMpps()).isPositive();
                assertThat(bw.bwPeak()).isGreaterThanOrEqualTo(bw.bwAverage() * 0.999);
                if (tool.udp()) {
                    assertThat(row.serverMessages()).isBetween(1L, row.clientMessages());
                } else {
                    assertThat(row.serverBytes()).isEqualTo(row.clientMessages() * size);
                    assertThat(bw.iterations()).isEqualTo(row.clientMessages());
                }
            }
            case LatResult lat -> {
                assertThat(lat.iterations()).isEqualTo(row.clientMessages());
                assertThat(lat.tMin()).isPositive();
                assertThat(lat.tTypical()).isBetween(lat.tMin(), lat.tMax());
                assertThat(lat.tAvg()).isBetween(lat.tMin(), lat.tMax());
                assertThat(lat.p99()).isGreaterThanOrEqualTo(lat.tTypical());
                assertThat(lat.p999()).isGreaterThanOrEqualTo(lat.p99());
                assertThat(row.serverMessages()).isEqualTo(row.clientMessages());
            }
            case LatDurationResult dur -> assertThat(dur.tAvg()).isPositive();
        }
    }
}
