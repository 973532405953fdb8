package io.jrdma.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;

/**
 * The base of the conformance suite's test groups: access to the running test's fixture and the
 * helpers every group uses to build work requests, buffers and expectations.
 */
abstract class SuiteChecks {
    /** Every access flag. */
    static final int ALL = Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE | Access.REMOTE_ATOMIC;
    /** Local write only. */
    static final int LOCAL = Access.LOCAL_WRITE;
    /** The usual buffer size. */
    static final int SIZE = 4096;

    private final SuiteSupport support;

    SuiteChecks(SuiteSupport support) {
        this.support = support;
    }

    /** The fixture of the running test. */
    VerbsFixture fixture() {
        return support.fixture();
    }

    /**
     * Whether the group checks only what stays on the host (device queries, memory registration, CQs,
     * the QP state machine, posting rules, resource limits): nothing the transport's address family could
     * change, so a {@link VerbsFixture#secondFamily()} run skips it.
     */
    boolean hostLocal() {
        return false;
    }

    @BeforeEach
    void notAHostLocalGroupOfASecondFamily() {
        Assumptions.assumeFalse(hostLocal() && fixture().secondFamily(),
                "host-local checks run with the provider's first-family fixture");
    }

    /** The transport's features. */
    Features features() {
        return fixture().features();
    }

    /** Skips the test unless the transport has {@code what}. */
    void assume(boolean available, String what) {
        Assumptions.assumeTrue(available, () -> fixture().device().name() + " does not offer " + what);
    }

    /** A pair of endpoints with {@code o}, closed when the test ends. */
    EndpointPair connect(QpOptions o) {
        return support.track(fixture().connect(o));
    }

    /** A pair whose {@code b} side shares {@code share}'s context, PD, CQ and SRQ. */
    EndpointPair connect(QpOptions o, Endpoint share) {
        return support.track(fixture().connect(o, share));
    }

    /** A connected RC pair with the default options. */
    EndpointPair rc() {
        return connect(QpOptions.rc());
    }

    /** A context on the device, closed when the test ends. */
    Context openContext() {
        return support.track(fixture().device().open());
    }

    /** Closes {@code r} when the test ends. */
    <T extends AutoCloseable> T track(T r) {
        return support.track(r);
    }

    /** A native canary buffer registered in {@code e}'s PD, freed after the endpoint closes. */
    static CanaryBuffer buffer(Endpoint e, int size, int access, long seed) {
        return e.onClose(CanaryBuffer.register(e.pd(), MemoryKind.NATIVE, size, access, seed));
    }

    /** A canary buffer of {@code kind} memory registered in {@code e}'s PD. */
    static CanaryBuffer buffer(Endpoint e, MemoryKind kind, int size, int access, long seed) {
        return e.onClose(CanaryBuffer.register(e.pd(), kind, size, access, seed));
    }

    /** A native canary buffer registered in another PD, freed when the test ends. */
    CanaryBuffer buffer(ProtectionDomain pd, int size, int access, long seed) {
        return track(CanaryBuffer.register(pd, MemoryKind.NATIVE, size, access, seed));
    }

    /** A QP of {@code type} in RESET, with its own PD and CQ in {@code ctx}. */
    static QueuePair standaloneQp(Context ctx, QpType type) {
        ProtectionDomain pd = ctx.allocPd();
        CompletionQueue cq = ctx.createCq(16);
        return pd.createQp(QpInitAttr.of(type, cq, new QpCap(4, 4, 1, 1, 0)));
    }

    // ------------------------------------------------------------------------------ work requests

    /** A signaled SEND of {@code len} bytes of {@code src} at {@code off}. */
    static SendWr send(long id, CanaryBuffer src, long off, int len) {
        return new SendWr().wrId(id).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(src.mr(), off, len);
    }

    /** A signaled RDMA WRITE of {@code src[off, off+len)} to {@code dst} at {@code dstOff}. */
    static SendWr write(long id, CanaryBuffer src, long off, int len, CanaryBuffer dst, long dstOff) {
        return new SendWr().wrId(id).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sg(src.mr(), off, len)
                .rdma(dst.addr(dstOff), dst.mr().rkey());
    }

