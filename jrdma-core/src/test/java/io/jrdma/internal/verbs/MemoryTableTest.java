package io.jrdma.internal.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.Rdma;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The key table: 24-bit index + 8-bit key, stale keys, the limit, and lock-free lookups under churn. */
class MemoryTableTest {
    private static final MemorySegment SEG = MemorySegment.ofArray(new byte[64]);
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

    private MrImpl register(MemoryTable t) {
        return t.register(key -> new MrImpl(pd, SEG, 0x1000, Access.LOCAL_WRITE, key));
    }

    @Test
    void aKeyIsAnIndexAboveZeroShiftedByEightPlusAKeyByte() {
        MemoryTable t = new MemoryTable(16);
        MrImpl a = register(t);
        MrImpl b = register(t);
        assertThat(a.lkey() >>> 8).isPositive();
        assertThat(b.lkey() >>> 8).isNotEqualTo(a.lkey() >>> 8);
        assertThat(a.rkey()).isEqualTo(a.lkey());
        assertThat(t.lookup(a.lkey())).isSameAs(a);
        assertThat(t.lookup(b.lkey())).isSameAs(b);
        assertThat(t.lookup(a.lkey() ^ 0x01)).as("same index, other key byte").isNull();
        assertThat(t.lookup(0)).isNull();
        assertThat(t.lookup(0xFFFF_FF00)).as("index beyond the table").isNull();
        assertThat(t.size()).isEqualTo(2);
    }

    @Test
    void aDeregisteredKeyStopsMatchingAtOnceAndAReusedIndexGetsAnotherKeyByte() {
        MemoryTable t = new MemoryTable(16);
        MrImpl a = register(t);
        int stale = a.lkey();
        t.deregister(a);
        assertThat(t.lookup(stale)).isNull();
        assertThat(t.size()).isZero();
        MrImpl b = register(t);
        assertThat(b.lkey() >>> 8).as("the freed index is reused").isEqualTo(stale >>> 8);
        assertThat(b.lkey()).isNotEqualTo(stale);
        assertThat(t.lookup(stale)).isNull();
        assertThat(t.lookup(b.lkey())).isSameAs(b);
        t.deregister(a);
        assertThat(t.lookup(b.lkey())).as("deregistering a stale region again changes nothing").isSameAs(b);
    }

    @Test
    void theKeyByteOfAnIndexTakes256ValuesBeforeItRepeats() {
        MemoryTable t = new MemoryTable(16);
        Set<Integer> keys = new HashSet<>();
        int index = -1;
        for (int i = 0; i < 256; i++) {
            MrImpl m = register(t);
            if (index < 0) {
                index = m.lkey() >>> 8;
            }
            assertThat(m.lkey() >>> 8).isEqualTo(index);
            assertThat(keys.add(m.lkey())).as("key 0x%x is new", m.lkey()).isTrue();
            t.deregister(m);
        }
    }

    @Test
    void theLimitOfLiveRegionsIsEnomem() {
        MemoryTable t = new MemoryTable(2);
        MrImpl a = register(t);
        register(t);
        assertThatThrownBy(() -> register(t)).isInstanceOfSatisfying(RdmaException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.ENOMEM));
        t.deregister(a);
        assertThat(register(t)).isNotNull();
    }

    @Test
    void theTableGrowsBeyondItsFirstSlots() {
        MemoryTable t = new MemoryTable(10_000);
        List<MrImpl> all = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            all.add(register(t));
        }
        for (MrImpl m : all) {
            assertThat(t.lookup(m.lkey())).isSameAs(m);
        }
    }

    @Test
    void concurrentLookupsNeverSeeAForeignOrAlreadyDeregisteredRegion() throws Exception {
        MemoryTable t = new MemoryTable(100_000);
        int slots = 64;
        // Each slot holds (key << 1 | alive); the writer publishes "dead" only after deregister returned.
        AtomicLongArray published = new AtomicLongArray(slots);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<AssertionError> failure = new AtomicReference<>();
        long[] lookups = new long[1];
        List<Thread> readers = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            int seed = r;
            readers.add(Thread.ofPlatform().start(() -> {
                SplittableRandom rnd = new SplittableRandom(seed);
                long n = 0;
                while (!stop.get() && failure.get() == null) {
                    long v = published.get(rnd.nextInt(slots));
                    int key = (int) (v >>> 1);
                    boolean alive = (v & 1) != 0;
                    MrImpl m = t.lookup(key);
                    n++;
                    if (m != null && m.lkey() != key) {
                        failure.compareAndSet(null, new AssertionError("lookup(0x" + Integer.toHexString(key)
                                + ") returned the region of key 0x" + Integer.toHexString(m.lkey())));
                    }
                    if (!alive && key != 0 && m != null) {
                        failure.compareAndSet(null, new AssertionError("deregistered key 0x"
                                + Integer.toHexString(key) + " still found"));
                    }
                }
                synchronized (lookups) {
                    lookups[0] += n;
                }
            }));
        }
        SplittableRandom rnd = new SplittableRandom(42);
        MrImpl[] live = new MrImpl[slots];
        long deadline = System.nanoTime() + Duration.ofMillis(300).toNanos();
        int churn = 0;
        while (System.nanoTime() < deadline && failure.get() == null) {
            int s = rnd.nextInt(slots);
            if (live[s] != null) {
                MrImpl m = live[s];
                t.deregister(m);
                published.set(s, (long) m.lkey() << 1);
                live[s] = null;
            } else {
                MrImpl m = register(t);
                live[s] = m;
                published.set(s, (long) m.lkey() << 1 | 1);
            }
            if (++churn % 1000 == 0) {
                // grow the table under the readers' feet
                for (int i = 0; i < 50; i++) {
                    register(t);
                }
            }
        }
        stop.set(true);
        for (Thread r : readers) {
            r.join(Duration.ofSeconds(5));
        }
        if (failure.get() != null) {
            throw failure.get();
        }
        assertThat(churn).isGreaterThan(1000);
        assertThat(lookups[0]).isGreaterThan(10_000);
    }
}
