package io.jrdma.internal.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Rdma;
import java.lang.foreign.Arena;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A region's socket views: which registrations are plain direct buffers (siw sends those without a
 * copy), and the per-owner, per-slot duplicates engines position for I/O.
 */
class MrViewTest {
    private Context ctx;
    private PdImpl pd;

    @BeforeEach
    void open() {
        ctx = Rdma.device("loop0").open();
        pd = (PdImpl) ctx.allocPd();
    }

    @AfterEach
    void close() {
        ctx.close();
    }

    @Test
    void aDirectBufferRegistrationIsPlainAndItsBufferStartsAtTheRegion() {
        ByteBuffer bb = ByteBuffer.allocateDirect(4096);
        bb.put(100, (byte) 7);
        MrImpl mr = (MrImpl) pd.registerMemory(bb.position(100).limit(300), Access.LOCAL_WRITE);
        assertThat(mr.plainBuffer()).isTrue();
        assertThat(mr.length()).isEqualTo(200);
        assertThat(mr.buffer().capacity()).isEqualTo(200);
        assertThat(mr.buffer().get(0)).as("index 0 is the region's first byte").isEqualTo((byte) 7);
        mr.close();
    }

    @Test
    void segmentAndHeapBufferRegistrationsAreNotPlain() {
        try (Arena arena = Arena.ofShared()) {
            MrImpl seg = (MrImpl) pd.registerMemory(arena.allocate(4096), Access.LOCAL_WRITE);
            MrImpl heap = (MrImpl) pd.registerMemory(ByteBuffer.allocate(4096), Access.LOCAL_WRITE);
            assertThat(seg.plainBuffer()).isFalse();
            assertThat(heap.plainBuffer()).isFalse();
            seg.close();
            heap.close();
        }
    }

    @Test
    void eachOwnerAndSlotHasItsOwnViewUntilTheOwnersRunOut() {
        MrImpl mr = (MrImpl) pd.registerMemory(ByteBuffer.allocateDirect(4096), Access.LOCAL_WRITE);
        Object a = new Object();
        ByteBuffer a0 = mr.view(a, 0);
        ByteBuffer a40 = mr.view(a, 40);
        assertThat(a0).isNotNull().isNotSameAs(a40);
        assertThat(mr.view(a, 0)).as("found again, not created").isSameAs(a0);
        assertThat(mr.view(a, 40)).isSameAs(a40);
        a0.limit(10).position(5);
        assertThat(mr.buffer().position()).as("a view's position is its own").isZero();
        Object[] others = new Object[MrImpl.VIEW_OWNERS - 1];
        for (int i = 0; i < others.length; i++) {
            others[i] = new Object();
            assertThat(mr.view(others[i], 0)).isNotNull().isNotSameAs(a0);
        }
        assertThat(mr.view(new Object(), 0)).as("one owner too many: the caller copies instead").isNull();
        assertThat(mr.view(a, 0)).as("the first owner keeps its place").isSameAs(a0);
        mr.close();
    }
}
