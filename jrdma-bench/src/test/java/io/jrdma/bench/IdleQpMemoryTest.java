package io.jrdma.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class IdleQpMemoryTest {
    @Test
    void garbageFreedWhileTheQpsWereOpenedDoesNotMakeTheirMemoryNegative() {
        // 2.5 MiB of an earlier phase's garbage went between the snapshots; closing 512 QPs frees 2.6 MiB.
        MemoryProbe before = new MemoryProbe(50_000_000, 1_000);
        MemoryProbe after = new MemoryProbe(50_000_000 - 2_500_000 + 2_600_000, 1_000);
        MemoryProbe released = new MemoryProbe(50_000_000 - 2_500_000, 1_000);
        MemoryProbe perQp = IdleQpMemory.held(before, after, released, 512);
        assertThat(perQp.heap()).isEqualTo(2_600_000 / 512);
        assertThat(perQp.direct()).isZero();
    }

    @Test
    void memoryAClosedQpKeepsIsStillCounted() {
        // Growth of 4 MiB heap and 1 MiB direct; closing gives back only a quarter of the heap and nothing direct.
        MemoryProbe before = new MemoryProbe(10_000_000, 0);
        MemoryProbe after = new MemoryProbe(14_000_000, 1_000_000);
        MemoryProbe released = new MemoryProbe(13_000_000, 1_000_000);
        MemoryProbe perQp = IdleQpMemory.held(before, after, released, 100);
        assertThat(perQp.heap()).isEqualTo(40_000);
        assertThat(perQp.direct()).isEqualTo(10_000);
    }
}
