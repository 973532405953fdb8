package io.jrdma.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import java.io.ByteArrayOutputStream;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The RC data path: SEND/RECV (gather, scatter, zero length, immediate data, invalidate), RDMA
 * WRITE (with immediate), RDMA READ, the atomics, LOCAL_INV, fences and ordering, each checked byte
 * for byte with canary-guarded buffers.
 */
abstract class DataTransferChecks extends SuiteChecks {
    /** Atomics work on host-order 64-bit words (rxe and loop operate on the responder's memory). */
    static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.nativeOrder());

    DataTransferChecks(SuiteSupport support) {
        super(support);
    }

    @Test
    void aSendPlacesItsBytesInThePostedReceive() {
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, LOCAL, 2);
        byte[] before = b.snapshot();
        post(p.b(), recv(9, b, 100, 2000));
        post(p.a().qp(), send(1, a, 10, 1000));
        Completion s = expect(p.a(), 1, WcStatus.SUCCESS);
        assertThat(s.opcode()).isEqualTo(WcOpcode.SEND);
        assertThat(s.qpNum()).isEqualTo(p.a().qp().qpNum());
        Completion r = expect(p.b(), 9, WcStatus.SUCCESS);
        assertThat(r.opcode()).isEqualTo(WcOpcode.RECV);
        assertThat(r.byteLen()).isEqualTo(1000);
        assertThat(r.qpNum()).isEqualTo(p.b().qp().qpNum());
        assertThat(r.hasImm()).isFalse();
        assertThat(b.body().asSlice(100, 1000).toArray(ValueLayout.JAVA_BYTE))
                .isEqualTo(a.body().asSlice(10, 1000).toArray(ValueLayout.JAVA_BYTE));
        b.assertOnlyChanged(before, 100, 1000);
    }

    @Test
    void aSendGathersSeveralSgesAndTheReceiveScattersAcrossSeveral() {
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, LOCAL, 2);
        byte[] before = b.snapshot();
        long[][] gather = {{0, 100}, {1000, 200}, {3000, 50}};
        long[][] scatter = {{0, 60}, {500, 90}, {2000, 150}, {3500, 100}};
        SendWr s = new SendWr().wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).numSge(gather.length);
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        for (int i = 0; i < gather.length; i++) {
            s.sge(i).set(a.mr(), gather[i][0], (int) gather[i][1]);
            stream.writeBytes(a.body().asSlice(gather[i][0], gather[i][1]).toArray(ValueLayout.JAVA_BYTE));
        }
        RecvWr r = new RecvWr().wrId(9).numSge(scatter.length);
        for (int i = 0; i < scatter.length; i++) {
            r.sge(i).set(b.mr(), scatter[i][0], (int) scatter[i][1]);
        }
        post(p.b(), r);
        post(p.a().qp(), s);
        expect(p.a(), 1, WcStatus.SUCCESS);
        assertThat(expect(p.b(), 9, WcStatus.SUCCESS).byteLen()).isEqualTo(350);
        byte[] sent = stream.toByteArray();
        byte[] expected = before.clone();
        int pos = 0;
        for (long[] sg : scatter) {
            int n = (int) Math.min(sg[1], sent.length - pos);
            System.arraycopy(sent, pos, expected, (int) sg[0], n);
            pos += n;
        }
        assertThat(b.snapshot()).isEqualTo(expected);
        b.assertGuardsIntact();
    }

    @Test
    void aZeroLengthSendConsumesAReceiveWithByteLenZero() {
        EndpointPair p = rc();
        CanaryBuffer b = buffer(p.b(), SIZE, LOCAL, 2);
        byte[] before = b.snapshot();
        post(p.b(), recv(9, b, 0, 64));
        post(p.a().qp(), new SendWr().wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED));
        expect(p.a(), 1, WcStatus.SUCCESS);
        assertThat(expect(p.b(), 9, WcStatus.SUCCESS).byteLen()).isZero();
        b.assertUnchanged(before);
    }

    @Test
    void sendWithImmediateDeliversTheImmediateData() {
        assume(features().immediateData(), "immediate data");
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, LOCAL, 2);
        post(p.b(), recv(9, b, 0, 64));
        post(p.a().qp(), send(1, a, 0, 16).opcode(WrOpcode.SEND_WITH_IMM).immData(0xCAFE_BABE));
        expect(p.a(), 1, WcStatus.SUCCESS);
        Completion r = expect(p.b(), 9, WcStatus.SUCCESS);
        assertThat(r.opcode()).isEqualTo(WcOpcode.RECV);
        assertThat(r.hasImm()).isTrue();
        assertThat(r.immOrInvalidate()).isEqualTo(0xCAFE_BABE);
        assertThat(r.byteLen()).isEqualTo(16);
    }

    @Test
    void sendWithInvalidateInvalidatesTheRkeyAtTheResponder() {
        assume(features().sendWithInvalidate(), "SEND with invalidate");
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, LOCAL, 2);
        CanaryBuffer target = buffer(p.b(), SIZE, ALL, 3);
        byte[] before = target.snapshot();
        post(p.b(), recv(9, b, 0, 64));
        post(p.a().qp(), send(1, a, 0, 16).opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(target.mr().rkey()));
        expect(p.a(), 1, WcStatus.SUCCESS);
        Completion r = expect(p.b(), 9, WcStatus.SUCCESS);
        assertThat(r.hasInv()).isTrue();
        assertThat(r.immOrInvalidate()).isEqualTo(target.mr().rkey());
        assertThat(target.mr().isValid()).isFalse();
        post(p.a().qp(), write(2, a, 0, 64, target, 0));
        expectRefused(p.a(), 2, WrOpcode.RDMA_WRITE, WcStatus.REM_ACCESS_ERR);
        target.assertUnchanged(before);
    }

    @Test
    void anRdmaWriteChangesOnlyTheTargetedBytesAndConsumesNoReceive() {
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, ALL, 2);
        byte[] before = b.snapshot();
        post(p.b(), recv(9, b, 0, 64));
        post(p.a().qp(), write(1, a, 50, 300, b, 100));
        Completion c = expect(p.a(), 1, WcStatus.SUCCESS);
        awaitPlaced(b.body().asSlice(100, 300), a.body().asSlice(50, 300));
        assertThat(c.opcode()).isEqualTo(WcOpcode.RDMA_WRITE);
        assertThat(b.body().asSlice(100, 300).toArray(ValueLayout.JAVA_BYTE))
                .isEqualTo(a.body().asSlice(50, 300).toArray(ValueLayout.JAVA_BYTE));
        b.assertOnlyChanged(before, 100, 300);
        Await.noCompletion(p.b().cq(), Await.QUIET);
        assertThat(p.b().qp().recvQueueDepth()).isEqualTo(1);
    }

    @Test
    void anRdmaWriteWithImmediateConsumesAReceiveAndReportsItsLength() {
        assume(features().immediateData(), "immediate data");
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, LOCAL, 2);
        CanaryBuffer target = buffer(p.b(), SIZE, ALL, 3);
        byte[] recvBefore = b.snapshot();
        byte[] targetBefore = target.snapshot();
        post(p.b(), recv(9, b, 0, 64));
        post(p.a().qp(), write(1, a, 0, 200, target, 8).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(7));
        expect(p.a(), 1, WcStatus.SUCCESS);
        Completion r = expect(p.b(), 9, WcStatus.SUCCESS);
        assertThat(r.opcode()).isEqualTo(WcOpcode.RECV_RDMA_WITH_IMM);
        assertThat(r.hasImm()).isTrue();
        assertThat(r.immOrInvalidate()).isEqualTo(7);
        assertThat(r.byteLen()).isEqualTo(200);
        b.assertUnchanged(recvBefore);
        target.assertOnlyChanged(targetBefore, 8, 200);
        assertThat(DataPattern.matches(target.body(), 8, 200, 1)).isTrue();
    }

    @Test
    void anRdmaReadFetchesRemoteBytesIntoTheScatterList() {
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, ALL, 2);
        byte[] aBefore = a.snapshot();
        byte[] bBefore = b.snapshot();
        // Scatter over two SGEs where the device allows it (max_sge_rd; siw: 1).
        int maxSgeRd = p.a().context().queryDevice().maxSgeRd();
        long[][] scatter = maxSgeRd >= 2 ? new long[][] {{0, 300}, {1000, 200}} : new long[][] {{0, 500}};
        SendWr rd = new SendWr().wrId(1).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED).numSge(scatter.length)
                .rdma(b.addr(50), b.mr().rkey());
        for (int i = 0; i < scatter.length; i++) {
            rd.sge(i).set(a.mr(), scatter[i][0], (int) scatter[i][1]);
        }
        post(p.a().qp(), rd);
        Completion c = expect(p.a(), 1, WcStatus.SUCCESS);
        assertThat(c.opcode()).isEqualTo(WcOpcode.RDMA_READ);
        assertThat(c.byteLen()).isEqualTo(500);
        byte[] expected = aBefore.clone();
        int pos = 50;
        for (long[] sg : scatter) {
            System.arraycopy(bBefore, pos, expected, (int) sg[0], (int) sg[1]);
            pos += (int) sg[1];
        }
        assertThat(a.snapshot()).isEqualTo(expected);
        a.assertGuardsIntact();
        b.assertUnchanged(bBefore);
    }

    @Test
    void anRdmaReadWithMoreSgesThanMaxSgeRdIsRejectedAtPost() {
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, ALL, 2);
        int maxSgeRd = p.a().context().queryDevice().maxSgeRd();
        int n = maxSgeRd + 1;
        assume(n <= p.a().qp().initAttr().cap().maxSendSge(), "a send queue with more than max_sge_rd SGEs");
        SendWr rd = new SendWr().wrId(1).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED).numSge(n)
                .rdma(b.addr(0), b.mr().rkey());
        for (int i = 0; i < n; i++) {
            rd.sge(i).set(a.mr(), 64L * i, 16);
        }
        assertThatThrownBy(() -> p.a().qp().postSend(rd))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("max_sge_rd");
        assertThat(p.a().qp().sendQueueDepth()).isZero();
    }

    @Test
    void zeroLengthRdmaOperationsNeedNoValidRkey() {
        EndpointPair p = rc();
        post(p.a().qp(), new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                .rdma(0, 0x00BAD000));
        expect(p.a(), 1, WcStatus.SUCCESS);
        post(p.a().qp(), new SendWr().wrId(2).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                .rdma(0, 0x00BAD000));
        assertThat(expect(p.a(), 2, WcStatus.SUCCESS).byteLen()).isZero();
        assertThat(p.a().qp().state()).isEqualTo(QpState.RTS);
    }

    @Test
    void compareAndSwapSwapsOnlyWhenEqualAndReturnsTheOriginal() {
        assume(features().atomics(), "atomics");
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, ALL, 2);
        b.body().set(WORD, 8, 5L);
        byte[] before = b.snapshot();
        post(p.a().qp(), cas(1, a, 0, b, 8, 5, 9));
        Completion c = expect(p.a(), 1, WcStatus.SUCCESS);
        assertThat(c.opcode()).isEqualTo(WcOpcode.COMP_SWAP);
        assertThat(c.byteLen()).isEqualTo(8);
        assertThat(a.body().get(WORD, 0)).isEqualTo(5L);
        assertThat(b.body().get(WORD, 8)).isEqualTo(9L);
        post(p.a().qp(), cas(2, a, 16, b, 8, 5, 11));
        expect(p.a(), 2, WcStatus.SUCCESS);
        assertThat(a.body().get(WORD, 16)).as("the original value").isEqualTo(9L);
        assertThat(b.body().get(WORD, 8)).as("unchanged: 9 is not 5").isEqualTo(9L);
        b.assertOnlyChanged(before, 8, 8);
    }

    @Test
    void fetchAndAddAddsAndReturnsTheOriginalWrappingAround() {
        assume(features().atomics(), "atomics");
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, ALL, 2);
        b.body().set(WORD, 0, 40L);
        b.body().set(WORD, 64, -1L);
        post(p.a().qp(), faa(1, a, 0, b, 0, 2));
        Completion c = expect(p.a(), 1, WcStatus.SUCCESS);
        assertThat(c.opcode()).isEqualTo(WcOpcode.FETCH_ADD);
        assertThat(a.body().get(WORD, 0)).isEqualTo(40L);
        assertThat(b.body().get(WORD, 0)).isEqualTo(42L);
        post(p.a().qp(), faa(2, a, 8, b, 64, 1));
        expect(p.a(), 2, WcStatus.SUCCESS);
        assertThat(a.body().get(WORD, 8)).isEqualTo(-1L);
        assertThat(b.body().get(WORD, 64)).isZero();
    }

    @Test
    void aMisalignedAtomicIsAnInvalidRequest() {
        assume(features().atomics(), "atomics");
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, ALL, 2);
        byte[] before = b.snapshot();
        if (!features().misalignedAtomicsReachResponder()) {
            // rdma-core's rxe provider refuses it at the post (Features#misalignedAtomicsReachResponder).
            assertThatThrownBy(() -> p.a().qp().postSend(faa(1, a, 0, b, 4, 1)))
                    .isInstanceOf(IllegalArgumentException.class);
            Await.noCompletion(p.a().cq(), Await.QUIET);
            assertThat(p.a().qp().state()).isEqualTo(QpState.RTS);
            b.assertUnchanged(before);
            return;
        }
        post(p.a().qp(), faa(1, a, 0, b, 4, 1));
        expect(p.a(), 1, WcStatus.REM_INV_REQ_ERR);
        Await.state(p.a().qp(), QpState.ERR);
        b.assertUnchanged(before);
    }

    @Test
    void localInvalidateMakesTheKeyUnusableForPeers() {
        assume(features().localInvalidate(), "LOCAL_INV");
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, ALL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, LOCAL, 2);
        byte[] before = a.snapshot();
        post(p.a().qp(), new SendWr().wrId(1).opcode(WrOpcode.LOCAL_INV).flags(SendFlags.SIGNALED)
                .invalidateRkey(a.mr().lkey()));
        Completion c = expect(p.a(), 1, WcStatus.SUCCESS);
        assertThat(c.opcode()).isEqualTo(WcOpcode.LOCAL_INV);
        assertThat(a.mr().isValid()).isFalse();
        post(p.b().qp(), write(2, b, 0, 64, a, 0));
        expectRefused(p.b(), 2, WrOpcode.RDMA_WRITE, WcStatus.REM_ACCESS_ERR);
        a.assertUnchanged(before);
    }

    @Test
    void localInvalidateOfAnUnknownKeyIsALocalQpOperationError() {
        assume(features().localInvalidate(), "LOCAL_INV");
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, ALL, 1);
        post(p.a().qp(), new SendWr().wrId(1).opcode(WrOpcode.LOCAL_INV).flags(SendFlags.SIGNALED)
                .invalidateRkey(a.mr().lkey() ^ 0xFF));
        expect(p.a(), 1, WcStatus.LOC_QP_OP_ERR);
        assertThat(a.mr().isValid()).isTrue();
        Await.state(p.a().qp(), QpState.ERR);
    }

    @Test
    void aFencedWorkRequestWaitsForTheReadsBeforeIt() {
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, ALL, 2);
        byte[] original = b.snapshot();
        // The READ fetches b[0,256); the fenced WRITE then overwrites b[0,256) with other bytes.
        post(p.a().qp(), read(1, a, 0, 256, b, 0).next(write(2, a, 1024, 256, b, 0)
                .flags(SendFlags.SIGNALED | SendFlags.FENCE)));
        assertThat(Await.completions(p.a().cq(), 2)).extracting(Completion::wrId).containsExactly(1L, 2L);
        awaitPlaced(b.body().asSlice(0, 256), a.body().asSlice(1024, 256));
        assertThat(a.body().asSlice(0, 256).toArray(ValueLayout.JAVA_BYTE))
                .isEqualTo(Arrays.copyOfRange(original, 0, 256));
        assertThat(b.body().asSlice(0, 256).toArray(ValueLayout.JAVA_BYTE))
                .isEqualTo(a.body().asSlice(1024, 256).toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void completionsOfOneSendQueueArriveInPostingOrder() {
        EndpointPair p = connect(QpOptions.rc().withCap(new QpCap(64, 64, 1, 1, 0)).withCqDepth(256));
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, ALL, 2);
        for (int i = 0; i < 32; i++) {
            post(p.b(), recv(1000 + i, b, 64L * i, 64));
        }
        for (int i = 0; i < 32; i++) {
            post(p.a().qp(), i % 2 == 0 ? send(i, a, 0, 32) : write(i, a, 0, 32, b, 2048 + 32L * i));
        }
        assertThat(Await.completions(p.a().cq(), 32)).extracting(Completion::wrId)
                .isSorted().doesNotHaveDuplicates().hasSize(32);
        assertThat(Await.completions(p.b().cq(), 16)).extracting(Completion::wrId).isSorted();
    }

    @Test
    void aLargeMessageSpanningManyMtusArrivesIntact() {
        int len = (1 << 20) + 3;
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), len, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), len, ALL, 2);
        CanaryBuffer back = buffer(p.a(), len, LOCAL, 3);
        long crc = DataPattern.crc(a.body(), 0, len);
        post(p.b(), recv(9, b, 0, len));
        post(p.a().qp(), send(1, a, 0, len));
        assertThat(expect(p.b(), 9, WcStatus.SUCCESS).byteLen()).isEqualTo(len);
        expect(p.a(), 1, WcStatus.SUCCESS);
        assertThat(DataPattern.crc(b.body(), 0, len)).isEqualTo(crc);
        b.fill(4);
        post(p.a().qp(), write(2, a, 0, len, b, 0));
        expect(p.a(), 2, WcStatus.SUCCESS);
        awaitPlaced(b.body().asSlice(0, len), a.body().asSlice(0, len));
        assertThat(DataPattern.crc(b.body(), 0, len)).isEqualTo(crc);
        post(p.a().qp(), read(3, back, 0, len, b, 0));
        assertThat(expect(p.a(), 3, WcStatus.SUCCESS).byteLen()).isEqualTo(len);
        assertThat(DataPattern.crc(back.body(), 0, len)).isEqualTo(crc);
        back.assertGuardsIntact();
        b.assertGuardsIntact();
    }

    static SendWr cas(long id, CanaryBuffer sink, long off, CanaryBuffer target, long targetOff, long compare,
            long swap) {
        return new SendWr().wrId(id).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).flags(SendFlags.SIGNALED)
                .sg(sink.mr(), off, 8).atomic(target.addr(targetOff), target.mr().rkey(), compare, swap);
    }

    static SendWr faa(long id, CanaryBuffer sink, long off, CanaryBuffer target, long targetOff, long add) {
        return new SendWr().wrId(id).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).flags(SendFlags.SIGNALED)
                .sg(sink.mr(), off, 8).atomic(target.addr(targetOff), target.mr().rkey(), add, 0);
    }
}
