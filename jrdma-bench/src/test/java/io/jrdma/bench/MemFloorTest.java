package io.jrdma.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.tools.perf.BwResult;
import io.jrdma.tools.perf.LatResult;
import java.util.List;
import org.junit.jupiter.api.Test;

class MemFloorTest {
    @Test
    void memLatReportsEveryRoundTripAsOneWayTimesBetweenSends() {
        LatResult r = MemFloor.memLat(64, 2_000);
        assertThat(r.iterations()).isEqualTo(2_000);
        assertThat(r.bytes()).isEqualTo(64);
        assertThat(r.tMin()).isPositive().isLessThanOrEqualTo(r.tTypical());
        assertThat(r.tTypical()).isLessThanOrEqualTo(r.tMax());
    }

    @Test
    void memLatAboveOneLineCopiesTheMessageEachWay() {
        LatResult small = MemFloor.memLat(64, 500);
        LatResult big = MemFloor.memLat(256 * 1024, 200);
        // 256 KiB copied each way takes far longer than handing a cache line over (microseconds, not less).
        assertThat(big.tMin()).isGreaterThan(small.tMin());
    }

    @Test
    void memcpyCountsCopiesOverTheRun() {
        BwResult r = MemFloor.memcpy(4096, 1);
        assertThat(r.bytes()).isEqualTo(4096);
        assertThat(r.iterations()).isPositive();
        assertThat(r.bwAverage()).isPositive();
    }

    @Test
    void rowsComeInTheFloorGroupUnderTheirOwnNames() {
        List<Measurement> rows = MemFloor.measure(List.of(64), 1, List.of(64), 200);
        assertThat(rows).extracting(Measurement::test).containsExactly("memcpy", "mem-lat");
        assertThat(rows).allSatisfy(m -> {
            assertThat(m.group()).isEqualTo("floor");
            assertThat(m.value()).isPositive();
        });
        assertThat(rows.get(1).unit()).isEqualTo("us");
    }

    @Test
    void rejectsSizesAndCountsOutOfRange() {
        assertThatThrownBy(() -> MemFloor.memLat(0, 100)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MemFloor.memLat(64, 2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MemFloor.memcpy(64, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
