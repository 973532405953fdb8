package io.jrdma.testkit;

import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/**
 * The completion property (IBTA 10.8.3, 11.4.2.1): for seeded random interleavings of posts (sends
 * of random opcodes, some with bad keys, receives, some too short), polls and a transition to ERR at
 * a random point, every posted WR completes exactly once — successfully or with an error status —
 * none twice, none lost. Unsignaled sends may only ever appear with an error status. In some tries
 * the receives go to SRQs: a receive still in an SRQ belongs to no QP and is not flushed, so there
 * every receive completes at most once and the completed ones plus the ones still posted add up.
 */
abstract class CompletionPropertyChecks extends SuiteChecks {
    /** Tries per run (CI); {@value Property#TRIES_PROPERTY} overrides. */
    static final int TRIES = 200;
    /** The largest number of steps of one try. */
    static final int MAX_STEPS = 48;

    CompletionPropertyChecks(SuiteSupport support) {
        super(support);
    }

    /** What a posted WR was. */
    private enum Kind {
        SIGNALED_SEND, UNSIGNALED_SEND, RECV
    }

    private record Posted(Kind kind, WrOpcode opcode) {
    }

    /** One side's bookkeeping. */
    private static final class Side {
        final int index;
        final Endpoint e;
        final CanaryBuffer local;
        final CanaryBuffer target;
        final Map<Long, Posted> posted = new HashMap<>();
        final Map<Long, Completion> seen = new HashMap<>();
        final WorkCompletion[] wc = Await.newArray(16);
        long seq;

        Side(int index, Endpoint e) {
            this.index = index;
            this.e = e;
            this.local = buffer(e, SIZE, LOCAL, index);
            this.target = buffer(e, SIZE, ALL, 10 + index);
        }

        long nextId() {
            return (long) (index + 1) << 48 | ++seq;
        }

        long postedRecvs() {
            return posted.values().stream().filter(w -> w.kind() == Kind.RECV).count();
        }

        long seenRecvs() {
            return seen.keySet().stream().filter(id -> posted.get(id).kind() == Kind.RECV).count();
        }
    }

    @Test
    void everyPostedWorkRequestCompletesExactlyOnceUnderRandomInterleavings() {
        Property.of("every posted WR completes exactly once").tries(TRIES).sizes(1, MAX_STEPS)
                .check(this::interleave);
    }

    private void interleave(RandomGenerator rnd, int steps) throws Exception {
        int rnrRetry = rnd.nextInt(4) == 0 ? rnd.nextInt(3) : 7;
        boolean srq = features().srq() && rnd.nextInt(4) == 0;
        QpOptions o = QpOptions.rc().withCap(new QpCap(8, 8, 2, 2, 0)).withCqDepth(1024).withRnrRetry(rnrRetry)
                .withMinRnrTimer(QpOptions.FAST_RNR_TIMER).withSrq(srq ? 8 : 0);
        List<String> log = new ArrayList<>();
        try (EndpointPair p = fixture().connect(o)) {
            Side[] sides = {new Side(0, p.a()), new Side(1, p.b())};
            int errStep = rnd.nextInt(steps + 1);
            for (int step = 0; step < steps; step++) {
                if (step == errStep) {
                    Side s = sides[rnd.nextInt(2)];
                    log.add(step + ": side " + s.index + " -> ERR");
                    s.e.qp().modify(new QpAttr().qpState(QpState.ERR));
                }
                Side s = sides[rnd.nextInt(2)];
                Side peer = sides[1 - s.index];
                int r = rnd.nextInt(100);
                if (r < 40) {
                    postSends(rnd, s, peer, log, step);
                } else if (r < 70) {
                    postRecvs(rnd, s, log, step);
                } else if (r < 95) {
                    poll(s, log);
                } else {
                    Thread.yield();
                }
            }
            for (Side s : sides) {
                s.e.qp().modify(new QpAttr().qpState(QpState.ERR));
            }
            Await.until("both QPs to retire every WR", Await.DEFAULT, () -> {
                for (Side s : sides) {
                    if (s.e.qp().sendQueueDepth() != 0 || s.e.qp().recvQueueDepth() != 0) {
                        return false;
                    }
                }
                return true;
            });
            for (Side s : sides) {
                if (srq) {
                    // The QP flushes the receive it took from the SRQ; the rest stay in the SRQ.
                    Await.until("side " + s.index + "'s receives to be accounted for", Await.DEFAULT, () -> {
                        poll(s, log);
                        return s.seenRecvs() + s.e.srq().posted() == s.postedRecvs();
                    });
                }
                poll(s, log);
                for (Map.Entry<Long, Posted> w : s.posted.entrySet()) {
                    Kind kind = w.getValue().kind();
                    boolean must = kind == Kind.SIGNALED_SEND || (kind == Kind.RECV && !srq);
                    if (must && !s.seen.containsKey(w.getKey())) {
                        throw new AssertionError("side " + s.index + ": WR 0x" + Long.toHexString(w.getKey()) + " "
                                + w.getValue() + " never completed; log " + tail(log));
                    }
                }
            }
        }
    }

