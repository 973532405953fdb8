package io.jrdma.siw.appdriven;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jrdma.internal.verbs.CqImpl;
import io.jrdma.siw.SiwConfig;
import io.jrdma.siw.transport.Links;
import io.jrdma.siw.transport.RawPeer;
import io.jrdma.siw.transport.Testbed;
import io.jrdma.siw.wire.MpaRequest;
import io.jrdma.siw.wire.RdmapOpcode;
import io.jrdma.siw.wire.Terminate;
import io.jrdma.testkit.Await;
import io.jrdma.testkit.Completion;
import io.jrdma.testkit.Hygiene;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Application-driven siw (the default): the posting thread
 * transmits, writes a batch of a TCP segment or more only up to its last full segment and keeps the
 * tail for its next post ({@code SiwQp.transmit}). What must hold: the peer gets every byte in order
 * as valid FPDUs, every WR completes once and in order, and a kept tail goes out without another
 * post — when the application polls an empty CQ, arms the CQ, or does nothing at all (the engine
 * thread). A raw TCP peer reads and checks every FPDU (header, offset or MSN, CRC).
 */
class TailHoldIT {
    /** Larger than loopback's TCP segment (65,483 bytes): a first post holds a tail of 34,517 bytes. */
    private static final int BIG = 100_000;
    /** Posts {@link #postUntilHeld} makes before it gives up. */
    private static final int TRIES = 5;

    @RegisterExtension
    final Hygiene hygiene = new Hygiene();
    private final Testbed tb = new Testbed();

    @BeforeAll
    static void appDriven() {
        assumeTrue(SiwConfig.fromSystemProperties().applicationDriven(),
                "held tails exist in application-driven mode only (jrdma.siw.appDriven=false here)");
    }

    @AfterEach
    void close() {
        tb.close();
    }

    private Links.Accepted connected(boolean crc) {
        Links.Accepted a = Links.accept(tb, SiwConfig.defaults(), MpaRequest.v2(crc, 4, 4, new byte[0]),
                Testbed.param(4, 4));
        a.up().next("established");
        a.peer().crc(crc);
        roomToWrite(a.qp());
        quiet();
        return a;
    }

    /**
     * Gives jrdma's socket a send buffer that takes a whole segment at once: a fresh loopback socket
     * may take only part of a 65,483-byte write, and a post whose write the socket cut short writes
     * the rest when it drains instead of keeping a tail (which is right, but not what these tests
     * look at).
     */
    private static void roomToWrite(io.jrdma.internal.verbs.QpImpl qp) {
        try {
            java.lang.reflect.Method f = io.jrdma.siw.qp.SiwQp.class.getDeclaredMethod("channel");
            f.setAccessible(true);
            ((java.nio.channels.SocketChannel) f.invoke(qp.provider()))
                    .setOption(java.net.StandardSocketOptions.SO_SNDBUF, 8 << 20);
        } catch (ReflectiveOperationException | java.io.IOException e) {
            throw new AssertionError("cannot size jrdma's send buffer", e);
        }
    }

    /**
     * Lets the engine thread go idle after the connection's setup (it parks, or waits in select, within
     * a few ms): a post then runs its own cycle in the posting thread, which is where a tail is held.
     * While the engine thread is still busy it may serve the doorbell itself, and writes whole batches.
     */
    private static void quiet() {
        java.util.concurrent.locks.LockSupport.parkNanos(20_000_000L);
    }

