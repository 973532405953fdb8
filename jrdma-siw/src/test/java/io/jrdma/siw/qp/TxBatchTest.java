package io.jrdma.siw.qp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.GatheringByteChannel;
import org.junit.jupiter.api.Test;

/**
 * {@link TxBatch}'s vector: a write capped at a byte count (a held tail stays behind it), and builds
 * appended behind a seal (the next post's FPDUs behind a held tail).
 */
class TxBatchTest {
    /** Takes at most {@code perCall} bytes per write and records them. */
    private static final class Sink implements GatheringByteChannel {
        final ByteArrayOutputStream got = new ByteArrayOutputStream();
        final int perCall;

        Sink(int perCall) {
            this.perCall = perCall;
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) {
            long n = 0;
            for (int i = offset; i < offset + length && n < perCall; i++) {
                while (srcs[i].hasRemaining() && n < perCall) {
                    got.write(srcs[i].get());
                    n++;
                }
            }
            return n;
        }

        @Override
        public long write(ByteBuffer[] srcs) {
            return write(srcs, 0, srcs.length);
        }

        @Override
        public int write(ByteBuffer src) {
            return (int) write(new ByteBuffer[] {src}, 0, 1);
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
        }
    }

    private static ByteBuffer region(int n, int seed) {
        ByteBuffer b = ByteBuffer.allocateDirect(n);
        for (int i = 0; i < n; i++) {
            b.put(i, (byte) (seed + i));
        }
        return b;
    }

    /** A batch of [own 0..10) [view of a: 100 bytes] [own 10..30). */
    private static TxBatch batch(ByteBuffer a) {
        TxBatch t = new TxBatch(new EngineBuffers(), 0);
        for (int i = 0; i < 64; i++) {
            t.buffer.put(i, (byte) (200 + i));
        }
        t.addView(10, a.duplicate(), 0, 100);
        t.seal(30);
        return t;
    }

    private static byte[] expected(ByteBuffer a, TxBatch t, int ownFrom, int ownTo) {
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        for (int i = 0; i < 10; i++) {
            e.write(t.buffer.get(i));
        }
        for (int i = 0; i < 100; i++) {
            e.write(a.get(i));
        }
        for (int i = ownFrom; i < ownTo; i++) {
            e.write(t.buffer.get(i));
        }
        return e.toByteArray();
    }

    @Test
    void aCappedWriteStopsInsideABufferAndTheRestFollowsInOrder() throws Exception {
        ByteBuffer a = region(100, 1);
        TxBatch t = batch(a);
        Sink s = new Sink(Integer.MAX_VALUE);
        assertThat(t.write(s, 57)).isEqualTo(57);
        assertThat(s.got.size()).isEqualTo(57);
        assertThat(t.vecFirst).as("the view is written in part").isEqualTo(1);
        assertThat(t.vec[1].remaining()).as("its limit is back: 53 bytes left").isEqualTo(53);
        assertThat(t.write(s, 10_000)).isEqualTo(73);
        assertThat(t.vecFirst).isEqualTo(t.vecCount);
        assertThat(s.got.toByteArray()).isEqualTo(expected(a, t, 10, 30));
    }

    @Test
    void aCapOnABufferBoundaryAndAShortSocketWrite() throws Exception {
        ByteBuffer a = region(100, 5);
        TxBatch t = batch(a);
        Sink s = new Sink(7);
        assertThat(t.write(s, 110)).as("the socket took 7").isEqualTo(7);
        Sink rest = new Sink(Integer.MAX_VALUE);
        assertThat(t.write(rest, 103)).isEqualTo(103);
        assertThat(t.vecFirst).as("cut exactly after the view").isEqualTo(2);
        assertThat(t.write(rest, 20)).isEqualTo(20);
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        all.writeBytes(s.got.toByteArray());
        all.writeBytes(rest.got.toByteArray());
        assertThat(all.toByteArray()).isEqualTo(expected(a, t, 10, 30));
    }

    @Test
    void aBuildBehindASealContinuesWhereTheSealEnded() throws Exception {
        ByteBuffer a = region(100, 9);
        ByteBuffer b = region(40, 77);
        TxBatch t = batch(a);
        Sink s = new Sink(Integer.MAX_VALUE);
        t.write(s, 115); // a tail of 15 own bytes stays
        t.addView(34, b.duplicate(), 0, 40); // the next post: own 30..34, then b
        t.seal(38);
        t.write(s, 10_000);
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        e.writeBytes(expected(a, t, 10, 34));
        for (int i = 0; i < 40; i++) {
            e.write(b.get(i));
        }
        for (int i = 34; i < 38; i++) {
            e.write(t.buffer.get(i));
        }
        assertThat(s.got.toByteArray()).isEqualTo(e.toByteArray());
        t.clearVector();
        assertThat(t.vecCount).isZero();
    }
}
