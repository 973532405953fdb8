package io.jrdma.rxe;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.internal.roce.Bth;
import io.jrdma.internal.roce.IbOpcode;
import io.jrdma.internal.roce.Icrc;
import io.jrdma.spi.DeviceCounters;
import io.jrdma.testkit.CanaryBuffer;
import io.jrdma.testkit.Hygiene;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.Counter;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.WorkCompletion;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;

/**
 * The live receive path of an rxe QP under fuzzed datagrams (issue 6, item 2): each input is a mode byte
 * and a RoCEv2 UDP payload (BTH onwards, without the ICRC) that a {@link ScriptedPeer} on 127.0.0.3 sends
 * to rxe0, where an RC QP in RTS is connected to it. Mode bit 0 aims the packet at that QP, bit 1 maps
 * the rkeys of its RETH or AtomicETH onto the test's regions (by their low bits) and its addresses near
 * them, bit 2 sets the PSN the QP expects after a reset, bit 3 spoils the ICRC (otherwise sealed, so the
 * packet gets past the check).
 *
 * <p>Per input it asserts: no hang (the engine handles the datagram and a marker behind it within
 * {@link #DEADLINE}); the guards of every region intact, the read-only region unchanged, the receive
 * region changed only inside the posted receives; nothing uncaught, nothing logged at WARNING or above.
 * A QP the input drove to ERROR is reset and brought back to RTS for the next input.
 */
public class RxeReceiveFuzzTest {
    /** How long one input may take. */
    static final Duration DEADLINE = Duration.ofSeconds(3);
    private static final int PEER_QPN = 0x456;
    private static final int RQ_PSN = 0x1000;
    private static final int SQ_PSN = 0x2000;
    private static final int RECEIVES = 4;
    private static final AtomicLong INPUTS = new AtomicLong();
    private static State state;

    private static final class State {
        final Hygiene hygiene = new Hygiene().begin();
        final ScriptedPeer peer;
        final Endpoint e = Endpoint.rc("rxe0", 4096);
        final CanaryBuffer rw = CanaryBuffer.register(e.pd, 16384, Endpoint.ALL_ACCESS, 1);
        final CanaryBuffer ro = CanaryBuffer.register(e.pd, 4096, Access.LOCAL_WRITE | Access.REMOTE_READ, 2);
        final CanaryBuffer recv = CanaryBuffer.register(e.pd, 4096, Access.LOCAL_WRITE, 3);
        final byte[] roBefore = ro.snapshot();
        final DeviceCounters counters = ((RxeDevice) ((DeviceImpl) Rdma.device("rxe0")).providerDevice()).counters();
        final WorkCompletion[] wc = {new WorkCompletion()};
        int posted;

        State() throws Exception {
            peer = new ScriptedPeer();
            toRts();
        }

        void toRts() throws Exception {
            if (e.qp.state() != QpState.RESET) {
                e.qp.modify(new QpAttr().qpState(QpState.RESET));
            }
            while (e.cq.poll(wc) > 0) {
                posted--;
            }
            Endpoint.toRts(e, Gid.of(InetAddress.getByName(ScriptedPeer.ADDRESS)), PEER_QPN, SQ_PSN, RQ_PSN,
                    new Endpoint.Options().timeout(14).rnrRetry(7).minRnrTimer(1).rdAtomic(4));
            posted = 0;
            for (int i = 0; i < RECEIVES; i++) {
                e.qp.postRecv(new RecvWr().wrId(i).sg(recv.mr(), 64L * i, 64));
                posted++;
            }
        }

        CanaryBuffer region(int selector) {
            return switch (selector & 3) {
                case 0, 3 -> rw;
                case 1 -> ro;
                default -> recv;
            };
        }
    }

    private static synchronized State state() throws Exception {
        if (state == null) {
            state = new State();
        }
        return state;
    }

    @AfterAll
    static synchronized void closeState() throws Exception {
        if (state != null) {
            State s = state;
            state = null;
            s.rw.close();
            s.ro.close();
            s.recv.close();
            s.e.close();
            s.peer.close();
            s.hygiene.assertClean();
        }
        System.out.println("RxeReceiveFuzzTest: " + INPUTS.get() + " inputs");
    }

    private static long handled(DeviceCounters c) {
        return c.get(Counter.RCVD_PKTS) + c.get(Counter.RCVD_DROPPED) + c.get(Counter.RCVD_ICRC_ERR)
                + c.get(Counter.CM_MALFORMED_MADS);
    }

    @FuzzTest(maxDuration = "10s")
    void aLiveQpSurvivesAnyDatagram(byte[] data) throws Exception {
        if (data.length < 2) {
            return;
        }
        State s = state();
        INPUTS.incrementAndGet();
        int mode = data[0];
        byte[] p = Arrays.copyOfRange(data, 1, Math.min(data.length, 1 + 4200));
        MemorySegment seg = MemorySegment.ofArray(p);
        if (p.length >= Bth.LENGTH) {
            Bth bth = new Bth().wrap(seg, 0);
            if ((mode & 1) != 0) {
                bth.destQpn(s.e.qp.qpNum());
            }
            if ((mode & 4) != 0) {
                bth.psn(RQ_PSN);
            }
            IbOpcode op = IbOpcode.fromCode(bth.opcode());
            if ((mode & 2) != 0 && op != null) {
                int at = op.rethOffset() >= 0 ? op.rethOffset() : op.atomicEthOffset();
                if (at >= 0 && at + 16 <= p.length) {
                    ValueLayout.OfInt u32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
                    ValueLayout.OfLong u64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
                    CanaryBuffer r = s.region(seg.get(u32, at + 8));
                    long va = seg.get(u64, at);
                    seg.set(u64, at, r.addr(0) + Math.floorMod(va, r.size() + 128) - 64);
                    seg.set(u32, at + 8, r.mr().rkey());
                }
            }
        }
        byte[] recvBefore = s.recv.snapshot();
        long before = handled(s.counters);
        if (p.length + Icrc.LENGTH < Icrc.MIN_PAYLOAD) {
            s.peer.sendRaw(Arrays.copyOf(p, p.length + Icrc.LENGTH), "127.0.0.1"); // too short to seal
        } else {
            s.peer.send(p, "127.0.0.1", (mode & 8) != 0 ? 0x5a5a5a5a : 0);
        }
        // A marker behind it that is dropped for certain (no QP 0xFFFFFF): once it is counted, the engine
        // has handled the input too.
        byte[] marker = PacketBuilder.of(IbOpcode.RC_SEND_ONLY, 0xFFFFFF, 0, false, 0).bytes();
        s.peer.send(marker, "127.0.0.1");
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (handled(s.counters) < before + 2) {
            assertThat(System.nanoTime() < deadline).as("the engine handles the datagram (no hang)").isTrue();
            Thread.sleep(0, 200_000);
        }
        s.peer.drain();
        s.rw.assertGuardsIntact();
        s.ro.assertUnchanged(s.roBefore);
        s.recv.assertOnlyChanged(recvBefore, 0, 64L * RECEIVES);
        assertThat(s.hygiene.problems()).as("uncaught exceptions and warnings").isEmpty();
        QpState st = s.e.qp.state();
        if (st != QpState.RTS) {
            while (s.e.ctx.getAsyncEvent(Duration.ZERO) != null) {
                // the QP's event
            }
            s.toRts();
        } else {
            while (s.e.cq.poll(s.wc) > 0) {
                s.e.qp.postRecv(new RecvWr().wrId(s.wc[0].wrId()).sg(s.recv.mr(), 64L * s.wc[0].wrId(), 64));
            }
        }
    }
}