    private static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + i * 31 + (i >>> 11));
        }
        return b;
    }

    private long held() {
        return tb.siw.counters().txTailsHeld();
    }

    /**
     * Posts one RDMA WRITE of {@code all} ({@link #BIG} bytes, from a direct buffer) to {@code to} and
     * checks that the post kept a tail (see {@link #postUntilHeld}).
     */
    private void postHeldWrite(Links.Accepted a, byte[] all, long wrId, long to) {
        Testbed.Buffer src = tb.directBuffer(all.length, Testbed.ALL);
        src.segment().copyFrom(MemorySegment.ofArray(all));
        postUntilHeld(() -> Testbed.write(wrId, src, 0, all.length, 0x77, to),
                () -> assertThat(message(a.peer(), RdmapOpcode.RDMA_WRITE, to, 0)).isEqualTo(all), a);
    }

    /**
     * Posts {@code wr} until a post keeps the tail past its last whole segment, at most {@link #TRIES}
     * times. A post keeps it when the posting thread runs the engine's cycle itself; if the engine thread
     * is in a cycle at that moment (a busy host can keep it there past {@link #quiet}), it serves the
     * doorbell and writes the message whole, which is right too: {@code drain} then reads that message,
     * its completion is taken, and the post is tried again.
     */
    private void postUntilHeld(java.util.function.Supplier<SendWr> wr, Runnable drain, Links.Accepted a) {
        for (int i = 0; i < TRIES; i++) {
            SendWr w = wr.get();
            long held = held();
            Testbed.post(a.qp(), w);
            if (held() - held == 1) {
                return;
            }
            assertThat(held() - held).as("a post keeps at most one tail").isZero();
            drain.run();
            Completion c = tb.completion();
            assertThat(c.wrId()).isEqualTo(w.wrId());
            assertThat(c.status()).isEqualTo(WcStatus.SUCCESS);
            quiet();
        }
        throw new AssertionError("no post kept its tail in " + TRIES + " tries: the engine thread served each");
    }

    /** The payload of the next whole message, checking each FPDU's opcode and offset or MSN. */
    private static byte[] message(RawPeer p, RdmapOpcode op, long to, int msn) {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        for (RawPeer.Fpdu f : p.readMessage()) {
            assertThat(f.opcode()).isEqualTo(op);
            if (op.tagged()) {
                assertThat(f.header().taggedOffset()).isEqualTo(to + got.size());
            } else {
                assertThat(f.header().messageSequenceNumber()).isEqualTo(msn);
                assertThat(f.header().messageOffset()).isEqualTo(got.size());
            }
            got.writeBytes(f.payload());
        }
        return got.toByteArray();
    }

    @ParameterizedTest(name = "{0}, direct {1}, crc {2}")
    @CsvSource({"RDMA_WRITE, true, false", "RDMA_WRITE, false, true", "SEND, true, true", "SEND, false, false"})
    void aStreamOfLargeMessagesPostedOneByOneArrivesWholeAndInOrder(WrOpcode opcode, boolean direct, boolean crc)
            throws Exception {
        Links.Accepted a = connected(crc);
        int n = 24;
        int size = 65_536;
        Testbed.Buffer src = tb.buffer(n * size, Testbed.ALL, direct);
        byte[] all = pattern(n * size, 3);
        src.segment().copyFrom(MemorySegment.ofArray(all));
        RawPeer p = a.peer();
        RdmapOpcode op = opcode == WrOpcode.SEND ? RdmapOpcode.SEND : RdmapOpcode.RDMA_WRITE;
        CompletableFuture<List<byte[]>> reader = CompletableFuture.supplyAsync(() -> {
            List<byte[]> got = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                got.add(message(p, op, 0x10000L * i, i + 1));
            }
            return got;
        });
        long held = held();
        for (int i = 0; i < n; i++) {
            SendWr w = new SendWr().wrId(i + 1).opcode(opcode).flags(SendFlags.SIGNALED)
                    .sg(src.mr(), (long) i * size, size);
            if (opcode == WrOpcode.RDMA_WRITE) {
                w.rdma(0x10000L * i, 0x4242);
            }
            Testbed.post(a.qp(), w);
        }
        List<Completion> done = Await.completions(tb.cq, n);
        assertThat(done).extracting(Completion::wrId).containsExactlyElementsOf(
                java.util.stream.LongStream.rangeClosed(1, n).boxed().toList());
        assertThat(done).extracting(Completion::status).containsOnly(WcStatus.SUCCESS);
        List<byte[]> got = reader.get(RawPeer.TIMEOUT_MS, TimeUnit.MILLISECONDS);
        for (int i = 0; i < n; i++) {
            assertThat(got.get(i)).as("message %d", i).isEqualTo(Arrays.copyOfRange(all, i * size, (i + 1) * size));
        }
        // A post whose batch reached a whole segment may keep a tail, at most one per post; a full socket
        // (the reader behind) or the engine thread serving the doorbell writes everything instead, which on
        // a loaded host can be every post of the 24 (seen once in a full build). That a post does hold when
        // the engine is its own is postUntilHeld's tests; here the stream must arrive whole either way.
        assertThat(held() - held).as("tails held, at most one per post").isLessThanOrEqualTo((long) n);
        Await.noCompletion(tb.cq, Await.QUIET);
        p.close();
    }

    @Test
    void aTailHeldByTheOnlyPostGoesOutWithoutAnotherPostOrPoll() {
        Links.Accepted a = connected(false);
        byte[] all = pattern(BIG, 7);
        postHeldWrite(a, all, 1, 0x5000);
        // Nobody posts or polls now: the engine thread writes the tail after its park.
        assertThat(message(a.peer(), RdmapOpcode.RDMA_WRITE, 0x5000, 0)).isEqualTo(all);
        Completion c = tb.completion();
        assertThat(c.wrId()).isEqualTo(1);
        assertThat(c.status()).isEqualTo(WcStatus.SUCCESS);
        a.peer().close();
    }

    /**
     * Arming the CQ runs the engine's cycle in the arming thread, which writes the held tail, so the
     * completion is in the CQ when {@code requestNotify} returns. The engine thread may run a cycle of its
     * own at that instant (a busy host) or just before it (it wakes from select when the post takes the
     * engine): then it writes the tail, and the completion comes moments later with the channel's event,
     * or was in the CQ before arming, which raises no event (verbs: only completions after arming do).
     * So each try must end with the message whole and the completion, with the event when the CQ was
     * still empty after arming, and at least one of {@link #TRIES} tries must find the completion
     * there after arming and not before (a tail left for the engine thread's park would fail every try).
     */
    @Test
    void armingTheCqWritesTheHeldTailAtOnce() throws Exception {
        Links.Accepted a = connected(true);
        Testbed.Buffer src = tb.buffer(BIG, Testbed.ALL);
        byte[] all = pattern(BIG, 11);
        src.segment().copyFrom(MemorySegment.ofArray(all));
        int[] msn = {1};
        List<String> tries = new ArrayList<>();
        for (int i = 0; i < TRIES; i++) {
            postUntilHeld(() -> Testbed.send(9, src, 0, BIG),
                    () -> assertThat(message(a.peer(), RdmapOpcode.SEND, 0, msn[0]++)).isEqualTo(all), a);
            // A CQ left armed by an earlier try signalled the completions since: those events are stale. (A
            // completion that arrives just before arming raises none either, so only an empty CQ waits.)
            for (CompletionQueue e; (e = tb.channel.getEvent(Duration.ZERO)) != null;) {
                tb.channel.ackEvents(e, 1);
            }
            int before = ((CqImpl) tb.cq).pending();
            tb.cq.requestNotify(false);
            int pending = ((CqImpl) tb.cq).pending();
            tries.add(before + "->" + pending);
            assertThat(pending).as("a held tail completes once").isLessThanOrEqualTo(1);
            if (pending == 0) {
                assertThat(tb.channel.getEvent(Duration.ofSeconds(5))).isSameAs(tb.cq);
                tb.channel.ackEvents(tb.cq, 1);
            }
            assertThat(message(a.peer(), RdmapOpcode.SEND, 0, msn[0]++)).isEqualTo(all);
            assertThat(tb.completion().wrId()).isEqualTo(9);
            if (before == 0 && pending == 1) {
                a.peer().close();
                return;
            }
            quiet();
        }
        throw new AssertionError("in no try did arming find the completion it wrote (pending before->after "
                + "requestNotify): " + tries);
    }

    @Test
    void pollingAnEmptyCqWritesTheHeldTail() {
        Links.Accepted a = connected(false);
        postHeldWrite(a, pattern(BIG, 13), 4, 0);
        io.jrdma.verbs.WorkCompletion[] wc = {new io.jrdma.verbs.WorkCompletion()};
        // One poll runs the engine's cycle, writes the tail and finds its completion. If the engine thread
        // happens to be in a cycle of its own at that instant (a busy host; it failed a verify run once,
        // 2026-11-30), the poll cannot take the engine and finds the CQ empty; the engine thread's cycle
        // or the next poll writes the tail then, so a few polls within 100 ms must find it.
        int polls = 1;
        int n = tb.cq.poll(wc);
        long deadline = System.nanoTime() + 100_000_000L;
        while (n == 0 && System.nanoTime() < deadline) {
            n = tb.cq.poll(wc);
            polls++;
        }
        assertThat(n).as("polls of the empty CQ write the tail and find its completion (%d polls)", polls)
                .isEqualTo(1);
        assertThat(wc[0].wrId()).isEqualTo(4);
        assertThat(message(a.peer(), RdmapOpcode.RDMA_WRITE, 0, 0)).isEqualTo(pattern(BIG, 13));
        a.peer().close();
    }

    @Test
    void smallMessagesAreNeverHeld() {
        Links.Accepted a = connected(false);
        Testbed.Buffer src = tb.buffer(64 * 1024, Testbed.ALL);
        long held = held();
        for (int i = 0; i < 20; i++) {
            Testbed.post(a.qp(), Testbed.send(i, src, 0, 1_000 * (i + 1)));
            RawPeer.Fpdu f = a.peer().readFpdu(); // each went out in its post, whole
            assertThat(f.payload()).hasSize(1_000 * (i + 1));
        }
        assertThat(held() - held).isZero();
        assertThat(Await.completions(tb.cq, 20)).extracting(Completion::status).containsOnly(WcStatus.SUCCESS);
        a.peer().close();
    }

    @Test
    void aWrThatFailsBehindAHeldTailCompletesAfterTheMessageWentOutWhole() {
        Links.Accepted a = connected(false);
        byte[] all = pattern(BIG, 17);
        postHeldWrite(a, all, 1, 0x8000);
        Testbed.Buffer small = tb.buffer(64, Testbed.ALL);
        SendWr bad = Testbed.send(2, small, 0, 8);
        bad.sge(0).lkey(small.mr().lkey() ^ 0x7F);
        Testbed.post(a.qp(), bad);
        assertThat(message(a.peer(), RdmapOpcode.RDMA_WRITE, 0x8000, 0)).as("the held tail went out first")
                .isEqualTo(all);
        Terminate t = a.peer().readTerminate();
        assertThat(t.layer()).isEqualTo(io.jrdma.siw.wire.TermLayer.RDMAP);
        assertThat(a.peer().expectClose(0)).isEqualTo("FIN");
        List<Completion> done = Await.completions(tb.cq, 2);
        assertThat(done).extracting(Completion::wrId).containsExactly(1L, 2L);
        assertThat(done).extracting(Completion::status).containsExactly(WcStatus.SUCCESS, WcStatus.LOC_PROT_ERR);
        assertThat(tb.event(io.jrdma.verbs.AsyncEventType.QP_FATAL).qp().qpNum()).isEqualTo(a.qp().qpNum());
    }

    /**
     * The application moves the QP to ERROR while a post's tail waits: the tail is never written (the
     * connection is dropped, as siw_qp_cm_drop does), and the WR completes once — flushed, or
     * successful if the engine thread wrote the tail first — and never again.
     */
    @Test
    void aQpMovedToErrorWhileItHoldsATailCompletesTheWrExactlyOnce() {
        Links.Accepted a = connected(false);
        postHeldWrite(a, pattern(BIG, 19), 1, 0);
        a.qp().modify(new io.jrdma.verbs.QpAttr().qpState(io.jrdma.verbs.QpState.ERR));
        Completion c = tb.completion();
        assertThat(c.wrId()).isEqualTo(1);
        assertThat(c.status()).isIn(WcStatus.WR_FLUSH_ERR, WcStatus.SUCCESS);
        Await.noCompletion(tb.cq, Duration.ofMillis(200));
        assertThat(a.peer().expectClose(BIG + 1024)).as("at most the message, then the close").isIn("FIN", "RST");
    }

    /**
     * The peer resets the connection while a post's tail waits: the WR completes once, the QP ends in
     * ERROR, and a WR posted afterwards is flushed — none is lost, none completes twice.
     */
    @Test
    void aPeerResetWhileATailIsHeldLosesNoCompletion() {
        Links.Accepted a = connected(false);
        postHeldWrite(a, pattern(BIG, 23), 1, 0);
        a.peer().reset();
        Completion c = tb.completion();
        assertThat(c.wrId()).isEqualTo(1);
        assertThat(c.status()).isIn(WcStatus.WR_FLUSH_ERR, WcStatus.SUCCESS);
        Await.state(a.qp(), io.jrdma.verbs.QpState.ERR);
        Testbed.post(a.qp(), Testbed.send(2, tb.buffer(64, Testbed.ALL), 0, 8));
        Completion after = tb.completion();
        assertThat(after.wrId()).isEqualTo(2);
        assertThat(after.status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
        Await.noCompletion(tb.cq, Duration.ofMillis(200));
    }
}