    /** A signaled RDMA READ of {@code src[srcOff, srcOff+len)} into {@code sink} at {@code off}. */
    static SendWr read(long id, CanaryBuffer sink, long off, int len, CanaryBuffer src, long srcOff) {
        return new SendWr().wrId(id).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED).sg(sink.mr(), off, len)
                .rdma(src.addr(srcOff), src.mr().rkey());
    }

    /** A receive of up to {@code len} bytes into {@code dst} at {@code off}. */
    static RecvWr recv(long id, CanaryBuffer dst, long off, int len) {
        return new RecvWr().wrId(id).sg(dst.mr(), off, len);
    }

    /** Links receives into a chain (note that {@code a.next(b).next(c)} would link a to c). */
    static RecvWr chain(RecvWr... wrs) {
        for (int i = 1; i < wrs.length; i++) {
            wrs[i - 1].next(wrs[i]);
        }
        return wrs[0];
    }

    /** Links sends into a chain. */
    static SendWr chain(SendWr... wrs) {
        for (int i = 1; i < wrs.length; i++) {
            wrs[i - 1].next(wrs[i]);
        }
        return wrs[0];
    }

    /** The length of a send chain. */
    static int length(SendWr wr) {
        int n = 0;
        for (SendWr w = wr; w != null; w = w.next()) {
            n++;
        }
        return n;
    }

    /** The length of a receive chain. */
    static int length(RecvWr wr) {
        int n = 0;
        for (RecvWr w = wr; w != null; w = w.next()) {
            n++;
        }
        return n;
    }

    /** Posts a send chain and asserts every WR of it was posted. */
    static void post(QueuePair qp, SendWr wr) {
        assertThat(qp.postSend(wr)).as("send WRs posted").isEqualTo(length(wr));
    }

    /** Posts a receive chain to {@code e}'s SRQ if it has one, else to its QP; asserts all were posted. */
    static void post(Endpoint e, RecvWr wr) {
        int n = e.srq() != null ? e.srq().postRecv(wr) : e.qp().postRecv(wr);
        assertThat(n).as("receive WRs posted").isEqualTo(length(wr));
    }

    /** The next completion of {@code e}'s CQ. */
    static Completion one(Endpoint e) {
        return Await.completion(e.cq());
    }

    /** Asserts the next completion of {@code e} is {@code id} with {@code status}; returns it. */
    static Completion expect(Endpoint e, long id, WcStatus status) {
        Completion c = one(e);
        assertThat(c.wrId()).as("wr_id of " + c).isEqualTo(id);
        assertThat(c.status()).as("status of " + c).isEqualTo(status);
        return c;
    }

    /**
     * Asserts that WR {@code id} of {@code e}, whose SGE names a key that is no valid region of its PD
     * (never registered, deregistered, invalidated), completes with a local error. The transports differ in
     * which: Linux rxe's requester answers LOC_QP_OP_ERR (copy_data's region lookup fails with EINVAL;
     * only an address outside a valid region is LOC_PROT_ERR), while siw, loop and jrdma's rxe answer
     * LOC_PROT_ERR.
     */
    static Completion expectBadLocalKey(Endpoint e, long id) {
        return expectOneOf(e, id, WcStatus.LOC_PROT_ERR, WcStatus.LOC_QP_OP_ERR);
    }

    /** Asserts that the next completion of {@code e} is WR {@code id} with one of {@code statuses}. */
    static Completion expectOneOf(Endpoint e, long id, WcStatus... statuses) {
        Completion c = one(e);
        assertThat(c.wrId()).as("wr_id of " + c).isEqualTo(id);
        assertThat(c.status()).as("status of " + c).isIn((Object[]) statuses);
        return c;
    }

    /**
     * Asserts how requester {@code e} learns that its peer refused WR {@code id} (a remote access
     * violation): with {@link Features#ackedRequests()} the WR completes with {@code ibStatus}; on iWARP
     * an RDMA WRITE or SEND completes successfully (it was handed to TCP) and an RDMA READ with
     * REM_ACCESS_ERR (from the TERMINATE). Either way the requester QP then ends in ERR.
     */
    void expectRefused(Endpoint e, long id, WrOpcode op, WcStatus ibStatus) {
        if (features().ackedRequests()) {
            expect(e, id, ibStatus);
        } else {
            expect(e, id, op == WrOpcode.RDMA_READ ? WcStatus.REM_ACCESS_ERR : WcStatus.SUCCESS);
        }
        Await.state(e.qp(), io.jrdma.verbs.QpState.ERR);
    }

    /**
     * Waits until an RDMA WRITE that completed at the requester shows in the responder's memory
     * {@code dst} as {@code expected}: nothing to wait for with {@link Features#ackedRequests()}; on
     * iWARP the WRITE completed once it was handed to TCP, and its bytes may still be on their way.
     */
    void awaitPlaced(MemorySegment dst, MemorySegment expected) {
        if (!features().ackedRequests()) {
            Await.until("the RDMA WRITE placed at the responder", Await.DEFAULT, () -> dst.mismatch(expected) < 0);
        }
    }

    /**
     * Asserts that {@code cq} delivers the send WRs {@code sendIds} and the receives {@code recvIds} of
     * QP {@code qpNum}, each exactly once and nothing more: the receives flushed, the sends flushed — or,
     * on a transport without {@link Features#ackedRequests() acknowledgements}, successful when they
     * were handed to the transport before the QP failed, which can only be true of a prefix of them.
     */
    void assertCompletedOnce(CompletionQueue cq, int qpNum, Collection<Long> sendIds, Collection<Long> recvIds) {
        if (features().ackedRequests()) {
            List<Long> all = new ArrayList<>(sendIds);
            all.addAll(recvIds);
            assertFlushedOnce(cq, qpNum, all);
            return;
        }
        List<Completion> got = Await.completions(cq, sendIds.size() + recvIds.size());
        List<Long> gotIds = new ArrayList<>();
        boolean flushed = false;
        for (Completion c : got) {
            assertThat(c.qpNum()).as("qp_num of " + c).isEqualTo(qpNum);
            gotIds.add(c.wrId());
            if (recvIds.contains(c.wrId())) {
                assertThat(c.status()).as("status of " + c).isEqualTo(WcStatus.WR_FLUSH_ERR);
            } else if (c.status() == WcStatus.WR_FLUSH_ERR) {
                flushed = true;
            } else {
                assertThat(c.status()).as("status of " + c + " (a send after a flushed one)").isEqualTo(
                        WcStatus.SUCCESS);
                assertThat(flushed).as(c + " succeeded after an earlier send was flushed").isFalse();
            }
        }
        List<Long> want = new ArrayList<>(sendIds);
        want.addAll(recvIds);
        assertThat(gotIds).containsExactlyInAnyOrderElementsOf(want);
        Await.noCompletion(cq, Await.QUIET);
    }

    /**
     * Asserts that {@code cq} delivers exactly the WRs {@code ids}, each once, each with
     * WR_FLUSH_ERR and the QP number {@code qpNum}, and nothing more.
     */
    static void assertFlushedOnce(CompletionQueue cq, int qpNum, Collection<Long> ids) {
        List<Completion> got = Await.completions(cq, ids.size());
        List<Long> gotIds = new ArrayList<>();
        for (Completion c : got) {
            assertThat(c.status()).as("status of " + c).isEqualTo(WcStatus.WR_FLUSH_ERR);
            assertThat(c.qpNum()).as("qp_num of " + c).isEqualTo(qpNum);
            gotIds.add(c.wrId());
        }
        assertThat(gotIds).containsExactlyInAnyOrderElementsOf(ids);
        Await.noCompletion(cq, Await.QUIET);
    }
}
