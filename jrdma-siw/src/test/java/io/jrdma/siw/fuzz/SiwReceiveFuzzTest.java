package io.jrdma.siw.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.siw.SiwConfig;
import io.jrdma.siw.SiwDevice;
import io.jrdma.siw.cm.SiwCm;
import io.jrdma.siw.transport.RawPeer;
import io.jrdma.siw.transport.Testbed;
import io.jrdma.siw.transport.Upcalls;
import io.jrdma.siw.wire.FpduHeader;
import io.jrdma.siw.wire.MpaCrc;
import io.jrdma.siw.wire.MpaRequest;
import io.jrdma.siw.wire.RdmapOpcode;
import io.jrdma.siw.wire.ReadRequestHeader;
import io.jrdma.spi.IwCmProvider;
import io.jrdma.testkit.Await;
import io.jrdma.testkit.CanaryBuffer;
import io.jrdma.testkit.Completion;
import io.jrdma.testkit.Hygiene;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.RecvWr;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;

/**
 * The live receive path of a siw QP under fuzzed input (issue 6, item 2): each input is a mode byte and a
 * byte stream that a {@link RawPeer} sends, after a real MPA exchange, into the socket of a jrdma QP in
 * RTS, followed by a FIN. Mode bit 0 negotiates CRC, bit 1 maps every STag in the stream onto one of
 * the test's regions (so the fuzzer reaches placement), bit 2 seals the CRC of each whole FPDU.
 *
 * <p>Per input it asserts: no hang (the QP reaches ERROR within {@link #DEADLINE}, from a TERMINATE or
 * from the FIN); every posted receive completes exactly once; the guards around every region are intact,
 * the read-only region is unchanged and the receive region changed only inside the posted receives;
 * nothing escaped to an uncaught-exception handler and nothing was logged at WARNING or above.
 */
class SiwReceiveFuzzTest {
    /** How long one input may take to end the connection. */
    static final Duration DEADLINE = Duration.ofSeconds(3);
    private static final int RECEIVES = 4;
    private static final int RECV_BYTES = 64;
    private static final AtomicLong INPUTS = new AtomicLong();
    private static State state;

    /** What lives across inputs: the device resources, the regions, the listener, the guard. */
    private static final class State {
        final Testbed tb = new Testbed();
        final Hygiene hygiene = new Hygiene().begin();
        final CanaryBuffer rw = CanaryBuffer.register(tb.pd, 65536, Testbed.ALL, 1);
        final CanaryBuffer ro = CanaryBuffer.register(tb.pd, 4096, Access.LOCAL_WRITE | Access.REMOTE_READ, 2);
        final CanaryBuffer recv = CanaryBuffer.register(tb.pd, 4096, Access.LOCAL_WRITE, 3);
        final byte[] roBefore = ro.snapshot();
        final Upcalls up = new Upcalls();
        final SiwCm cm = tb.cm(SiwConfig.defaults());
        final IwCmProvider.Listener listener = tb.listen(cm, up);

        CanaryBuffer region(int selector) {
            return switch (selector & 3) {
                case 0 -> rw;
                case 1 -> ro;
                default -> recv;
            };
        }
    }

    private static synchronized State state() {
        if (state == null) {
            state = new State();
        }
        return state;
    }

    @AfterAll
    static synchronized void closeState() {
        if (state != null) {
            State s = state;
            state = null;
            s.rw.close();
            s.ro.close();
            s.recv.close();
            s.tb.close();
            s.hygiene.assertClean(); // nothing logged or uncaught over every input, nothing left behind
        }
        System.out.println("SiwReceiveFuzzTest: " + INPUTS.get() + " inputs");
    }