    private void postSends(RandomGenerator rnd, Side s, Side peer, List<String> log, int step) {
        List<WrOpcode> ops = new ArrayList<>(List.of(WrOpcode.SEND, WrOpcode.RDMA_WRITE, WrOpcode.RDMA_READ));
        if (features().immediateData()) {
            ops.add(WrOpcode.SEND_WITH_IMM);
            ops.add(WrOpcode.RDMA_WRITE_WITH_IMM);
        }
        if (features().atomics()) {
            ops.add(WrOpcode.ATOMIC_CMP_AND_SWP);
            ops.add(WrOpcode.ATOMIC_FETCH_AND_ADD);
        }
        int n = 1 + rnd.nextInt(3);
        SendWr[] chain = new SendWr[n];
        for (int i = 0; i < n; i++) {
            WrOpcode op = ops.get(rnd.nextInt(ops.size()));
            boolean signaled = rnd.nextInt(10) < 7;
            int rkey = rnd.nextInt(12) == 0 ? peer.target.mr().rkey() ^ 0x3C : peer.target.mr().rkey();
            int off = 8 * rnd.nextInt(64);
            int len = rnd.nextInt(65);
            SendWr w = new SendWr().wrId(s.nextId()).opcode(op).flags(signaled ? SendFlags.SIGNALED : 0);
            if (op.isAtomic()) {
                w.sg(s.local.mr(), off, 8).atomic(peer.target.addr(off), rkey, rnd.nextLong(), rnd.nextLong());
            } else {
                w.sg(s.local.mr(), off, len).rdma(peer.target.addr(off), rkey).immData(rnd.nextInt());
            }
            chain[i] = w;
            if (i > 0) {
                chain[i - 1].next(w);
            }
        }
        int posted = s.e.qp().postSend(chain[0]);
        for (int i = 0; i < posted; i++) {
            SendWr w = chain[i];
            boolean signaled = (w.flags() & SendFlags.SIGNALED) != 0;
            s.posted.put(w.wrId(), new Posted(signaled ? Kind.SIGNALED_SEND : Kind.UNSIGNALED_SEND, w.opcode()));
        }
        log.add(step + ": side " + s.index + " posted " + posted + "/" + n + " sends");
    }

    private void postRecvs(RandomGenerator rnd, Side s, List<String> log, int step) {
        int n = 1 + rnd.nextInt(3);
        RecvWr[] chain = new RecvWr[n];
        for (int i = 0; i < n; i++) {
            int len = rnd.nextInt(10) == 0 ? 16 : 64;
            chain[i] = new RecvWr().wrId(s.nextId()).sg(s.local.mr(), 2048 + 64L * rnd.nextInt(24), len);
            if (i > 0) {
                chain[i - 1].next(chain[i]);
            }
        }
        int posted = s.e.srq() != null ? s.e.srq().postRecv(chain[0]) : s.e.qp().postRecv(chain[0]);
        for (int i = 0; i < posted; i++) {
            s.posted.put(chain[i].wrId(), new Posted(Kind.RECV, null));
        }
        log.add(step + ": side " + s.index + " posted " + posted + "/" + n + " receives");
    }

    private static void poll(Side s, List<String> log) {
        int k;
        while ((k = s.e.cq().poll(s.wc)) > 0) {
            for (int i = 0; i < k; i++) {
                Completion c = Completion.of(s.wc[i]);
                Posted w = s.posted.get(c.wrId());
                if (w == null) {
                    throw new AssertionError("side " + s.index + ": completion of a WR never posted: " + c + "; log "
                            + tail(log));
                }
                Completion earlier = s.seen.put(c.wrId(), c);
                if (earlier != null) {
                    throw new AssertionError("side " + s.index + ": WR 0x" + Long.toHexString(c.wrId())
                            + " completed twice: " + earlier + " then " + c + "; log " + tail(log));
                }
                if (w.kind() == Kind.UNSIGNALED_SEND && c.isSuccess()) {
                    throw new AssertionError("side " + s.index + ": an unsignaled WR reported success: " + c);
                }
                if (c.qpNum() != s.e.qp().qpNum()) {
                    throw new AssertionError("side " + s.index + ": completion names QP 0x"
                            + Integer.toHexString(c.qpNum()) + ": " + c);
                }
                if (c.isSuccess()) {
                    WcOpcode want = w.kind() == Kind.RECV ? null : w.opcode().completionOpcode();
                    boolean ok = want == null ? c.opcode() == WcOpcode.RECV || c.opcode() == WcOpcode.RECV_RDMA_WITH_IMM
                            : c.opcode() == want;
                    if (!ok) {
                        throw new AssertionError("side " + s.index + ": " + w + " completed as " + c);
                    }
                }
            }
            log.add("side " + s.index + " polled " + k);
        }
    }

    private static String tail(List<String> log) {
        return log.subList(Math.max(0, log.size() - 30), log.size()).toString();
    }
}
