package io.jrdma.siw.qp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.siw.transport.Testbed;
import io.jrdma.siw.wire.FpduHeader;
import io.jrdma.siw.wire.MpaCrc;
import io.jrdma.siw.wire.RdmapOpcode;
import io.jrdma.siw.wire.ReadRequestHeader;
import io.jrdma.siw.wire.TermError;
import io.jrdma.siw.wire.TermLayout;
import io.jrdma.siw.wire.Terminate;
import io.jrdma.siw.wire.TerminateResult;
import io.jrdma.testkit.Await;
import io.jrdma.testkit.Completion;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.ReadableByteChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The receive machine driven from memory, with no socket: a QP attached to an in-memory byte stream
 * ({@link SiwQp#attachStream}) is fed a recorded stream of MPA FPDUs with CRC — a SEND, an RDMA WRITE in
 * two segments, a SEND in two segments, an RDMA READ request, the RDMA READ response to a READ this side
 * posted, and a TERMINATE — cut at every byte boundary (and once a byte at a time). Every cut must give
 * the same placement, the same completions in the same order, and the QP in ERROR after the TERMINATE
 * with the receive left over flushed; the peer's READ request must be answered on the stream with the
 * source's bytes. A SEND with a bad CRC, cut anywhere, must give one MPA CRC TERMINATE on the stream and
 * every posted request completed once, flushed.
 */
class ReceiveStreamTest {
    private static final int SEND1 = 100;
    private static final int WRITE_A = 400;
    private static final int WRITE_B = 300;
    private static final int WRITE_AT = 16;
    private static final int SEND2_A = 50;
    private static final int SEND2_B = 30;
    private static final int READ_IN = 200;
    private static final int READ_IN_AT = 8;
    private static final int PEER_SINK_STAG = 0x1234_5600;
    private static final long PEER_SINK_TO = 0x5000;
    private static final int READ_OUT = 120;
    private static final int RECV_LEN = 256;

    private static Testbed tb;
    private static Testbed.Buffer recv;
    private static Testbed.Buffer written;
    private static Testbed.Buffer source;
    private static Testbed.Buffer sink;

    @BeforeAll
    static void open() {
        tb = new Testbed();
        recv = tb.buffer(3 * RECV_LEN, Access.LOCAL_WRITE);
        written = tb.buffer(1024, Testbed.ALL);
        source = tb.buffer(512, Access.REMOTE_READ | Access.LOCAL_WRITE);
        sink = tb.buffer(512, Access.LOCAL_WRITE);
        for (int i = 0; i < 512; i++) {
            source.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 3));
        }
    }

    @AfterAll
    static void close() {
        tb.close();
    }

    @Test
    void everyCutOfTheStreamGivesTheSamePlacementAndCompletions() {
        byte[] stream = stream();
        for (int cut = 0; cut <= stream.length; cut++) {
            Run r = new Run();
            r.feed(Arrays.copyOfRange(stream, 0, cut));
            r.feed(Arrays.copyOfRange(stream, cut, stream.length));
            r.check("cut at " + cut);
        }
    }

    @Test
    void aStreamArrivingOneByteAtATimeGivesTheSamePlacementAndCompletions() {
        byte[] stream = stream();
        Run r = new Run();
        for (int i = 0; i < stream.length; i++) {
            r.feed(new byte[] {stream[i]});
        }
        r.check("one byte at a time");
    }

    @Test
    void aReadRequestFedFromMemoryIsAnsweredOnTheStreamWithTheSourceBytes() {
        byte[] stream = stream();
        Run r = new Run();
        r.feed(Arrays.copyOfRange(stream, 0, dataLength()));
        byte[] out = r.out.toByteArray();
        // What went out: this side's READ request, then the response to the peer's request.
        int requestLength = FpduHeader.fpduLength(RdmapOpcode.RDMA_READ_REQUEST, 0);
        MemorySegment seg = MemorySegment.ofArray(out);
        assertThat(out.length).isEqualTo(requestLength + FpduHeader.fpduLength(RdmapOpcode.RDMA_READ_RESPONSE,
                READ_IN));
        FpduHeader h = new FpduHeader().wrap(seg, requestLength);
        assertThat(h.opcode()).isEqualTo(RdmapOpcode.RDMA_READ_RESPONSE.value());
        assertThat(h.last()).isTrue();
        assertThat(h.stag()).isEqualTo(PEER_SINK_STAG);
        assertThat(h.taggedOffset()).isEqualTo(PEER_SINK_TO);
        assertThat(h.payloadLength()).isEqualTo(READ_IN);
        byte[] payload = Arrays.copyOfRange(out, requestLength + FpduHeader.TAGGED_LENGTH,
                requestLength + FpduHeader.TAGGED_LENGTH + READ_IN);
        assertThat(payload).isEqualTo(source.segment().asSlice(READ_IN_AT, READ_IN).toArray(ValueLayout.JAVA_BYTE));
        byte[] response = Arrays.copyOfRange(out, requestLength, out.length);
        byte[] resealed = response.clone();
        new MpaCrc().seal(MemorySegment.ofArray(resealed), 0);
        assertThat(response).as("the response's CRC").isEqualTo(resealed);
        assertThat(r.siw.queues.irqCount()).as("the IRQ entry is free once answered").isZero();
        r.feed(Arrays.copyOfRange(stream, dataLength(), stream.length));
        r.check("data, then the TERMINATE");
    }

    @Test
    void aCrcErrorAtEveryCutSendsOneCrcTerminateAndCompletesEveryRequestOnce() {
        byte[] send = untagged(RdmapOpcode.SEND, 1, 0, true, pattern(1, SEND1));
        send[FpduHeader.UNTAGGED_LENGTH + 5] ^= 0x40; // a payload bit: the CRC no longer matches
        int requestLength = FpduHeader.fpduLength(RdmapOpcode.RDMA_READ_REQUEST, 0);
        for (int cut = 0; cut <= send.length; cut++) {
            String what = "cut at " + cut;
            Run r = new Run();
            r.feed(Arrays.copyOfRange(send, 0, cut));
            r.feed(Arrays.copyOfRange(send, cut, send.length));
            assertThat(r.qp.state()).as(what).isEqualTo(QpState.ERR);
            List<Completion> got = Await.completions(tb.cq, 4, Duration.ofSeconds(5));
            assertThat(got).as(what).extracting(Completion::wrId, Completion::status).containsExactlyInAnyOrder(
                    org.assertj.core.groups.Tuple.tuple(1L, WcStatus.WR_FLUSH_ERR),
                    org.assertj.core.groups.Tuple.tuple(2L, WcStatus.WR_FLUSH_ERR),
                    org.assertj.core.groups.Tuple.tuple(3L, WcStatus.WR_FLUSH_ERR),
                    org.assertj.core.groups.Tuple.tuple(10L, WcStatus.WR_FLUSH_ERR));
            Await.noCompletion(tb.cq, Duration.ZERO);
            byte[] out = r.out.toByteArray();
            assertThat(out.length).as(what + ": our READ request, then one TERMINATE").isGreaterThan(requestLength);
            TerminateResult t = Terminate.decode(MemorySegment.ofArray(out), requestLength, out.length - requestLength,
                    TermLayout.SIW_LITTLE_ENDIAN);
            assertThat(t).as(what).isInstanceOf(TerminateResult.Decoded.class);
            TerminateResult.Decoded d = (TerminateResult.Decoded) t;
            assertThat(d.terminate().error()).as(what).contains(TermError.MPA_CRC_ERROR);
            assertThat(requestLength + d.length()).as(what + ": nothing after the TERMINATE").isEqualTo(out.length);
            assertThat(r.closed).as(what + ": the link closed once").hasSize(1);
            r.qp.close();
        }
    }

    // ------------------------------------------------------------------------------------------ the run

    /** One QP attached to a memory stream, its receives and its RDMA READ posted. */
    private static final class Run {
        final QpImpl qp = tb.qp();
        final SiwQp siw = (SiwQp) qp.provider();
        final MemoryIn in = new MemoryIn();
        final MemoryOut out = new MemoryOut();
        final List<Integer> closed = new ArrayList<>();

        Run() {
            recv.segment().fill((byte) 0);
            written.segment().fill((byte) 0);
            sink.segment().fill((byte) 0);
            for (int i = 0; i < 3; i++) {
                Testbed.recv(qp, i + 1, recv, (long) i * RECV_LEN, RECV_LEN);
            }
            siw.engine().runSync(() -> siw.attachStream(in, out, new SiwQp.Link() {
                @Override
                public void rtrReceived() {
                    // no RTR on this connection
                }

                @Override
                public void peerClosed() {
                    closed.add(0);
                }

                @Override
                public void closed(int status) {
                    closed.add(status);
                }
            }, true, 4, 4, 4096));
            Testbed.post(qp, Testbed.read(10, sink, 0, READ_OUT, 0x77, 0x9000));
            siw.engine().runSync(siw::onDoorbell);
            siw.engine().runSync(() -> assertThat(siw.queues.orqCount()).as("the READ is outstanding").isOne());
        }

        /** Hands {@code bytes} to the stream and runs the QP as a readable event (and its doorbell) would. */
        void feed(byte[] bytes) {
            in.add(bytes);
            siw.engine().runSync(() -> {
                for (int i = 0; i < 1000 && in.isOpen() && in.available() > 0; i++) {
                    siw.onReadable();
                }
                siw.onDoorbell();
            });
        }

        void check(String what) {
            List<Completion> got = Await.completions(tb.cq, 4, Duration.ofSeconds(5));
            assertThat(got).as(what).extracting(Completion::wrId, Completion::status, Completion::opcode,
                    Completion::byteLen).containsExactly(
                            org.assertj.core.groups.Tuple.tuple(1L, WcStatus.SUCCESS, WcOpcode.RECV, SEND1),
                            org.assertj.core.groups.Tuple.tuple(2L, WcStatus.SUCCESS, WcOpcode.RECV,
                                    SEND2_A + SEND2_B),
                            org.assertj.core.groups.Tuple.tuple(10L, WcStatus.SUCCESS, WcOpcode.RDMA_READ, READ_OUT),
                            org.assertj.core.groups.Tuple.tuple(3L, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0));
            Await.noCompletion(tb.cq, Duration.ZERO);
            assertThat(qp.state()).as(what).isEqualTo(QpState.ERR);
            assertThat(in.available()).as(what + ": every byte consumed").isZero();
            byte[] r = recv.segment().toArray(ValueLayout.JAVA_BYTE);
            assertThat(Arrays.copyOfRange(r, 0, SEND1)).as(what).isEqualTo(pattern(1, SEND1));
            assertThat(r[SEND1]).as(what + ": nothing past the SEND").isZero();
            assertThat(Arrays.copyOfRange(r, RECV_LEN, RECV_LEN + SEND2_A + SEND2_B)).as(what)
                    .isEqualTo(pattern(3, SEND2_A + SEND2_B));
            assertThat(Arrays.copyOfRange(r, 2 * RECV_LEN, 3 * RECV_LEN)).as(what + ": the flushed receive")
                    .containsOnly((byte) 0);
            byte[] w = written.segment().toArray(ValueLayout.JAVA_BYTE);
            assertThat(Arrays.copyOfRange(w, 0, WRITE_AT)).as(what).containsOnly((byte) 0);
            assertThat(Arrays.copyOfRange(w, WRITE_AT, WRITE_AT + WRITE_A + WRITE_B)).as(what)
                    .isEqualTo(pattern(2, WRITE_A + WRITE_B));
            assertThat(w[WRITE_AT + WRITE_A + WRITE_B]).as(what + ": nothing past the WRITE").isZero();
            byte[] s = sink.segment().toArray(ValueLayout.JAVA_BYTE);
            assertThat(Arrays.copyOfRange(s, 0, READ_OUT)).as(what).isEqualTo(pattern(4, READ_OUT));
            assertThat(s[READ_OUT]).as(what + ": nothing past the READ response").isZero();
            assertThat(closed).as(what + ": the link closed once").hasSize(1);
            qp.close();
        }
    }

    // --------------------------------------------------------------------------------------- the stream

    private static int dataLength() {
        return stream().length - terminate().length;
    }

    /** The recorded stream: the data FPDUs, then a TERMINATE. */
    private static byte[] stream() {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(untagged(RdmapOpcode.SEND, 1, 0, true, pattern(1, SEND1)));
        byte[] w = pattern(2, WRITE_A + WRITE_B);
        int rkey = written.mr().rkey();
        b.writeBytes(tagged(RdmapOpcode.RDMA_WRITE, rkey, written.addr(WRITE_AT), false,
                Arrays.copyOfRange(w, 0, WRITE_A)));
        b.writeBytes(tagged(RdmapOpcode.RDMA_WRITE, rkey, written.addr(WRITE_AT + WRITE_A), true,
                Arrays.copyOfRange(w, WRITE_A, w.length)));
        byte[] s = pattern(3, SEND2_A + SEND2_B);
        b.writeBytes(untagged(RdmapOpcode.SEND_SE, 2, 0, false, Arrays.copyOfRange(s, 0, SEND2_A)));
        b.writeBytes(untagged(RdmapOpcode.SEND_SE, 2, SEND2_A, true, Arrays.copyOfRange(s, SEND2_A, s.length)));
        b.writeBytes(readRequest());
        b.writeBytes(tagged(RdmapOpcode.RDMA_READ_RESPONSE, sink.mr().lkey(), sink.addr(0), true,
                pattern(4, READ_OUT)));
        b.writeBytes(terminate());
        return b.toByteArray();
    }

    private static byte[] terminate() {
        return Termination.terminateBytes(TermError.RDMAP_CATASTROPHIC_UNSPECIFIED, null, 0, true);
    }

    private static byte[] untagged(RdmapOpcode op, int msn, int mo, boolean last, byte[] payload) {
        byte[] f = new byte[FpduHeader.fpduLength(op, payload.length)];
        MemorySegment seg = MemorySegment.ofArray(f);
        new FpduHeader().wrap(seg, 0).start(op, last, payload.length).invalidateStag(0)
                .queueNumber(RdmapOpcode.QN_SEND).messageSequenceNumber(msn).messageOffset(mo);
        return sealed(f, op.headerLength(), payload);
    }

    private static byte[] tagged(RdmapOpcode op, int stag, long to, boolean last, byte[] payload) {
        byte[] f = new byte[FpduHeader.fpduLength(op, payload.length)];
        MemorySegment seg = MemorySegment.ofArray(f);
        new FpduHeader().wrap(seg, 0).start(op, last, payload.length).stag(stag).taggedOffset(to);
        return sealed(f, op.headerLength(), payload);
    }

    private static byte[] readRequest() {
        byte[] f = new byte[FpduHeader.fpduLength(RdmapOpcode.RDMA_READ_REQUEST, 0)];
        MemorySegment seg = MemorySegment.ofArray(f);
        new FpduHeader().wrap(seg, 0).start(RdmapOpcode.RDMA_READ_REQUEST, true, 0).invalidateStag(0)
                .queueNumber(RdmapOpcode.QN_READ_REQUEST).messageSequenceNumber(1).messageOffset(0);
        new ReadRequestHeader().wrap(seg, 0).sinkStag(PEER_SINK_STAG).sinkTo(PEER_SINK_TO).readSize(READ_IN)
                .sourceStag(source.mr().rkey()).sourceTo(source.addr(READ_IN_AT));
        return sealed(f, ReadRequestHeader.LENGTH, new byte[0]);
    }

    private static byte[] sealed(byte[] f, int headerLength, byte[] payload) {
        System.arraycopy(payload, 0, f, headerLength, payload.length);
        new MpaCrc().seal(MemorySegment.ofArray(f), 0);
        return f;
    }

    /** {@code n} bytes of a pattern of its own for each {@code seed}. */
    private static byte[] pattern(int seed, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed * 31 + i * 13 + (i >> 8));
        }
        return b;
    }

    // ------------------------------------------------------------------------------------------ the seam

    /** The peer's bytes: what was added and not yet read; a read finds 0 bytes when nothing is there. */
    private static final class MemoryIn implements ReadableByteChannel {
        private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
        private byte[] buf = new byte[0];
        private int pos;
        private boolean open = true;

        synchronized void add(byte[] b) {
            pending.writeBytes(Arrays.copyOfRange(buf, pos, buf.length));
            pending.writeBytes(b);
            buf = pending.toByteArray();
            pending.reset();
            pos = 0;
        }

        synchronized int available() {
            return buf.length - pos;
        }

        @Override
        public synchronized int read(ByteBuffer dst) {
            int n = Math.min(dst.remaining(), buf.length - pos);
            dst.put(buf, pos, n);
            pos += n;
            return n;
        }

        @Override
        public synchronized boolean isOpen() {
            return open;
        }

        @Override
        public synchronized void close() {
            open = false;
        }
    }

    /** What this side wrote. */
    private static final class MemoryOut extends ByteArrayOutputStream implements GatheringByteChannel {
        private boolean open = true;

        @Override
        public synchronized int write(ByteBuffer src) {
            int n = src.remaining();
            byte[] b = new byte[n];
            src.get(b);
            writeBytes(b);
            return n;
        }

        @Override
        public synchronized long write(ByteBuffer[] srcs, int offset, int length) {
            long n = 0;
            for (int i = offset; i < offset + length; i++) {
                n += write(srcs[i]);
            }
            return n;
        }

        @Override
        public long write(ByteBuffer[] srcs) {
            return write(srcs, 0, srcs.length);
        }

        @Override
        public synchronized boolean isOpen() {
            return open;
        }

        @Override
        public synchronized void close() {
            open = false;
        }
    }
}