    @FuzzTest(maxDuration = "10s")
    void aLiveQpSurvivesAnyByteStream(byte[] data) throws Exception {
        if (data.length == 0) {
            return;
        }
        State s = state();
        long n = INPUTS.incrementAndGet();
        int mode = data[0];
        boolean crc = (mode & 1) != 0;
        byte[] stream = Arrays.copyOfRange(data, 1, data.length);
        if ((mode & 2) != 0) {
            mapStags(s, stream);
        }
        if (crc && (mode & 4) != 0) {
            sealCrcs(stream);
        }
        byte[] recvBefore = s.recv.snapshot();
        try (RawPeer p = RawPeer.connect(s.listener.localAddress(), sourceAddress(n))) {
            p.sendMpa(MpaRequest.v2(crc, 4, 4, new byte[0]));
            Upcalls.Up req = s.up.next("connectRequest");
            Upcalls connUp = new Upcalls();
            req.conn().setUpcalls(connUp);
            // Not tb.qp(): the testbed keeps what it made until it closes, and a QP's buffers are direct memory;
            // after ~16,000 inputs the closed QPs it held exhausted -XX:MaxDirectMemorySize (a harness leak).
            QpImpl qp = (QpImpl) s.tb.pd.createQp(QpInitAttr.rc(s.tb.cq, new QpCap(64, 64, 6, 6,
                    SiwDevice.MAX_INLINE)));
            qp.modify(new QpAttr().qpState(QpState.INIT).qpAccessFlags(Access.REMOTE_READ | Access.REMOTE_WRITE));
            try {
                req.conn().accept(qp, Testbed.param(4, 4));
                p.readMpaBytes();
                connUp.next("established");
                for (int i = 0; i < RECEIVES; i++) {
                    assertThat(qp.postRecv(new RecvWr().wrId(i + 1).sg(s.recv.mr(), (long) RECV_BYTES * i,
                            RECV_BYTES))).isEqualTo(1);
                }
                try {
                    p.socket().getOutputStream().write(stream);
                    p.shutdownOutput();
                } catch (java.io.IOException | java.io.UncheckedIOException e) {
                    // jrdma already refused the stream and closed
                }
                Await.until("the QP to end after the stream (no hang)", DEADLINE, () -> qp.state() == QpState.ERR);
                List<Completion> done = Await.completions(s.tb.cq, RECEIVES, DEADLINE);
                Set<Long> ids = new HashSet<>();
                for (Completion c : done) {
                    assertThat(ids.add(c.wrId())).as("receive " + c.wrId() + " completed once").isTrue();
                }
                assertThat(ids).containsExactlyInAnyOrder(1L, 2L, 3L, 4L);
                Await.noCompletion(s.tb.cq, Duration.ZERO);
            } finally {
                qp.close();
                while (s.tb.ctx.getAsyncEvent(Duration.ZERO) != null) {
                    // the QP's fatal event
                }
            }
        }
        s.rw.assertGuardsIntact();
        s.ro.assertUnchanged(s.roBefore);
        s.recv.assertOnlyChanged(recvBefore, 0, (long) RECEIVES * RECV_BYTES);
        assertThat(s.hygiene.problems()).as("uncaught exceptions and warnings").isEmpty();
    }

    /**
     * The source address of input {@code n}: one of 127.64.0.1 … 127.64.255.254 in turn. The raw peer closes
     * first, so each input leaves a TIME_WAIT entry on its client port; from 127.0.0.1 alone the ~50,000
     * inputs of a 30 s run filled the ephemeral ports, and the siw ITs that ran next could not bind.
     */
    static InetAddress sourceAddress(long n) {
        int host = (int) (n % 65_534) + 1;
        try {
            return InetAddress.getByAddress(new byte[] {127, 64, (byte) (host >>> 8), (byte) host});
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /** Points every STag of the stream at one of the regions (by its low bits) and every offset near it. */
    static void mapStags(State s, byte[] stream) {
        MemorySegment seg = MemorySegment.ofArray(stream);
        FpduHeader h = new FpduHeader();
        ReadRequestHeader rr = new ReadRequestHeader();
        long off = 0;
        while (off + FpduHeader.UNTAGGED_LENGTH <= stream.length) {
            h.wrap(seg, off);
            int len = h.fpduLength();
            if (h.tagged()) {
                CanaryBuffer r = s.region(h.stag());
                h.stag(r.mr().rkey()).taggedOffset(r.addr(0) + Math.floorMod(h.taggedOffset(), r.size() + 128) - 64);
            } else if (h.opcode() == RdmapOpcode.RDMA_READ_REQUEST.value()
                    && off + ReadRequestHeader.LENGTH <= stream.length) {
                rr.wrap(seg, off);
                CanaryBuffer r = s.region(rr.sourceStag());
                rr.sourceStag(r.mr().rkey()).sourceTo(r.addr(0) + Math.floorMod(rr.sourceTo(), r.size() + 128) - 64);
            }
            off += len;
        }
    }

    /** Seals the CRC of every whole FPDU of the stream. */
    static void sealCrcs(byte[] stream) {
        MemorySegment seg = MemorySegment.ofArray(stream);
        MpaCrc crc = new MpaCrc();
        long off = 0;
        while (off + FpduHeader.MPA_LENGTH_FIELD_LENGTH <= stream.length) {
            int len = FpduHeader.peekFpduLength(seg, off, stream.length - off);
            if (off + len > stream.length) {
                return;
            }
            crc.seal(seg, off);
            off += len;
        }
    }
}
